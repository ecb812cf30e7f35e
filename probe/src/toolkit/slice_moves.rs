//! The king moves of one slice, walked backwards and forwards in the slice's own numbering,
//! for retrograde analysis: no [`Position`](crate::Position) is built, and a neighbour's
//! number comes from the one king that moved.
//!
//! Within a slice the men stand still, so the squares left to the kings are fixed: each gets a
//! slot, its rank among them, and a placement of kings is a set of slots. White's kings are
//! ranked over all slots and Black's over the slots White's leave free, exactly as
//! [`KingSlice::local_rank`](crate::KingSlice::local_rank) ranks them.

use rafle_draughts::layout;

use crate::index::{rank_set, squeeze, unsqueeze, SetUnranker};
use crate::Variant;

/// The king moves of one slice, walked backwards and forwards (see the module documentation).
#[derive(Debug, Clone)]
pub struct SliceMoves {
    variant: Variant,
    /// The squares the men leave free, internal layout.
    free: u64,
    /// Placements of Black's kings for each of White's.
    black_configs: u64,
    /// Positions with one side to move.
    half: u64,
    /// The internal bit of each slot.
    square_of_slot: [u8; 64],
    /// The slot of each internal bit that is free.
    slot_of_square: [u8; 64],
    /// White's king placements by rank, and Black's (over the slots White's leave), looked up
    /// where there are three kings or more and few enough placements to list: searching for
    /// them took 7–8% of the time of a 7-piece material of four kings (docs/performance.md).
    white_placements: SetUnranker,
    black_placements: SetUnranker,
}

impl SliceMoves {
    /// The moves of the slice whose men stand on `men` (numbered bitboard, both colours), with
    /// this many kings a side.
    pub(crate) fn new(
        variant: Variant,
        men: u64,
        (white_kings, black_kings): (u32, u32),
        black_configs: u64,
        half: u64,
    ) -> SliceMoves {
        let free = layout::board(variant) & !layout::to_internal(variant, men);
        let mut square_of_slot = [0u8; 64];
        let mut slot_of_square = [0u8; 64];
        let mut rest = free;
        let mut slot = 0u8;
        while rest != 0 {
            let bit = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            square_of_slot[usize::from(slot)] = bit;
            slot_of_square[usize::from(bit)] = slot;
            slot += 1;
        }
        SliceMoves {
            variant,
            free,
            black_configs,
            half,
            square_of_slot,
            slot_of_square,
            white_placements: SetUnranker::new(white_kings, u32::from(slot)),
            black_placements: SetUnranker::new(black_kings, u32::from(slot) - white_kings),
        }
    }

    /// The internal bitboard of a set of slots.
    #[inline]
    fn squares(&self, mut slots: u64) -> u64 {
        let mut bits = 0;
        while slots != 0 {
            bits |= 1 << self.square_of_slot[slots.trailing_zeros() as usize];
            slots &= slots - 1;
        }
        bits
    }

    /// The slot bit of one internal bit.
    #[inline]
    fn slot(&self, square: u64) -> u64 {
        1 << self.slot_of_square[square.trailing_zeros() as usize]
    }

    /// Calls `f` with the local number of every position of the slice from which a king move
    /// (of the side that just moved) leads to position `local`. As with
    /// [`Position::for_each_quiet_king_predecessor`](crate::Position::for_each_quiet_king_predecessor),
    /// whether the mover had to capture instead is left to the caller.
    #[inline]
    pub fn for_each_predecessor(&self, local: u64, f: impl FnMut(u64)) {
        // Before the move the mover was to move: White's kings moved if Black is to move.
        self.for_each_king_move(local, local >= self.half, f);
    }

    /// Calls `f` with the local number of every position a king move of the side to move
    /// leads to from position `local`: the converse of [`SliceMoves::for_each_predecessor`].
    /// Whether the side to move must capture instead is left to the caller.
    #[inline]
    pub fn for_each_successor(&self, local: u64, f: impl FnMut(u64)) {
        self.for_each_king_move(local, local < self.half, f);
    }

    /// Calls `f` with the local number of every position of the other half of the slice (the
    /// other side to move) that a quiet move of one of White's kings (`white`) or Black's
    /// leads to from the placement of position `local`. A quiet king move goes back the way it
    /// came, so this walks the moves forwards and backwards alike.
    #[inline(always)]
    fn for_each_king_move(&self, local: u64, white: bool, mut f: impl FnMut(u64)) {
        let black_to_move = local >= self.half;
        let part = local - if black_to_move { self.half } else { 0 };
        let (white_rank, black_rank) = (part / self.black_configs, part % self.black_configs);
        let white_kings = self.white_placements.unrank(white_rank);
        let black_kings = unsqueeze(self.black_placements.unrank(black_rank), white_kings);
        let empty = self.free & !self.squares(white_kings | black_kings);
        let other_half = if black_to_move { 0 } else { self.half };
        if white {
            self.for_each_move(white_kings, empty, |moved| {
                let black_rank = rank_set(squeeze(black_kings, moved));
                f(other_half + rank_set(moved) * self.black_configs + black_rank);
            });
        } else {
            let base = other_half + white_rank * self.black_configs;
            self.for_each_move(black_kings, empty, |moved| {
                f(base + rank_set(squeeze(moved, white_kings)));
            });
        }
    }

    /// Calls `f` with the slots of `kings` (one side's) after each quiet move of one of them
    /// over the `empty` squares.
    #[inline(always)]
    fn for_each_move(&self, kings: u64, empty: u64, mut f: impl FnMut(u64)) {
        let mut rest = self.squares(kings);
        while rest != 0 {
            let king = rest & rest.wrapping_neg();
            rest &= rest - 1;
            let mut from = layout::king_reach(self.variant, king, empty);
            while from != 0 {
                let square = from & from.wrapping_neg();
                from &= from - 1;
                f(kings ^ self.slot(king) ^ self.slot(square));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Material, PositionIndex, Variant};

    /// The same predecessors, in the same order, as building each position and ranking its
    /// predecessors, over every slice of small materials of both variants.
    #[test]
    fn agrees_with_positions() {
        let mut predecessors = 0;
        for variant in Variant::ALL {
            for name in ["KKvK", "KvKK", "KMvK", "KMvKM", "KvM", "MMvK", "KKvKK"] {
                let material: Material = name.parse().unwrap();
                let index = PositionIndex::new(variant, material);
                let step = (index.men_placements() / 7).max(1);
                for men in (0..index.men_placements()).step_by(step as usize) {
                    let slice = index.slice(men);
                    let moves = slice.king_moves();
                    for local in 0..slice.len() {
                        let mut expected = Vec::new();
                        slice.position(local).for_each_quiet_king_predecessor(|p| {
                            expected.push(slice.local_rank(&p))
                        });
                        let mut found = Vec::new();
                        moves.for_each_predecessor(local, |p| found.push(p));
                        expected.sort_unstable();
                        found.sort_unstable();
                        assert_eq!(
                            found, expected,
                            "{variant} {name} slice {men} position {local}"
                        );
                        predecessors += found.len();
                    }
                }
            }
        }
        assert!(
            predecessors > 100_000,
            "only {predecessors} predecessors compared"
        );
    }

    /// A position's successors are the positions it is a predecessor of, over every slice of
    /// small materials of both variants.
    #[test]
    fn successors_are_the_converse_of_predecessors() {
        let mut successors = 0;
        for variant in Variant::ALL {
            for name in ["KKvK", "KMvK", "KMvKM", "MMvK", "KKvKK"] {
                let material: Material = name.parse().unwrap();
                let index = PositionIndex::new(variant, material);
                let step = (index.men_placements() / 5).max(1);
                for men in (0..index.men_placements()).step_by(step as usize) {
                    let slice = index.slice(men);
                    let moves = slice.king_moves();
                    let mut expected = vec![Vec::new(); slice.len() as usize];
                    for local in 0..slice.len() {
                        moves.for_each_predecessor(local, |p| expected[p as usize].push(local));
                    }
                    for (local, expected) in expected.iter().enumerate() {
                        let mut found = Vec::new();
                        moves.for_each_successor(local as u64, |s| found.push(s));
                        found.sort_unstable();
                        assert_eq!(
                            &found, expected,
                            "{variant} {name} slice {men} position {local}"
                        );
                        successors += found.len();
                    }
                }
            }
        }
        assert!(
            successors > 100_000,
            "only {successors} successors compared"
        );
    }
}
