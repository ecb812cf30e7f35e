//! Band files: the values of a material with men, compressed band by band as it is solved,
//! instead of a raw work file of 3 bytes a position.
//!
//! A band's slices are solved from the values of the bands before it (a man move reaches the
//! band before) and of other materials; once solved, a slice's two halves (one a side to move,
//! each a run of consecutive positions) are compressed into chunks and appended to the band's
//! file. The finished band is renamed to `<material>.band-<b>`; the raw values of a whole
//! material are never on disk at once. Its tables are written from the band files, and the
//! band files are what the materials solved after it read (through the same cache of
//! decompressed blocks as packed files), so a finished material needs no packing either.
//! A side to move no later material reads any more is let go by copying the chunks of the
//! other side into a new file ([`keep_sides_of_bands`]).
//!
//! Layout of a band file (little-endian): the chunks, each laid out in byte planes
//! ([`value_planes`], the capture marks kept; [`Kept::Kinds`] in bit planes) and compressed
//! with zstd; then the directory: the magic [`MAGIC`], the length of the band's identity (`u32`)
//! and the identity (request, material, band), the number of halves (`u32`) and of chunks
//! (`u32`), for each chunk its offset (`u64`), compressed length (`u32`), positions (`u32`),
//! the crc32 of its decompressed bytes (`u32`) and the number of halves that start in it
//! (`u32`), then the halves chunk after chunk in their order there, each by its number in the
//! material (the position it starts at divided by the half's length) less the one before it
//! (zigzag, LEB128); then a 20-byte footer: the directory's
//! offset (`u64`), its crc32 (`u32`) and [`MAGIC`] again. A half of more than
//! [`CHUNK_POSITIONS`] positions takes consecutive chunks of that many; smaller ones share a
//! chunk, as many as fit, in the order they were solved.
//!
//! A band file is written under a temporary name, then renamed: a file under a band's name was
//! written whole. The band files finished since the last checkpoint are synced before the
//! journal records their bands, at most every few seconds. Its directory is checked when it is opened, and every chunk (length and
//! checksum) when it is read: a damaged file is a [`GenerateError::DamagedWorkFile`], never a
//! wrong value.

mod directory;
mod from_tables;
mod sides;
mod writer;

pub(crate) use from_tables::{identity_from_tables, StoredSide};
pub(crate) use sides::{
    identity_crowned_alone, keep_crowned_alone, keep_sides_of_bands, read_stored_side_from_tables,
};
pub(crate) use writer::{sync_band_files, BandWriter};

use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use rafle_probe::toolkit::binomial;
use rafle_probe::toolkit::cache::block_key;
use rafle_probe::{
    draughts::{Material, Variant},
    toolkit::PositionIndex,
};

use crate::files::io_error;
use crate::work::packed::{damaged, decompress_checked, read_cached, shared_block, SharedCache};
use crate::work::sides::Sides;
use crate::work::value_planes::{self, Captures};
pub(crate) use crate::work::values::Kept;
use crate::work::values::{
    band_paths, code_of_kind, kind_of, range_checksum, BYTES_PER_POSITION, CAPTURE, DRAW,
};
use crate::GenerateError;

use directory::Chunk;

/// The first bytes of a band file's directory, and its last bytes.
const MAGIC: [u8; 8] = *b"RAFLEBD\x03";

/// Positions a chunk holds at most: as the blocks of a packed file.
pub(crate) const CHUNK_POSITIONS: u64 = crate::work::packed::BLOCK_POSITIONS;

/// Halves (king placements a side to move) of at least this many positions are kept in band
/// files: every material with men and kings. A material of men alone (one position a half)
/// keeps a raw work file: a band file's directory would hold a line for every position. A
/// single king among men (halves of 20 to 50 positions) takes 6–11% longer in band files than
/// it did in a raw work file, measured (compressing its bands, reading them back through the
/// cache), for a sixth of the disk while it is solved.
pub(crate) const MIN_HALF_POSITIONS: u64 = 2;

/// A material whose halves are fewer than this many positions (a single king among men) has
/// its band files packed once its tables are written, when a later material reads it: the
/// materials after it read its values at a few positions of each half through captures and
/// promotions, and a packed file, in index order, needs no line of a directory for each half
/// (see [`BandedValues`], which holds one) and drops the capture marks.
pub(crate) const PACKED_BELOW: u64 = 64;

/// Whether a material is solved into band files: one with men whose halves are large enough.
pub(crate) fn is_banded(index: &PositionIndex) -> bool {
    is_banded_material(index.variant(), index.material())
}

/// [`is_banded`] of a material, without its index (which takes long to build for a large
/// material with men): its king placements from binomials, as the index counts them.
pub(crate) fn is_banded_material(variant: Variant, material: Material) -> bool {
    material.men() > 0 && king_placements(variant, material) >= MIN_HALF_POSITIONS
}

/// Whether a material solved into band files has them packed for its readers (see
/// [`PACKED_BELOW`]).
pub(crate) fn packs_bands(variant: Variant, material: Material) -> bool {
    is_banded_material(variant, material) && king_placements(variant, material) < PACKED_BELOW
}

/// The king placements of a slice of `material` (a half's positions), from binomials.
fn king_placements(variant: Variant, material: Material) -> u64 {
    let free = u32::from(variant.square_count()) - material.men();
    let (white, black) = (
        u32::from(material.white_kings),
        u32::from(material.black_kings),
    );
    binomial(free, white) * binomial(free - white, black)
}

/// Chunks one [`BandedValues::read_direct`] holds decompressed at most (about 1.5 MiB).
const HELD_BY_A_READ: usize = 32;

/// Numbers the band values apart in the cache's keys, beside packed files' numbers.
static NEXT_VALUES: AtomicU32 = AtomicU32::new(1 << 31);

/// The identity a band file must carry: its request's, and the band's number.
fn band_identity(identity: &str, band: usize) -> String {
    format!("{identity} band {band}")
}

/// The code of the shortest game of the kind `code` gives (a win in 1, a loss in 0, a draw),
/// its capture mark kept.
fn shortest_of_its_kind(code: u16) -> u16 {
    code_of_kind(kind_of(code)).unwrap_or(DRAW) | code & CAPTURE
}

/// How a band file lays out a chunk's positions before compression: in three byte planes
/// ([`Kept::Full`], see [`value_planes`]), or in two bit planes ([`Kept::Kinds`]): the kind
/// of each distance code in 2 bits (0 a loss, 1 a win, 2 a draw; four positions a byte), then
/// the capture marks in 1 bit (eight a byte), each plane padded to whole groups of eight
/// positions. The bit planes compress to about the bytes of a byte a position holding both
/// (zstd finds the same runs), and take 3/8 of them decompressed in the block cache.
impl Kept {
    /// Bytes a chunk of `positions` takes before compression.
    fn chunk_len(self, positions: usize) -> usize {
        match self {
            Kept::Full => positions * BYTES_PER_POSITION as usize,
            Kept::Kinds => 3 * positions.div_ceil(8),
        }
    }

    /// Appends the layout of `codes` and `rules` to `out`.
    fn lay_out(self, codes: &[u16], rules: &[u8], out: &mut Vec<u8>) {
        match self {
            Kept::Full => value_planes::lay_out(codes, rules, Captures::Kept, out),
            Kept::Kinds => {
                let groups = codes.len().div_ceil(8);
                let start = out.len();
                out.resize(start + 3 * groups, 0);
                let (kinds, captures) = out[start..].split_at_mut(2 * groups);
                for (k, &code) in codes.iter().enumerate() {
                    kinds[k / 4] |= kind_of(code) << (2 * (k % 4));
                    captures[k / 8] |= u8::from(code & CAPTURE != 0) << (k % 8);
                }
            }
        }
    }

    /// The distance code of position `at` of a chunk.
    #[inline(always)]
    fn code(self, chunk: &[u8], at: usize) -> u16 {
        match self {
            Kept::Full => value_planes::code(chunk, at),
            Kept::Kinds => {
                let groups = chunk.len() / 3;
                let kind = chunk[at / 4] >> (2 * (at % 4)) & 3;
                let capture = chunk[2 * groups + at / 8] >> (at % 8) & 1;
                code_of_kind(kind).unwrap_or(DRAW) | if capture != 0 { CAPTURE } else { 0 }
            }
        }
    }

    /// The distance code and rule code of position `at` of a chunk.
    #[inline(always)]
    fn codes(self, chunk: &[u8], at: usize) -> (u16, u8) {
        match self {
            Kept::Full => value_planes::codes(chunk, at),
            Kept::Kinds => (self.code(chunk, at), 0),
        }
    }

    /// Appends the distance codes and rule codes of the positions `range` of a chunk to
    /// `codes` and `rules`.
    fn extend(self, chunk: &[u8], range: Range<usize>, codes: &mut Vec<u16>, rules: &mut Vec<u8>) {
        match self {
            Kept::Full => value_planes::extend(chunk, range, codes, rules),
            Kept::Kinds => {
                codes.extend(range.clone().map(|k| self.code(chunk, k)));
                rules.resize(rules.len() + range.len(), 0);
            }
        }
    }
}

/// Halves of `half_len` positions a chunk holds (1 for a half that takes chunks of its own).
fn halves_a_chunk(half_len: u64) -> u64 {
    (CHUNK_POSITIONS / half_len).max(1)
}

/// The finished bands of a material, read through a [`SharedCache`].
#[derive(Debug)]
pub(crate) struct BandedValues {
    identity: String,
    kept: Kept,
    half_len: u64,
    /// The first chunk of each half, `u32::MAX` for a half of no band read yet.
    halves: Vec<u32>,
    /// The place of each half among those of its chunk.
    slots: Vec<u16>,
    chunks: Vec<Chunk>,
    files: Vec<(PathBuf, File)>,
    id: u32,
    /// The side its material's tables store, where the band files keep only the positions
    /// that must capture ([`from_tables`]).
    stored: Option<Arc<StoredSide>>,
}

impl BandedValues {
    /// The values of a material of `index` with no band yet, of the request `identity` names.
    pub(crate) fn new(index: &PositionIndex, identity: &str, kept: Kept) -> BandedValues {
        let half_len = index.king_placements();
        BandedValues {
            identity: identity.to_string(),
            kept,
            half_len,
            halves: vec![u32::MAX; (index.size() / half_len) as usize],
            slots: if half_len < CHUNK_POSITIONS {
                vec![0; (index.size() / half_len) as usize]
            } else {
                Vec::new()
            },
            chunks: Vec::new(),
            files: Vec::new(),
            id: NEXT_VALUES.fetch_add(1, Ordering::Relaxed),
            stored: None,
        }
    }

    /// Reads the positions of `stored`'s side that need not capture from its tables: for
    /// band files whose chunks of that side keep only the positions that must capture.
    pub(crate) fn with_stored_side(mut self, stored: Arc<StoredSide>) -> BandedValues {
        self.stored = Some(stored);
        self
    }

    /// The side read from the tables, if one is.
    pub(crate) fn stored_side(&self) -> Option<&Arc<StoredSide>> {
        self.stored.as_ref()
    }

    /// The identity its band files carry (that of the request, and of the side read from
    /// the tables if one is), without the band's number.
    pub(crate) fn identity(&self) -> &str {
        &self.identity
    }

    /// Adds band `band`'s file at `path`, its directory checked. Returns the halves it holds.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if it cannot be read, [`GenerateError::DamagedWorkFile`] if it is
    /// not a complete band file of this request and band, or holds a half already held.
    pub(crate) fn add_band(&mut self, path: &Path, band: usize) -> Result<Vec<u64>, GenerateError> {
        let file = rafle_probe::toolkit::open_regular(path).map_err(io_error(path))?;
        let identity = band_identity(&self.identity, band);
        let number = self.files.len() as u32;
        let first = self.chunks.len() as u32;
        let mut held = Vec::new();
        let (halves, slots) = (&mut self.halves, &mut self.slots);
        let chunks = directory::read(path, &file, &identity, self.half_len, |place| {
            let out_of_place = || damaged(path, format!("half {} out of place", place.half));
            match halves.get_mut(place.half as usize) {
                Some(slot) if *slot == u32::MAX => *slot = first + place.chunk,
                _ => return Err(out_of_place()),
            }
            if let Some(slot) = slots.get_mut(place.half as usize) {
                *slot = u16::try_from(place.slot).map_err(|_| out_of_place())?;
            }
            held.push(place.half);
            Ok(())
        });
        let chunks = match chunks {
            Ok(chunks) => chunks,
            Err(e) => {
                // Halves taken before the error are not held.
                for &half in &held {
                    self.halves[half as usize] = u32::MAX;
                }
                return Err(e);
            }
        };
        self.chunks
            .extend(chunks.into_iter().map(|c| Chunk { file: number, ..c }));
        self.files.push((path.to_path_buf(), file));
        Ok(held)
    }

    /// Its number in the cache's keys.
    pub(crate) fn id(&self) -> u32 {
        self.id
    }

    /// The sides to move whose every half it holds (White's halves first in the index, as
    /// many as Black's).
    pub(crate) fn held_sides(&self) -> Sides {
        let (white, black) = self.halves.split_at(self.halves.len() / 2);
        let whole = |halves: &[u32]| halves.iter().all(|&first| first != u32::MAX);
        Sides {
            white: whole(white),
            black: whole(black),
        }
    }

    /// Its band files, in band order.
    pub(crate) fn paths(&self) -> Vec<PathBuf> {
        self.files.iter().map(|(path, _)| path.clone()).collect()
    }

    /// How its chunks are laid out.
    pub(crate) fn kept(&self) -> Kept {
        self.kept
    }

    /// The first band file, for errors that name one.
    pub(crate) fn path(&self) -> &Path {
        self.files
            .first()
            .map_or(Path::new(""), |(path, _)| path.as_path())
    }

    /// Chunk `c` decompressed, its length and checksum checked.
    fn read_chunk(&self, c: usize) -> Result<Vec<u8>, GenerateError> {
        let chunk = self.chunks[c];
        let (path, file) = &self.files[chunk.file as usize];
        let mut compressed = vec![0; chunk.len as usize];
        file.read_exact_at(&mut compressed, chunk.offset)
            .map_err(io_error(path))?;
        let len = self.kept.chunk_len(chunk.positions as usize);
        decompress_checked(path, &compressed, len, chunk.crc, "chunk", c as u64)
    }

    /// The chunk holding position `i` and `i`'s place in it.
    #[inline(always)]
    fn locate(&self, i: u64) -> Result<(usize, usize), GenerateError> {
        let (half, within) = (i / self.half_len, i % self.half_len);
        match self.halves.get(half as usize) {
            Some(&first) if first != u32::MAX => Ok(match self.slots.get(half as usize) {
                Some(&slot) => (
                    first as usize,
                    (u64::from(slot) * self.half_len + within) as usize,
                ),
                None => (
                    first as usize + (within / CHUNK_POSITIONS) as usize,
                    (within % CHUNK_POSITIONS) as usize,
                ),
            }),
            _ => Err(damaged(
                self.path(),
                format!("position {i} read before its band is finished"),
            )),
        }
    }

    /// `read` of the chunk holding position `i` and `i`'s place in it.
    #[inline(always)]
    fn read_at<T>(
        &self,
        i: u64,
        cache: &SharedCache,
        read: impl Fn(&[u8], usize) -> T,
    ) -> Result<T, GenerateError> {
        let (c, at) = self.locate(i)?;
        read_cached(
            block_key(self.id, c as u32),
            cache,
            || self.read_chunk(c),
            |chunk| read(chunk, at),
        )
    }

    /// The distance code and rule code of position `i`.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] or [`GenerateError::DamagedWorkFile`] if its chunk cannot be
    /// read back as written, or its band is not held.
    #[inline]
    pub(crate) fn codes(&self, i: u64, cache: &SharedCache) -> Result<(u16, u8), GenerateError> {
        let kept = self.kept;
        let codes = self.read_at(i, cache, |chunk, at| kept.codes(chunk, at))?;
        match &self.stored {
            Some(stored) if codes.0 & CAPTURE == 0 && stored.holds(i) => stored.codes(i, cache),
            _ => Ok(codes),
        }
    }

    /// The distance code of position `i` alone.
    ///
    /// # Errors
    ///
    /// As [`BandedValues::codes`].
    #[inline]
    pub(crate) fn distance_code(&self, i: u64, cache: &SharedCache) -> Result<u16, GenerateError> {
        let kept = self.kept;
        let code = self.read_at(i, cache, |chunk, at| kept.code(chunk, at))?;
        match &self.stored {
            Some(stored) if code & CAPTURE == 0 && stored.holds(i) => {
                stored.distance_code(i, cache)
            }
            _ => Ok(code),
        }
    }

    /// The half that starts at position `start`, held for reads of many of its positions
    /// (see [`HalfView`]); `None` for a half of more than one chunk, read position by position.
    ///
    /// # Errors
    ///
    /// As [`BandedValues::codes`].
    pub(crate) fn half_view(
        &self,
        start: u64,
        cache: &SharedCache,
    ) -> Result<Option<HalfView>, GenerateError> {
        if self.half_len > CHUNK_POSITIONS || self.stored.is_some() {
            return Ok(None);
        }
        let (c, at) = self.locate(start)?;
        let block = shared_block(block_key(self.id, c as u32), cache, || self.read_chunk(c))?;
        Ok(Some(HalfView {
            block,
            at,
            kept: self.kept,
        }))
    }

    /// The checksum of the halves `halves` (as [`BandedValues::add_band`] returned them), as
    /// [`BandWriter::write_half`] gave it when it wrote them: every chunk read and checked.
    ///
    /// # Errors
    ///
    /// As [`BandedValues::codes`].
    pub(crate) fn checksum(&self, halves: &[u64]) -> Result<u64, GenerateError> {
        use rayon::prelude::*;
        halves
            .par_iter()
            .map(|&half| {
                let start = half * self.half_len;
                let (codes, rules) = self.read_direct(start, self.half_len as usize)?;
                let bytes: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
                Ok(u64::from(range_checksum(start, &bytes, &rules)))
            })
            .try_reduce(|| 0, |a, b| Ok(a.wrapping_add(b)))
    }

    /// Every chunk, in parallel, read and checked.
    ///
    /// # Errors
    ///
    /// The first chunk that does not read back as written.
    pub(crate) fn check(&self) -> Result<(), GenerateError> {
        use rayon::prelude::*;
        (0..self.chunks.len())
            .into_par_iter()
            .try_for_each(|c| self.read_chunk(c).map(drop))
    }

    /// The codes of `len` positions from `start`, each chunk they lie in read from its file
    /// once (not through a cache: a pass over the values in index order, as writing a table,
    /// reads each chunk in one or two calls).
    ///
    /// # Errors
    ///
    /// As [`BandedValues::codes`].
    pub(crate) fn read_direct(
        &self,
        start: u64,
        len: usize,
    ) -> Result<(Vec<u16>, Vec<u8>), GenerateError> {
        self.read_range(start, len, |c| self.read_chunk(c))
    }

    /// The codes of `len` positions from `start` as [`BandedValues::read_direct`] gives them,
    /// each chunk through `cache`: for the passes that write a material's tables, where the
    /// halves of one table block lie in chunks of every band (a band is the men placements of
    /// one advancement, spread over the index), each chunk read by many blocks.
    ///
    /// # Errors
    ///
    /// As [`BandedValues::codes`].
    pub(crate) fn read_through(
        &self,
        start: u64,
        len: usize,
        cache: &SharedCache,
    ) -> Result<(Vec<u16>, Vec<u8>), GenerateError> {
        self.read_range(start, len, |c| {
            shared_block(block_key(self.id, c as u32), cache, || self.read_chunk(c))
        })
    }

    /// The codes of `len` positions from `start`, chunk `c` given by `chunk(c)`.
    fn read_range<B: std::ops::Deref<Target = [u8]>>(
        &self,
        start: u64,
        len: usize,
        chunk: impl Fn(usize) -> Result<B, GenerateError>,
    ) -> Result<(Vec<u16>, Vec<u8>), GenerateError> {
        // Only the material under way is read so, never band files that leave a side to its
        // tables.
        if self.stored.is_some() {
            return Err(damaged(
                self.path(),
                "read whole, but a side to move lies in its tables",
            ));
        }
        let mut codes = Vec::with_capacity(len);
        let mut rules = Vec::with_capacity(len);
        let mut i = start;
        let end = start + len as u64;
        // The chunks read so far: small halves in index order lie in a few chunks, in turn.
        let mut read: Vec<(usize, B)> = Vec::new();
        while i < end {
            let (c, at) = self.locate(i)?;
            let k = match read.iter().position(|(held, _)| *held == c) {
                Some(k) => k,
                None => {
                    // Bounded, for halves scattered over many chunks.
                    if read.len() == HELD_BY_A_READ {
                        read.remove(0);
                    }
                    read.push((c, chunk(c)?));
                    read.len() - 1
                }
            };
            let chunk: &[u8] = &read[k].1;
            let n = self.chunks[c].positions as usize;
            // A chunk of small halves holds others after this one's.
            let half_left = self.half_len - i % self.half_len;
            let take = (n - at).min((end - i).min(half_left) as usize);
            self.kept
                .extend(chunk, at..at + take, &mut codes, &mut rules);
            i += take as u64;
        }
        Ok((codes, rules))
    }
}

/// One half of a material's band files, its chunk held: what a slice's man moves read over
/// and over (every quiet position reads the few halves its men reach), read with no look-up.
#[derive(Debug, Clone)]
pub(crate) struct HalfView {
    block: Arc<[u8]>,
    /// Where the half starts in the chunk.
    at: usize,
    kept: Kept,
}

impl HalfView {
    /// The distance code and rule code of the half's position `within`.
    ///
    /// # Panics
    ///
    /// If `within` is not a position of the half: the band file's directory was checked to
    /// hold every position of each half inside its chunk.
    #[inline(always)]
    pub(crate) fn codes(&self, within: u64) -> (u16, u8) {
        let at = self.at + within as usize;
        self.kept.codes(&self.block, at)
    }

    /// The distance code alone of the half's position `within`.
    ///
    /// # Panics
    ///
    /// As [`HalfView::codes`].
    #[inline(always)]
    pub(crate) fn distance_code(&self, within: u64) -> u16 {
        self.kept.code(&self.block, self.at + within as usize)
    }
}

/// The values of a finished material of `bands()` bands from its band files, if every one of
/// them is there and its directory checks (its chunks are checked by
/// [`BandedValues::check`]), and they hold every half of the sides to move `needs` (an earlier
/// run may have let the others go). Band files that leave a side to the material's tables (in
/// `tables`, see [`from_tables`]) are taken only with those tables storing that side.
pub(crate) fn open_finished(
    index: &PositionIndex,
    identity: &str,
    kept: Kept,
    paths: &rafle_probe::toolkit::WorkFiles,
    bands: impl FnOnce() -> usize,
    needs: Sides,
    tables: &rafle_probe::toolkit::VariantDir,
) -> Option<BandedValues> {
    if !is_banded(index) {
        return None;
    }
    let bands = bands();
    let found = band_paths(paths, bands);
    if found.len() != bands {
        return None;
    }
    let opened = |identity: &str| {
        let mut values = BandedValues::new(index, identity, kept);
        for (b, path) in found.iter().enumerate() {
            values.add_band(path, b).ok()?;
        }
        Some(values)
    };
    let values = match opened(identity) {
        Some(values) => values,
        None if kept == Kept::Full => [true, false].into_iter().find_map(|white| {
            let values = opened(&identity_from_tables(identity, white))?;
            let stored = StoredSide::open(tables, index).ok()?;
            (stored.side() == if white { Sides::WHITE } else { Sides::BLACK })
                .then(|| values.with_stored_side(Arc::new(stored)))
        })?,
        None => return None,
    };
    values.held_sides().contains(needs).then_some(values)
}

#[cfg(test)]
mod tests {
    use super::directory::FOOTER_LEN;
    use super::*;
    use crate::work::values::remove_bands;
    use rafle_probe::draughts::{Material, Variant};
    use std::fs;

    /// A material whose halves take two chunks each (KKKMvKK: 3 kings beside 2 over the free
    /// squares).
    fn index() -> PositionIndex {
        let material: Material = "KKKMvKK".parse().unwrap();
        let index = PositionIndex::new(Variant::Brazilian, material);
        assert!(index.king_placements() > CHUNK_POSITIONS && is_banded(&index));
        index
    }

    /// Made-up codes of position `i`: every value distinct enough to catch a misplaced one.
    fn codes_of(i: u64) -> (u16, u8) {
        let code = match i % 5 {
            0 => DRAW,
            _ => (i * 7 % 30_011) as u16,
        };
        (
            code | if i.is_multiple_of(3) { CAPTURE } else { 0 },
            (i % 251) as u8,
        )
    }

    /// Writes band `band` of `halves`, last to first (the directory puts them in order).
    /// Returns the sum of their checksums.
    fn write_band(path: &Path, index: &PositionIndex, band: usize, halves: &[u64]) -> u64 {
        write_laid_out(path, index, band, halves, Kept::Full)
    }

    fn write_laid_out(
        path: &Path,
        index: &PositionIndex,
        band: usize,
        halves: &[u64],
        kept: Kept,
    ) -> u64 {
        let half = index.king_placements();
        let writer = BandWriter::create(path, "id", band, index, kept).unwrap();
        let mut sum = 0u64;
        for &h in halves.iter().rev() {
            let (codes, rules): (Vec<u16>, Vec<u8>) =
                (h * half..(h + 1) * half).map(codes_of).unzip();
            sum = sum.wrapping_add(u64::from(
                writer.write_half(h * half, &codes, &rules).unwrap(),
            ));
        }
        writer.finish().unwrap();
        sum
    }

    #[test]
    fn a_material_is_banded_as_its_index_says() {
        let (mut banded, mut packed) = (0, 0);
        for variant in [Variant::Brazilian, Variant::International] {
            for name in [
                "KvK",
                "MvM",
                "KMvM",
                "MMMvMM",
                "KMMMvMM",
                "KKvM",
                "KMvKM",
                "KKMMvKKMM",
                "KMMMMvK",
                "KKKvKKK",
            ] {
                let material: Material = name.parse().unwrap();
                let index = PositionIndex::new(variant, material);
                let by_index = material.men() > 0 && index.king_placements() >= MIN_HALF_POSITIONS;
                assert_eq!(is_banded_material(variant, material), by_index, "{name}");
                assert_eq!(is_banded(&index), by_index, "{name}");
                banded += usize::from(by_index);
                let small = by_index && index.king_placements() < PACKED_BELOW;
                assert_eq!(packs_bands(variant, material), small, "{name}");
                packed += usize::from(small);
            }
        }
        // Every material with men and kings, on both boards; those of a single king packed.
        assert_eq!(banded, 12);
        // KMvM and KMMMvMM.
        assert_eq!(packed, 4);
    }

    #[test]
    fn small_halves_share_chunks_and_read_back_each_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let index = PositionIndex::new(Variant::Brazilian, "KMMvKM".parse().unwrap());
        let half = index.king_placements();
        assert!(is_banded(&index) && half < CHUNK_POSITIONS);
        let path = dir.path().join("m.band-000");
        // More halves than one chunk holds, out of order.
        let halves: Vec<u64> = (0..3 * halves_a_chunk(half) + 5)
            .map(|h| h * 7 % 1_000)
            .collect();
        let sum = write_band(&path, &index, 0, &halves);
        let mut values = BandedValues::new(&index, "id", Kept::Full);
        let mut held = values.add_band(&path, 0).unwrap();
        held.sort_unstable();
        let mut sorted = halves.clone();
        sorted.sort_unstable();
        assert_eq!(held, sorted);
        assert_eq!(values.checksum(&held).unwrap(), sum);
        let cache = SharedCache::new(1 << 20);
        for &h in &halves {
            for i in [h * half, h * half + half / 2, (h + 1) * half - 1] {
                assert_eq!(
                    values.codes(i, &cache).unwrap(),
                    codes_of(i),
                    "position {i}"
                );
            }
            let (codes, rules) = values.read_direct(h * half, half as usize).unwrap();
            let expected: (Vec<u16>, Vec<u8>) = (h * half..(h + 1) * half).map(codes_of).unzip();
            assert_eq!((codes, rules), expected);
        }
        // A half never written is not read.
        assert!(values.codes(1_001 * half, &cache).is_err());
    }

    #[test]
    fn bands_read_back_as_written_through_the_cache_and_whole() {
        let dir = tempfile::tempdir().unwrap();
        let index = index();
        let half = index.king_placements();
        let (a, b) = (dir.path().join("m.band-000"), dir.path().join("m.band-001"));
        let sum_a = write_band(&a, &index, 0, &[0, 5]);
        let sum_b = write_band(&b, &index, 1, &[3]);
        let mut values = BandedValues::new(&index, "id", Kept::Full);
        let mut halves = values.add_band(&a, 0).unwrap();
        halves.sort_unstable();
        assert_eq!(halves, vec![0, 5]);
        assert_eq!(values.checksum(&halves).unwrap(), sum_a);
        // Band 1 is not held yet: reading it is an error, not a value.
        assert!(values.codes(3 * half, &SharedCache::new(1 << 20)).is_err());
        assert_eq!(values.add_band(&b, 1).unwrap(), vec![3]);
        assert_eq!(values.checksum(&[3]).unwrap(), sum_b);
        let cache = SharedCache::new(1 << 20);
        for i in (0..half)
            .chain(3 * half..4 * half)
            .chain(5 * half..6 * half)
            .step_by(97)
        {
            assert_eq!(
                values.codes(i, &cache).unwrap(),
                codes_of(i),
                "position {i}"
            );
            assert_eq!(values.distance_code(i, &cache).unwrap(), codes_of(i).0);
        }
        // A range across the two chunks of a half, as the table writer reads it.
        let start = 3 * half + CHUNK_POSITIONS - 10;
        let (codes, rules) = values.read_direct(start, 40).unwrap();
        let expected: (Vec<u16>, Vec<u8>) = (start..start + 40).map(codes_of).unzip();
        assert_eq!((codes, rules), expected);
        values.check().unwrap();
        // A band file is not taken for another band or request, nor twice.
        assert!(BandedValues::new(&index, "id", Kept::Full)
            .add_band(&a, 1)
            .is_err());
        assert!(BandedValues::new(&index, "other", Kept::Full)
            .add_band(&a, 0)
            .is_err());
        assert!(values.add_band(&a, 0).is_err());
    }

    #[test]
    fn a_win_draw_loss_run_keeps_the_kind_of_each_code_and_its_capture_mark() {
        let dir = tempfile::tempdir().unwrap();
        let index = index();
        let half = index.king_placements();
        let path = dir.path().join("m.band-000");
        let sum = write_laid_out(&path, &index, 0, &[4], Kept::Kinds);
        let mut values = BandedValues::new(&index, "id", Kept::Kinds);
        assert_eq!(values.add_band(&path, 0).unwrap(), vec![4]);
        assert_eq!(values.checksum(&[4]).unwrap(), sum);
        let cache = SharedCache::new(1 << 20);
        let mut kinds = [0; 3];
        for i in 4 * half..5 * half {
            let (code, rule) = codes_of(i);
            let expected = shortest_of_its_kind(code);
            assert_eq!(
                values.codes(i, &cache).unwrap(),
                (expected, 0),
                "position {i}"
            );
            assert_eq!(rule == 0, i % 251 == 0);
            kinds[match expected & !CAPTURE {
                DRAW => 2,
                k => k as usize,
            }] += 1;
        }
        // The made-up codes give every kind, with and without the capture mark.
        assert!(kinds.iter().all(|&k| k > 0), "{kinds:?}");
        let (codes, _) = values.read_direct(4 * half + 3, 5).unwrap();
        let expected: Vec<u16> = (4 * half + 3..4 * half + 8)
            .map(|i| shortest_of_its_kind(codes_of(i).0))
            .collect();
        assert_eq!(codes, expected);
    }

    #[test]
    fn a_chunk_laid_out_for_another_run_is_an_error_never_a_value() {
        // A band file of a run of all three tables read by a win/draw/loss run (or one
        // written by a version that kept a byte a position): its chunks decompress to another
        // length than the bit planes take, which the reader checks before it reads a value.
        let dir = tempfile::tempdir().unwrap();
        let index = index();
        let path = dir.path().join("m.band-000");
        write_band(&path, &index, 0, &[1]);
        let mut values = BandedValues::new(&index, "id", Kept::Kinds);
        values.add_band(&path, 0).unwrap();
        let half = index.king_placements();
        let err = values.codes(half, &SharedCache::new(1 << 20)).unwrap_err();
        assert!(
            matches!(err, GenerateError::DamagedWorkFile { .. }),
            "{err}"
        );
        // Planes of a chunk of any length decode position by position as they were laid out.
        for n in [1, 7, 8, 9, 64, 65, 1000] {
            let codes: Vec<u16> = (0..n).map(|i| codes_of(i).0).collect();
            let mut chunk = Vec::new();
            Kept::Kinds.lay_out(&codes, &[], &mut chunk);
            assert_eq!(chunk.len(), Kept::Kinds.chunk_len(n as usize));
            for (at, &code) in codes.iter().enumerate() {
                assert_eq!(Kept::Kinds.code(&chunk, at), shortest_of_its_kind(code));
            }
        }
    }

    #[test]
    fn a_damaged_band_file_is_an_error_never_a_value() {
        let dir = tempfile::tempdir().unwrap();
        let index = index();
        let path = dir.path().join("m.band-000");
        write_band(&path, &index, 0, &[2]);
        let good = fs::read(&path).unwrap();
        // A byte changed in the first chunk: the directory opens, the chunk does not read.
        let mut bytes = good.clone();
        bytes[5] ^= 0x40;
        fs::write(&path, &bytes).unwrap();
        let mut values = BandedValues::new(&index, "id", Kept::Full);
        values.add_band(&path, 0).unwrap();
        let half = index.king_placements();
        let err = values
            .codes(2 * half, &SharedCache::new(1 << 20))
            .unwrap_err();
        assert!(
            matches!(err, GenerateError::DamagedWorkFile { .. }),
            "{err}"
        );
        assert!(values.check().is_err());
        // Cut short, or its directory changed: not opened.
        fs::write(&path, &good[..good.len() - 3]).unwrap();
        assert!(BandedValues::new(&index, "id", Kept::Full)
            .add_band(&path, 0)
            .is_err());
        let mut bytes = good.clone();
        let at = bytes.len() - FOOTER_LEN - 2;
        bytes[at] ^= 1;
        fs::write(&path, &bytes).unwrap();
        assert!(BandedValues::new(&index, "id", Kept::Full)
            .add_band(&path, 0)
            .is_err());
        // A band file of the earlier layout (a work file's, under the magic ending in 1) is
        // not taken for this one.
        let mut bytes = good.clone();
        let end = bytes.len();
        bytes[end - 1] = 1;
        fs::write(&path, &bytes).unwrap();
        assert!(matches!(
            BandedValues::new(&index, "id", Kept::Full).add_band(&path, 0),
            Err(GenerateError::DamagedWorkFile { .. })
        ));
    }

    #[test]
    fn removing_a_materials_bands_leaves_every_other_file() {
        let dir = tempfile::tempdir().unwrap();
        let work = |name: &str| dir.path().join(name);
        let names = [
            "KMvK.band-000",
            "KMvK.band-001",
            ".rafle-1a2b.KMvK.band-002.tmp",
            "KKMvK.band-000",
            ".rafle-1a2b.KKMvK.band-000.tmp",
            "KMvK.wdl.band-000",
            "KMvK.journal",
        ];
        for name in names {
            fs::write(work(name), b"x").unwrap();
        }
        remove_bands(&work("KMvK.partial"));
        let mut left: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                ".rafle-1a2b.KKMvK.band-000.tmp",
                "KKMvK.band-000",
                "KMvK.journal",
                "KMvK.wdl.band-000"
            ]
        );
    }
}
