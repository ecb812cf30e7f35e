//! Seeding a slice: one pass over the moves of each position, reading the values their moves
//! out of the slice reach (a capture or promotion in another material, a man move in a
//! finished slice of this one), gives each position its seeds for distances and for rule-aware
//! values, which start the propagations (see the [parent module](super)). Its helpers sit in
//! the path every position takes, and are inlined into it.

use std::ops::Range;

use rafle_probe::{
    draughts::{Category, Material, Move, MoveList, Position},
    toolkit::KingSlice,
    Dtw, RuleValue, Wdl,
};
use rayon::prelude::*;

use super::{MaterialSolver, CHUNK};
use crate::solve::bit_levels::Bits;
use crate::solve::man_moves::{Destination, ManMoves};
use crate::solve::propagation::{Propagation, Seed};
use crate::solve::store::OwnReads;
use crate::GenerateError;

impl MaterialSolver<'_> {
    /// One pass over the moves of every position of a slice: seeds the propagations given,
    /// and marks the positions that must capture.
    ///
    /// # Errors
    ///
    /// As [`crate::solve::store::Store::value`].
    pub(super) fn seed_slice(
        &self,
        slice: &KingSlice,
        captures: &Bits,
        distances: Option<&Propagation>,
        rules: Option<&Propagation>,
    ) -> Result<(), GenerateError> {
        let n = slice.len();
        let ranges = self.ranges(n);
        // The material's own values, read after its man moves (a kings-only one has none).
        let material = self.index.material();
        let own = material.men() > 0;
        let seed_range = |range: &Range<u64>| {
            let mut cursor = self.index.cursor(slice.global(range.start));
            let mut moves = MoveList::new();
            let mut man_moves = ManMoves::new(self.index, slice.men_bits());
            let mut own = own.then(|| OwnReads::new(self.store.material(material)));
            for x in range.clone() {
                let pos = cursor.position();
                cursor.advance();
                let (distance, rule, capture) =
                    self.seed(&pos, &mut moves, &mut man_moves, own.as_mut())?;
                let at = x as usize;
                if capture {
                    captures.insert(x);
                }
                if let Some(p) = distances {
                    p.seed(at, distance);
                }
                if let Some(p) = rules {
                    p.seed(at, rule);
                }
            }
            Ok(())
        };
        // A small slice is seeded on this thread: its band keeps the others busy.
        if n <= CHUNK {
            ranges.iter().try_for_each(seed_range)?;
        } else {
            ranges.par_iter().try_for_each(seed_range)?;
        }
        Ok(())
    }

    /// The seeds of a position for distances and for rule-aware values, and whether it must
    /// capture.
    ///
    /// # Errors
    ///
    /// As [`crate::solve::store::Store::value`].
    pub(super) fn seed(
        &self,
        pos: &Position,
        moves: &mut MoveList,
        man_moves: &mut ManMoves,
        mut own: Option<&mut OwnReads>,
    ) -> Result<(Seed, Seed, bool), GenerateError> {
        // The king moves stay in the slice: only their number matters here.
        let king_moves = pos.legal_moves_counting_king_moves(moves);
        let capture = moves.first().is_some_and(|m| m.is_capture());
        if moves.is_empty() && king_moves == 0 {
            return Ok((Seed::Lost(0), Seed::Lost(0), false));
        }
        // Fewer than 256 moves: a king has at most 17 quiet moves, a side at most 12 kings.
        let inside = king_moves as u8;
        let mut distance = Exits::default();
        let mut rule = Exits::default();
        // Without a capture the moves listed are man moves: those that keep the material are
        // ranked without playing them.
        let kings = (own.is_some() && !capture).then(|| ManMoves::kings(pos));
        for mv in moves.iter() {
            let index_after = match (kings, own.as_deref_mut()) {
                (Some(kings), Some(own)) => man_moves.destination(mv, kings).map(|to| (own, to)),
                _ => None,
            };
            #[cfg(debug_assertions)]
            if let Some((_, to)) = &index_after {
                let next = pos.play(mv);
                assert_eq!(Material::of(&next), self.index.material());
                assert_eq!(to.index, self.index.rank(&next));
            }
            if !self.rules {
                if self.exit_without_rules(pos, mv, index_after, &mut distance)? {
                    break;
                }
                continue;
            }
            self.exit_with_rules(pos, mv, index_after, &mut distance, &mut rule)?;
        }
        Ok((
            distance.seed(capture, inside),
            rule.seed(capture, inside),
            capture,
        ))
    }

    /// Notes in `distance` what the move `mv` out of the slice from `pos` gives when only win,
    /// draw or loss is wanted; `index_after` is where it leads if it keeps the material.
    /// Returns whether it settles the position (a winning move out).
    ///
    /// The first winning move out settles the position, whatever the others, and every move
    /// out counts as the shortest game it can end (a win in one ply, a loss in two: wins stay
    /// odd and losses even, as the codes have them). The levels are then those of the slice's
    /// own moves, not distances (nor are the values read), but who wins is the same: a
    /// position is decided only by a loss it reaches or by wins everywhere it goes, whatever
    /// their levels.
    ///
    /// # Errors
    ///
    /// As [`crate::solve::store::Store::value`].
    #[inline(always)]
    fn exit_without_rules(
        &self,
        pos: &Position,
        mv: &Move,
        index_after: Option<(&mut OwnReads, Destination)>,
        distance: &mut Exits,
    ) -> Result<bool, GenerateError> {
        let dtw = match index_after {
            Some((own, to)) => own.dtw(&to)?,
            None => self.store.dtw(&pos.play(mv))?,
        };
        match dtw {
            Dtw::Loss(_) => {
                distance.win(1);
                return Ok(true);
            }
            Dtw::Win(_) => distance.floor = 2,
            Dtw::Draw => distance.escapes = true,
        }
        Ok(false)
    }

    /// Notes in `distance` and `rule` what the move `mv` out of the slice from `pos` gives;
    /// `index_after` is where it leads if it keeps the material.
    ///
    /// # Errors
    ///
    /// As [`crate::solve::store::Store::value`].
    #[inline(always)]
    fn exit_with_rules(
        &self,
        pos: &Position,
        mv: &Move,
        index_after: Option<(&mut OwnReads, Destination)>,
        distance: &mut Exits,
        rule: &mut Exits,
    ) -> Result<(), GenerateError> {
        let material = self.index.material();
        // A man move (the only move out that keeps the material) resets outside the
        // categories; a capture or promotion resets unless it stays in the category.
        let ((dtw, value), resets) = match index_after {
            Some((own, to)) => (own.value(&to)?, self.category == Category::Outside),
            None => {
                let next = pos.play(mv);
                let next_material = Material::of(&next);
                let resets = self.category == Category::Outside
                    || (next_material != material
                        && Category::of(self.index.variant(), next_material) != self.category);
                (self.store.value(&next)?, resets)
            }
        };
        debug_assert_eq!(
            resets,
            rafle_probe::draughts::resets_counter(pos, mv, &pos.play(mv))
        );
        match dtw {
            Dtw::Loss(d) => distance.win(d + 1),
            Dtw::Win(d) => distance.floor = distance.floor.max(d + 1),
            Dtw::Draw => distance.escapes = true,
        }
        match RuleValue::through_move(value, resets, self.limit) {
            Some((Wdl::Win, c)) => rule.win(u16::from(c)),
            Some((_, c)) => rule.floor = rule.floor.max(u16::from(c)),
            None => rule.escapes = true,
        }
        Ok(())
    }
}

/// What a position's moves out of its slice give.
#[derive(Default)]
struct Exits {
    quickest_win: Option<u16>,
    escapes: bool,
    floor: u16,
}

impl Exits {
    /// Notes a move out that wins at `level`.
    fn win(&mut self, level: u16) {
        self.quickest_win = Some(self.quickest_win.map_or(level, |w| w.min(level)));
    }

    /// The seed of a position with these moves out, `inside` moves within the slice, and
    /// whether it must capture.
    fn seed(&self, capture: bool, inside: u8) -> Seed {
        Seed::of(capture, inside, self.quickest_win, self.escapes, self.floor)
    }
}
