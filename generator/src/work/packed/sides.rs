//! Letting a side to move of a packed file go: the blocks that hold a position of the other
//! side are copied as they are (the block across the middle holds both), the others left
//! empty, and the side kept named after the request's identity (see [`crate::work::sides`]).

use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::{finish, preamble, PackedValues, ENTRY_LEN};
use crate::files::io_error;
use crate::work::sides::Sides;
use crate::work::values::Kept;
use crate::GenerateError;

/// Rewrites the packed file at `path` (of `identity`, `positions` positions kept as `kept`
/// says) with the blocks of the sides to move `keep` alone, their compressed bytes as they
/// are, the others empty, and `keep` named after the identity; by temporary name, synced,
/// renamed. Returns whether it let any block go (nothing is done to a file of those sides
/// alone, or of none of them).
///
/// # Errors
///
/// [`GenerateError::Io`] if it cannot be read or written (the temporary file is then
/// removed), [`GenerateError::DamagedWorkFile`] if it is not a packed file of `identity`.
pub(crate) fn keep_sides(
    path: &Path,
    identity: &str,
    positions: u64,
    kept: Kept,
    keep: Sides,
) -> Result<bool, GenerateError> {
    let packed = PackedValues::open(path, identity, positions, kept)?;
    let keep = Sides {
        white: keep.white && packed.held.white,
        black: keep.black && packed.held.black,
    };
    if keep == packed.held || keep.is_empty() {
        return Ok(false);
    }
    crate::files::replace_by(path, |tmp| copy_sides(&packed, tmp, identity, keep))?;
    Ok(true)
}

/// The packed file `packed` with the blocks of `keep` alone, written to `tmp`, synced.
fn copy_sides(
    packed: &PackedValues,
    tmp: &Path,
    identity: &str,
    keep: Sides,
) -> Result<(), GenerateError> {
    let io = io_error(tmp);
    let preamble = preamble(
        packed.kept,
        packed.positions,
        &format!("{identity}{}", keep.suffix()),
    );
    let blocks = packed.ends.len();
    let index_len = blocks * ENTRY_LEN + 4;
    let mut offset = (preamble.len() + index_len) as u64;
    let mut index = Vec::with_capacity(index_len);
    let file = crate::create_temporary(tmp).map_err(&io)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.write_all(&preamble).map_err(&io)?;
    out.write_all(&vec![0; index_len]).map_err(&io)?;
    let mut compressed = Vec::new();
    for b in 0..blocks as u64 {
        let start = b * packed.per_block;
        let end = (start + packed.per_block).min(packed.positions);
        let crc = if keep.meets(start, end, packed.positions) {
            let from = match b {
                0 => packed.data_start,
                b => packed.ends[b as usize - 1],
            };
            compressed.resize((packed.ends[b as usize] - from) as usize, 0);
            packed
                .file
                .read_exact_at(&mut compressed, from)
                .map_err(io_error(&packed.path))?;
            out.write_all(&compressed).map_err(&io)?;
            offset += compressed.len() as u64;
            packed.crcs[b as usize]
        } else {
            0
        };
        index.extend_from_slice(&offset.to_le_bytes());
        index.extend_from_slice(&crc.to_le_bytes());
    }
    finish(out, &preamble, index, &io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::work::packed::tests::{files_in, raw, read_back};
    use crate::work::packed::{pack, SharedCache, BLOCK_POSITIONS};

    #[test]
    fn a_side_let_go_leaves_the_other_side_readable_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        // Five blocks, the middle inside the third.
        let n = 4 * BLOCK_POSITIONS + 100;
        let values = raw(dir.path(), n);
        let path = dir.path().join("m.packed");
        let whole = pack(&values, &path, "m", Kept::Full).unwrap();
        assert!(keep_sides(&path, "m", n, Kept::Full, Sides::WHITE).unwrap());
        assert!(std::fs::metadata(&path).unwrap().len() < whole * 3 / 4);
        // Nothing more to let go, or nothing left to keep: left as it is.
        assert!(!keep_sides(&path, "m", n, Kept::Full, Sides::WHITE).unwrap());
        assert!(!keep_sides(&path, "m", n, Kept::Full, Sides::BLACK).unwrap());
        let packed = PackedValues::open(&path, "m", n, Kept::Full).unwrap();
        assert_eq!(packed.held(), Sides::WHITE);
        packed.check().unwrap();
        let cache = SharedCache::new(64 << 20);
        // Every position of the blocks that hold White to move, Black's in the third too.
        for i in 0..3 * BLOCK_POSITIONS {
            assert_eq!(
                packed.codes(i, &cache).unwrap(),
                read_back(&values, i),
                "{i}"
            );
        }
        // Past the block across the middle: an error, never a value.
        let err = packed.codes(3 * BLOCK_POSITIONS, &cache).unwrap_err();
        assert!(
            matches!(err, GenerateError::DamagedWorkFile { .. }),
            "{err}"
        );
        // Another request's identity is still refused.
        assert!(PackedValues::open(&path, "other", n, Kept::Full).is_err());
        assert_eq!(files_in(dir.path()), vec!["m.packed", "m.partial"]);
    }
}
