//! Letting a side to move of a finished material's band files go: each chunk holds halves of
//! one side (the writer fills them apart), so the file is copied with the chunks of the sides
//! kept, their compressed bytes as they are, under a directory of those halves alone. And
//! leaving the side its tables store to them: the chunks of that side are copied with only
//! their positions that must capture ([`super::from_tables`]). And keeping of a side read only
//! through a crowning (by materials of as many pieces, one more man and one king fewer for the
//! side that moved) the positions where a king of that side stands on its crowning row alone:
//! no other position of that side is ever read again.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;

use rafle_probe::toolkit::PositionIndex;

use super::directory::{self, Chunk, HalfPlace, HalvesWritten};
use super::writer::compress_chunk;
use super::{band_identity, identity_from_tables, Kept, CHUNK_POSITIONS};
use crate::files::io_error;
use crate::work::packed::decompress_checked;
use crate::work::sides::Sides;
use crate::work::value_planes;
use crate::GenerateError;

/// Rewrites band `band`'s file at `path` (of the request `identity`, a material of `index`)
/// with the chunks of the halves of `keep` alone, by temporary name, synced, renamed. Returns
/// whether it let any chunk go (a file of those sides alone is left as it is).
///
/// # Errors
///
/// [`GenerateError::Io`] if it cannot be read or written (the temporary file is then
/// removed), [`GenerateError::DamagedWorkFile`] if its directory does not check.
pub(crate) fn keep_sides(
    path: &Path,
    identity: &str,
    band: usize,
    index: &PositionIndex,
    keep: Sides,
) -> Result<bool, GenerateError> {
    let rewrite = Rewrite {
        identity: band_identity(identity, band),
        keep,
        cleared: None,
    };
    rewrite.apply(path, index)
}

/// What a band file is rewritten into.
struct Rewrite {
    /// The band's identity, which the file carries before and after.
    identity: String,
    /// The sides to move whose chunks stay.
    keep: Sides,
    /// The side to move whose chunks keep some of their positions alone.
    cleared: Option<Cleared>,
}

/// The side to move of a band file whose chunks keep some of their positions alone, which,
/// and the identity the file then takes.
struct Cleared {
    side: Sides,
    keep: Keep,
    identity: String,
}

/// Which positions of a side the chunks of a rewritten band file keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// Those whose side to move must capture (the tables hold the others).
    Captures,
    /// Those where a king of the side not to move stands on its crowning row (no other is
    /// read once the materials still to read the side read it only through a crowning).
    Crowned,
}

impl Rewrite {
    /// Rewrites the band file at `path` (of a material of `index`) so, by temporary name,
    /// synced, renamed. Returns whether it changed (a file already so is left as it is).
    fn apply(&self, path: &Path, index: &PositionIndex) -> Result<bool, GenerateError> {
        let file = rafle_probe::toolkit::open_regular(path).map_err(io_error(path))?;
        let half_len = index.king_placements();
        let black_from = index.men_placements();
        let mut places: Vec<HalfPlace> = Vec::new();
        let chunks = directory::read(path, &file, &self.identity, half_len, |place| {
            places.push(place);
            Ok(())
        })?;
        // Each chunk's side: that of the halves starting in it, or of the half it goes on with.
        let mut starting: Vec<Vec<u64>> = vec![Vec::new(); chunks.len()];
        for place in &places {
            starting[place.chunk as usize].push(place.half);
        }
        let mut side = Sides::WHITE;
        let sides: Vec<Sides> = starting
            .iter()
            .map(|halves| {
                if let Some(&half) = halves.first() {
                    side = if half >= black_from {
                        Sides::BLACK
                    } else {
                        Sides::WHITE
                    };
                }
                side
            })
            .collect();
        if sides.iter().all(|&s| self.keep.contains(s)) && self.cleared.is_none() {
            return Ok(false);
        }
        let identity = self
            .cleared
            .as_ref()
            .map_or(&self.identity, |c| &c.identity);
        let crowned = matches!(&self.cleared, Some(c) if c.keep == Keep::Crowned);
        let runs = if crowned {
            chunk_runs(&places, chunks.len(), index.king_placements())
        } else {
            Vec::new()
        };
        let chunks = Chunks {
            from: (path, &file),
            list: &chunks,
            starting: &starting,
            sides: &sides,
            keep: self.keep,
            cleared: self.cleared.as_ref().map(|c| (c.side, c.keep)),
            runs: (index, &runs),
        };
        crate::files::replace_by(path, |temporary| chunks.copy(temporary, identity))?;
        Ok(true)
    }
}

/// The chunks of a band file as they are copied.
struct Chunks<'a> {
    /// The file read, and its path.
    from: (&'a Path, &'a File),
    list: &'a [Chunk],
    /// The halves that start in each chunk.
    starting: &'a [Vec<u64>],
    /// The side to move of each chunk.
    sides: &'a [Sides],
    /// The sides whose chunks stay.
    keep: Sides,
    /// The side whose chunks keep some of their positions alone, and which.
    cleared: Option<(Sides, Keep)>,
    /// The material's index, and the positions of each chunk as runs of consecutive indices
    /// (for [`Keep::Crowned`]).
    runs: (&'a PositionIndex, &'a [Vec<Run>]),
}

/// Consecutive positions of a chunk: the index of the first, its place in the chunk, and how
/// many.
type Run = (u64, usize, usize);

/// The positions of each of `chunks` chunks whose halves (of `half_len` positions) lie at
/// `places`, as runs: a half of at most [`CHUNK_POSITIONS`] at its slot of its chunk, a larger
/// one over consecutive chunks of its own.
fn chunk_runs(places: &[HalfPlace], chunks: usize, half_len: u64) -> Vec<Vec<Run>> {
    let mut runs = vec![Vec::new(); chunks];
    for place in places {
        let first = place.half * half_len;
        if half_len <= CHUNK_POSITIONS {
            let at = (u64::from(place.slot) * half_len) as usize;
            if let Some(chunk) = runs.get_mut(place.chunk as usize) {
                chunk.push((first, at, half_len as usize));
            }
            continue;
        }
        for (q, from) in (0..half_len).step_by(CHUNK_POSITIONS as usize).enumerate() {
            let count = CHUNK_POSITIONS.min(half_len - from) as usize;
            if let Some(chunk) = runs.get_mut(place.chunk as usize + q) {
                chunk.push((first + from, 0, count));
            }
        }
    }
    runs
}

/// Whether each position of a chunk whose positions are `runs` (of a material of `index`)
/// has a king of the side not to move on that side's crowning row: the positions a crowning
/// that captures nothing reaches.
fn crowned(index: &PositionIndex, runs: &[Run], positions: usize) -> Vec<bool> {
    let mut crowned = vec![false; positions];
    for &(first, at, count) in runs {
        let mut cursor = index.cursor(first);
        for k in 0..count {
            if k > 0 {
                cursor.advance();
            }
            let position = cursor.position();
            if let Some(slot) = crowned.get_mut(at + k) {
                *slot = position.king_on_crowning_row(position.turn().opposite());
            }
        }
    }
    crowned
}

impl Chunks<'_> {
    /// Writes the chunks kept (those cleared so) and their directory, of `identity`, to
    /// `temporary`, synced.
    fn copy(&self, temporary: &Path, identity: &str) -> Result<(), GenerateError> {
        let (path, from) = self.from;
        let io = io_error(temporary);
        let mut out = crate::create_temporary(temporary).map_err(&io)?;
        let mut halves = HalvesWritten::default();
        let mut copied = Vec::new();
        let mut end = 0u64;
        let mut bytes = Vec::new();
        for (c, chunk) in self.list.iter().enumerate() {
            if !self.keep.contains(self.sides[c]) {
                continue;
            }
            bytes.resize(chunk.len as usize, 0);
            from.read_exact_at(&mut bytes, chunk.offset)
                .map_err(io_error(path))?;
            let mut written = *chunk;
            if let Some((_, keep)) = self.cleared.filter(|&(side, _)| side == self.sides[c]) {
                let len = Kept::Full.chunk_len(chunk.positions as usize);
                let mut raw = decompress_checked(path, &bytes, len, chunk.crc, "chunk", c as u64)?;
                match keep {
                    Keep::Captures => value_planes::keep_captures_alone(&mut raw),
                    Keep::Crowned => {
                        let (index, runs) = self.runs;
                        let crowned = crowned(index, &runs[c], chunk.positions as usize);
                        value_planes::keep_alone(&mut raw, |k, _| crowned[k]);
                    }
                }
                bytes = compress_chunk(&raw).map_err(&io)?;
                written.len = bytes.len() as u32;
                written.crc = crc32fast::hash(&raw);
            }
            out.write_all(&bytes).map_err(&io)?;
            halves.append(&self.starting[c], 1);
            copied.push(Chunk {
                offset: end,
                ..written
            });
            end += u64::from(written.len);
        }
        let directory = directory::encode(identity, &halves, &copied, end);
        out.write_all(&directory).map_err(&io)?;
        out.sync_all().map_err(&io)?;
        Ok(())
    }
}

/// [`keep_sides`] for every band file of a finished material of `index` (the paths of its
/// bands in order). Returns whether any chunk went.
///
/// # Errors
///
/// As [`keep_sides`].
pub(crate) fn keep_sides_of_bands(
    paths: &[std::path::PathBuf],
    identity: &str,
    index: &PositionIndex,
    keep: Sides,
) -> Result<bool, GenerateError> {
    let mut any = false;
    for (band, path) in paths.iter().enumerate() {
        any |= keep_sides(path, identity, band, index, keep)?;
    }
    Ok(any)
}

/// Rewrites every band file of a finished material of `index` (the paths of its bands in
/// order, of the request `identity`) so that the chunks of the side `stored` keep only their
/// positions that must capture, under the identity [`identity_from_tables`] gives: the
/// other positions of that side are then read from the material's tables
/// ([`super::from_tables`]). A file already rewritten so is left as it is.
///
/// # Errors
///
/// As [`keep_sides`].
pub(crate) fn read_stored_side_from_tables(
    paths: &[std::path::PathBuf],
    identity: &str,
    index: &PositionIndex,
    stored: Sides,
) -> Result<(), GenerateError> {
    let to = identity_from_tables(identity, stored == Sides::WHITE);
    for (band, path) in paths.iter().enumerate() {
        let rewrite = Rewrite {
            identity: band_identity(identity, band),
            keep: Sides::BOTH,
            cleared: Some(Cleared {
                side: stored,
                keep: Keep::Captures,
                identity: band_identity(&to, band),
            }),
        };
        match rewrite.apply(path, index) {
            Ok(_) => {}
            // Rewritten by a run stopped before the last band: it already reads so.
            Err(e) if reads_as(path, &band_identity(&to, band), index) => drop(e),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The identity of band files of the request `identity` whose side `side` keeps the positions
/// a crowning reaches alone ([`keep_crowned_alone`]).
pub(crate) fn identity_crowned_alone(identity: &str, side: Sides) -> String {
    format!("{identity},{} where crowned alone", side.suffix())
}

/// Rewrites every band file of a finished material of `index` (the paths of its bands in
/// order, of the request `identity`) so that the chunks of the side `side` keep only the
/// positions where a king of the side not to move stands on its crowning row, under the
/// identity [`identity_crowned_alone`] gives: what the materials still to read that side reach
/// when each reads it only through a crowning that captures nothing. Returns that identity.
///
/// A run stopped part way leaves files it cannot read back as its values: a resumed run then
/// reads the material's values back from its tables.
///
/// # Errors
///
/// As [`keep_sides`].
pub(crate) fn keep_crowned_alone(
    paths: &[std::path::PathBuf],
    identity: &str,
    index: &PositionIndex,
    side: Sides,
) -> Result<String, GenerateError> {
    let to = identity_crowned_alone(identity, side);
    for (band, path) in paths.iter().enumerate() {
        let rewrite = Rewrite {
            identity: band_identity(identity, band),
            keep: Sides::BOTH,
            cleared: Some(Cleared {
                side,
                keep: Keep::Crowned,
                identity: band_identity(&to, band),
            }),
        };
        rewrite.apply(path, index)?;
    }
    Ok(to)
}

/// Whether the band file at `path` has the directory of `identity`.
fn reads_as(path: &Path, identity: &str, index: &PositionIndex) -> bool {
    rafle_probe::toolkit::open_regular(path).is_ok_and(|file| {
        directory::read(path, &file, identity, index.king_placements(), |_| Ok(())).is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::work::bands::{BandWriter, BandedValues, Kept};
    use crate::work::packed::SharedCache;
    use rafle_probe::draughts::Variant;

    fn codes_of(i: u64) -> (u16, u8) {
        ((i * 5 % 4_001) as u16, (i % 199) as u8)
    }

    /// Writes band 0 of `index` with every half, and lets White to move go: Black's halves
    /// read back as written, White's are an error, and a second pass changes nothing.
    fn keeps_black_alone(material: &str) {
        let dir = tempfile::tempdir().unwrap();
        let index = PositionIndex::new(Variant::Brazilian, material.parse().unwrap());
        let half = index.king_placements();
        let halves = 2 * index.men_placements();
        let path = dir.path().join("m.band-000");
        let writer = BandWriter::create(&path, "id", 0, &index, Kept::Full).unwrap();
        for h in 0..halves {
            let (codes, rules): (Vec<u16>, Vec<u8>) =
                (h * half..(h + 1) * half).map(codes_of).unzip();
            writer.write_half(h * half, &codes, &rules).unwrap();
        }
        writer.finish().unwrap();
        let before = std::fs::metadata(&path).unwrap().len();

        assert!(keep_sides(&path, "id", 0, &index, Sides::BLACK).unwrap());
        let after = std::fs::metadata(&path).unwrap().len();
        assert!(after < before * 3 / 4, "{after} of {before} bytes");
        assert!(!keep_sides(&path, "id", 0, &index, Sides::BLACK).unwrap());
        let mut values = BandedValues::new(&index, "id", Kept::Full);
        values.add_band(&path, 0).unwrap();
        assert_eq!(values.held_sides(), Sides::BLACK);
        values.check().unwrap();
        let cache = SharedCache::new(1 << 20);
        let middle = index.size() / 2;
        for i in [
            middle,
            middle + half / 2,
            middle + 3 * half - 1,
            index.size() - 1,
        ] {
            assert_eq!(values.codes(i, &cache).unwrap(), codes_of(i), "{i}");
        }
        assert!(values.codes(0, &cache).is_err());
        assert!(values.codes(middle - 1, &cache).is_err());
        // The directory checks, and no temporary file is left.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    /// Writes band 0 of `material` with every half, and keeps of Black to move the positions
    /// a crowning of White reaches alone: those read back as written, the rest of Black to
    /// move as draws, White to move untouched (checked at every `stride`th position).
    fn keeps_crowned_alone(material: &str, stride: usize) {
        let dir = tempfile::tempdir().unwrap();
        let index = PositionIndex::new(Variant::Brazilian, material.parse().unwrap());
        let half = index.king_placements();
        let path = dir.path().join("m.band-000");
        let writer = BandWriter::create(&path, "id", 0, &index, Kept::Full).unwrap();
        for h in 0..2 * index.men_placements() {
            let (codes, rules): (Vec<u16>, Vec<u8>) =
                (h * half..(h + 1) * half).map(codes_of).unzip();
            writer.write_half(h * half, &codes, &rules).unwrap();
        }
        writer.finish().unwrap();

        let paths = [path.clone()];
        let identity = keep_crowned_alone(&paths, "id", &index, Sides::BLACK).unwrap();
        assert_eq!(identity, identity_crowned_alone("id", Sides::BLACK));
        let mut values = BandedValues::new(&index, &identity, Kept::Full);
        values.add_band(&path, 0).unwrap();
        values.check().unwrap();
        let cache = SharedCache::new(1 << 22);
        let (mut crowned, mut cleared) = (0, 0);
        for i in (0..index.size()).step_by(stride) {
            let position = index.unrank(i);
            let read = values.codes(i, &cache).unwrap();
            let black = position.turn() == rafle_probe::draughts::Color::Black;
            if !black || position.king_on_crowning_row(rafle_probe::draughts::Color::White) {
                assert_eq!(read, codes_of(i), "{i}");
                crowned += u64::from(black);
            } else {
                assert_eq!(read, (crate::work::values::DRAW, 0), "{i}");
                cleared += 1;
            }
        }
        assert!(
            crowned > 0 && cleared > crowned,
            "{crowned} kept, {cleared} cleared"
        );
        // The file under its first identity is no longer taken.
        assert!(BandedValues::new(&index, "id", Kept::Full)
            .add_band(&path, 0)
            .is_err());
    }

    #[test]
    fn a_side_read_only_through_crownings_keeps_the_crowned_positions_alone() {
        // Small halves sharing chunks, and halves of several chunks each.
        // Every position of the first, every 97th of the second.
        keeps_crowned_alone("KMMvM", 1);
        keeps_crowned_alone("KKKvKM", 97);
    }

    #[test]
    fn a_side_let_go_leaves_the_other_as_written() {
        // Small halves sharing chunks (two kings beside three men), and halves of several
        // chunks each (five kings beside a man).
        keeps_black_alone("KKMMvM");
        keeps_black_alone("KKKMvKK");
    }
}
