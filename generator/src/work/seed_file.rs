//! The seeds of a kings-only material kept on disk, by level, while it is solved in bits
//! ([`crate::solve::bit_levels`]): the positions that must capture (or have no move) are decided by
//! their seeds, and the propagation needs them only when their level comes. Held in memory, as
//! lists, they would take more than the six bits a position of the propagation itself.
//!
//! The seed pass walks the material in groups of consecutive positions and appends, per group,
//! one record for each (propagation, level, won or lost) it has seeds of: the positions in
//! increasing order, as varint-coded gaps, compressed with zstd (level [`RECORD_LEVEL`]: the
//! gaps repeat, and a seed part's file, which holds nothing else, is a third of its size or
//! less for it). The file is scratch, written under a temporary name
//! (swept by the next run if this one dies) and removed when dropped; the index of its records
//! stays in memory with each record's CRC-32, so a record changed on disk meanwhile is an error,
//! never a seed.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::files::{io, temporary_path};
use crate::work::varint::{get_varint, put_varint};
use crate::GenerateError;

/// The zstd level of a record: the fastest, each record written once and read once or
/// twice.
const RECORD_LEVEL: i32 = 1;

/// Which propagation a seed is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Propagated {
    /// Distances to win.
    Distances,
    /// Values under the draw rules.
    Rules,
    /// No propagation: the positions a seed settles as a draw (captures that draw), at level
    /// 0, which a seed part records so that its codes can be derived from its seeds
    /// ([`crate::work::seed_part`]).
    Settled,
}

impl Propagated {
    /// Every kind of record.
    pub(crate) const ALL: [Propagated; 3] = [
        Propagated::Distances,
        Propagated::Rules,
        Propagated::Settled,
    ];
}

/// The seeds of one group of positions: for each (propagation, level, won), the positions, in
/// increasing order.
#[derive(Debug, Default)]
pub(crate) struct GroupSeeds(BTreeMap<(Propagated, u16, bool), Vec<u64>>);

impl GroupSeeds {
    /// Adds position `x`, decided at `level` (won or lost) by its seed; positions must come in
    /// increasing order.
    pub(crate) fn push(&mut self, propagated: Propagated, level: u16, won: bool, x: u64) {
        self.0.entry((propagated, level, won)).or_default().push(x);
    }

    /// Appends `other`'s seeds, all of positions after this group's.
    pub(crate) fn append(&mut self, other: GroupSeeds) {
        for (key, mut positions) in other.0 {
            self.0.entry(key).or_default().append(&mut positions);
        }
    }
}

/// Where a record is in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Record {
    offset: u64,
    /// Bytes in the file (compressed).
    len: u32,
    /// Bytes of its varints.
    raw_len: u32,
    crc: u32,
    won: bool,
}

/// Where seeds were read from, for a [`Seeds`] reader.
pub(crate) trait Seeds: Sync {
    /// The highest level with seeds for `propagated`, if any.
    fn last_level(&self, propagated: Propagated) -> Option<u16>;

    /// Calls `f(x, won)` with every seed of `propagated` at `level`.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if a file cannot be read, [`GenerateError::DamagedWorkFile`] if
    /// a record is not what was written.
    fn for_each(
        &self,
        propagated: Propagated,
        level: u16,
        f: &mut dyn FnMut(u64, bool),
    ) -> Result<(), GenerateError>;
}

/// The records of seeds in one file, by (propagation, level), in the order written: kept in
/// memory for a scratch file, written at the end of a seed part's file
/// ([`crate::work::seed_part`]).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct SeedRecords(BTreeMap<(Propagated, u16), Vec<Record>>);

impl SeedRecords {
    /// Writes a group's seeds to `out` at `*written` bytes into `path`, and notes them.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if writing fails (a full disk).
    pub(crate) fn append(
        &mut self,
        seeds: &GroupSeeds,
        out: &mut impl Write,
        written: &mut u64,
        path: &Path,
    ) -> Result<(), GenerateError> {
        for (&(propagated, level, won), positions) in &seeds.0 {
            let mut bytes = Vec::with_capacity(positions.len() * 2);
            let mut last = 0u64;
            for (i, &x) in positions.iter().enumerate() {
                debug_assert!(i == 0 || x > last, "seeds out of order");
                put_varint(&mut bytes, if i == 0 { x } else { x - last - 1 });
                last = x;
            }
            let raw_len = u32::try_from(bytes.len()).expect("a group's seeds fit 4 GiB");
            let bytes = zstd::bulk::compress(&bytes, RECORD_LEVEL).map_err(|e| io(path, e))?;
            let record = Record {
                offset: *written,
                len: u32::try_from(bytes.len()).expect("a group's seeds fit 4 GiB"),
                raw_len,
                crc: crc32fast::hash(&bytes),
                won,
            };
            out.write_all(&bytes).map_err(|e| io(path, e))?;
            *written += bytes.len() as u64;
            self.0.entry((propagated, level)).or_default().push(record);
        }
        Ok(())
    }

    /// The highest level with seeds for `propagated`, if any.
    pub(crate) fn last_level(&self, propagated: Propagated) -> Option<u16> {
        self.0
            .range((propagated, 0)..=(propagated, u16::MAX))
            .next_back()
            .map(|(&(_, level), _)| level)
    }

    /// Calls `f(x, won)` with every seed of `propagated` at `level`, read from `file`.
    ///
    /// # Errors
    ///
    /// As [`Seeds::for_each`].
    pub(crate) fn for_each(
        &self,
        file: &File,
        path: &Path,
        propagated: Propagated,
        level: u16,
        f: &mut dyn FnMut(u64, bool),
    ) -> Result<(), GenerateError> {
        let Some(records) = self.0.get(&(propagated, level)) else {
            return Ok(());
        };
        let damaged = |reason: &str| GenerateError::DamagedWorkFile {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        };
        for record in records {
            let mut bytes = vec![0u8; record.len as usize];
            file.read_exact_at(&mut bytes, record.offset)
                .map_err(|e| io(path, e))?;
            if crc32fast::hash(&bytes) != record.crc {
                return Err(damaged("a record's checksum does not match"));
            }
            let raw_len = record.raw_len as usize;
            let bytes = zstd::bulk::decompress(&bytes, raw_len)
                .ok()
                .filter(|raw| raw.len() == raw_len)
                .ok_or_else(|| damaged("a record does not decompress to its length"))?;
            let mut at = 0;
            let mut next = 0u64;
            while at < bytes.len() {
                let gap = get_varint(&bytes, &mut at)
                    .ok_or_else(|| damaged("a record ends inside a number"))?;
                let x = next
                    .checked_add(gap)
                    .ok_or_else(|| damaged("a position past every position"))?;
                f(x, record.won);
                next = x + 1;
            }
        }
        Ok(())
    }

    /// The records as bytes, for a file's index.
    pub(crate) fn to_bytes(&self, out: &mut Vec<u8>) {
        let count: usize = self.0.values().map(Vec::len).sum();
        out.extend_from_slice(&(count as u64).to_le_bytes());
        for (&(propagated, level), records) in &self.0 {
            for r in records {
                out.push(propagated as u8);
                out.extend_from_slice(&level.to_le_bytes());
                out.push(u8::from(r.won));
                out.extend_from_slice(&r.offset.to_le_bytes());
                out.extend_from_slice(&r.len.to_le_bytes());
                out.extend_from_slice(&r.raw_len.to_le_bytes());
                out.extend_from_slice(&r.crc.to_le_bytes());
            }
        }
    }

    /// Records read back from [`SeedRecords::to_bytes`] at `*at`, each within `file_len`
    /// bytes; `None` if they are not well formed.
    pub(crate) fn from_bytes(bytes: &[u8], at: &mut usize, file_len: u64) -> Option<SeedRecords> {
        let mut take = |n: usize| -> Option<&[u8]> {
            let piece = bytes.get(*at..at.checked_add(n)?)?;
            *at += n;
            Some(piece)
        };
        let count = u64::from_le_bytes(take(8)?.try_into().ok()?);
        let mut records = SeedRecords::default();
        for _ in 0..count {
            let entry = take(24)?;
            let propagated = match entry[0] {
                0 => Propagated::Distances,
                1 => Propagated::Rules,
                2 => Propagated::Settled,
                _ => return None,
            };
            let level = u16::from_le_bytes([entry[1], entry[2]]);
            let won = match entry[3] {
                0 => false,
                1 => true,
                _ => return None,
            };
            let record = Record {
                offset: u64::from_le_bytes(entry[4..12].try_into().ok()?),
                len: u32::from_le_bytes(entry[12..16].try_into().ok()?),
                raw_len: u32::from_le_bytes(entry[16..20].try_into().ok()?),
                crc: u32::from_le_bytes(entry[20..24].try_into().ok()?),
                won,
            };
            if record.offset.checked_add(u64::from(record.len))? > file_len {
                return None;
            }
            records
                .0
                .entry((propagated, level))
                .or_default()
                .push(record);
        }
        Some(records)
    }
}

/// A material's seeds on disk, written group by group and read level by level.
pub(crate) struct SeedFile {
    path: PathBuf,
    out: BufWriter<File>,
    written: u64,
    records: SeedRecords,
}

impl SeedFile {
    /// Creates an empty seed file beside `near` (the material's work file), under a fresh
    /// temporary name.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if it cannot be created.
    pub(crate) fn create(near: &Path) -> Result<SeedFile, GenerateError> {
        let path = temporary_path(&near.with_extension("seeds"));
        // Created in place of nothing, as `create_temporary` does, but readable too.
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| io(&path, e))?;
        Ok(SeedFile {
            path,
            out: BufWriter::with_capacity(1 << 20, file),
            written: 0,
            records: SeedRecords::default(),
        })
    }

    /// Appends a group's seeds.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if writing fails (a full disk).
    pub(crate) fn append(&mut self, seeds: &GroupSeeds) -> Result<(), GenerateError> {
        self.records
            .append(seeds, &mut self.out, &mut self.written, &self.path)
    }

    /// Makes everything appended readable.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if writing fails.
    pub(crate) fn finish(&mut self) -> Result<(), GenerateError> {
        self.out.flush().map_err(|e| io(&self.path, e))
    }
}

impl Seeds for SeedFile {
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
            .for_each(self.out.get_ref(), &self.path, propagated, level, f)
    }
}

impl Drop for SeedFile {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seeds(list: &[(Propagated, u16, bool, u64)]) -> GroupSeeds {
        let mut g = GroupSeeds::default();
        for &(p, l, w, x) in list {
            g.push(p, l, w, x);
        }
        g
    }

    #[test]
    fn seeds_come_back_by_level_in_the_order_written() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = SeedFile::create(&dir.path().join("m.partial")).unwrap();
        use Propagated::*;
        file.append(&seeds(&[
            (Distances, 0, false, 3),
            (Distances, 1, true, 5),
            (Distances, 0, false, 7),
            (Rules, 1, true, 5),
        ]))
        .unwrap();
        let mut second = seeds(&[(Distances, 1, false, 1 << 40)]);
        second.append(seeds(&[(Distances, 1, false, (1 << 40) + 1)]));
        file.append(&second).unwrap();
        file.finish().unwrap();
        let read = |p, l| {
            let mut v = Vec::new();
            Seeds::for_each(&file, p, l, &mut |x, won| v.push((x, won))).unwrap();
            v
        };
        assert_eq!(read(Distances, 0), [(3, false), (7, false)]);
        assert_eq!(
            read(Distances, 1),
            [(5, true), (1 << 40, false), ((1 << 40) + 1, false)]
        );
        assert_eq!(read(Rules, 1), [(5, true)]);
        assert_eq!(read(Rules, 0), []);
        assert_eq!(file.last_level(Distances), Some(1));
        assert_eq!(file.last_level(Rules), Some(1));
        let path = file.path.clone();
        assert!(path.exists());
        drop(file);
        assert!(!path.exists(), "the scratch file is removed");
    }

    #[test]
    fn a_record_changed_on_disk_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = SeedFile::create(&dir.path().join("m.partial")).unwrap();
        file.append(&seeds(&[(Propagated::Distances, 2, true, 1000)]))
            .unwrap();
        file.finish().unwrap();
        let mut bytes = fs::read(&file.path).unwrap();
        bytes[0] ^= 1;
        file.out.get_ref().write_all_at(&bytes, 0).unwrap();
        let got = Seeds::for_each(&file, Propagated::Distances, 2, &mut |_, _| panic!("taken"));
        assert!(matches!(got, Err(GenerateError::DamagedWorkFile { .. })));
    }
}
