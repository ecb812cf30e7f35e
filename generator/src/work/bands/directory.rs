//! The directory of a band file: where each half and each chunk lies, written after the chunks
//! with a footer that points at it, and checked whole when the file is opened (the layout is
//! in [`super`]'s docs).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::{CHUNK_POSITIONS, MAGIC};
use crate::files::io_error;
use crate::work::packed::damaged;
use crate::work::varint::{get_varint, put_varint, unzigzag, zigzag};
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct HalfPlace {
    pub(super) half: u64,
    pub(super) chunk: u32,
    pub(super) slot: u32,
}

/// The halves of a band file as its chunks are appended, in the form its directory holds them:
/// how many halves start in each chunk, and the halves, chunk after chunk in their order
/// there, each as the difference from the one before (zigzag, in LEB128). A material of a
/// single king among men has halves of a few dozen positions, whose numbers in 16 bytes would
/// take more room than their values; this takes a byte or two a half, also in memory while
/// the band is written.
#[derive(Debug, Default)]
pub(super) struct HalvesWritten {
    bytes: Vec<u8>,
    previous: u64,
    count: u32,
    /// Halves starting in each chunk.
    starting: Vec<u32>,
}

impl HalvesWritten {
    /// Records `halves`, which start in the next `chunks` chunks: several small halves in
    /// one chunk, or one half over consecutive chunks.
    pub(super) fn append(&mut self, halves: &[u64], chunks: usize) {
        self.starting.push(halves.len() as u32);
        self.starting
            .extend(std::iter::repeat_n(0, chunks.saturating_sub(1)));
        for &half in halves {
            put_varint(
                &mut self.bytes,
                zigzag(half.wrapping_sub(self.previous) as i64),
            );
            self.previous = half;
            self.count += 1;
        }
    }
}

/// The directory of a band file of `identity` whose chunks, `chunks`, holding `halves`, end at
/// `end`, its footer included.
pub(super) fn encode(
    identity: &str,
    halves: &HalvesWritten,
    chunks: &[Chunk],
    end: u64,
) -> Vec<u8> {
    debug_assert_eq!(halves.starting.len(), chunks.len());
    let mut directory = MAGIC.to_vec();
    directory.extend_from_slice(&(identity.len() as u32).to_le_bytes());
    directory.extend_from_slice(identity.as_bytes());
    directory.extend_from_slice(&halves.count.to_le_bytes());
    directory.extend_from_slice(&(chunks.len() as u32).to_le_bytes());
    for (chunk, count) in chunks.iter().zip(&halves.starting) {
        directory.extend_from_slice(&chunk.offset.to_le_bytes());
        directory.extend_from_slice(&chunk.len.to_le_bytes());
        directory.extend_from_slice(&chunk.positions.to_le_bytes());
        directory.extend_from_slice(&chunk.crc.to_le_bytes());
        directory.extend_from_slice(&count.to_le_bytes());
    }
    directory.extend_from_slice(&halves.bytes);
    let crc = crc32fast::hash(&directory);
    directory.extend_from_slice(&end.to_le_bytes());
    directory.extend_from_slice(&crc.to_le_bytes());
    directory.extend_from_slice(&MAGIC);
    directory
}

/// Reads and checks the directory of the band file at `path`, of `identity` and halves of
/// `half_len` positions: gives `each` the place of every half, and returns the chunks.
///
/// # Errors
///
/// [`GenerateError::Io`] if it cannot be read, [`GenerateError::DamagedWorkFile`] if it is not
/// the complete directory of such a band file, and what `each` returns.
pub(super) fn read(
    path: &Path,
    file: &File,
    identity: &str,
    half_len: u64,
    mut each: impl FnMut(HalfPlace) -> Result<(), GenerateError>,
) -> Result<Vec<Chunk>, GenerateError> {
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
    let mut list = Vec::with_capacity(chunks.min(bytes.len()));
    let mut starting = Vec::with_capacity(chunks.min(bytes.len()));
    for _ in 0..chunks {
        list.push(reader.chunk(start)?);
        starting.push(reader.next_u32()?);
    }
    // Each half takes a byte at least, which bounds what is allocated for a damaged count.
    let counted: u64 = starting.iter().map(|&n| u64::from(n)).sum();
    if counted != halves as u64 || halves > bytes.len() {
        return Err(damaged(path, "halves miscounted"));
    }
    let mut half = 0u64;
    for (chunk, &count) in starting.iter().enumerate() {
        for slot in 0..count {
            half = half.wrapping_add(unzigzag(reader.next_varint()?) as u64);
            let place = HalfPlace {
                half,
                chunk: chunk as u32,
                slot,
            };
            // Every position of every half must lie inside its chunk: a directory that says
            // otherwise is damaged, whatever its checksum.
            if !fits(&place, &list, half_len) {
                return Err(damaged(path, format!("half {half} out of place")));
            }
            each(place)?;
        }
    }
    if reader.at != bytes.len() {
        return Err(damaged(path, "directory too long"));
    }
    Ok(list)
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

    /// The next LEB128 number ([`get_varint`]).
    fn next_varint(&mut self) -> Result<u64, GenerateError> {
        get_varint(self.bytes, &mut self.at)
            .ok_or_else(|| damaged(self.path, "a number cut short or too long"))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_read_back_in_place_in_a_few_bytes_each() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.band-000");
        // Three chunks of 28-position halves (a single king among men), their halves out of
        // order between chunks and rising within each, as a band's groups of slices give
        // them. (A file's halves are all of one length: a large one is checked apart below.)
        let half_len = 28;
        let per_chunk = (CHUNK_POSITIONS / half_len) as u32;
        let chunk = |c: u64| Chunk {
            file: 0,
            offset: c * 100,
            len: 100,
            positions: per_chunk * half_len as u32,
            crc: c as u32,
        };
        let chunks: Vec<Chunk> = (0..3).map(chunk).collect();
        let mut written = HalvesWritten::default();
        let mut expected = Vec::new();
        for (c, first) in [0u64, 90_000, 4_000_000_000].into_iter().enumerate() {
            let halves: Vec<u64> = (0..u64::from(per_chunk))
                .map(|slot| first + slot * 37 + slot % 3)
                .collect();
            written.append(&halves, 1);
            for (slot, &half) in halves.iter().enumerate() {
                expected.push(HalfPlace {
                    half,
                    chunk: c as u32,
                    slot: slot as u32,
                });
            }
        }
        let bytes = encode("id band 0", &written, &chunks, 300);
        let mut file_bytes = vec![0; 300];
        file_bytes.extend_from_slice(&bytes);
        std::fs::write(&path, &file_bytes).unwrap();
        let file = File::open(&path).unwrap();
        let mut places = Vec::new();
        let read_chunks = read(&path, &file, "id band 0", half_len, |p| {
            places.push(p);
            Ok(())
        })
        .unwrap();
        assert_eq!(places, expected);
        assert_eq!(read_chunks.len(), 3);
        assert_eq!(read_chunks[1].offset, 100);
        // Under two bytes a half, where a line of numbers took 16.
        let per_half = (bytes.len() - 3 * 24) as f64 / expected.len() as f64;
        assert!(per_half < 2.0, "{per_half}");
        // Another identity is refused, and so is a half the directory puts out of its chunk.
        assert!(read(&path, &file, "id band 1", half_len, |_| Ok(())).is_err());
        assert!(read(&path, &file, "id band 0", half_len + 1, |_| Ok(())).is_err());

        // A half over two chunks of its own: it starts in the first, none in the second.
        let long = 2 * CHUNK_POSITIONS;
        let full = |c: u64| Chunk {
            positions: CHUNK_POSITIONS as u32,
            ..chunk(c)
        };
        let mut written = HalvesWritten::default();
        written.append(&[7], 2);
        let bytes = encode("id band 0", &written, &[full(0), full(1)], 200);
        let mut file_bytes = vec![0; 200];
        file_bytes.extend_from_slice(&bytes);
        std::fs::write(&path, &file_bytes).unwrap();
        let file = File::open(&path).unwrap();
        let mut places = Vec::new();
        read(&path, &file, "id band 0", long, |p| {
            places.push(p);
            Ok(())
        })
        .unwrap();
        assert_eq!(
            places,
            [HalfPlace {
                half: 7,
                chunk: 0,
                slot: 0
            }]
        );
    }
}
