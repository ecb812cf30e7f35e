//! Walking consecutive indices of a material cheaply: an [`IndexCursor`] steps from one
//! index to the next without dividing, rebuilding only the pieces whose part of the index
//! changed.

use rafle_draughts::layout;

use super::{below, unrank_set, PositionIndex};
use crate::{Color, Position};

impl PositionIndex {
    /// A cursor on `index`, for walking consecutive indices cheaply.
    pub fn cursor(&self, index: u64) -> IndexCursor<'_> {
        let black_kings = index % self.black_king_configs;
        let rest = index / self.black_king_configs;
        let white_kings = rest % self.white_king_configs;
        let rest = rest / self.white_king_configs;
        let m = &self.material;
        let men = u32::from(m.white_men + m.black_men);
        let (fast, fast_slots) = if m.black_kings > 0 {
            let others = men + u32::from(m.white_kings);
            let slots = unrank_set(black_kings, u32::from(m.black_kings), self.squares - others);
            (Color::Black, slots)
        } else {
            let slots = unrank_set(white_kings, u32::from(m.white_kings), self.squares - men);
            (Color::White, slots)
        };
        IndexCursor {
            index: self,
            black_kings,
            white_kings,
            men: rest % self.men_configs,
            black_to_move: rest >= self.men_configs,
            fast,
            fast_slots,
            men_cache: None,
            around: None,
            square_of_slot: [0; 64],
        }
    }
}

/// A position of an index that moves to the next index without dividing, and rebuilds only
/// the pieces whose part of the index changed (mostly the kings of the fastest-moving part:
/// Black's, or White's in a material where Black has none).
///
/// Those kings are followed as a set of slots among the squares the other pieces leave free:
/// the next index is the next set in colex order (the next larger number with as many bits),
/// and each slot's square comes from a table made once for the other pieces, so that stepping
/// neither unranks nor squeezes.
#[derive(Debug, Clone)]
pub struct IndexCursor<'a> {
    index: &'a PositionIndex,
    black_kings: u64,
    white_kings: u64,
    men: u64,
    black_to_move: bool,
    /// Whose kings are the fastest-moving part: Black's if Black has kings, else White's.
    fast: Color,
    /// Those kings (at `black_kings` or `white_kings`) as slots: kept in step by
    /// [`IndexCursor::advance`].
    fast_slots: u64,
    /// (men part, white men, black men) last built.
    men_cache: Option<(u64, u64, u64)>,
    /// The position without the fast kings last built, and its key: (men part, white kings
    /// part if White's kings are not the fast ones, Black to move).
    around: Option<((u64, u64, bool), Position)>,
    /// The square (internal bit) of each slot left free for the fast kings around it.
    square_of_slot: [u64; 64],
}

/// The next set of as many slots in colex order: the next larger number with as many bits.
#[inline]
fn next_combination(set: u64) -> u64 {
    let low = set | (set - 1);
    let next = low + 1;
    next | ((!low & next) - 1) >> (set.trailing_zeros() + 1)
}

impl IndexCursor<'_> {
    /// Moves to the next index (past the end, [`IndexCursor::position`] must not be called).
    #[inline]
    pub fn advance(&mut self) {
        let black_fast = self.fast == Color::Black;
        self.black_kings += 1;
        // Black's part has more than one placement only if Black has kings, the fast ones then.
        if self.black_kings < self.index.black_king_configs {
            self.fast_slots = next_combination(self.fast_slots);
            return;
        }
        self.black_kings = 0;
        if black_fast {
            self.fast_slots = below(u32::from(self.index.material.black_kings));
        }
        self.white_kings += 1;
        if self.white_kings < self.index.white_king_configs {
            if !black_fast {
                self.fast_slots = next_combination(self.fast_slots);
            }
            return;
        }
        self.white_kings = 0;
        if !black_fast {
            self.fast_slots = below(u32::from(self.index.material.white_kings));
        }
        self.men += 1;
        if self.men == self.index.men_configs {
            self.men = 0;
            self.black_to_move = true;
        }
    }

    /// The position at the cursor.
    pub fn position(&mut self) -> Position {
        let white_part = if self.fast == Color::Black {
            self.white_kings
        } else {
            0
        };
        let key = (self.men, white_part, self.black_to_move);
        let around = match self.around {
            Some((built, position)) if built == key => position,
            _ => self.place_around(key),
        };
        let mut squares = 0;
        let mut slots = self.fast_slots;
        while slots != 0 {
            squares |= self.square_of_slot[slots.trailing_zeros() as usize];
            slots &= slots - 1;
        }
        around
            .with_kings(self.fast, squares)
            .expect("every index names a valid position")
    }

    /// Builds the pieces the fast kings stand among at `key`, and the squares of their slots.
    fn place_around(&mut self, key: (u64, u64, bool)) -> Position {
        let index = self.index;
        let (white_men, black_men) = match self.men_cache {
            Some((men, w, b)) if men == self.men => (w, b),
            _ => {
                let (w, b) = index.men_bits(self.men);
                self.men_cache = Some((self.men, w, b));
                (w, b)
            }
        };
        let (fast_kings, white_kings) = match self.fast {
            Color::Black => (
                index.material.black_kings,
                index.white_kings_bits(self.white_kings, white_men | black_men),
            ),
            Color::White => (index.material.white_kings, 0),
        };
        let turn = if self.black_to_move {
            Color::Black
        } else {
            Color::White
        };
        let position =
            Position::from_numbered_bits(index.variant, turn, white_men, white_kings, black_men, 0)
                .expect("every index names a valid position");
        // Without kings no slot is ever read.
        if fast_kings > 0 {
            let taken = white_men | black_men | white_kings;
            // The internal layout keeps the squares' order, so the free squares' slots follow
            // their internal bits: converted once, not square by square.
            let mut free = layout::to_internal(index.variant, !taken & below(index.squares));
            let mut slot = 0;
            while free != 0 {
                self.square_of_slot[slot] = free & free.wrapping_neg();
                free &= free - 1;
                slot += 1;
            }
        }
        self.around = Some((key, position));
        position
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::binomial;
    use crate::Variant;

    /// From the start, across the change of side to move and up to the end, with no to three
    /// kings for Black (kings alone, with one placement of the men, among them).
    #[test]
    fn cursor_walks_like_unrank() {
        let names = [
            "KMvMM", "KKvK", "MMvK", "KvKK", "MvKK", "KvKKK", "KKvKK", "KMvKK", "KKvM", "KKKvMM",
            "MMvMM",
        ];
        for variant in Variant::ALL {
            for name in names {
                let index = PositionIndex::new(variant, name.parse().unwrap());
                let size = index.size();
                for start in [0, size / 2 - 1000, size - 3000] {
                    let mut cursor = index.cursor(start);
                    for i in start..(start + 3000).min(size) {
                        let pos = cursor.position();
                        assert_eq!(pos, index.unrank(i), "{variant} {name} {i}");
                        assert_eq!(index.rank(&pos), i, "{variant} {name} {i}");
                        cursor.advance();
                    }
                }
            }
        }
    }

    #[test]
    fn combinations_step_in_colex_order() {
        for k in 1..5 {
            let mut set = below(k);
            for rank in 0..binomial(12, k) {
                assert_eq!(set, unrank_set(rank, k, 12), "{k} {rank}");
                set = next_combination(set);
            }
        }
    }
}
