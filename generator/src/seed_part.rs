//! The file a seed part of a kings-only material leaves for the unit that solves it.
//!
//! A kings-only material past [`crate::plan`]'s part size is seeded in parts, each a unit of
//! work of its own that may run on another node: a part walks its range of positions, reads
//! the values of the materials its captures reach, and writes one file holding the codes of
//! its positions (those its seeds decide, a draw for the others: what the solve would have
//! written to its work file) and its seeds by level (as [`crate::seed_file`] records them).
//! The unit that solves the material copies every part's codes into its work file and runs
//! the propagations from their seeds: it reads no other material.
//!
//! Layout (little-endian): the code blocks (zstd, each one range of positions: their distance
//! codes, two bytes each, then their rule codes), the seed records, then the index (what the
//! part is of, its blocks, its records) and a footer (where the index is, its CRC-32, a magic
//! number). Every block and record has its CRC-32 in the index: a file changed after it was
//! written is refused, never read as seeds. Written under a temporary name, synced, renamed.

use std::fs::{self, File};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::files::{create_temporary, io, temporary_path};
use crate::seed_file::{GroupSeeds, Propagated, SeedRecords, Seeds};
use crate::GenerateError;

/// The last bytes of every part file.
const MAGIC: &[u8; 8] = b"RAFLESP1";

/// Bytes of the footer: index offset, index length, index CRC-32, magic.
const FOOTER: u64 = 8 + 8 + 4 + 8;

/// The zstd level of the code blocks: most codes are the draw left for the propagation,
/// and the solving unit reads each block once.
const CODES_LEVEL: i32 = 1;

/// What a part file is of: the request's identity (variant, material, positions, limits and
/// tables), which part of how many, and its positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PartId {
    /// The identity of the request's values of the material
    /// ([`crate::values::packed_identity`]).
    pub(crate) identity: String,
    /// Which part, from 1.
    pub(crate) part: u32,
    /// Of how many.
    pub(crate) parts: u32,
    /// Its first position.
    pub(crate) start: u64,
    /// Its positions.
    pub(crate) len: u64,
}

/// A block of codes in the file: positions `start..start + positions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Block {
    start: u64,
    positions: u32,
    offset: u64,
    len: u32,
    crc: u32,
}

/// A part file being written, block by block and group by group.
pub(crate) struct PartWriter {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
    written: u64,
    blocks: Vec<Block>,
    records: SeedRecords,
}

impl PartWriter {
    /// Starts the part file `path`, under a temporary name until [`PartWriter::finish`].
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if it cannot be created.
    pub(crate) fn create(path: &Path) -> Result<PartWriter, GenerateError> {
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        }
        let tmp = temporary_path(path);
        let file = create_temporary(&tmp).map_err(|e| io(&tmp, e))?;
        Ok(PartWriter {
            path: path.to_path_buf(),
            out: Some(BufWriter::with_capacity(1 << 20, file)),
            tmp,
            written: 0,
            blocks: Vec::new(),
            records: SeedRecords::default(),
        })
    }

    fn out(&mut self) -> &mut BufWriter<File> {
        self.out.as_mut().expect("written until finished")
    }

    /// Appends the codes of positions `start..start + codes.len()`, compressed by
    /// [`compress_codes`]; blocks come in the order of their positions.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if writing fails (a full disk).
    pub(crate) fn append_codes(
        &mut self,
        start: u64,
        positions: usize,
        compressed: &[u8],
    ) -> Result<(), GenerateError> {
        let block = Block {
            start,
            positions: u32::try_from(positions).expect("a block of a few thousand positions"),
            offset: self.written,
            len: u32::try_from(compressed.len()).expect("a block of a few thousand positions"),
            crc: crc32fast::hash(compressed),
        };
        let tmp = self.tmp.clone();
        self.out().write_all(compressed).map_err(|e| io(&tmp, e))?;
        self.written += compressed.len() as u64;
        self.blocks.push(block);
        Ok(())
    }

    /// Appends a group's seeds.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if writing fails.
    pub(crate) fn append_seeds(&mut self, seeds: &GroupSeeds) -> Result<(), GenerateError> {
        let mut out = self.out.take().expect("written until finished");
        let appended = self
            .records
            .append(seeds, &mut out, &mut self.written, &self.tmp);
        self.out = Some(out);
        appended
    }

    /// Writes the index and the footer, syncs, and renames the file to its name: the part is
    /// done. `longest` and `deepest` are the longest win and loss its seeds hold.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if it cannot be written.
    pub(crate) fn finish(
        mut self,
        id: &PartId,
        longest: u16,
        deepest: u16,
    ) -> Result<(), GenerateError> {
        let mut index = Vec::new();
        index.extend_from_slice(MAGIC);
        put_bytes(&mut index, id.identity.as_bytes());
        index.extend_from_slice(&id.part.to_le_bytes());
        index.extend_from_slice(&id.parts.to_le_bytes());
        index.extend_from_slice(&id.start.to_le_bytes());
        index.extend_from_slice(&id.len.to_le_bytes());
        index.extend_from_slice(&longest.to_le_bytes());
        index.extend_from_slice(&deepest.to_le_bytes());
        index.extend_from_slice(&(self.blocks.len() as u64).to_le_bytes());
        for b in &self.blocks {
            index.extend_from_slice(&b.start.to_le_bytes());
            index.extend_from_slice(&b.positions.to_le_bytes());
            index.extend_from_slice(&b.offset.to_le_bytes());
            index.extend_from_slice(&b.len.to_le_bytes());
            index.extend_from_slice(&b.crc.to_le_bytes());
        }
        self.records.to_bytes(&mut index);
        let mut footer = Vec::with_capacity(FOOTER as usize);
        footer.extend_from_slice(&self.written.to_le_bytes());
        footer.extend_from_slice(&(index.len() as u64).to_le_bytes());
        footer.extend_from_slice(&crc32fast::hash(&index).to_le_bytes());
        footer.extend_from_slice(MAGIC);
        let tmp = self.tmp.clone();
        let mut out = self.out.take().expect("written until finished");
        out.write_all(&index)
            .and_then(|()| out.write_all(&footer))
            .and_then(|()| out.flush())
            .map_err(|e| io(&tmp, e))?;
        let file = out.into_inner().map_err(|e| io(&tmp, e.into_error()))?;
        file.sync_data().map_err(|e| io(&tmp, e))?;
        fs::rename(&tmp, &self.path).map_err(|e| io(&self.path, e))
    }
}

impl Drop for PartWriter {
    fn drop(&mut self) {
        // Not finished: the half-written file goes (finished, it was renamed away).
        if self.out.is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// A range's codes as a part file stores them: distance codes, then rule codes, compressed.
pub(crate) fn compress_codes(codes: &[u16], rule_codes: &[u8]) -> Vec<u8> {
    let mut raw = Vec::with_capacity(3 * codes.len());
    raw.extend(codes.iter().flat_map(|c| c.to_le_bytes()));
    raw.extend_from_slice(rule_codes);
    zstd::bulk::compress(&raw, CODES_LEVEL).expect("compressing into memory")
}

/// A finished part file, its index checked, its blocks and records read on demand.
pub(crate) struct PartFile {
    path: PathBuf,
    file: File,
    /// The longest win its seeds hold.
    pub(crate) longest: u16,
    /// The longest loss its seeds hold.
    pub(crate) deepest: u16,
    blocks: Vec<Block>,
    records: SeedRecords,
}

impl PartFile {
    /// Opens the part file `path`, which must be the part `id` says, whole.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if it cannot be read (of kind `NotFound` if it is not there),
    /// [`GenerateError::DamagedWorkFile`] if it is not a finished part file of `id`.
    pub(crate) fn open(path: &Path, id: &PartId) -> Result<PartFile, GenerateError> {
        let mut file = rafle_probe::open_regular(path).map_err(|e| io(path, e))?;
        let damaged = |reason: &str| GenerateError::DamagedWorkFile {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        };
        let file_len = file.seek(SeekFrom::End(0)).map_err(|e| io(path, e))?;
        if file_len < FOOTER {
            return Err(damaged("shorter than its footer"));
        }
        let mut footer = [0u8; FOOTER as usize];
        file.read_exact_at(&mut footer, file_len - FOOTER)
            .map_err(|e| io(path, e))?;
        let word = |at: usize| u64::from_le_bytes(footer[at..at + 8].try_into().unwrap());
        let (index_at, index_len) = (word(0), word(8));
        let index_crc = u32::from_le_bytes(footer[16..20].try_into().unwrap());
        if &footer[20..] != MAGIC {
            return Err(damaged(
                "no part file footer (not finished, or not a part file)",
            ));
        }
        if index_at.checked_add(index_len) != Some(file_len - FOOTER) {
            return Err(damaged("its index is not where its footer says"));
        }
        let mut index = vec![0u8; index_len as usize];
        file.seek(SeekFrom::Start(index_at))
            .and_then(|_| file.read_exact(&mut index))
            .map_err(|e| io(path, e))?;
        if crc32fast::hash(&index) != index_crc {
            return Err(damaged("its index's checksum does not match"));
        }
        let (found, longest, deepest, blocks, records) =
            read_index(&index, index_at).ok_or_else(|| damaged("its index is not well formed"))?;
        if found != *id {
            return Err(damaged(&format!(
                "it holds part {} of {} of {} (positions {}..{}), not part {} of {} of {} \
                 (positions {}..{})",
                found.part,
                found.parts,
                found.identity,
                found.start,
                found.start + found.len,
                id.part,
                id.parts,
                id.identity,
                id.start,
                id.start + id.len
            )));
        }
        // The blocks tile the part's positions, in order.
        let mut next = id.start;
        for b in &blocks {
            if b.start != next || b.offset + u64::from(b.len) > index_at {
                return Err(damaged("its blocks do not cover its positions"));
            }
            next += u64::from(b.positions);
        }
        if next != id.start + id.len {
            return Err(damaged("its blocks do not cover its positions"));
        }
        Ok(PartFile {
            path: path.to_path_buf(),
            file,
            longest,
            deepest,
            blocks,
            records,
        })
    }

    /// Opens the part file `path` as [`PartFile::open`] does, and reads every block and
    /// record against its checksum ([`PartFile::check`]).
    ///
    /// # Errors
    ///
    /// As [`PartFile::open`] and [`PartFile::check`].
    pub(crate) fn open_checked(path: &Path, id: &PartId) -> Result<PartFile, GenerateError> {
        let file = PartFile::open(path, id)?;
        file.check()?;
        Ok(file)
    }

    /// Reads every block and every record, each against its checksum.
    ///
    /// # Errors
    ///
    /// As [`PartFile::block`] and [`Seeds::for_each`].
    pub(crate) fn check(&self) -> Result<(), GenerateError> {
        for k in 0..self.blocks.len() {
            self.block(k)?;
        }
        for propagated in [Propagated::Distances, Propagated::Rules] {
            for level in 0..=self.records.last_level(propagated).unwrap_or(0) {
                self.records
                    .for_each(&self.file, &self.path, propagated, level, &mut |_, _| {})?;
            }
        }
        Ok(())
    }

    /// Its blocks of codes: how many.
    pub(crate) fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// Block `k`: its first position, its distance codes and its rule codes.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if it cannot be read, [`GenerateError::DamagedWorkFile`] if it is
    /// not what was written.
    pub(crate) fn block(&self, k: usize) -> Result<(u64, Vec<u16>, Vec<u8>), GenerateError> {
        let b = self.blocks[k];
        let mut compressed = vec![0u8; b.len as usize];
        self.file
            .read_exact_at(&mut compressed, b.offset)
            .map_err(|e| io(&self.path, e))?;
        let damaged = |reason: &str| GenerateError::DamagedWorkFile {
            path: self.path.clone(),
            reason: format!("block {k}: {reason}"),
        };
        if crc32fast::hash(&compressed) != b.crc {
            return Err(damaged("its checksum does not match"));
        }
        let n = b.positions as usize;
        let raw = zstd::bulk::decompress(&compressed, 3 * n)
            .map_err(|_| damaged("it does not decompress"))?;
        if raw.len() != 3 * n {
            return Err(damaged("not the length of its positions"));
        }
        let codes = raw[..2 * n]
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        Ok((b.start, codes, raw[2 * n..].to_vec()))
    }
}

type Index = (PartId, u16, u16, Vec<Block>, SeedRecords);

/// The index of a part file whose index starts at `index_at`; `None` if it is not well
/// formed.
fn read_index(bytes: &[u8], index_at: u64) -> Option<Index> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Option<&[u8]> {
        let piece = bytes.get(at..at.checked_add(n)?)?;
        at += n;
        Some(piece)
    };
    if take(8)? != MAGIC {
        return None;
    }
    let identity_len = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
    let identity = String::from_utf8(take(identity_len)?.to_vec()).ok()?;
    let u32_of = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap());
    let u64_of = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap());
    let part = u32_of(take(4)?);
    let parts = u32_of(take(4)?);
    let start = u64_of(take(8)?);
    let len = u64_of(take(8)?);
    let longest = u16::from_le_bytes(take(2)?.try_into().ok()?);
    let deepest = u16::from_le_bytes(take(2)?.try_into().ok()?);
    let count = u64_of(take(8)?);
    // Each block takes 28 bytes of the index: a count past them is not believed.
    if count > (bytes.len() / 28) as u64 {
        return None;
    }
    let mut blocks = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let e = take(28)?;
        blocks.push(Block {
            start: u64_of(&e[0..8]),
            positions: u32_of(&e[8..12]),
            offset: u64_of(&e[12..20]),
            len: u32_of(&e[20..24]),
            crc: u32_of(&e[24..28]),
        });
    }
    let records = SeedRecords::from_bytes(bytes, &mut at, index_at)?;
    if at != bytes.len() {
        return None;
    }
    let id = PartId {
        identity,
        part,
        parts,
        start,
        len,
    };
    Some((id, longest, deepest, blocks, records))
}

/// The seeds of every part of a material.
pub(crate) struct PartSeeds(pub(crate) Vec<PartFile>);

impl Seeds for PartSeeds {
    fn last_level(&self, propagated: Propagated) -> Option<u16> {
        self.0
            .iter()
            .filter_map(|p| p.records.last_level(propagated))
            .max()
    }

    fn for_each(
        &self,
        propagated: Propagated,
        level: u16,
        f: &mut dyn FnMut(u64, bool),
    ) -> Result<(), GenerateError> {
        for part in &self.0 {
            part.records
                .for_each(&part.file, &part.path, propagated, level, f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(part: u32) -> PartId {
        PartId {
            identity: "brazilian KKvKK".to_string(),
            part,
            parts: 2,
            start: 100,
            len: 7,
        }
    }

    fn write(path: &Path) {
        let mut w = PartWriter::create(path).unwrap();
        w.append_codes(100, 4, &compress_codes(&[1, 2, 3, 0x8004], &[5, 6, 7, 8]))
            .unwrap();
        let mut seeds = GroupSeeds::default();
        seeds.push(Propagated::Distances, 3, true, 101);
        seeds.push(Propagated::Rules, 2, false, 103);
        w.append_seeds(&seeds).unwrap();
        w.append_codes(104, 3, &compress_codes(&[9, 10, 11], &[0, 0, 1]))
            .unwrap();
        w.finish(&id(2), 3, 0).unwrap();
    }

    #[test]
    fn a_part_reads_back_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("KKvKK.seeds-2");
        write(&path);
        let part = PartFile::open(&path, &id(2)).unwrap();
        assert_eq!((part.longest, part.deepest, part.block_count()), (3, 0, 2));
        assert_eq!(
            part.block(0).unwrap(),
            (100, vec![1, 2, 3, 0x8004], vec![5, 6, 7, 8])
        );
        assert_eq!(
            part.block(1).unwrap(),
            (104, vec![9, 10, 11], vec![0, 0, 1])
        );
        let seeds = PartSeeds(vec![part]);
        let mut got = Vec::new();
        seeds
            .for_each(Propagated::Distances, 3, &mut |x, won| got.push((x, won)))
            .unwrap();
        seeds
            .for_each(Propagated::Rules, 2, &mut |x, won| got.push((x, won)))
            .unwrap();
        assert_eq!(got, [(101, true), (103, false)]);
        assert_eq!(seeds.last_level(Propagated::Distances), Some(3));
        assert_eq!(seeds.last_level(Propagated::Rules), Some(2));
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left");
    }

    #[test]
    fn another_part_or_a_changed_byte_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("KKvKK.seeds-2");
        write(&path);
        let refused = |e: Result<PartFile, GenerateError>| match e {
            Err(GenerateError::DamagedWorkFile { reason, .. }) => reason,
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("taken"),
        };
        assert!(refused(PartFile::open(&path, &id(1))).contains("not part 1 of 2"));
        let good = fs::read(&path).unwrap();
        // Every byte of the file is covered: a block, a record, the index or the footer.
        for at in 0..good.len() {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            fs::write(&path, &bad).unwrap();
            let Ok(part) = PartFile::open(&path, &id(2)) else {
                continue;
            };
            assert!(
                matches!(part.check(), Err(GenerateError::DamagedWorkFile { .. })),
                "byte {at} changed, not seen"
            );
        }
        fs::write(&path, &good[..good.len() - 1]).unwrap();
        assert!(refused(PartFile::open(&path, &id(2))).contains("footer"));
    }
}
