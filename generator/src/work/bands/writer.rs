//! Writing a band file: chunks appended as the band's slices finish, then the directory, then
//! the rename (the layout is in [`super`]'s documentation).

use std::cell::RefCell;
use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rafle_probe::toolkit::PositionIndex;

use super::directory::{self, Chunk, HalvesWritten};
use super::{band_identity, halves_a_chunk, shortest_of_its_kind, Kept, CHUNK_POSITIONS};
use crate::files::io_error;
use crate::work::packed::LEVEL;
use crate::work::values::range_checksum;
use crate::GenerateError;

thread_local! {
    static COMPRESSOR: RefCell<Option<zstd::bulk::Compressor<'static>>> =
        const { RefCell::new(None) };
}

/// A band file's chunk of `raw` bytes compressed, by this thread's compressor: made once per
/// thread, since a context costs more to set up than a chunk to compress.
pub(crate) fn compress_chunk(raw: &[u8]) -> std::io::Result<Vec<u8>> {
    COMPRESSOR.with(|cell| {
        let mut cell = cell.borrow_mut();
        let compressor = match &mut *cell {
            Some(c) => c,
            empty => empty.insert(zstd::bulk::Compressor::new(LEVEL)?),
        };
        compressor.compress(raw)
    })
}

/// The band file of one band being solved: chunks appended as slices finish (in any order:
/// the directory says where each is). Small halves wait in a pool of chunks being filled, one
/// per thread writing at a time, until a chunk is full or the band ends.
pub(crate) struct BandWriter {
    path: PathBuf,
    temporary: PathBuf,
    identity: String,
    half_len: u64,
    /// The first half of Black to move: the halves of each side share chunks apart.
    black_from: u64,
    /// How chunks are laid out (see [`BandWriter::create`]).
    kept: Kept,
    state: Mutex<WriterState>,
    /// The chunks being filled, White's halves and Black's apart: a table is written one side
    /// after the other, in index order, and reads a chunk once for every side it holds.
    filling: Mutex<[Vec<Filling>; 2]>,
    finished: bool,
}

struct WriterState {
    file: File,
    end: u64,
    halves: HalvesWritten,
    chunks: Vec<Chunk>,
}

/// A chunk of small halves being filled.
#[derive(Default)]
struct Filling {
    halves: Vec<u64>,
    codes: Vec<u16>,
    rules: Vec<u8>,
}

impl BandWriter {
    /// Starts band `band`'s file at `path` (written under a temporary name until
    /// [`BandWriter::finish`]), for a material of `index`.
    /// With [`Kept::Kinds`] (a run that solves win, draw or loss alone, whose distance
    /// codes are levels of no meaning), each distance code is kept as the shortest of its
    /// kind (a win in 1, a loss in 0, a draw) with its capture mark: what such a run reads of
    /// it.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if it cannot be created.
    pub(crate) fn create(
        path: &Path,
        identity: &str,
        band: usize,
        index: &PositionIndex,
        kept: Kept,
    ) -> Result<BandWriter, GenerateError> {
        let temporary = crate::temporary_path(path);
        let file = crate::create_temporary(&temporary).map_err(io_error(&temporary))?;
        Ok(BandWriter {
            path: path.to_path_buf(),
            temporary,
            identity: band_identity(identity, band),
            half_len: index.king_placements(),
            black_from: index.men_placements(),
            kept,
            state: Mutex::new(WriterState {
                file,
                end: 0,
                halves: HalvesWritten::default(),
                chunks: Vec::new(),
            }),
            filling: Mutex::new([Vec::new(), Vec::new()]),
            finished: false,
        })
    }

    /// The file written.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Adds the values of the half that starts at position `start`. Returns their checksum
    /// ([`range_checksum`]), as a raw work file's `write_range` gives it.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if compressing or writing fails.
    pub(crate) fn write_half(
        &self,
        start: u64,
        codes: &[u16],
        rule_codes: &[u8],
    ) -> Result<u32, GenerateError> {
        debug_assert_eq!(codes.len() as u64, self.half_len);
        // What the run keeps is what is read back, and what the checksum covers.
        let (shortest, no_rules): (Vec<u16>, Vec<u8>);
        let (codes, rule_codes) = match self.kept {
            Kept::Full => (codes, rule_codes),
            Kept::Kinds => {
                shortest = codes
                    .iter()
                    .map(|&code| shortest_of_its_kind(code))
                    .collect();
                no_rules = vec![0; codes.len()];
                (shortest.as_slice(), no_rules.as_slice())
            }
        };
        let mut bytes = Vec::with_capacity(2 * codes.len());
        bytes.extend(codes.iter().flat_map(|c| c.to_le_bytes()));
        let checksum = range_checksum(start, &bytes, rule_codes);
        let half = start / self.half_len;
        if self.half_len >= CHUNK_POSITIONS {
            let step = CHUNK_POSITIONS as usize;
            let pieces = codes.chunks(step).zip(rule_codes.chunks(step));
            self.append(&[half], pieces)?;
            return Ok(checksum);
        }
        let side = usize::from(half >= self.black_from);
        let taken = self.filling.lock().expect("a band writer's lock")[side].pop();
        let mut filling = taken.unwrap_or_default();
        filling.halves.push(half);
        filling.codes.extend_from_slice(codes);
        filling.rules.extend_from_slice(rule_codes);
        if filling.halves.len() as u64 == halves_a_chunk(self.half_len) {
            self.append_filled(&filling)?;
        } else {
            self.filling.lock().expect("a band writer's lock")[side].push(filling);
        }
        Ok(checksum)
    }

    /// Appends a chunk of small halves.
    fn append_filled(&self, filling: &Filling) -> Result<(), GenerateError> {
        let one = std::iter::once((filling.codes.as_slice(), filling.rules.as_slice()));
        self.append(&filling.halves, one)
    }

    /// Compresses `pieces` (codes and rule codes), a chunk each, and appends them, for
    /// `halves`: several small halves in one chunk, or one half in several chunks.
    fn append<'c>(
        &self,
        halves: &[u64],
        pieces: impl Iterator<Item = (&'c [u16], &'c [u8])>,
    ) -> Result<(), GenerateError> {
        let io = io_error(&self.temporary);
        let mut raw = Vec::new();
        let mut compressed = Vec::new();
        let mut made = Vec::new();
        for (codes, rules) in pieces {
            raw.clear();
            self.kept.lay_out(codes, rules, &mut raw);
            let at = compressed.len();
            compressed.extend_from_slice(&compress_chunk(&raw).map_err(&io)?);
            made.push((
                at,
                compressed.len() - at,
                codes.len(),
                crc32fast::hash(&raw),
            ));
        }
        let mut state = self.state.lock().expect("a band writer's lock");
        let offset = state.end;
        state.file.write_all_at(&compressed, offset).map_err(&io)?;
        state.end += compressed.len() as u64;
        state.halves.append(halves, made.len());
        for (at, len, positions, crc) in made {
            state.chunks.push(Chunk {
                file: 0,
                offset: offset + at as u64,
                len: len as u32,
                positions: positions as u32,
                crc,
            });
        }
        Ok(())
    }

    /// Writes the chunks still being filled and the directory, syncs the file and gives it
    /// its band's name.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if it cannot be written (the temporary file is then removed).
    pub(crate) fn finish(mut self) -> Result<(), GenerateError> {
        let filling = std::mem::take(&mut *self.filling.lock().expect("a band writer's lock"));
        for chunk in filling.iter().flatten() {
            self.append_filled(chunk)?;
        }
        self.finish_in_place()?;
        self.finished = true;
        Ok(())
    }

    fn finish_in_place(&self) -> Result<(), GenerateError> {
        let io = io_error(&self.temporary);
        let mut state = self.state.lock().expect("a band writer's lock");
        let end = state.end;
        let directory = directory::encode(&self.identity, &state.halves, &state.chunks, end);
        state.file.write_all_at(&directory, end).map_err(&io)?;
        state.file.flush().map_err(&io)?;
        // Not synced here: a band finishes every few seconds, and [`sync_band_files`] makes
        // the bands durable together before the journal records them.
        fs::rename(&self.temporary, &self.path).map_err(io_error(&self.path))?;
        Ok(())
    }
}

impl Drop for BandWriter {
    /// A band not finished leaves no temporary file.
    fn drop(&mut self) {
        if !self.finished {
            let _ = fs::remove_file(&self.temporary);
        }
    }
}

/// Makes the band files at `paths` durable, and their names in their directory: before the
/// journal records their bands (a band recorded whose file a crash lost would be found by its
/// checksum all the same, and solved again, but with every band after it).
///
/// # Errors
///
/// [`GenerateError::Io`] if one cannot be opened or synced.
pub(crate) fn sync_band_files(paths: &[PathBuf]) -> Result<(), GenerateError> {
    for path in paths {
        let file = File::open(path).map_err(io_error(path))?;
        file.sync_all().map_err(io_error(path))?;
    }
    if let Some(dir) = paths
        .first()
        .and_then(|path| path.parent())
        .and_then(|dir| File::open(dir).ok())
    {
        let _ = dir.sync_all();
    }
    Ok(())
}
