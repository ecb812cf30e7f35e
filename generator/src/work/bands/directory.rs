//! The directory of a band file: where each half and each chunk lies, written after the chunks
//! with a footer that points at it, and checked whole when the file is opened (the layout is
//! in [`super`]'s docs).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::{CHUNK_POSITIONS, MAGIC};
use crate::files::io_error;
use crate::work::packed::damaged;
use crate::GenerateError;

/// Bytes of the footer.
pub(super) const FOOTER_LEN: usize = 20;

/// Where a chunk lies.
#[derive(Debug, Clone, Copy)]
pub(super) struct Chunk {
    pub(super) file: u32,
    pub(super) offset: u64,
    pub(super) len: u32,
    pub(super) positions: u32,
    pub(super) crc: u32,
}

/// Where a half lies: its first chunk, and its place among the halves of that chunk (0 for a
/// half of more than [`CHUNK_POSITIONS`], which takes consecutive chunks of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct HalfPlace {
    pub(super) half: u64,
    pub(super) chunk: u32,
    pub(super) slot: u32,
}

/// What a band file's directory says.
pub(super) struct Directory {
    pub(super) halves: Vec<HalfPlace>,
    pub(super) chunks: Vec<Chunk>,
}

/// The directory of a band file of `identity` whose chunks end at `end`, its footer included.
pub(super) fn encode(identity: &str, halves: &[HalfPlace], chunks: &[Chunk], end: u64) -> Vec<u8> {
    let mut directory = MAGIC.to_vec();
    directory.extend_from_slice(&(identity.len() as u32).to_le_bytes());
    directory.extend_from_slice(identity.as_bytes());
    directory.extend_from_slice(&(halves.len() as u32).to_le_bytes());
    directory.extend_from_slice(&(chunks.len() as u32).to_le_bytes());
    for place in halves {
        directory.extend_from_slice(&place.half.to_le_bytes());
        directory.extend_from_slice(&place.chunk.to_le_bytes());
        directory.extend_from_slice(&place.slot.to_le_bytes());
    }
    for chunk in chunks {
        directory.extend_from_slice(&chunk.offset.to_le_bytes());
        directory.extend_from_slice(&chunk.len.to_le_bytes());
        directory.extend_from_slice(&chunk.positions.to_le_bytes());
        directory.extend_from_slice(&chunk.crc.to_le_bytes());
    }
    let crc = crc32fast::hash(&directory);
    directory.extend_from_slice(&end.to_le_bytes());
    directory.extend_from_slice(&crc.to_le_bytes());
    directory.extend_from_slice(&MAGIC);
    directory
}

/// Reads and checks the directory of the band file at `path`, of `identity` and halves of
/// `half_len` positions.
///
/// # Errors
///
/// [`GenerateError::Io`] if it cannot be read, [`GenerateError::DamagedWorkFile`] if it is not
/// the complete directory of such a band file.
pub(super) fn read(
    path: &Path,
    file: &File,
    identity: &str,
    half_len: u64,
) -> Result<Directory, GenerateError> {
    let (bytes, start) = directory_bytes(path, file)?;
    let mut reader = Reader {
        path,
        bytes: &bytes,
        at: 0,
    };
    if reader.take(8)? != MAGIC {
        return Err(damaged(path, "not a band file"));
    }
    let identity_len = reader.next_u32()? as usize;
    if reader.take(identity_len)? != identity.as_bytes() {
        return Err(damaged(path, format!("not the values of {identity}")));
    }
    let halves = reader.next_u32()? as usize;
    let chunks = reader.next_u32()? as usize;
    let mut places = Vec::with_capacity(halves);
    for _ in 0..halves {
        let half = reader.next_u64()?;
        let chunk = reader.next_u32()?;
        let slot = reader.next_u32()?;
        places.push(HalfPlace { half, chunk, slot });
    }
    let mut list = Vec::with_capacity(chunks);
    for _ in 0..chunks {
        list.push(reader.chunk(start)?);
    }
    // Every position of every half must lie inside its chunk: a directory that says
    // otherwise is damaged, whatever its checksum.
    if let Some(bad) = places.iter().find(|place| !fits(place, &list, half_len)) {
        return Err(damaged(path, format!("half {} out of place", bad.half)));
    }
    Ok(Directory {
        halves: places,
        chunks: list,
    })
}

/// The bytes of the directory of the band file at `path`, its checksum checked against the
/// footer's, and where it starts.
fn directory_bytes(path: &Path, file: &File) -> Result<(Vec<u8>, u64), GenerateError> {
    let io = io_error(path);
    let len = file.metadata().map_err(&io)?.len();
    if len < FOOTER_LEN as u64 {
        return Err(damaged(path, format!("{len} bytes, too short")));
    }
    let mut footer = [0; FOOTER_LEN];
    file.read_exact_at(&mut footer, len - FOOTER_LEN as u64)
        .map_err(&io)?;
    let start = u64::from_le_bytes(footer[..8].try_into().expect("8 bytes"));
    let crc = u32::from_le_bytes(footer[8..12].try_into().expect("4 bytes"));
    if footer[12..] != MAGIC || start > len - FOOTER_LEN as u64 {
        return Err(damaged(path, "not a complete band file"));
    }
    let mut bytes = vec![0; (len - FOOTER_LEN as u64 - start) as usize];
    file.read_exact_at(&mut bytes, start).map_err(&io)?;
    if crc32fast::hash(&bytes) != crc {
        return Err(damaged(path, "directory checksum mismatch"));
    }
    Ok((bytes, start))
}

/// Whether every position of the half `place` lies inside its chunk, of `chunks`, for halves
/// of `half_len` positions.
fn fits(place: &HalfPlace, chunks: &[Chunk], half_len: u64) -> bool {
    let first = place.chunk as usize;
    if half_len >= CHUNK_POSITIONS {
        let per_half = half_len.div_ceil(CHUNK_POSITIONS) as usize;
        place.slot == 0
            && (0..per_half).all(|k| {
                let expected = (half_len - k as u64 * CHUNK_POSITIONS).min(CHUNK_POSITIONS);
                chunks
                    .get(first + k)
                    .is_some_and(|c| u64::from(c.positions) == expected)
            })
    } else {
        chunks
            .get(first)
            .is_some_and(|c| (u64::from(place.slot) + 1) * half_len <= u64::from(c.positions))
    }
}

/// A directory's bytes read in order, each piece past their end an error.
struct Reader<'b> {
    path: &'b Path,
    bytes: &'b [u8],
    at: usize,
}

impl Reader<'_> {
    /// The next `n` bytes.
    fn take(&mut self, n: usize) -> Result<&[u8], GenerateError> {
        let piece = self
            .bytes
            .get(self.at..self.at + n)
            .ok_or_else(|| damaged(self.path, "directory too short"))?;
        self.at += n;
        Ok(piece)
    }

    /// The next `u32`.
    fn next_u32(&mut self) -> Result<u32, GenerateError> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    /// The next `u64`.
    fn next_u64(&mut self) -> Result<u64, GenerateError> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }

    /// The next chunk's place, which must lie before the directory (at `start`) and hold at
    /// most [`CHUNK_POSITIONS`].
    fn chunk(&mut self, start: u64) -> Result<Chunk, GenerateError> {
        let offset = self.next_u64()?;
        let len = self.next_u32()?;
        let positions = self.next_u32()?;
        let crc = self.next_u32()?;
        if offset + u64::from(len) > start || u64::from(positions) > CHUNK_POSITIONS {
            return Err(damaged(self.path, "a chunk out of place"));
        }
        Ok(Chunk {
            file: 0,
            offset,
            len,
            positions,
            crc,
        })
    }
}
