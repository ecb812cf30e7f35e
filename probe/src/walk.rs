//! Walking a whole material: a table's stored codes, read into memory, completed with the
//! values of the positions the table leaves out (see [`crate::codec`]), so that every position
//! of the material has its value. The generator reads its tables back this way, verification
//! checks them and the statistics count them.
//!
//! The walk works on raw codes, one per position, in the narrowest type that holds them (a
//! byte or two), since the generator keeps whole materials in memory. It goes in two passes,
//! each in parallel over chunks of the index, with the same result whatever the thread count:
//! first the positions that must capture (from their captures, which leave the material) and
//! the draws (from the win/draw/loss codes), which completes the first half of the index (White
//! to move in the table's orientation); then the positions with Black to move, from their
//! moves, which reach that first half or other materials.

use std::path::Path;

use rayon::prelude::*;

use crate::codec::{read_code, Codec, Entry};
use crate::{resets_counter, Category, Limits, Material, Position, PositionIndex, ProbeError, Wdl};

/// Positions handled per unit of parallel work.
const CHUNK: usize = 1 << 12;

/// A code kept in memory, one per position: a byte or two.
pub trait Code: Copy + Send + Sync {
    /// The code as stored in memory; codes of a table of this width fit.
    fn from_code(code: u16) -> Self;
    /// The code.
    fn code(self) -> u16;
}

impl Code for u8 {
    #[inline]
    fn from_code(code: u16) -> u8 {
        code as u8
    }
    #[inline]
    fn code(self) -> u16 {
        u16::from(self)
    }
}

impl Code for u16 {
    #[inline]
    fn from_code(code: u16) -> u16 {
        code
    }
    #[inline]
    fn code(self) -> u16 {
        self
    }
}

/// Which positions of a material have a side to move that must capture, a bit each.
#[derive(Debug, Clone)]
pub struct Captures(Vec<u64>);

impl Captures {
    /// The positions `capture` marks among the first `positions` of the index.
    pub fn from_fn(positions: usize, capture: impl Fn(usize) -> bool) -> Captures {
        let mut words = vec![0u64; positions.div_ceil(64)];
        for i in (0..positions).filter(|&i| capture(i)) {
            words[i / 64] |= 1 << (i % 64);
        }
        Captures(words)
    }

    /// Whether position `i`'s side to move must capture.
    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 != 0)
    }
}

/// What is known of a material before its walk.
#[derive(Debug, Clone, Copy)]
pub struct Walk<'a> {
    /// The material's positions.
    pub index: &'a PositionIndex,
    /// Its win/draw/loss table, every block decompressed (2 bits a position): which positions
    /// are drawn.
    pub wdl: &'a [u8],
    /// The draw-rule limit of the material (used by the draw-rule kind only).
    pub limit: u8,
    /// The file the codes were read from, named in the error about an invalid code.
    pub path: &'a Path,
}

impl<'a> Walk<'a> {
    /// A walk of `index`'s material, its draw-rule limit taken from `limits` (0 without).
    pub fn new(
        index: &'a PositionIndex,
        wdl: &'a [u8],
        limits: Option<Limits>,
        path: &'a Path,
    ) -> Walk<'a> {
        let category = Category::of(index.variant(), index.material());
        Walk {
            index,
            wdl,
            limit: limits.map_or(0, |l| l.of(category)),
            path,
        }
    }

    /// The decision of [`TableKind::holds`] for position `i`, whose side to move must capture
    /// when `capture`.
    #[inline]
    pub fn entry(&self, i: usize, capture: bool) -> Entry {
        Entry {
            capture,
            drawn: read_code(self.wdl, 2, i) == u16::from(Wdl::Draw.code()),
            white_to_move: (i as u64) < self.index.size() / 2,
        }
    }

    /// Completes `codes`, a table's codes of `bits` bits for every position of the material
    /// (those the table leaves out arbitrary), with the values of the positions left out.
    /// `outside` gives the value of a position of another material (its side to move has a
    /// piece); `progress` is called with the number of positions done as work goes on.
    /// Returns which positions must capture.
    ///
    /// # Errors
    ///
    /// [`ProbeError::Corrupted`] naming [`Walk::path`] for a stored code no table holds, or
    /// the first error of `outside`.
    pub fn complete<C, T, E>(
        &self,
        codes: &mut [T],
        bits: u8,
        outside: impl Fn(&Position) -> Result<C::Value, E> + Sync,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Captures, E>
    where
        C: Codec,
        T: Code,
        E: From<ProbeError> + Send,
    {
        let words = codes
            .par_chunks_mut(CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                self.first_pass::<C, T, E>(c * CHUNK, chunk, bits, &outside, progress)
            })
            .collect::<Result<Vec<_>, E>>()?;
        let captures = Captures(words.concat());
        let half = codes.len() / 2;
        let (white, black) = codes.split_at_mut(half);
        let white: &[T] = white;
        black
            .par_chunks_mut(CHUNK)
            .enumerate()
            .try_for_each(|(c, chunk)| {
                let start = half + c * CHUNK;
                let same = |next: &Position| {
                    let code = white[self.index.rank(next) as usize].code();
                    C::decode(code, bits).unwrap_or(C::DRAW)
                };
                let mut cursor = self.index.cursor(start as u64);
                let mut done = 0;
                for (i, slot) in chunk.iter_mut().enumerate() {
                    let at = start + i;
                    let entry = self.entry(at, captures.contains(at));
                    if C::KIND.holds(entry) || entry.capture || entry.drawn {
                        cursor.advance();
                        continue;
                    }
                    let pos = cursor.position();
                    cursor.advance();
                    let value = self.through_moves::<C, E>(&pos, &same, &outside)?;
                    *slot = T::from_code(C::encode(value, bits));
                    done += 1;
                }
                progress(done);
                Ok::<(), E>(())
            })?;
        Ok(captures)
    }

    /// The first pass over the chunk of `codes` from position `start`: the stored codes checked,
    /// the captures and draws filled in. Returns the chunk's capture bits.
    fn first_pass<C, T, E>(
        &self,
        start: usize,
        chunk: &mut [T],
        bits: u8,
        outside: &(impl Fn(&Position) -> Result<C::Value, E> + Sync),
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<u64>, E>
    where
        C: Codec,
        T: Code,
        E: From<ProbeError> + Send,
    {
        // A capture always leaves the material: nothing of it is read.
        let same = |_: &Position| C::DRAW;
        let mut words = vec![0u64; chunk.len().div_ceil(64)];
        let mut cursor = self.index.cursor(start as u64);
        let mut done = 0;
        for (i, slot) in chunk.iter_mut().enumerate() {
            let pos = cursor.position();
            cursor.advance();
            let capture = pos.must_capture();
            let entry = self.entry(start + i, capture);
            if C::KIND.holds(entry) {
                if C::decode(slot.code(), bits).is_none() {
                    return Err(ProbeError::invalid_code(C::KIND, self.path, slot.code()).into());
                }
            } else if capture {
                words[i / 64] |= 1 << (i % 64);
                let value = self.through_moves::<C, E>(&pos, &same, outside)?;
                *slot = T::from_code(C::encode(value, bits));
            } else if entry.drawn {
                *slot = T::from_code(C::encode(C::DRAW, bits));
            } else {
                continue;
            }
            done += 1;
        }
        progress(done);
        Ok(words)
    }

    /// A position's value from its successors: `same` for those of the material, `outside`
    /// for the others, lost at once for a side to move without a piece.
    fn through_moves<C: Codec, E>(
        &self,
        pos: &Position,
        same: &impl Fn(&Position) -> C::Value,
        outside: &impl Fn(&Position) -> Result<C::Value, E>,
    ) -> Result<C::Value, E> {
        let material = self.index.material();
        let moves = pos.legal_moves();
        let mut successors = Vec::with_capacity(moves.len());
        for mv in &moves {
            let next = pos.play(mv);
            let value = if next.side_pieces(next.turn()).is_empty() {
                C::NO_PIECE
            } else if Material::of(&next) == material {
                same(&next)
            } else {
                outside(&next)?
            };
            successors.push((value, resets_counter(pos, mv, &next)));
        }
        Ok(C::from_successors(self.limit, successors))
    }
}

/// Codes of `bits` bits, one per position, of the decompressed blocks `bytes` of a table of
/// `positions` positions.
pub fn unpack<T: Code>(bytes: &[u8], bits: u8, positions: usize) -> Vec<T> {
    (0..positions)
        .map(|i| T::from_code(read_code(bytes, bits, i)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::DtwCodec;
    use crate::format::TableKind;
    use crate::{Tablebase, Variant};

    /// Every position of a material, completed by the walk, has the value the probe gives it.
    #[test]
    fn completed_values_are_the_probes() {
        let dir = tempfile::tempdir().unwrap();
        let plan = rafle_generator::Plan::new(Variant::Brazilian, 3, dir.path()).unwrap();
        rafle_generator::generate(&plan, &rafle_generator::NoProgress).unwrap();
        let tables = Tablebase::open(dir.path()).unwrap();
        let material: Material = "KMvK".parse().unwrap();
        let read = |kind| {
            let table = tables.table_of(kind, Variant::Brazilian, material).unwrap();
            let blocks = (0..table.header().blocks).map(|b| table.read_block(b).unwrap());
            (table, blocks.flatten().collect::<Vec<u8>>())
        };
        let (wdl_table, wdl) = read(TableKind::Wdl);
        let (dtw_table, bytes) = read(TableKind::Dtw);
        let index = wdl_table.index();
        let bits = dtw_table.header().bits;
        let mut codes: Vec<u16> = unpack(&bytes, bits, index.size() as usize);
        let walk = Walk::new(index, &wdl, None, dtw_table.path());
        let captures = walk
            .complete::<DtwCodec, _, ProbeError>(&mut codes, bits, |p| tables.probe_dtw(p), &|_| {})
            .unwrap();
        for (i, &code) in codes.iter().enumerate() {
            let pos = index.unrank(i as u64);
            assert_eq!(captures.contains(i), pos.must_capture());
            let expected = tables.probe_dtw(&pos).unwrap();
            assert_eq!(
                DtwCodec::decode(code, bits),
                Some(expected),
                "{}",
                pos.to_fen()
            );
        }
    }
}
