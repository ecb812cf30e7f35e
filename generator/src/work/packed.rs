//! Packed work files: the values of a finished material, compressed, as the materials solved
//! after it read them (through a [`SharedCache`]).
//!
//! A finished material's raw work file (3 bytes a position, see [`crate::work::values`]) is packed
//! into `<material>.packed` and removed: the raw files of the materials still read would not
//! fit on disk for the largest sets; so are the band files of a material of a run that writes
//! the win/draw/loss tables alone. The positions are cut into blocks, compressed with zstd at
//! [`LEVEL`]. With [`Kept::Full`], a block holds [`BLOCK_POSITIONS`] positions in three byte
//! planes, as a band file's chunk ([`value_planes`]). With [`Kept::Kinds`], a block holds
//! [`KINDS_BLOCK_POSITIONS`] positions, 2 bits each, four a byte from the lowest bits: 0 a
//! loss, 1 a win, 2 a draw (about a third of the compressed bytes of a byte a position).
//! Either leaves out the capture mark, as the materials that read the file never need it.
//!
//! Layout (little-endian): the magic [`MAGIC`], the format version (`u32`: 3 for
//! [`Kept::Full`], 2 for [`Kept::Kinds`]; 1 was [`Kept::Full`] laid out as a raw work file,
//! refused now), positions a block
//! (`u32`), positions (`u64`), the length of the request's identity (`u32`) and the identity
//! (which variant, material, positions, limits and tables the values are of); then for each
//! block the offset just past its compressed bytes (`u64`) and the crc32 of its decompressed
//! bytes (`u32`); the crc32 of everything before it (`u32`); then the compressed blocks.
//!
//! A file is written under a temporary name, synced, then renamed: a file under the packed
//! name is complete. Every block is checked (its length and checksum) when it is read; a
//! damaged file is a [`GenerateError::DamagedWorkFile`], never a wrong value.

use std::cell::RefCell;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use rayon::prelude::*;

use crate::files::{clone_error, io_error};
use crate::work::sides::Sides;
use crate::work::value_planes::{self, Captures};
use crate::work::values::{code_of_kind, kind_of, Kept, ValuesFile, BYTES_PER_POSITION};
use crate::GenerateError;
use rafle_probe::toolkit::cache::{block_key, BlockCache, BlockKey};

mod sides;

pub(crate) use sides::keep_sides;

/// The cache the packed files are read through: its blocks shared, so that each thread keeps
/// a few at hand (see [`AtHand`]).
pub(crate) type SharedCache = BlockCache<Arc<[u8]>>;

/// Positions a block holds. Measured on the work files of the Brazilian materials up to 5
/// pieces (zstd level 3): 16,384 positions pack into 0.56 bytes a position (4,096: 0.59;
/// 65,536: 0.55), and a block decompresses in about 60 µs (4,096: 20 µs) on the project's
/// machine: small enough that reading the few positions a move reaches costs little when the
/// cache has dropped its block, large enough that the index and the cache's bookkeeping stay
/// small.
pub(crate) const BLOCK_POSITIONS: u64 = 1 << 14;

/// Positions a block of a [`Kept::Kinds`] file holds: as many bytes decompressed as a block
/// of [`BLOCK_POSITIONS`] holds bytes of the band files they are packed from. Measured on
/// Brazilian 5-piece materials with men, this packs into 0.06 to 0.10 bytes a position, and
/// their band files into 0.17 to 0.21.
pub(crate) const KINDS_BLOCK_POSITIONS: u64 = 1 << 16;

/// zstd level of the blocks. Measured on the same files: level 3 packs 4% smaller than level
/// 1 and decompresses about 10% faster (what every block read from disk pays), compressing
/// (once a material) at much the same speed; level 2 packs worse than either.
pub(crate) const LEVEL: i32 = 3;

/// The first bytes of a packed file.
pub(crate) const MAGIC: [u8; 8] = *b"RAFLEPK\x1a";

/// The format version of a file of values kept as `kept` says.
fn version(kept: Kept) -> u32 {
    match kept {
        Kept::Full => 3,
        Kept::Kinds => 2,
    }
}

/// Positions a block of a file of values kept as `kept` says holds.
pub(crate) fn block_positions(kept: Kept) -> u64 {
    match kept {
        Kept::Full => BLOCK_POSITIONS,
        Kept::Kinds => KINDS_BLOCK_POSITIONS,
    }
}

/// The bytes a block of `len` positions decompresses to, its values kept as `kept` says.
fn block_bytes(kept: Kept, len: usize) -> usize {
    match kept {
        Kept::Full => len * BYTES_PER_POSITION as usize,
        Kept::Kinds => len.div_ceil(4),
    }
}

/// Bytes of an index entry: the block's end offset and its checksum.
const ENTRY_LEN: usize = 12;

/// Blocks compressed together while writing: bounds the memory writing takes.
const BATCH: u64 = 256;

/// Numbers packed files apart in the cache, for the life of the process.
static NEXT_FILE: AtomicU32 = AtomicU32::new(0);

/// Blocks each thread keeps at hand (see [`AtHand`]): a power of two.
pub(crate) const AT_HAND: usize = 8;

/// Bytes of the blocks a thread keeps at hand, at most; they are held outside the cache's
/// budget.
pub(crate) const AT_HAND_BYTES: u64 = AT_HAND as u64 * BLOCK_POSITIONS * BYTES_PER_POSITION;

/// The blocks a thread read last, by key, a few of them: the moves out of neighbouring
/// positions reach the same few blocks over and over, and reading one here costs no lock and
/// no look-up in the shared cache. Packed files are numbered apart for the life of the process,
/// so a key never names another block; a block stays alive here until another takes its place.
struct AtHand([Option<(BlockKey, Arc<[u8]>)>; AT_HAND]);

impl AtHand {
    #[inline]
    fn place(key: BlockKey) -> usize {
        (key ^ key >> 29) as usize & (AT_HAND - 1)
    }

    #[inline]
    fn get(&self, key: BlockKey) -> Option<&Arc<[u8]>> {
        match &self.0[AtHand::place(key)] {
            Some((k, block)) if *k == key => Some(block),
            _ => None,
        }
    }

    fn keep(&mut self, key: BlockKey, block: Arc<[u8]>) {
        self.0[AtHand::place(key)] = Some((key, block));
    }
}

thread_local! {
    /// A decompression context for each thread: making one costs more than a block.
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };

    static AT_HAND_BLOCKS: RefCell<AtHand> = const { RefCell::new(AtHand([const { None }; AT_HAND])) };
}

/// The positions of block `block` of a file of `positions` positions in blocks of `per_block`.
pub(crate) fn block_len(positions: u64, per_block: u64, block: u64) -> usize {
    (positions - block * per_block).min(per_block) as usize
}

pub(crate) fn damaged(path: &Path, reason: impl Into<String>) -> GenerateError {
    GenerateError::DamagedWorkFile {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// The bytes before the index: magic, version, block size, positions and identity.
fn preamble(kept: Kept, positions: u64, identity: &str) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&version(kept).to_le_bytes());
    bytes.extend_from_slice(&(block_positions(kept) as u32).to_le_bytes());
    bytes.extend_from_slice(&positions.to_le_bytes());
    bytes.extend_from_slice(&(identity.len() as u32).to_le_bytes());
    bytes.extend_from_slice(identity.as_bytes());
    bytes
}

/// Writes a packed file of `positions` positions at `path`, its values kept as `kept` says, the distance codes
/// and rule codes of the `len` positions from `start` given by `block(start, len)`. Returns
/// the file's size.
///
/// # Errors
///
/// [`GenerateError::Io`] if writing fails (the temporary file is then removed), or what
/// `block` returns.
pub(crate) fn write(
    path: &Path,
    identity: &str,
    positions: u64,
    kept: Kept,
    block: impl Fn(u64, usize) -> Result<(Vec<u16>, Vec<u8>), GenerateError> + Sync,
) -> Result<u64, GenerateError> {
    // The rename is made durable (best effort) before the raw file it replaces goes.
    let mut len = 0;
    crate::files::replace_by(path, |tmp| {
        len = write_at(tmp, identity, positions, kept, block)?;
        Ok(())
    })?;
    Ok(len)
}

/// [`write()`], under the fresh temporary name `path`, synced; without the rename.
fn write_at(
    path: &Path,
    identity: &str,
    positions: u64,
    kept: Kept,
    block: impl Fn(u64, usize) -> Result<(Vec<u16>, Vec<u8>), GenerateError> + Sync,
) -> Result<u64, GenerateError> {
    let io = io_error(path);
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(io_error(dir))?;
    }
    let per_block = block_positions(kept);
    let blocks = positions.div_ceil(per_block);
    let preamble = preamble(kept, positions, identity);
    let index_len = blocks as usize * ENTRY_LEN + 4;
    let mut index = Vec::with_capacity(index_len);
    let mut offset = (preamble.len() + index_len) as u64;
    let file = crate::create_temporary(path).map_err(&io)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    // The index is written last, once the blocks' sizes are known.
    out.write_all(&preamble).map_err(&io)?;
    out.write_all(&vec![0; index_len]).map_err(&io)?;
    for first in (0..blocks).step_by(BATCH as usize) {
        let batch: Vec<(Vec<u8>, u32)> = (first..(first + BATCH).min(blocks))
            .into_par_iter()
            .map_init(
                || (Vec::new(), zstd::bulk::Compressor::new(LEVEL)),
                |(raw, compressor), b| {
                    raw.clear();
                    let len = block_len(positions, per_block, b);
                    let (codes, rules) = block(b * per_block, len)?;
                    lay_out(kept, &codes, &rules, raw);
                    let compressor = compressor.as_mut().map_err(|e| io(clone_error(e)))?;
                    let compressed = compressor.compress(raw).map_err(&io)?;
                    Ok((compressed, crc32fast::hash(raw)))
                },
            )
            .collect::<Result<_, GenerateError>>()?;
        for (compressed, crc) in batch {
            out.write_all(&compressed).map_err(&io)?;
            offset += compressed.len() as u64;
            index.extend_from_slice(&offset.to_le_bytes());
            index.extend_from_slice(&crc.to_le_bytes());
        }
    }
    finish(out, &preamble, index, &io)?;
    Ok(offset)
}

/// Ends a packed file written through `out` after `preamble` and room for its index: the
/// index (`index`, the blocks' entries) and its checksum written in that room, the file
/// synced.
fn finish(
    out: BufWriter<File>,
    preamble: &[u8],
    mut index: Vec<u8>,
    io: &impl Fn(std::io::Error) -> GenerateError,
) -> Result<(), GenerateError> {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(preamble);
    hasher.update(&index);
    index.extend_from_slice(&hasher.finalize().to_le_bytes());
    let file = out.into_inner().map_err(|e| io(e.into_error()))?;
    file.write_all_at(&index, preamble.len() as u64)
        .map_err(io)?;
    file.sync_all().map_err(io)
}

/// Packs a finished raw work file into a packed file at `path`, kept as `kept` says. Returns the
/// packed size.
///
/// # Errors
///
/// As [`write()`].
pub(crate) fn pack(
    values: &ValuesFile,
    path: &Path,
    identity: &str,
    kept: Kept,
) -> Result<u64, GenerateError> {
    write(path, identity, values.positions(), kept, |start, len| {
        values.read_range(start, len)
    })
}

/// Appends a block's bytes, kept as `kept` says, to `out`.
fn lay_out(kept: Kept, distances: &[u16], rules: &[u8], out: &mut Vec<u8>) {
    match kept {
        Kept::Full => value_planes::lay_out(distances, rules, Captures::Dropped, out),
        Kept::Kinds => out.extend(distances.chunks(4).map(|four| {
            (four.iter().enumerate()).fold(0, |byte, (k, &code)| byte | kind_of(code) << (2 * k))
        })),
    }
}

/// `read` of the block `key` names: from the blocks this thread keeps at hand, else from
/// `cache`, else `load`ed (and then kept in both). Shared by every compressed form of values
/// the generator reads (packed files, the band files of a material being solved).
#[inline(always)]
pub(crate) fn read_cached<T>(
    key: BlockKey,
    cache: &SharedCache,
    load: impl FnOnce() -> Result<Vec<u8>, GenerateError>,
    read: impl Fn(&[u8]) -> T,
) -> Result<T, GenerateError> {
    read_cached_block(key, cache, load, |block| read(block))
}

#[inline(always)]
fn read_cached_block<T>(
    key: BlockKey,
    cache: &SharedCache,
    load: impl FnOnce() -> Result<Vec<u8>, GenerateError>,
    read: impl Fn(&Arc<[u8]>) -> T,
) -> Result<T, GenerateError> {
    AT_HAND_BLOCKS.with(|at_hand| {
        let mut at_hand = at_hand.borrow_mut();
        if let Some(block) = at_hand.get(key) {
            return Ok(read(block));
        }
        let block = match cache.shared(key) {
            Some(block) => block,
            None => {
                let block: Arc<[u8]> = load()?.into();
                cache.insert(key, Arc::clone(&block));
                block
            }
        };
        let codes = read(&block);
        at_hand.keep(key, block);
        Ok(codes)
    })
}

/// The block `key` names, shared: from the blocks this thread keeps at hand, else from
/// `cache`, else `load`ed (and then kept in both), as [`read_cached`] reads it. For a reader
/// that reads many positions of one block and keeps it meanwhile.
pub(crate) fn shared_block(
    key: BlockKey,
    cache: &SharedCache,
    load: impl FnOnce() -> Result<Vec<u8>, GenerateError>,
) -> Result<Arc<[u8]>, GenerateError> {
    read_cached_block(key, cache, load, Arc::clone)
}

/// `compressed` decompressed, which must give `len` bytes of crc32 `crc`; else a
/// [`GenerateError::DamagedWorkFile`] naming `path` and the `what` numbered `number`.
pub(crate) fn decompress_checked(
    path: &Path,
    compressed: &[u8],
    len: usize,
    crc: u32,
    what: &str,
    number: u64,
) -> Result<Vec<u8>, GenerateError> {
    let block = DECOMPRESSOR.with(|cell| {
        let mut cell = cell.borrow_mut();
        let decompressor = match &mut *cell {
            Some(d) => d,
            empty => empty.insert(zstd::bulk::Decompressor::new().map_err(io_error(path))?),
        };
        decompressor
            .decompress(compressed, len)
            .map_err(|e| damaged(path, format!("{what} {number}: {e}")))
    })?;
    if block.len() != len || crc32fast::hash(&block) != crc {
        return Err(damaged(path, format!("{what} {number} checksum mismatch")));
    }
    Ok(block)
}

/// A packed file opened for reading, its index in memory.
#[derive(Debug)]
pub(crate) struct PackedValues {
    path: PathBuf,
    file: File,
    /// Its number in the cache's keys.
    id: u32,
    positions: u64,
    /// How its positions are laid out.
    kept: Kept,
    /// Positions a block.
    per_block: u64,
    /// Where the first block starts.
    data_start: u64,
    /// The offset just past each block's compressed bytes.
    ends: Vec<u64>,
    /// The crc32 of each block's decompressed bytes.
    crcs: Vec<u32>,
    /// The sides to move it holds: a block of no position of them is empty.
    held: Sides,
}

impl PackedValues {
    /// Opens the packed file at `path`, which must hold `positions` positions of the request
    /// `identity` names, kept as `kept` says; its index checked.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if it cannot be read, [`GenerateError::DamagedWorkFile`] if it is
    /// not a complete packed file of this request.
    pub(crate) fn open(
        path: &Path,
        identity: &str,
        positions: u64,
        kept: Kept,
    ) -> Result<PackedValues, GenerateError> {
        let io = io_error(path);
        let file = rafle_probe::toolkit::open_regular(path).map_err(&io)?;
        let len = file.metadata().map_err(&io)?.len();
        let per_block = block_positions(kept);
        let blocks = positions.div_ceil(per_block);
        let index_len = blocks as usize * ENTRY_LEN + 4;
        // Of both sides, or of one alone when an earlier material was the last to read the
        // other ([`keep_sides`]): the identity says which. The head is read once, as long as
        // the longest of the three would make it.
        let candidates = [Sides::BOTH, Sides::WHITE, Sides::BLACK].map(|held| {
            let identity = format!("{identity}{}", held.suffix());
            (preamble(kept, positions, &identity), held)
        });
        let longest = candidates.iter().map(|(p, _)| p.len()).max().unwrap_or(0);
        let mut head =
            vec![0; (longest + index_len).min(usize::try_from(len).unwrap_or(usize::MAX))];
        file.read_exact_at(&mut head, 0).map_err(&io)?;
        let [both, ..] = &candidates;
        let (preamble, held) = (candidates.iter())
            .find(|(preamble, _)| head.starts_with(preamble))
            .unwrap_or(both);
        let held = *held;
        let data_start = (preamble.len() + index_len) as u64;
        if len < data_start {
            return Err(damaged(path, format!("{len} bytes, too short")));
        }
        head.truncate(data_start as usize);
        let (found, index) = head.split_at(preamble.len());
        if found[..MAGIC.len()] != MAGIC {
            return Err(damaged(path, "not a packed work file"));
        }
        if found != preamble.as_slice() {
            return Err(damaged(
                path,
                format!("not the values of {identity} with this version and block size"),
            ));
        }
        let (index, crc) = index.split_at(index_len - 4);
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(found);
        hasher.update(index);
        if hasher.finalize().to_le_bytes() != crc {
            return Err(damaged(path, "index checksum mismatch"));
        }
        let mut ends = Vec::with_capacity(blocks as usize);
        let mut crcs = Vec::with_capacity(blocks as usize);
        for entry in index.chunks_exact(ENTRY_LEN) {
            let (end, crc) = entry.split_at(8);
            ends.push(u64::from_le_bytes(end.try_into().expect("8 bytes")));
            crcs.push(u32::from_le_bytes(crc.try_into().expect("4 bytes")));
        }
        let ordered = ends
            .iter()
            .try_fold(data_start, |start, &end| (end >= start).then_some(end));
        if ordered != Some(len) {
            return Err(damaged(path, "index does not match the file's length"));
        }
        Ok(PackedValues {
            path: path.to_path_buf(),
            file,
            id: NEXT_FILE.fetch_add(1, Ordering::Relaxed),
            positions,
            kept,
            per_block,
            data_start,
            ends,
            crcs,
            held,
        })
    }

    /// Its positions, both sides to move.
    pub(crate) fn positions(&self) -> u64 {
        self.positions
    }

    /// How its blocks are laid out.
    pub(crate) fn kept(&self) -> Kept {
        self.kept
    }

    /// The sides to move it holds.
    pub(crate) fn held(&self) -> Sides {
        self.held
    }

    /// Whether block `b` holds a position of the sides it holds.
    fn held_block(&self, b: u64) -> bool {
        let start = b * self.per_block;
        let end = (start + self.per_block).min(self.positions);
        self.held.meets(start, end, self.positions)
    }

    /// The file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Its number in the cache's keys.
    pub(crate) fn id(&self) -> u32 {
        self.id
    }

    /// The distance code (without its capture mark) and rule code of position `i`, its block
    /// read through `cache` (of a [`Kept::Kinds`] file, the shortest code of its kind and rule
    /// code 0).
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] or [`GenerateError::DamagedWorkFile`] if its block cannot be
    /// read back as written.
    #[inline]
    pub(crate) fn codes(&self, i: u64, cache: &SharedCache) -> Result<(u16, u8), GenerateError> {
        let at = (i % self.per_block) as usize;
        match self.kept {
            Kept::Full => self.read_at(i, cache, |block| value_planes::codes(block, at)),
            Kept::Kinds => Ok((self.kind_code(i, at, cache)?, 0)),
        }
    }

    /// The distance code of position `i` alone, as [`PackedValues::codes`] reads it.
    ///
    /// # Errors
    ///
    /// As [`PackedValues::codes`].
    #[inline]
    pub(crate) fn distance_code(&self, i: u64, cache: &SharedCache) -> Result<u16, GenerateError> {
        let at = (i % self.per_block) as usize;
        match self.kept {
            Kept::Full => self.read_at(i, cache, |block| value_planes::code(block, at)),
            Kept::Kinds => self.kind_code(i, at, cache),
        }
    }

    /// The distance code of position `i`, at `at` in its block, of a [`Kept::Kinds`] file.
    #[inline(always)]
    fn kind_code(&self, i: u64, at: usize, cache: &SharedCache) -> Result<u16, GenerateError> {
        let kind = self.read_at(i, cache, |block| block[at / 4] >> (2 * (at % 4)) & 3)?;
        code_of_kind(kind).ok_or_else(|| damaged(&self.path, format!("kind 3 at position {i}")))
    }

    /// `read` of the block holding position `i`, the block read through `cache`.
    #[inline(always)]
    fn read_at<T>(
        &self,
        i: u64,
        cache: &SharedCache,
        read: impl Fn(&[u8]) -> T,
    ) -> Result<T, GenerateError> {
        let b = i / self.per_block;
        read_cached(
            block_key(self.id, b as u32),
            cache,
            || self.read_block(b),
            read,
        )
    }

    /// Block `b` decompressed, its length and checksum checked.
    ///
    /// # Errors
    ///
    /// As [`PackedValues::codes`].
    pub(crate) fn read_block(&self, b: u64) -> Result<Vec<u8>, GenerateError> {
        if !self.held_block(b) {
            return Err(damaged(
                &self.path,
                format!("block {b} read, of a side to move it no longer holds"),
            ));
        }
        let start = match b {
            0 => self.data_start,
            b => self.ends[b as usize - 1],
        };
        let mut compressed = vec![0; (self.ends[b as usize] - start) as usize];
        self.file
            .read_exact_at(&mut compressed, start)
            .map_err(io_error(&self.path))?;
        let len = block_bytes(self.kept, block_len(self.positions, self.per_block, b));
        decompress_checked(
            &self.path,
            &compressed,
            len,
            self.crcs[b as usize],
            "block",
            b,
        )
    }

    /// Reads every block, in parallel, to check it.
    ///
    /// # Errors
    ///
    /// The first block that does not read back as written.
    pub(crate) fn check(&self) -> Result<(), GenerateError> {
        (0..self.ends.len() as u64)
            .into_par_iter()
            .filter(|&b| self.held_block(b))
            .try_for_each(|b| self.read_block(b).map(drop))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::work::values::{CAPTURE, DRAW};

    /// A raw work file of `positions` positions with varied codes, like a solved material's.
    pub(super) fn raw(dir: &Path, positions: u64) -> ValuesFile {
        let values = ValuesFile::open(&dir.join("m.partial"), positions, true, Kept::Full).unwrap();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let (distances, rules): (Vec<u16>, Vec<u8>) = (0..positions)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // Mostly draws and short distances, as in the tables.
                let d = if state.is_multiple_of(3) {
                    0x7fff
                } else {
                    (state >> 8) as u16 % 40
                };
                (d | (state >> 20) as u16 & 0x8000, (state >> 32) as u8 % 90)
            })
            .unzip();
        values.write_range(0, &distances, &rules).unwrap();
        values
    }

    /// The codes of position `i` a packed file of [`Kept::Full`] gives back: its capture mark
    /// left out.
    pub(super) fn read_back(values: &ValuesFile, i: u64) -> (u16, u8) {
        (values.distance_code(i) & !CAPTURE, values.rule_code(i))
    }

    fn all_codes(
        packed: &PackedValues,
        cache: &SharedCache,
    ) -> Result<Vec<(u16, u8)>, GenerateError> {
        (0..packed.positions)
            .map(|i| packed.codes(i, cache))
            .collect()
    }

    #[test]
    fn round_trip_with_a_bounded_cache() {
        let dir = tempfile::tempdir().unwrap();
        let n = 2 * BLOCK_POSITIONS + 1000;
        let values = raw(dir.path(), n);
        let path = dir.path().join("m.packed");
        let len = pack(&values, &path, "m", Kept::Full).unwrap();
        assert_eq!(len, fs::metadata(&path).unwrap().len());
        assert_eq!(files_in(dir.path()), ["m.packed", "m.partial"]);
        let packed = PackedValues::open(&path, "m", n, Kept::Full).unwrap();
        packed.check().unwrap();
        // The capture marks are left out: the materials that read the values never need them.
        let expected: Vec<(u16, u8)> = (0..n).map(|i| read_back(&values, i)).collect();
        assert!((0..n).any(|i| values.distance_code(i) & CAPTURE != 0));
        // Room for one block: blocks keep replacing one another.
        let block = (BLOCK_POSITIONS * BYTES_PER_POSITION) as usize;
        let budget = block + rafle_probe::toolkit::cache::ENTRY_OVERHEAD;
        let cache = SharedCache::new(budget);
        for _ in 0..2 {
            assert_eq!(all_codes(&packed, &cache).unwrap(), expected);
            assert!(cache.bytes() <= budget);
        }
        // A file of the earlier layout (version 1, a raw work file's) is not taken.
        let mut bytes = fs::read(&path).unwrap();
        bytes[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&1u32.to_le_bytes());
        let old = dir.path().join("old.packed");
        fs::write(&old, &bytes).unwrap();
        let err = PackedValues::open(&old, "m", n, Kept::Full).unwrap_err();
        assert!(err.to_string().contains("old.packed"), "{err}");
        // Another request's values, or other positions, are not taken.
        for (identity, positions) in [("other", n), ("m", n + 1)] {
            assert!(matches!(
                PackedValues::open(&path, identity, positions, Kept::Full),
                Err(GenerateError::DamagedWorkFile { .. })
            ));
        }
    }

    #[test]
    fn kinds_keep_each_values_kind_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        // Across a block's end, and a last block of a length not a multiple of four.
        let n = KINDS_BLOCK_POSITIONS + 4099;
        let values = raw(dir.path(), n);
        let path = dir.path().join("m.packed");
        let len = pack(&values, &path, "m", Kept::Kinds).unwrap();
        let full = pack(&values, &dir.path().join("f.packed"), "m", Kept::Full).unwrap();
        assert!(len * 4 < full, "{len} {full}");
        let packed = PackedValues::open(&path, "m", n, Kept::Kinds).unwrap();
        packed.check().unwrap();
        let cache = SharedCache::new(64 << 20);
        let shortest = |code: u16| match code & !CAPTURE {
            DRAW => DRAW,
            d => d % 2,
        };
        for i in 0..n {
            let code = shortest(values.distance_code(i));
            assert_eq!(packed.codes(i, &cache).unwrap(), (code, 0), "position {i}");
            assert_eq!(packed.distance_code(i, &cache).unwrap(), code);
        }
        // Values kept one way are not taken for the other.
        let err = PackedValues::open(&path, "m", n, Kept::Full).unwrap_err();
        assert!(
            matches!(err, GenerateError::DamagedWorkFile { .. }),
            "{err}"
        );
    }

    #[test]
    fn blocks_at_hand_are_never_another_files() {
        let dir = tempfile::tempdir().unwrap();
        let n = BLOCK_POSITIONS + 10;
        let values = raw(dir.path(), n);
        let path = dir.path().join("m.packed");
        pack(&values, &path, "m", Kept::Full).unwrap();
        // The same values in reverse order, under the same block numbers.
        let reversed =
            ValuesFile::open(&dir.path().join("r.partial"), n, true, Kept::Full).unwrap();
        let (distances, rules): (Vec<u16>, Vec<u8>) = (0..n)
            .rev()
            .map(|i| (values.distance_code(i), values.rule_code(i)))
            .unzip();
        reversed.write_range(0, &distances, &rules).unwrap();
        let other = dir.path().join("r.packed");
        pack(&reversed, &other, "r", Kept::Full).unwrap();
        let cache = SharedCache::new(64 << 20);
        let (a, b) = (
            PackedValues::open(&path, "m", n, Kept::Full).unwrap(),
            PackedValues::open(&other, "r", n, Kept::Full).unwrap(),
        );
        for i in (0..n).step_by(97) {
            let expected = read_back(&values, i);
            assert_eq!(a.codes(i, &cache).unwrap(), expected);
            assert_eq!(b.codes(n - 1 - i, &cache).unwrap(), expected);
            assert_eq!(a.distance_code(i, &cache).unwrap(), expected.0);
        }
        // Opened again, a file is read afresh: what the first opening kept is not used.
        drop(a);
        fs::copy(&other, &path).unwrap();
        let again = PackedValues::open(&path, "r", n, Kept::Full).unwrap();
        assert_eq!(again.codes(0, &cache).unwrap(), read_back(&values, n - 1));
    }

    #[test]
    fn damage_is_a_typed_error_never_a_wrong_value() {
        let dir = tempfile::tempdir().unwrap();
        let n = BLOCK_POSITIONS + 3000;
        let values = raw(dir.path(), n);
        let path = dir.path().join("m.packed");
        pack(&values, &path, "m", Kept::Full).unwrap();
        let expected: Vec<(u16, u8)> = (0..n).map(|i| read_back(&values, i)).collect();
        let good = fs::read(&path).unwrap();
        let damaged_path = dir.path().join("damaged.packed");
        // Every few bytes of the file flipped in turn, header, index and blocks alike.
        let (mut refused, mut caught) = (0, 0);
        for at in (0..good.len()).step_by(37) {
            let mut bytes = good.clone();
            bytes[at] ^= 0x10;
            fs::write(&damaged_path, &bytes).unwrap();
            let Ok(packed) = PackedValues::open(&damaged_path, "m", n, Kept::Full) else {
                refused += 1;
                continue;
            };
            let cache = SharedCache::new(64 << 20);
            match all_codes(&packed, &cache) {
                // A bit zstd does not use.
                Ok(codes) => assert_eq!(codes, expected, "byte {at}"),
                Err(e) => {
                    assert!(matches!(e, GenerateError::DamagedWorkFile { .. }), "{e}");
                    assert!(packed.check().is_err());
                    caught += 1;
                }
            }
        }
        assert!(refused > 0 && caught > refused, "{refused} {caught}");
        // Cut short: refused when opened.
        fs::write(&damaged_path, &good[..good.len() - 1]).unwrap();
        let err = PackedValues::open(&damaged_path, "m", n, Kept::Full).unwrap_err();
        assert!(err.to_string().contains("damaged.packed"), "{err}");
    }

    #[test]
    fn a_failed_write_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.packed");
        let failing = |start: u64, len: usize| {
            if start == BLOCK_POSITIONS {
                Err(damaged(&path, "source failed"))
            } else {
                Ok((vec![0; len], vec![0; len]))
            }
        };
        assert!(write(&path, "m", 3 * BLOCK_POSITIONS, Kept::Full, failing).is_err());
        assert!(files_in(dir.path()).is_empty());
    }

    pub(super) fn files_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }
}
