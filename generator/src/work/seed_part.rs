//! The file a seed part of a kings-only material leaves for the unit that solves it.
//!
//! A kings-only material past [`crate::plan`]'s part size is seeded in parts, each a unit of
//! work of its own that may run on another node: a part walks its range of positions, reads
//! the values of the materials its captures reach, and writes one file holding its seeds by
//! level (as [`crate::work::seed_file`] records them), with the positions its seed settles as a
//! draw (a capture that draws) as one more kind of record. The unit that solves the material
//! derives every part's codes from those seeds (what the seed pass would have written to its
//! work file: see `solve::kings_only`), writes them to its work file and runs the propagations
//! from the seeds: it reads no other material.
//!
//! Layout (little-endian): the seed records, then the index (what the part is of, its
//! records) and a footer (where the index is, its CRC-32, a magic number). Every record has its
//! CRC-32 in the index: a file changed after it was written is refused, never read as seeds.
//! Written under a temporary name, synced, renamed.

use std::fs::{self, File};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::files::{create_temporary, io, temporary_path};
use crate::work::seed_file::{GroupSeeds, Propagated, SeedRecords, Seeds};
use crate::GenerateError;

/// The last bytes of every part file. (`RAFLESP1`, whose files also held the codes of their
/// positions, is refused as damaged: its part is seeded again.)
const MAGIC: &[u8; 8] = b"RAFLESP2";

/// Bytes of the footer: index offset, index length, index CRC-32, magic.
const FOOTER: u64 = 8 + 8 + 4 + 8;

/// What a part file is of: the request's identity (variant, material, positions, limits and
/// tables), which part of how many, and its positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PartId {
    /// The identity of the request's values of the material
    /// ([`crate::work::values::packed_identity`]).
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

/// A part file being written, group by group.
pub(crate) struct PartWriter {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
    written: u64,
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
            records: SeedRecords::default(),
        })
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

/// A finished part file, its index checked, its records read on demand.
pub(crate) struct PartFile {
    path: PathBuf,
    file: File,
    /// Its positions (local numbers of the material's one slice).
    range: Range<u64>,
    /// The longest win its seeds hold.
    pub(crate) longest: u16,
    /// The longest loss its seeds hold.
    pub(crate) deepest: u16,
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
        let mut file = rafle_probe::toolkit::open_regular(path).map_err(|e| io(path, e))?;
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
        let (found, longest, deepest, records) =
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
        Ok(PartFile {
            path: path.to_path_buf(),
            file,
            range: id.start..id.start + id.len,
            longest,
            deepest,
            records,
        })
    }

    /// Opens the part file `path` as [`PartFile::open`] does, and reads every record against
    /// its checksum ([`PartFile::check`]).
    ///
    /// # Errors
    ///
    /// As [`PartFile::open`] and [`PartFile::check`].
    pub(crate) fn open_checked(path: &Path, id: &PartId) -> Result<PartFile, GenerateError> {
        let file = PartFile::open(path, id)?;
        file.check()?;
        Ok(file)
    }

    /// Reads every record against its checksum.
    ///
    /// # Errors
    ///
    /// As [`Seeds::for_each`].
    pub(crate) fn check(&self) -> Result<(), GenerateError> {
        for propagated in Propagated::ALL {
            for level in 0..=self.last_level(propagated).unwrap_or(0) {
                self.for_each(propagated, level, &mut |_, _| {})?;
            }
        }
        Ok(())
    }

    /// Its positions (local numbers of the material's one slice).
    pub(crate) fn range(&self) -> Range<u64> {
        self.range.clone()
    }
}

impl Seeds for PartFile {
    fn last_level(&self, propagated: Propagated) -> Option<u16> {
        self.records.last_level(propagated)
    }

    fn for_each(
        &self,
        propagated: Propagated,
        level: u16,
        f: &mut dyn FnMut(u64, bool),
    ) -> Result<(), GenerateError> {
        self.records
            .for_each(&self.file, &self.path, propagated, level, f)
    }
}

type Index = (PartId, u16, u16, SeedRecords);

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
    Some((id, longest, deepest, records))
}

/// The seeds of every part of a material.
pub(crate) struct PartSeeds(pub(crate) Vec<PartFile>);

impl Seeds for PartSeeds {
    fn last_level(&self, propagated: Propagated) -> Option<u16> {
        self.0.iter().filter_map(|p| p.last_level(propagated)).max()
    }

    fn for_each(
        &self,
        propagated: Propagated,
        level: u16,
        f: &mut dyn FnMut(u64, bool),
    ) -> Result<(), GenerateError> {
        for part in &self.0 {
            part.for_each(propagated, level, f)?;
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
        let mut seeds = GroupSeeds::default();
        seeds.push(Propagated::Distances, 3, true, 101);
        seeds.push(Propagated::Rules, 2, false, 103);
        w.append_seeds(&seeds).unwrap();
        let mut seeds = GroupSeeds::default();
        seeds.push(Propagated::Settled, 0, false, 105);
        seeds.push(Propagated::Distances, 0, false, 106);
        w.append_seeds(&seeds).unwrap();
        w.finish(&id(2), 3, 0).unwrap();
    }

    #[test]
    fn a_part_reads_back_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("KKvKK.seeds-2");
        write(&path);
        let part = PartFile::open(&path, &id(2)).unwrap();
        assert_eq!((part.longest, part.deepest, part.range()), (3, 0, 100..107));
        let mut settled = Vec::new();
        part.for_each(Propagated::Settled, 0, &mut |x, won| settled.push((x, won)))
            .unwrap();
        assert_eq!(settled, [(105, false)]);
        let seeds = PartSeeds(vec![part]);
        let mut got = Vec::new();
        seeds
            .for_each(Propagated::Distances, 3, &mut |x, won| got.push((x, won)))
            .unwrap();
        seeds
            .for_each(Propagated::Rules, 2, &mut |x, won| got.push((x, won)))
            .unwrap();
        seeds
            .for_each(Propagated::Distances, 0, &mut |x, won| got.push((x, won)))
            .unwrap();
        assert_eq!(got, [(101, true), (103, false), (106, false)]);
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
        // Every byte of the file is covered: a record, the index or the footer.
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
