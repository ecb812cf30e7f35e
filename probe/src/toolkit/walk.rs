//! Walking a whole material: a table's stored codes, read into memory, completed with the
//! values of the positions the table leaves out (see [`crate::codec`]), so that every position
//! of the material has its value. The generator reads its tables back this way, verification
//! checks them and the statistics count them.
//!
//! The walk works on raw codes, one per position, in the narrowest type that holds them (a
//! byte or two), since the generator keeps whole materials in memory. It goes in two passes,
//! each in parallel over chunks of the index, with the same result whatever the thread count:
//! first the positions that must capture (from their captures, which leave the material) and
//! the draws of the distance and rule tables (from the win/draw/loss codes), which completes
//! the half of the index the table stores (its [`StoredHalf`]); then the positions of the other
//! half, from their moves, which reach the stored half or other materials. A win/draw/loss
//! table is completed first ([`Walk::complete_wdl`]), since the others' walks read its draws.

use std::marker::PhantomData;
use std::path::Path;

use rayon::prelude::*;

use crate::codec::{read_code, Codec, DrawRulesCodec, DtwCodec, Entry};
use crate::format::{StoredHalf, TableKind};
use crate::{
    resets_counter, Category, Counters, Limits, Material, Position, PositionIndex, ProbeError,
    Table, Tablebase, Wdl,
};

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

/// What a walk completes: the values of one table ([`Codec`]), or of two tables that keep the
/// same positions walked together ([`Pair`]), so that each position's moves are generated once
/// for both.
pub trait Walked {
    /// A position's value.
    type Value: Copy + Send + Sync;
    /// The widths of the tables' codes.
    type Bits: Copy + Send + Sync;
    /// The kind whose [`TableKind::holds`] says which positions are stored.
    const KIND: TableKind;
    /// The value of a drawn position.
    const DRAW: Self::Value;
    /// The value of a position whose side to move has no piece.
    const NO_PIECE: Self::Value;
    /// A position's value from its successors' (see [`Codec::from_successors`]).
    fn from_successors(limit: u8, successors: &[(Self::Value, bool)]) -> Self::Value;
}

impl<C: Codec> Walked for C {
    type Value = C::Value;
    type Bits = u8;
    const KIND: TableKind = C::KIND;
    const DRAW: C::Value = C::DRAW;
    const NO_PIECE: C::Value = C::NO_PIECE;

    fn from_successors(limit: u8, successors: &[(C::Value, bool)]) -> C::Value {
        C::from_successors(limit, successors.iter().copied())
    }
}

/// Two tables walked together: `A`'s kind decides which positions are stored, and `B`'s must
/// store the same ones (the distance and draw-rule tables do).
#[derive(Debug)]
pub struct Pair<A, B>(PhantomData<(A, B)>);

impl<A: Codec, B: Codec> Walked for Pair<A, B> {
    type Value = (A::Value, B::Value);
    type Bits = (u8, u8);
    const KIND: TableKind = A::KIND;
    const DRAW: Self::Value = (A::DRAW, B::DRAW);
    const NO_PIECE: Self::Value = (A::NO_PIECE, B::NO_PIECE);

    fn from_successors(limit: u8, successors: &[(Self::Value, bool)]) -> Self::Value {
        (
            A::from_successors(limit, successors.iter().map(|&((a, _), r)| (a, r))),
            B::from_successors(limit, successors.iter().map(|&((_, b), r)| (b, r))),
        )
    }
}

/// What a walk keeps of a position in memory: a code, or a code of each table of a [`Pair`].
pub trait Slot<W: Walked + ?Sized>: Copy + Send + Sync {
    /// The value stored, or the kind and code of a table that holds no such code.
    fn value(self, bits: W::Bits) -> Result<W::Value, (TableKind, u16)>;
    /// The slot of a value.
    fn store(value: W::Value, bits: W::Bits) -> Self;
}

impl<C: Codec, T: Code> Slot<C> for T {
    #[inline]
    fn value(self, bits: u8) -> Result<C::Value, (TableKind, u16)> {
        C::decode(self.code(), bits).ok_or((C::KIND, self.code()))
    }

    #[inline]
    fn store(value: C::Value, bits: u8) -> T {
        T::from_code(C::encode(value, bits))
    }
}

impl<A: Codec, B: Codec, TA: Code, TB: Code> Slot<Pair<A, B>> for (TA, TB) {
    #[inline]
    fn value(self, (a, b): (u8, u8)) -> Result<(A::Value, B::Value), (TableKind, u16)> {
        Ok((Slot::<A>::value(self.0, a)?, Slot::<B>::value(self.1, b)?))
    }

    #[inline]
    fn store((va, vb): (A::Value, B::Value), (a, b): (u8, u8)) -> (TA, TB) {
        (Slot::<A>::store(va, a), Slot::<B>::store(vb, b))
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
    /// The file the codes were read from, named in the error about an invalid code (for a
    /// [`Pair`], the file of the table that can hold one: a distance code is always valid).
    pub path: &'a Path,
    /// The half of the index the walked table stores.
    pub stored: StoredHalf,
}

impl<'a> Walk<'a> {
    /// A walk of `index`'s material, its draw-rule limit taken from `limits` (0 without), of a
    /// table storing `stored`, with the material's complete win/draw/loss codes `wdl`.
    pub fn new(
        index: &'a PositionIndex,
        wdl: &'a [u8],
        limits: Option<Limits>,
        path: &'a Path,
        stored: StoredHalf,
    ) -> Walk<'a> {
        let category = Category::of(index.variant(), index.material());
        Walk {
            index,
            wdl,
            limit: limits.map_or(0, |l| l.of(category)),
            path,
            stored,
        }
    }

    /// The decision of [`TableKind::holds`] for position `i`, whose side to move must capture
    /// when `capture`. `drawn` is read from [`Walk::wdl`] only for the kinds it matters to.
    #[inline]
    pub fn entry(&self, kind: TableKind, i: usize, capture: bool) -> Entry {
        let drawn =
            kind != TableKind::Wdl && read_code(self.wdl, 2, i) == u16::from(Wdl::Draw.code());
        Entry::at_index(i, self.index.size() as usize, self.stored, capture, drawn)
    }

    /// The win/draw/loss codes of every position of the material (2 bits each, as in a
    /// decompressed block) from its table `wdl`, read back (every block checksum checked) and
    /// completed: captures and the side to move the table does not store from their moves.
    /// Positions of other materials are probed in `tables`.
    ///
    /// # Errors
    ///
    /// As [`Walk::complete`], and a [`ProbeError`] reading the table.
    pub fn complete_wdl(
        index: &PositionIndex,
        wdl: &Table,
        tables: &Tablebase,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<u8>, ProbeError> {
        Walk::complete_wdl_with(index, wdl, &|p: &Position| tables.probe_wdl(p), progress)
    }

    /// As [`Walk::complete_wdl`], positions of other materials valued by `outside`.
    ///
    /// # Errors
    ///
    /// As [`Walk::complete`], and a [`ProbeError`] reading the table.
    pub fn complete_wdl_with<E: From<ProbeError> + Send>(
        index: &PositionIndex,
        wdl: &Table,
        outside: &(dyn Fn(&Position) -> Result<Wdl, E> + Sync),
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<u8>, E> {
        let (codes, _) = Walk::wdl_codes_with(index, wdl, outside, progress)?;
        Ok(pack_2bit(&codes))
    }

    /// As [`Walk::complete_wdl_with`], the codes one a byte, with which positions must capture.
    ///
    /// # Errors
    ///
    /// As [`Walk::complete_wdl_with`].
    pub fn wdl_codes_with<E: From<ProbeError> + Send>(
        index: &PositionIndex,
        wdl: &Table,
        outside: &(dyn Fn(&Position) -> Result<Wdl, E> + Sync),
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<(Vec<u8>, Captures), E> {
        let n = index.size() as usize;
        let raw = wdl.read_all()?;
        let mut codes: Vec<u8> = unpack(&raw, 2, n);
        drop(raw);
        let walk = Walk {
            index,
            wdl: &[],
            limit: 0,
            path: wdl.path(),
            stored: wdl.header().stored,
        };
        let captures =
            walk.complete::<crate::codec::WdlCodec, u8, E>(&mut codes, 2, outside, progress)?;
        Ok((codes, captures))
    }

    /// The distance and draw-rule tables of the walk's material, `dtw` and `rules`, read back
    /// (every block checksum checked) and completed together, so that each left-out position's
    /// moves are generated once: the distance and rule codes of every position. Positions of
    /// other materials are probed in `tables`, the rule values with fresh counters.
    ///
    /// # Errors
    ///
    /// As [`Walk::complete`], naming the rule table for an invalid code (any distance code is
    /// valid), and a [`ProbeError`] reading either table or probing another material.
    pub fn distances_and_rules(
        &self,
        tables: &Tablebase,
        dtw: &Table,
        rules: &Table,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<(u16, u8)>, ProbeError> {
        self.distances_rules_and_captures(tables, dtw, rules, progress)
            .map(|(pairs, _)| pairs)
    }

    /// As [`Walk::distances_and_rules`], with which positions must capture.
    ///
    /// # Errors
    ///
    /// As [`Walk::distances_and_rules`].
    pub fn distances_rules_and_captures(
        &self,
        tables: &Tablebase,
        dtw: &Table,
        rules: &Table,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<(Vec<(u16, u8)>, Captures), ProbeError> {
        let n = self.index.size() as usize;
        let bits = dtw.header().bits;
        if rules.header().stored != dtw.header().stored {
            return Err(ProbeError::Corrupted {
                path: rules.path().to_path_buf(),
                reason: format!(
                    "stores {}, its distance table {}",
                    rules.header().stored,
                    dtw.header().stored
                ),
            });
        }
        let distances: Vec<u16> = unpack(&dtw.read_all()?, bits, n);
        let codes: Vec<u8> = unpack(&rules.read_all()?, 8, n);
        let mut pairs: Vec<(u16, u8)> = distances.into_iter().zip(codes).collect();
        let walk = Walk {
            path: rules.path(),
            stored: dtw.header().stored,
            ..*self
        };
        let both = |p: &Position| {
            let distance = tables.probe_dtw(p)?;
            Ok((distance, tables.probe_draw_rules(p, Counters::FRESH)?.value))
        };
        let captures = walk.complete::<Pair<DtwCodec, DrawRulesCodec>, _, ProbeError>(
            &mut pairs,
            (bits, 8),
            both,
            progress,
        )?;
        Ok((pairs, captures))
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
        bits: C::Bits,
        outside: impl Fn(&Position) -> Result<C::Value, E> + Sync,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Captures, E>
    where
        C: Walked,
        T: Slot<C>,
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
        if self.stored == StoredHalf::Both {
            return Ok(captures);
        }
        let half = codes.len() / 2;
        let (first, second) = codes.split_at_mut(half);
        // The stored half is read, the other completed from it.
        let (stored, stored_start, derived, derived_start): (&[T], usize, &mut [T], usize) =
            match self.stored {
                StoredHalf::Black => (second, half, first, 0),
                _ => (first, 0, second, half),
            };
        derived
            .par_chunks_mut(CHUNK)
            .enumerate()
            .try_for_each(|(c, chunk)| {
                let start = derived_start + c * CHUNK;
                let same = |next: &Position| {
                    // Checked in the first pass, or filled in by it; a successor in the same
                    // material has the other side to move, so it is in the stored half.
                    (self.index.rank(next) as usize)
                        .checked_sub(stored_start)
                        .and_then(|i| stored.get(i))
                        .map_or(C::DRAW, |slot| slot.value(bits).unwrap_or(C::DRAW))
                };
                let mut cursor = self.index.cursor(start as u64);
                let mut done = 0;
                for (i, slot) in chunk.iter_mut().enumerate() {
                    let at = start + i;
                    let entry = self.entry(C::KIND, at, captures.contains(at));
                    if C::KIND.holds(entry) || entry.capture || entry.drawn {
                        cursor.advance();
                        continue;
                    }
                    let pos = cursor.position();
                    cursor.advance();
                    let value = self.through_moves::<C, E>(&pos, &same, &outside)?;
                    *slot = T::store(value, bits);
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
        bits: C::Bits,
        outside: &(impl Fn(&Position) -> Result<C::Value, E> + Sync),
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<u64>, E>
    where
        C: Walked,
        T: Slot<C>,
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
            let entry = self.entry(C::KIND, start + i, capture);
            if C::KIND.holds(entry) {
                if let Err((kind, code)) = slot.value(bits) {
                    return Err(ProbeError::invalid_code(kind, self.path, code).into());
                }
            } else if capture {
                words[i / 64] |= 1 << (i % 64);
                let value = self.through_moves::<C, E>(&pos, &same, outside)?;
                *slot = T::store(value, bits);
            } else if entry.drawn {
                *slot = T::store(C::DRAW, bits);
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
    fn through_moves<C: Walked, E>(
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
        Ok(C::from_successors(self.limit, &successors))
    }
}

/// Codes of 2 bits, one a byte, packed four to a byte as in a decompressed block.
pub fn pack_2bit(codes: &[u8]) -> Vec<u8> {
    codes
        .chunks(4)
        .map(|c| {
            c.iter()
                .enumerate()
                .fold(0u8, |byte, (k, &code)| byte | (code & 3) << (2 * k))
        })
        .collect()
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
    use crate::{RuleValue, Variant};

    fn wdl_code_at(wdl: &[u8], i: usize) -> u8 {
        read_code(wdl, 2, i) as u8
    }

    /// Every position of a material, completed by the walk of one table or of the distance and
    /// draw-rule tables together, has the values the probe gives it.
    #[test]
    fn completed_values_are_the_probes() {
        let dir = tempfile::tempdir().unwrap();
        let plan = rafle_generator::Plan::new(Variant::Brazilian, 3, dir.path()).unwrap();
        rafle_generator::generate(&plan, &rafle_generator::NoProgress).unwrap();
        let tables = Tablebase::open(dir.path()).unwrap();
        let variant = Variant::Brazilian;
        let limits = tables.limits(variant).unwrap();
        let material: Material = "KMvK".parse().unwrap();
        let read = |kind| {
            let table = tables.table_of(kind, variant, material).unwrap();
            (table, table.read_all().unwrap())
        };
        let (wdl_table, _) = read(TableKind::Wdl);
        let wdl = Walk::complete_wdl(wdl_table.index(), wdl_table, &tables, &|_| {}).unwrap();
        let (dtw_table, distances) = read(TableKind::Dtw);
        let (rules_table, rules) = read(TableKind::DrawRules);
        let index = wdl_table.index();
        let n = index.size() as usize;
        let bits = dtw_table.header().bits;
        let mut codes: Vec<u16> = unpack(&distances, bits, n);
        let stored = dtw_table.header().stored;
        let walk = Walk::new(index, &wdl, limits, rules_table.path(), stored);
        let dtw = |p: &Position| tables.probe_dtw(p);
        let captures = walk
            .complete::<DtwCodec, _, ProbeError>(&mut codes, bits, dtw, &|_| {})
            .unwrap();
        let mut pairs: Vec<(u16, u8)> = unpack::<u16>(&distances, bits, n)
            .into_iter()
            .zip(rules)
            .collect();
        let both = |p: &Position| -> Result<_, ProbeError> {
            Ok((dtw(p)?, tables.probe_draw_rules(p, Counters::FRESH)?.value))
        };
        walk.complete::<Pair<DtwCodec, DrawRulesCodec>, _, ProbeError>(
            &mut pairs,
            (bits, 8),
            both,
            &|_| {},
        )
        .unwrap();
        let mut left_out = 0;
        for (i, (&code, &(pair_code, rule_code))) in codes.iter().zip(&pairs).enumerate() {
            let pos = index.unrank(i as u64);
            let fen = pos.to_fen();
            assert_eq!(captures.contains(i), pos.must_capture());
            let expected = tables.probe_dtw(&pos).unwrap();
            assert_eq!(DtwCodec::decode(code, bits), Some(expected), "{fen}");
            assert_eq!(DtwCodec::decode(pair_code, bits), Some(expected), "{fen}");
            let rule = tables
                .probe_draw_rules(&pos, Counters::FRESH)
                .unwrap()
                .value;
            assert_eq!(RuleValue::from_code(rule_code), Some(rule), "{fen}");
            let wdl_code = wdl_code_at(&wdl, i);
            assert_eq!(wdl_code, tables.probe_wdl(&pos).unwrap().code(), "{fen}");
            let entry = walk.entry(TableKind::Dtw, i, pos.must_capture());
            left_out += usize::from(!entry.stored_side);
        }
        assert_eq!(left_out, n / 2, "one side to move is derived");
    }
}
