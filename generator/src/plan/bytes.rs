//! What a plan's units hold in memory, by material: the slices solved at once, a seed part,
//! the cache of decompressed blocks, a material read back from its tables. Counted from the
//! material alone, without building its index; and memory sizes as users write them.

use rafle_probe::toolkit::cache::ENTRY_OVERHEAD;
use rafle_probe::{
    draughts::{Material, Variant},
    toolkit::{binomial, PositionIndex},
};

use crate::work::packed::BLOCK_POSITIONS;
use crate::work::values::BYTES_PER_POSITION;

/// The probe's block cache while a material is read back block by block: decoded blocks of
/// the material's own three tables (a block of 65,536 positions is 16 KiB of win/draw/loss
/// codes, 64–128 KiB of distances and 64 KiB of rule codes).
pub(crate) const STREAMED_CACHE_BYTES: u64 = 192 << 20;

/// Memory a read-back block by block holds besides the run's own: the probe's cache, the
/// blocks being packed (a batch of packed blocks per thread, 3 bytes a position each, and
/// their compressed bytes) and the tables' block indices.
pub(crate) const STREAMED_BYTES: u64 = STREAMED_CACHE_BYTES + (64 << 20);

/// Bytes beyond the tables: thread stacks, move lists, indexes, the allocator's slack, the
/// blocks of a table being written, the blocks each thread keeps at hand.
pub(super) const OVERHEAD: u64 = 256 << 20;

// The blocks kept at hand take a small part of the overhead even with many threads.
const _: () = assert!(64 * crate::work::packed::AT_HAND_BYTES <= OVERHEAD / 8);

/// Slices of one band that may be under way at once (rayon's threads steal other slices while
/// they wait inside one).
const SLICES_IN_FLIGHT: u64 = 8;

/// The least the cache of decompressed blocks holds, however tight the budget: enough for the
/// blocks a band keeps returning to.
pub(crate) const LEAST_CACHE_BYTES: u64 = 64 << 20;

/// How a material's positions split into slices: the placements of its men (one side to
/// move), and of its kings around one placement of the men, as [`PositionIndex`] numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Placements {
    pub(super) men: u64,
    pub(super) kings: u64,
    /// Whether the material has no men: one slice.
    pub(super) kings_only: bool,
}

impl Placements {
    /// The placements of `material`, counted without building its index: building one walks
    /// every placement of White's men (a second or more for six men on the international
    /// board), and a plan of international up to 7 or 8 pieces wants them for every material
    /// it reads, for each of its hundreds of units; a plan took minutes before printing.
    pub(super) fn of(variant: Variant, material: Material) -> Placements {
        let squares = u32::from(variant.square_count());
        let (wm, bm) = (u32::from(material.white_men), u32::from(material.black_men));
        let (wk, bk) = (
            u32::from(material.white_kings),
            u32::from(material.black_kings),
        );
        let free = squares.saturating_sub(wm + bm);
        let kings = binomial(free, wk) * binomial(free.saturating_sub(wk), bk);
        // Positions are both sides to move, each the men's placements times the kings'.
        let men = PositionIndex::count(variant, material) / (2 * kings).max(1);
        Placements {
            men,
            kings,
            kings_only: wm + bm == 0,
        }
    }

    /// Whether the material is solved in bits: kings only, past
    /// [`crate::solve::IN_BITS_ABOVE`] positions (its one slice is all of them).
    pub(super) fn solved_in_bits(&self) -> bool {
        self.kings_only && 2 * self.kings > crate::solve::IN_BITS_ABOVE
    }

    pub(super) fn of_index(index: &PositionIndex) -> Placements {
        Placements {
            men: index.men_placements(),
            kings: index.king_placements(),
            kings_only: index.material().men() == 0,
        }
    }
}

/// Bytes the slices of a material of these placements solved at once hold:
/// [`SLICES_IN_FLIGHT`] of them, or as many as it has (a material of kings alone is one slice).
pub(super) fn slices_bytes(placements: Placements) -> u64 {
    slice_bytes(placements) * SLICES_IN_FLIGHT.min(placements.men)
}

/// Bytes one slice of a material of these placements holds while it is solved: a large
/// kings-only one is solved in bits ([`crate::solve::IN_BITS_ABOVE`]).
pub(super) fn slice_bytes(placements: Placements) -> u64 {
    let positions = 2 * placements.kings;
    if placements.solved_in_bits() {
        crate::solve::bits_working_bytes(positions)
    } else {
        working_bytes(positions)
    }
}

/// Bytes the directory of a material solved into band files holds while it is solved and its
/// tables written: where each half lies, 6 bytes a half (4 and 2), all of them by the end. For a
/// single king among men, halves of 20 to 50 positions, a few tenths of a byte a position.
pub(super) fn band_directory_bytes(variant: Variant, material: Material) -> u64 {
    if !crate::work::bands::is_banded_material(variant, material) {
        return 0;
    }
    let placements = Placements::of(variant, material);
    2 * placements.men * 6
}

/// Positions a seed part holds (the last part of a material fewer): `RAFLE_SEED_PART_POSITIONS`
/// if set (rounded up to the seed pass's ranges; the tests split small materials), else
/// [`SEED_PART_POSITIONS`].
pub(super) fn seed_part_size() -> u64 {
    let chunk = crate::solve::CHUNK;
    std::env::var("RAFLE_SEED_PART_POSITIONS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(SEED_PART_POSITIONS, |n| n.max(1).div_ceil(chunk) * chunk)
}

/// Whether every material read back from its tables is read block by block, however small:
/// `RAFLE_READ_BACK=streamed` (the tests read small materials so).
pub(super) fn read_back_streamed_always() -> bool {
    std::env::var("RAFLE_READ_BACK").is_ok_and(|v| v == "streamed")
}

/// The least pieces of a material whose side read only through crownings keeps the crowned
/// positions alone: `RAFLE_CROWNED_ALONE=always` (every material: the tests keep them so in
/// small sets) or `never` (none: to measure what they save), else
/// [`super::CROWNED_ALONE_FROM_PIECES`].
pub(super) fn crowned_alone_from_pieces() -> u32 {
    match std::env::var("RAFLE_CROWNED_ALONE").as_deref() {
        Ok("always") => 0,
        Ok("never") => u32::MAX,
        _ => super::CROWNED_ALONE_FROM_PIECES,
    }
}

/// Positions of a seed part: the seeding of a part is the longest unit of a kings-only
/// material's split, about half its work, so parts of 2³⁰ positions give international
/// KKKKvKKK seven units that several nodes seed at once.
const SEED_PART_POSITIONS: u64 = 1 << 30;

/// Seed parts of `material`: a kings-only material solved in bits
/// ([`crate::solve::IN_BITS_ABOVE`]) of more than one part's positions is seeded in parts.
pub(super) fn seed_parts(variant: Variant, material: Material) -> u32 {
    let positions = PositionIndex::count(variant, material);
    let in_bits = material.men() == 0 && positions > crate::solve::kings_in_bits_above();
    let size = seed_part_size();
    if in_bits && positions > size {
        u32::try_from(positions.div_ceil(size)).expect("parts of a material fit 32 bits")
    } else {
        0
    }
}

/// The least memory of a seed part: its group's seeds and codes, the least cache, the
/// overhead.
pub(super) fn part_least_bytes() -> u64 {
    crate::solve::seed_group_bytes() + LEAST_CACHE_BYTES + OVERHEAD
}

/// Bytes a position of a material read back whole from its tables holds (`load_existing`:
/// its distance, rule and win/draw/loss codes and capture marks), measured: international
/// KKKKKvK, 190,688,400 positions, peaks at 539 MiB (2.8 bytes a position, the process
/// included), its cache of the materials it reads within the overhead.
pub(crate) const REPACK_BYTES_PER_POSITION: u64 = 3;

/// Bytes a position of a material whose kinds alone are read back whole holds (`load_kinds`:
/// its win/draw/loss codes, a byte each, the table's 2 bits and the capture marks), with a
/// margin: Brazilian KMMvKMM generated with `--tables wdl` as a unit on the tables of Brazilian
/// up to 6 peaks at 342 MiB, reading back KKMvKMM (217,836,864 positions), 1.6 bytes a
/// position, the process included.
pub(crate) const KINDS_READ_BACK_BYTES_PER_POSITION: u64 = 2;

/// Bytes the cache holds with every block of a material of `positions` positions.
pub(super) fn cached_bytes(positions: u64) -> u64 {
    positions * BYTES_PER_POSITION + positions.div_ceil(BLOCK_POSITIONS) * ENTRY_OVERHEAD as u64
}

/// Bytes a slice of `positions` positions holds while it is solved: the state of one or two
/// propagations (4 bytes a position each, see [`crate::solve`]), the lists of positions due
/// (up to 4 bytes), the codes written (3 bytes) and the capture marks.
fn working_bytes(positions: u64) -> u64 {
    let propagations = if positions <= crate::solve::TOGETHER {
        2
    } else {
        1
    };
    positions * (4 * propagations + 4 + 3) + positions / 8
}

/// Parses a memory size: bytes, or a number with a unit `K`, `M`, `G` or `T` (powers of 1024,
/// optionally followed by `iB` or `B`), like `8G`, `8GiB` or `512M`.
///
/// # Errors
///
/// A message saying what is wrong.
pub fn parse_memory(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let shown = format!("\"{}\"", rafle_probe::draughts::excerpt(text));
    let digits = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("{shown} is not a memory size (like 8G or 512M)"))?;
    let shift = match unit.trim().trim_end_matches("iB").trim_end_matches('B') {
        "" => 0,
        "K" | "k" => 10,
        "M" | "m" => 20,
        "G" | "g" => 30,
        "T" | "t" => 40,
        _ => return Err(format!("{shown}: unknown unit (use K, M, G or T)")),
    };
    let bytes = number * (1u64 << shift) as f64;
    if !(1.0..1e19).contains(&bytes) {
        return Err(format!("{shown} is not a usable memory size"));
    }
    Ok(bytes as u64)
}
