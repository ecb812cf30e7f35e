//! One opened table file: memory-mapped, header and block index checked, blocks decompressed
//! on demand with their checksums verified.

use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::format::{BlockEntry, Header, TableKind, HEADER_LEN, INDEX_ENTRY_LEN};
use crate::{Material, PositionIndex, ProbeError, Variant};

/// A table file ready for reading.
#[derive(Debug)]
pub struct Table {
    path: PathBuf,
    map: Mmap,
    header: Header,
    blocks: Vec<BlockEntry>,
    index: PositionIndex,
}

impl Table {
    /// The format version a file says it is written in (its magic, then the version), without
    /// checking anything else: `None` if it cannot be read or is not a rafle table. Enough to
    /// tell a table of an older format (to convert) from one of this format (to open). Reads
    /// through a symbolic link as [`Table::open`] does, so a linked table is recognised too.
    pub fn file_version(path: &Path) -> Option<u16> {
        use std::io::Read;
        let file = crate::open_table_file(path).ok()?;
        let mut head = [0u8; 10];
        file.take(10).read_exact(&mut head).ok()?;
        (head[..8] == crate::format::MAGIC).then(|| u16::from_le_bytes([head[8], head[9]]))
    }

    /// Opens and checks a table: header, index checksum, file length, and that it holds the
    /// expected kind, variant and material.
    ///
    /// # Errors
    ///
    /// [`ProbeError::Io`] if the file cannot be read, [`ProbeError::Truncated`] if it is
    /// short, [`ProbeError::Corrupted`] for bad bytes, [`ProbeError::WrongTable`] for a table of
    /// something else.
    pub fn open(
        path: &Path,
        kind: TableKind,
        variant: Variant,
        material: Material,
    ) -> Result<Table, ProbeError> {
        Table::open_versions(path, kind, variant, material, false)
    }

    /// Opens and checks a table as [`Table::open`] does, accepting a table of the previous
    /// format version ([`crate::format::LEGACY_VERSION`]) too: for converting it.
    ///
    /// # Errors
    ///
    /// As [`Table::open`].
    pub fn open_legacy(
        path: &Path,
        kind: TableKind,
        variant: Variant,
        material: Material,
    ) -> Result<Table, ProbeError> {
        Table::open_versions(path, kind, variant, material, true)
    }

    fn open_versions(
        path: &Path,
        kind: TableKind,
        variant: Variant,
        material: Material,
        legacy: bool,
    ) -> Result<Table, ProbeError> {
        let io = |source| ProbeError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = crate::open_table_file(path).map_err(io)?;
        // SAFETY: the mapping is read-only and rafle never writes a table in place (it writes a
        // temporary file and renames it over). Another process truncating the file while it is
        // mapped could still fault; that is the usual caveat of memory-mapped readers.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| {
            // A bare "No such device" (a file of /proc or /sys in a table's place) says
            // nothing of what failed.
            io(std::io::Error::new(
                e.kind(),
                format!("cannot be mapped into memory to be read: {e}"),
            ))
        })?;
        let checked = Checked { path, map: &map };
        let header = checked.header(legacy)?;
        checked.identity(&header, kind, variant, material)?;
        let index = PositionIndex::new(variant, material);
        if index.size() != header.positions {
            return Err(checked.corrupted(format!(
                "{} positions in the header, {} in the material",
                header.positions,
                index.size()
            )));
        }
        let blocks = checked.block_index(&header)?;
        Ok(Table {
            path: path.to_path_buf(),
            map,
            header,
            blocks,
            index,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The index of the table's material.
    pub fn index(&self) -> &PositionIndex {
        &self.index
    }

    /// Size of the file in bytes.
    pub fn file_len(&self) -> u64 {
        self.map.len() as u64
    }

    /// Gives the pages of the file read so far back to the system: they stay in its page
    /// cache, and come back from there on the next access, but no longer count in this
    /// process's resident memory. A reader of a whole set (`rafle verify`) would otherwise end
    /// with every table file resident.
    pub fn release_pages(&self) {
        // SAFETY: the mapping is read-only and shared with the file, which rafle never writes
        // in place: a page given back is read again from the file, with the same bytes, by
        // whichever thread touches it next.
        #[cfg(unix)]
        let _ = unsafe {
            self.map
                .unchecked_advise(memmap2::UncheckedAdvice::DontNeed)
        };
    }

    /// A checksum of the header and the block index, which holds every block's checksum: two
    /// tables with the same fingerprint and length hold the same values but for a one in four
    /// billion chance. Costs no reading of the blocks; for records of what was checked before.
    pub fn fingerprint(&self) -> u32 {
        // The header's and the index's own checksums are left out: a CRC over bytes followed by
        // their CRC comes out the same for any bytes of that length.
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(&self.map[..HEADER_LEN - 4]);
        hasher.update(&self.map[HEADER_LEN..HEADER_LEN + self.header.index_len() - 4]);
        hasher.finalize()
    }

    /// Decompresses block `block` after checking its checksum.
    ///
    /// # Errors
    ///
    /// [`ProbeError::Corrupted`] if the checksum or the decompressed size is wrong.
    pub fn read_block(&self, block: u32) -> Result<Vec<u8>, ProbeError> {
        let corrupted = |reason: String| ProbeError::Corrupted {
            path: self.path.clone(),
            reason,
        };
        let bytes = self.checked_block(block)?;
        let expected = Header::block_len(self.header.positions_in_block(block), self.header.bits);
        if bytes.is_empty() {
            // None of the block's positions is stored: each reads as code 0.
            return Ok(vec![0; expected]);
        }
        let data = decompress(bytes, expected)
            .map_err(|e| corrupted(format!("block {block} does not decompress: {e}")))?;
        if data.len() != expected {
            return Err(corrupted(format!(
                "block {block} holds {} bytes instead of {expected}",
                data.len()
            )));
        }
        Ok(data)
    }

    /// Reads every block, checking every checksum.
    ///
    /// # Errors
    ///
    /// The first [`ProbeError::Corrupted`] met.
    pub fn check_all_blocks(&self) -> Result<(), ProbeError> {
        (0..self.header.blocks).try_for_each(|b| self.read_block(b).map(drop))
    }

    /// The compressed bytes of block `block`, their checksum checked.
    fn checked_block(&self, block: u32) -> Result<&[u8], ProbeError> {
        let corrupted = |reason: String| ProbeError::Corrupted {
            path: self.path.clone(),
            reason,
        };
        let entry = self
            .blocks
            .get(block as usize)
            .ok_or_else(|| corrupted(format!("block {block} is past the index")))?;
        let start = entry.offset as usize;
        let bytes = &self.map[start..start + entry.len as usize];
        if crc32fast::hash(bytes) != entry.crc {
            return Err(corrupted(format!("block {block} checksum mismatch")));
        }
        Ok(bytes)
    }

    /// Checks every block's checksum, without decompressing: for readers that walk a table
    /// but may skip blocks whose positions follow from elsewhere.
    ///
    /// # Errors
    ///
    /// [`ProbeError::Corrupted`] for the first block whose checksum is wrong.
    pub fn check_checksums(&self) -> Result<(), ProbeError> {
        (0..self.header.blocks).try_for_each(|b| self.checked_block(b).map(|_| ()))
    }

    /// The decompressed contents of every block, back to back, every checksum checked: the
    /// codes of every position of the table.
    ///
    /// # Errors
    ///
    /// The first [`ProbeError::Corrupted`] met.
    pub fn read_all(&self) -> Result<Vec<u8>, ProbeError> {
        let header = &self.header;
        let mut bytes = Vec::with_capacity(
            Header::block_len(header.positions_per_block, header.bits) * header.blocks as usize,
        );
        for b in 0..header.blocks {
            bytes.extend_from_slice(&self.read_block(b)?);
        }
        Ok(bytes)
    }
}

/// Decompresses a block of `expected` bytes with this thread's decompression context, made
/// once: making one costs as much as decompressing a block.
fn decompress(bytes: &[u8], expected: usize) -> std::io::Result<Vec<u8>> {
    thread_local! {
        static CONTEXT: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    CONTEXT.with(|context| {
        let mut context = context.borrow_mut();
        let decompressor = match &mut *context {
            Some(d) => d,
            empty => empty.insert(zstd::bulk::Decompressor::new()?),
        };
        decompressor.decompress(bytes, expected)
    })
}

/// Reads and checks the header of the table file at `path` without mapping the file: the
/// errors are those [`Table::open`] gives for the same bytes (a file shorter than a header is
/// truncated, not an I/O error), so a table whose header alone is read is reported alike.
pub(crate) fn read_header(path: &Path) -> Result<Header, ProbeError> {
    use std::io::Read;
    let io = |source| ProbeError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut bytes = Vec::with_capacity(HEADER_LEN);
    crate::open_table_file(path)
        .and_then(|file| file.take(HEADER_LEN as u64).read_to_end(&mut bytes))
        .map_err(io)?;
    Checked { path, map: &bytes }.header(false)
}

/// The bytes of a table file being opened, checked part by part.
struct Checked<'a> {
    path: &'a Path,
    map: &'a [u8],
}

impl Checked<'_> {
    fn corrupted(&self, reason: String) -> ProbeError {
        ProbeError::Corrupted {
            path: self.path.to_path_buf(),
            reason,
        }
    }

    fn truncated(&self, expected: u64) -> ProbeError {
        ProbeError::Truncated {
            path: self.path.to_path_buf(),
            expected,
            actual: self.map.len() as u64,
        }
    }

    fn header(&self, legacy: bool) -> Result<Header, ProbeError> {
        Header::decode_versions(self.map, legacy).map_err(|e| match e {
            crate::format::HeaderError::Version(version)
                if version == crate::format::LEGACY_VERSION =>
            {
                ProbeError::OldFormat {
                    path: self.path.to_path_buf(),
                    version,
                }
            }
            crate::format::HeaderError::Short => self.truncated(HEADER_LEN as u64),
            other => self.corrupted(other.to_string()),
        })
    }

    /// That the table holds the kind, variant and material expected.
    fn identity(
        &self,
        header: &Header,
        kind: TableKind,
        variant: Variant,
        material: Material,
    ) -> Result<(), ProbeError> {
        match wrong_table(self.path, header, kind, variant, material) {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// The block index, its checksum checked, every block where the index says and the file
    /// ending exactly after the last one.
    fn block_index(&self, header: &Header) -> Result<Vec<BlockEntry>, ProbeError> {
        let index_end = HEADER_LEN + header.index_len();
        let Some(index_bytes) = self.map.get(HEADER_LEN..index_end) else {
            return Err(self.truncated(index_end as u64));
        };
        let (entries, crc) = index_bytes.split_at(index_bytes.len() - 4);
        if crc32fast::hash(entries) != crate::format::read_u32(crc, 0) {
            return Err(self.corrupted("block index checksum mismatch".to_string()));
        }
        let blocks: Vec<BlockEntry> = entries
            .chunks_exact(INDEX_ENTRY_LEN)
            .map(BlockEntry::decode)
            .collect();
        let mut expected_offset = index_end as u64;
        for (i, b) in blocks.iter().enumerate() {
            if b.offset != expected_offset {
                return Err(self.corrupted(format!("block {i} is not where the index says")));
            }
            expected_offset += u64::from(b.len);
        }
        let actual = self.map.len() as u64;
        if actual < expected_offset {
            return Err(self.truncated(expected_offset));
        }
        if actual > expected_offset {
            return Err(self.corrupted(format!(
                "{} bytes after the last block",
                actual - expected_offset
            )));
        }
        Ok(blocks)
    }
}

/// The error for a file at `path` whose header says it holds another table than the `kind` of
/// `variant` and `material` its place in the directory stands for; `None` if it is that one.
pub(crate) fn wrong_table(
    path: &Path,
    header: &Header,
    kind: TableKind,
    variant: Variant,
    material: Material,
) -> Option<ProbeError> {
    if header.kind == kind && header.variant == variant && header.material == material {
        return None;
    }
    Some(ProbeError::WrongTable {
        path: path.to_path_buf(),
        expected: format!("{} {variant} {material}", kind.extension()),
        found: format!(
            "{} {} {}",
            header.kind.extension(),
            header.variant,
            header.material
        ),
    })
}
