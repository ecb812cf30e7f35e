//! Letting a side to move of a finished material's band files go: each chunk holds halves of
//! one side (the writer fills them apart), so the file is copied with the chunks of the sides
//! kept, their compressed bytes as they are, under a directory of those halves alone. And
//! leaving the side its tables store to them: the chunks of that side are copied with only
//! their positions that must capture ([`super::from_tables`]).

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;

use rafle_probe::toolkit::PositionIndex;

use super::directory::{self, Chunk, HalfPlace, HalvesWritten};
use super::{band_identity, identity_from_tables, Kept};
use crate::files::io_error;
use crate::work::packed::{decompress_checked, LEVEL};
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
        stored: None,
    };
    rewrite.apply(path, index)
}

/// What a band file is rewritten into.
struct Rewrite {
    /// The band's identity, which the file carries before and after.
    identity: String,
    /// The sides to move whose chunks stay.
    keep: Sides,
    /// The side to move whose chunks keep their positions that must capture alone, and the
    /// identity the file then takes.
    stored: Option<(Sides, String)>,
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
        if sides.iter().all(|&s| self.keep.contains(s)) && self.stored.is_none() {
            return Ok(false);
        }
        let identity = self.stored.as_ref().map_or(&self.identity, |(_, id)| id);
        let chunks = Chunks {
            from: (path, &file),
            list: &chunks,
            starting: &starting,
            sides: &sides,
            keep: self.keep,
            cleared: self.stored.as_ref().map(|&(side, _)| side),
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
    /// The side whose chunks keep their positions that must capture alone.
    cleared: Option<Sides>,
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
            if self.cleared == Some(self.sides[c]) {
                let len = Kept::Full.chunk_len(chunk.positions as usize);
                let mut raw = decompress_checked(path, &bytes, len, chunk.crc, "chunk", c as u64)?;
                value_planes::keep_captures_alone(&mut raw);
                bytes = zstd::bulk::compress(&raw, LEVEL).map_err(&io)?;
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
            stored: Some((stored, band_identity(&to, band))),
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

    #[test]
    fn a_side_let_go_leaves_the_other_as_written() {
        // Small halves sharing chunks (two kings beside three men), and halves of several
        // chunks each (five kings beside a man).
        keeps_black_alone("KKMMvM");
        keeps_black_alone("KKKMvKK");
    }
}
