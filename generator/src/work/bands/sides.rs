//! Letting a side to move of a finished material's band files go: each chunk holds halves of
//! one side (the writer fills them apart), so the file is copied with the chunks of the sides
//! kept, their compressed bytes as they are, under a directory of those halves alone.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;

use rafle_probe::toolkit::PositionIndex;

use super::band_identity;
use super::directory::{self, Chunk, HalfPlace, HalvesWritten};
use crate::files::io_error;
use crate::work::sides::Sides;
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
    let file = rafle_probe::toolkit::open_regular(path).map_err(io_error(path))?;
    let identity = band_identity(identity, band);
    let half_len = index.king_placements();
    let black_from = index.men_placements();
    let mut places: Vec<HalfPlace> = Vec::new();
    let chunks = directory::read(path, &file, &identity, half_len, |place| {
        places.push(place);
        Ok(())
    })?;
    // Each chunk's side: that of the halves starting in it, or of the half it goes on with.
    let mut kept_chunk = vec![false; chunks.len()];
    let mut starting: Vec<Vec<u64>> = vec![Vec::new(); chunks.len()];
    for place in &places {
        starting[place.chunk as usize].push(place.half);
    }
    let mut side_kept = false;
    for (c, halves) in starting.iter().enumerate() {
        if let Some(&half) = halves.first() {
            let black = half >= black_from;
            side_kept = if black { keep.black } else { keep.white };
        }
        kept_chunk[c] = side_kept;
    }
    if kept_chunk.iter().all(|&k| k) {
        return Ok(false);
    }
    crate::files::replace_by(path, |temporary| {
        copy_kept(
            (path, &file),
            temporary,
            &identity,
            &chunks,
            &starting,
            &kept_chunk,
        )
    })?;
    Ok(true)
}

/// Writes the chunks `kept` of `chunks` (read from the file `from`, halves `starting` in
/// each) and their directory to `temporary`, synced.
fn copy_kept(
    (path, from): (&Path, &File),
    temporary: &Path,
    identity: &str,
    chunks: &[Chunk],
    starting: &[Vec<u64>],
    kept: &[bool],
) -> Result<(), GenerateError> {
    let io = io_error(temporary);
    let mut out = crate::create_temporary(temporary).map_err(&io)?;
    let mut halves = HalvesWritten::default();
    let mut copied = Vec::new();
    let mut end = 0u64;
    let mut bytes = Vec::new();
    for (c, chunk) in chunks.iter().enumerate() {
        if !kept[c] {
            continue;
        }
        bytes.resize(chunk.len as usize, 0);
        from.read_exact_at(&mut bytes, chunk.offset)
            .map_err(io_error(path))?;
        out.write_all(&bytes).map_err(&io)?;
        halves.append(&starting[c], 1);
        copied.push(Chunk {
            offset: end,
            ..*chunk
        });
        end += u64::from(chunk.len);
    }
    let directory = directory::encode(identity, &halves, &copied, end);
    out.write_all(&directory).map_err(&io)?;
    out.sync_all().map_err(&io)?;
    Ok(())
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
