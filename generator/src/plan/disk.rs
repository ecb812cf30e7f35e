//! The disk a generation fills at its peak, estimated before it starts: the material under way
//! (its band files, compressed, or for a material of few kings a slice its raw work file,
//! reserved whole when it starts), the compressed values of the materials solved before it
//! that a later one still reads (their band files, or their packed files), and the tables
//! written so far.

use super::{MaterialPlan, Plan};
use crate::work::bands::{is_banded_material, packs_bands};
use crate::work::sides::Sides;
use crate::work::values::Kept;
use rafle_probe::draughts::{Material, Variant};
use rafle_probe::toolkit::{binomial, Tables};

/// Compressed values a position in band files, about, by what is written: the band files of
/// the Brazilian materials up to 6 pieces measured 0.43 bytes a position with all three tables
/// (in byte planes, `crate::work::value_planes`) and 0.18 with the win/draw/loss tables alone,
/// whose band files keep the kind of each value and its capture mark (`Kept::Kinds`), at their
/// largest (`scripts/gauge-disk.sh`, its band line).
fn band_bytes(tables: Tables) -> f64 {
    match tables {
        Tables::All => 0.44,
        Tables::Wdl => 0.20,
    }
}

/// Compressed values a position kept for the materials that read a finished one, about: with
/// all three tables its band files (packed files, which leave out the capture marks, measured
/// 0.37 on Brazilian up to 6: the larger figure is used); with the win/draw/loss tables alone
/// its packed file of 2 bits a position: 0.077 over the Brazilian materials up to 6 pieces
/// read by a later one, 0.067 to 0.081 for the 6-piece ones by their number of men.
fn kept_bytes(tables: Tables) -> f64 {
    match tables {
        Tables::All => band_bytes(Tables::All),
        Tables::Wdl => 0.09,
    }
}

/// Compressed bytes a position of the side to move a material's tables store, in its band
/// files once the materials after it read that side from its tables: the positions that
/// must capture keep their values, the others are zeros. Measured 0.272 over the 39
/// Brazilian materials up to 6 pieces kept with both sides, 0.48 for the same sides whole
/// (`scripts/gauge-disk.sh`, their band files parsed as they were kept).
const STORED_SIDE_BYTES: f64 = 0.28;

/// The bytes of a side kept where crowned alone (`crate::work::bands::keep_crowned_alone`)
/// against those of the side whole, for each position kept: the positions cleared compress to
/// almost nothing, those kept less well than among their neighbours. Measured on Brazilian up
/// to 6 (the band files sampled once a second, `scripts/gauge-disk.sh`): 1.0 for KKMMvKK's
/// side kept, 1.1 and 1.5 for KKKMvKM's Black and White to move, 3.0 for KKKvKMM's White to
/// move (one Black king, 13% of the positions kept), 1.27 over the four.
const CROWNED_BYTES: f64 = 1.5;

/// The share of the positions of `m` with `side` to move where a king of the other side
/// stands on its crowning row, about: its kings spread over the squares the men leave free.
fn crowned_share(variant: Variant, m: Material, side: Sides) -> f64 {
    let kings = u32::from(if side.black {
        m.white_kings
    } else {
        m.black_kings
    });
    let free = u32::from(variant.square_count()).saturating_sub(m.men());
    let row = u32::from(variant.squares_per_row());
    if free < row + kings {
        return 1.0;
    }
    1.0 - binomial(free - row, kings) as f64 / binomial(free, kings) as f64
}

/// Table bits a position, at most about, by what is written and the material's pieces: all
/// three kinds measured 0.59 to 0.93 a position on the sets of 4 to 6 pieces (docs/performance.md;
/// Brazilian up to 4 0.91, whose small tables carry more of header and index), the
/// win/draw/loss tables alone 0.15 to 0.26; the 7-piece materials of Brazilian up to 7 0.80
/// and 0.17 (records/brazilian-7, in a format whose tables were 2% and 7% larger), which the
/// materials of 7 pieces and more are taken at, with a margin.
/// `--compact` tables are smaller.
fn table_bits(tables: Tables, pieces: u32) -> f64 {
    match (tables, pieces >= 7) {
        (Tables::All, false) => 1.0,
        (Tables::All, true) => 0.85,
        (Tables::Wdl, false) => 0.26,
        (Tables::Wdl, true) => 0.18,
    }
}

/// Table bytes of `m`, about ([`table_bits`]).
fn table_bytes(tables: Tables, m: &MaterialPlan) -> f64 {
    table_bits(tables, m.material.pieces()) * m.positions as f64 / 8.0
}

/// Seed scratch a position of a kings-only material solved in bits, at most: 1.03 bytes
/// measured on an unsplit material (docs/history.md); its seeds wait on disk by level.
const SEED_SCRATCH_BYTES_PER_POSITION: f64 = 1.1;

/// What a generation is expected to fill on disk ([`Plan::disk_estimate`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiskEstimate {
    /// Bytes on disk at the peak of the run, tables included.
    pub peak_bytes: u64,
    /// The material under way at the peak.
    pub peak_at: Option<Material>,
    /// What fills the disk at the peak; its parts add up to `peak_bytes`.
    pub at_peak: DiskParts,
    /// Bytes of all the tables the plan writes.
    pub tables_bytes: u64,
}

/// The parts of what a run holds on disk at one point ([`DiskEstimate::at_peak`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiskParts {
    /// The raw work file of the material under way, 3 bytes a position, 2 with the
    /// win/draw/loss tables alone (none for a material solved into band files).
    pub raw_bytes: u64,
    /// The seeds of a kings-only material solved in bits, waiting by level.
    pub scratch_bytes: u64,
    /// The compressed values of the materials solved before, which a later one still reads,
    /// and the band files of the material under way.
    pub packed_bytes: u64,
    /// The tables written so far.
    pub tables_bytes: u64,
}

impl DiskParts {
    /// All the parts together.
    pub fn total(&self) -> u64 {
        self.raw_bytes + self.scratch_bytes + self.packed_bytes + self.tables_bytes
    }
}

impl Plan {
    /// The disk this plan fills at its peak if every material is solved, estimated from the
    /// measured sizes above (a resumed run, or one that reuses tables, needs less). A whole
    /// run lets each side to move of a material's kept values go after the last material that
    /// reads it (a capture or a promotion reaches the side that did not move); the raw work
    /// file of the material under way goes when its tables are written.
    /// A unit of work counts its own material only (the others are finished, their packed
    /// values kept), and a seed part the file it writes.
    pub fn disk_estimate(&self) -> DiskEstimate {
        if let (Some(part), Some(m)) = (self.part, self.materials.last()) {
            return self.seed_part_disk_estimate(m, part);
        }
        let in_bits_above = crate::solve::kings_in_bits_above();
        let last = self.materials.len().saturating_sub(1);
        let last_reader = self.last_readers(|_| true);
        let (mut tables, mut peak_at) = (0.0, None);
        let mut at_peak = DiskParts::default();
        // The bytes each finished material keeps of White to move and of Black to move.
        let mut held = vec![(0.0, 0.0); self.materials.len()];
        for (j, m) in self.materials.iter().enumerate() {
            if self.unit.is_some() && j != last {
                continue;
            }
            let kept = !last_reader[j].sides().is_empty();
            // The sides this material reads last go once it is solved, before its tables
            // are written.
            let read_last: f64 = (m.reads.iter())
                .map(|&d| {
                    let sides = last_reader[d].last_read_by(j);
                    f64::from(u8::from(sides.white)) * held[d].0
                        + f64::from(u8::from(sides.black)) * held[d].1
                })
                .sum();
            let waiting = Waiting {
                packed: held.iter().map(|&(white, black)| white + black).sum(),
                read_last,
                tables,
            };
            let now = self.disk_under_way(m, &waiting, kept, in_bits_above);
            if now.total() > at_peak.total() {
                (at_peak, peak_at) = (now, Some(m.material));
            }
            tables += table_bytes(self.tables, m);
            // Once done, a material keeps the sides a later one reads, and of those that the
            // materials still to read them read only through a crowning, the positions a
            // crowning reaches.
            let sides = last_reader[j].sides();
            held[j] = self.held_bytes(j, sides, self.read_only_crowned(j, sides, j));
            for &d in &m.reads {
                let sides = last_reader[d].after(j);
                let still = self.held_bytes(d, sides, self.read_only_crowned(d, sides, j));
                held[d] = (held[d].0.min(still.0), held[d].1.min(still.1));
            }
        }
        let tables = tables as u64;
        if tables > at_peak.total() {
            // Nothing but the finished tables: the run's end is its peak.
            at_peak = DiskParts {
                tables_bytes: tables,
                ..DiskParts::default()
            };
            peak_at = None;
        }
        DiskEstimate {
            peak_bytes: at_peak.total(),
            peak_at,
            at_peak,
            tables_bytes: tables,
        }
    }

    /// The kept bytes of White to move and of Black to move of material `d` (half its
    /// positions each), of the sides `sides` still read: of the side its tables store, where
    /// a later material reads it from them ([`Plan::reads_stored_side_from_tables`]),
    /// [`STORED_SIDE_BYTES`] a position (the tables store White to move unless written
    /// `--compact`); of a side of `crowned`, which the materials still to read it read only
    /// through a crowning ([`Plan::read_only_crowned`]), the share of its positions a
    /// crowning reaches, at [`CROWNED_BYTES`] the bytes of a whole side.
    fn held_bytes(&self, d: usize, sides: Sides, crowned: Sides) -> (f64, f64) {
        let m = &self.materials[d];
        let side = |read: bool, crowned: bool, stored: bool, side: Sides| {
            let bytes = if stored {
                STORED_SIDE_BYTES
            } else {
                kept_bytes(self.tables)
            };
            let share = if crowned {
                (CROWNED_BYTES * crowned_share(self.variant, m.material, side)).min(1.0)
            } else {
                1.0
            };
            f64::from(u8::from(read)) * bytes * share * m.positions as f64 / 2.0
        };
        let stored = self.reads_stored_side_from_tables(m.material);
        (
            side(sides.white, crowned.white, stored, Sides::WHITE),
            side(sides.black, crowned.black, false, Sides::BLACK),
        )
    }

    /// Bytes a position takes in a raw work file of this plan's run: 3, or 2 with the
    /// win/draw/loss tables alone (no rule codes).
    pub fn raw_bytes_per_position(&self) -> u64 {
        Kept::of_run(self.tables).raw_bytes_per_position()
    }

    /// What a seed part of `m` fills: the file it writes.
    fn seed_part_disk_estimate(&self, m: &MaterialPlan, part: u32) -> DiskEstimate {
        let positions = self.seed_part_positions(m, part).1 as f64;
        let scratch = (SEED_SCRATCH_BYTES_PER_POSITION * positions) as u64;
        DiskEstimate {
            peak_bytes: scratch,
            peak_at: Some(m.material),
            at_peak: DiskParts {
                scratch_bytes: scratch,
                ..DiskParts::default()
            },
            tables_bytes: 0,
        }
    }

    /// What fills the disk at its fullest while `m` is solved and its tables written, beside
    /// what waits for it (`waiting`); `kept` if a later material reads `m`'s values; a
    /// kings-only material of more than `in_bits_above` positions is solved in bits. The
    /// fuller of two moments: the end of its solving, every value it reads still there, and
    /// the end of its writing, its tables written but the values it read last gone.
    fn disk_under_way(
        &self,
        m: &MaterialPlan,
        waiting: &Waiting,
        kept: bool,
        in_bits_above: u64,
    ) -> DiskParts {
        let n = m.positions as f64;
        let own_tables = table_bytes(self.tables, m);
        let solved = |work: DiskParts| DiskParts {
            packed_bytes: work.packed_bytes + waiting.packed as u64,
            tables_bytes: waiting.tables as u64,
            ..work
        };
        let written = |work: DiskParts, packing: f64| DiskParts {
            packed_bytes: work.packed_bytes + (waiting.packed - waiting.read_last + packing) as u64,
            tables_bytes: (waiting.tables + own_tables) as u64,
            ..work
        };
        // A material solved into band files holds them all, compressed, while its tables
        // are written (and, with the win/draw/loss tables alone or halves of a single king,
        // while they are packed for its readers); one with a raw work file holds that, its
        // tables and, if a later material reads it, its packed file written before it goes.
        let (work, packing) = if is_banded_material(self.variant, m.material) {
            let packs = self.tables == Tables::Wdl || packs_bands(self.variant, m.material);
            let packing = if kept && packs {
                kept_bytes(self.tables) * n
            } else {
                0.0
            };
            let bands = DiskParts {
                packed_bytes: (band_bytes(self.tables) * n) as u64,
                ..DiskParts::default()
            };
            (bands, packing)
        } else {
            let scratch = if m.material.men() == 0 && m.positions > in_bits_above {
                SEED_SCRATCH_BYTES_PER_POSITION * n
            } else {
                0.0
            };
            let packing = if kept {
                kept_bytes(self.tables) * n
            } else {
                0.0
            };
            let raw = DiskParts {
                raw_bytes: self.raw_bytes_per_position() * m.positions,
                scratch_bytes: scratch as u64,
                ..DiskParts::default()
            };
            (raw, packing)
        };
        let (solved, written) = (solved(work), written(work, packing));
        if written.total() >= solved.total() {
            written
        } else {
            solved
        }
    }
}

/// What waits on disk while a material is solved: the compressed values of the materials
/// solved before it that it or a later one reads, of which `read_last` bytes are the sides it
/// reads last, and the tables written so far.
struct Waiting {
    packed: f64,
    read_last: f64,
    tables: f64,
}

impl Plan {
    /// The scratch that units of work running `at_once` at a time hold at most, estimated as
    /// if every unit were to do: the values each finished material keeps while a unit that
    /// reads it is unfinished (the sides the set's materials read, as a unit of a set keeps
    /// them), beside what the units under way write (band files, or a raw work file). The
    /// units are list-scheduled in plan order, each starting when those it reads are finished
    /// and a place is free, each taking a time in proportion to its positions.
    pub fn units_scratch_estimate(&self, at_once: usize) -> u64 {
        let n = self.materials.len();
        let mut readers = vec![Vec::new(); n];
        for (k, m) in self.materials.iter().enumerate() {
            for &d in &m.reads {
                readers[d].push(k);
            }
        }
        // The sides some material of the plan reads.
        let kept: Vec<f64> = self
            .last_readers(|_| true)
            .iter()
            .enumerate()
            .map(|(d, last)| {
                let (white, black) = self.held_bytes(d, last.sides(), Sides::NONE);
                white + black
            })
            .collect();
        let in_flight = |j: usize| {
            let m = &self.materials[j];
            if is_banded_material(self.variant, m.material) {
                band_bytes(self.tables) * m.positions as f64
            } else {
                (self.raw_bytes_per_position() * m.positions) as f64
            }
        };
        let (mut started, mut done) = (vec![false; n], vec![false; n]);
        // The units under way: when each ends, and which.
        let mut running: Vec<(u64, usize)> = Vec::new();
        let (mut now, mut peak) = (0u64, 0.0f64);
        loop {
            for (j, m) in self.materials.iter().enumerate() {
                if running.len() >= at_once.max(1) {
                    break;
                }
                if !started[j] && m.reads.iter().all(|&d| done[d]) {
                    started[j] = true;
                    running.push((now + m.positions, j));
                }
            }
            let Some(next) = (0..running.len()).min_by_key(|&r| running[r]) else {
                break;
            };
            // Just before the first of them ends: each under way at its largest.
            let waiting: f64 = (0..n)
                .filter(|&d| done[d] && readers[d].iter().any(|&k| !done[k]))
                .map(|d| kept[d])
                .sum();
            let writing: f64 = running.iter().map(|&(_, j)| in_flight(j)).sum();
            peak = peak.max(waiting + writing);
            let (end, j) = running.swap_remove(next);
            now = end;
            done[j] = true;
        }
        peak as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::work::values::BYTES_PER_POSITION;
    use rafle_probe::draughts::Variant;

    /// Sides read only through crownings keep the crowned positions alone from 6 pieces on:
    /// Brazilian up to 6 peaks lower so, through sides of its 6-piece materials (KKKMvKM's
    /// Black to move, KKMMvKK's), as low as if every material's were kept so; international
    /// up to 5 keeps every side whole.
    #[test]
    fn sides_keep_the_crowned_positions_alone_from_six_pieces_on() {
        let peak = |plan: &Plan, from: u32| {
            let plan = Plan {
                crowned_alone_from_pieces: from,
                ..plan.clone()
            };
            plan.disk_estimate().peak_bytes
        };
        let dir = std::path::Path::new("data");
        let brazilian = Plan::new(Variant::Brazilian, 6, dir)
            .unwrap()
            .solving_peaks_early();
        assert_eq!(brazilian.crowned_alone_from_pieces, 6);
        let (every, from_six, none) = (
            peak(&brazilian, 0),
            peak(&brazilian, 6),
            peak(&brazilian, u32::MAX),
        );
        assert_eq!(every, from_six);
        assert!(from_six * 8 < none * 7, "{from_six} {none}");
        let international = Plan::new(Variant::International, 5, dir).unwrap();
        assert_eq!(peak(&international, 6), peak(&international, u32::MAX));
        assert!(peak(&international, 0) < peak(&international, 6));
    }

    #[test]
    fn the_peak_is_the_largest_material_under_way_with_what_waits_beside_it() {
        let dir = std::path::Path::new("/nonexistent");
        let plan = Plan::new(Variant::Brazilian, 3, dir).unwrap();
        let estimate = plan.disk_estimate();
        let positions = plan.positions() as f64;
        let largest = plan.materials.iter().map(|m| m.positions).max().unwrap();
        // At least the largest material's values compressed, at most every raw file,
        // compressed values and table.
        assert!(estimate.peak_bytes as f64 >= largest as f64 * band_bytes(Tables::All));
        let bound = positions * (BYTES_PER_POSITION as f64 + band_bytes(Tables::All) + 0.2);
        assert!((estimate.peak_bytes as f64) < bound, "{estimate:?}");
        assert_eq!(estimate.tables_bytes, (positions / 8.0) as u64);
        assert!(estimate.peak_at.is_some());
        assert_eq!(estimate.at_peak.total(), estimate.peak_bytes);
        // The win/draw/loss tables alone take less.
        let wdl = plan.clone().with_tables(Tables::Wdl).disk_estimate();
        assert!(wdl.tables_bytes < estimate.tables_bytes);
        assert!(wdl.peak_bytes <= estimate.peak_bytes);
        // A unit of work: its own raw work file and tables.
        let unit = Plan::for_material(Variant::Brazilian, "KKvK".parse().unwrap(), dir)
            .unwrap()
            .disk_estimate();
        let n = 29_760.0;
        assert_eq!(unit.tables_bytes, (n / 8.0) as u64);
        // Its raw work file and its tables, written before the raw file goes.
        assert_eq!(unit.peak_bytes, 3 * 29_760 + 29_760 / 8);
        assert_eq!(unit.at_peak.raw_bytes, 3 * 29_760);
    }

    #[test]
    fn units_side_by_side_hold_the_values_their_unfinished_readers_read() {
        let plan = Plan::new(Variant::Brazilian, 8, std::path::Path::new("/nonexistent")).unwrap();
        let gib = |bytes: u64| bytes as f64 / f64::from(1u32 << 30);
        let (one, eight) = (
            plan.units_scratch_estimate(1),
            plan.units_scratch_estimate(8),
        );
        // More units at once hold more; either far below every value kept to the end.
        assert!(one < eight, "{one} {eight}");
        assert!((40.0..55.0).contains(&gib(one)), "{}", gib(one));
        assert!((70.0..90.0).contains(&gib(eight)), "{}", gib(eight));
        let read: f64 = (0..plan.materials.len())
            .filter(|&d| plan.materials.iter().any(|m| m.reads.contains(&d)))
            .map(|d| plan.materials[d].positions as f64 * kept_bytes(Tables::All))
            .sum();
        assert!((eight as f64) < read / 2.0, "{eight} {read}");
        // A set of one material holds nothing but its own band files.
        let kvk = Plan::new(Variant::Brazilian, 2, std::path::Path::new("/nonexistent")).unwrap();
        assert!(kvk.units_scratch_estimate(4) <= 3 * kvk.positions());
    }

    #[test]
    fn the_values_a_material_reads_last_go_before_its_tables_are_written() {
        // International up to 7 peaks at the end of KKMMvKMM's solving, every value it reads
        // still there and none of its tables written: once they are, the values it read last
        // are gone. Both at once would be 8 GiB more.
        let plan = Plan::new(
            Variant::International,
            7,
            std::path::Path::new("/nonexistent"),
        )
        .unwrap();
        let estimate = plan.disk_estimate();
        let at = estimate.peak_at.expect("a material under way");
        assert_eq!(at.to_string(), "KKMMvKMM");
        let j = plan
            .materials
            .iter()
            .position(|m| m.material == at)
            .unwrap();
        let before: f64 = (plan.materials[..j].iter())
            .map(|m| table_bytes(Tables::All, m))
            .sum();
        assert_eq!(estimate.at_peak.tables_bytes, before as u64);
        // With the sides read only through a crowning kept where crowned alone: within the
        // 175 GiB this machine's disk leaves for it.
        assert!(estimate.peak_bytes <= 175 << 30, "{estimate:?}");
        assert!(estimate.peak_bytes > 150 << 30, "{estimate:?}");
    }

    #[test]
    fn brazilian_up_to_8_keeps_no_raw_work_file_of_its_large_materials() {
        // Every large material has men and kings enough to be solved into band files: the
        // peak is the compressed values waiting for their readers (each side to move until
        // its last reader is done) beside the tables so far, late in the run.
        let plan = Plan::new(Variant::Brazilian, 8, std::path::Path::new("/nonexistent")).unwrap();
        let estimate = plan.disk_estimate();
        assert_eq!(
            estimate.peak_at.map(|m| m.to_string()).as_deref(),
            Some("KKMMvKMMM")
        );
        let parts = estimate.at_peak;
        assert_eq!(parts.total(), estimate.peak_bytes);
        assert_eq!((parts.raw_bytes, parts.scratch_bytes), (0, 0));
        let gb = |bytes: u64| bytes as f64 / 1e9;
        assert!(
            (60.0..70.0).contains(&gb(estimate.peak_bytes)),
            "{estimate:?}"
        );
        // The side to move each material's tables store is read from them, the values a
        // material reads last go before its tables are written, and a side read only through
        // a crowning keeps the crowned positions alone: within 70 GiB.
        assert!(estimate.peak_bytes <= 63 << 30, "{estimate:?}");
        let tables = gb(estimate.tables_bytes);
        assert!((45.0..60.0).contains(&tables), "{tables} GB");
        // Win/draw/loss alone: band files of 3 bits a position before compression, the
        // finished materials packed into 2 bits a position.
        let wdl = plan.with_tables(Tables::Wdl).disk_estimate();
        assert!((15.0..30.0).contains(&gb(wdl.peak_bytes)), "{wdl:?}");
        assert!(wdl.peak_bytes <= 20 << 30, "{wdl:?}");
        assert!(wdl.at_peak.packed_bytes < wdl.peak_bytes * 3 / 4, "{wdl:?}");
    }
}
