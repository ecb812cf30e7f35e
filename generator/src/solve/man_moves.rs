//! Where the man moves of one slice lead, found without building the position after them.
//!
//! A man move that does not promote keeps the material: it leads to the slice of the same
//! material whose men differ by that one man, with the other side to move, and the kings where
//! they stood. So its index is that slice's start (one per move of the slice, found once and
//! kept) plus the kings' place around the new men: two squeezes and two colex ranks, where
//! playing the move and ranking the position after it would build a position, check its
//! orientation and material, convert four bitboards and rank the men too. Seeding a slice
//! reads the value after every man move of every quiet position, so this is most of the
//! ranking a solve does.

use rafle_probe::{
    draughts::{Color, Move, Position, Role},
    toolkit::PositionIndex,
};

/// Slice starts a [`ManMoves`] keeps: at most two moves a man, so every one of a material of
/// up to 8 men.
pub(crate) const STARTS: usize = 16;

/// Where a man move leads: the index of the position after it, and which of the slice starts
/// a [`ManMoves`] keeps is its slice's (the same for every move of a man from one square to
/// another), or [`STARTS`] past its room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Destination {
    /// The index of the position after the move.
    pub index: u64,
    /// Where the slice of the position after it starts.
    pub start: u64,
    /// The slice's place among those kept, or [`STARTS`].
    pub entry: usize,
}

/// The destinations of one slice's man moves (see the module docs).
pub(crate) struct ManMoves<'i> {
    index: &'i PositionIndex,
    /// The slice's men as numbered bitboards (square `n` at bit `n - 1`).
    white_men: u64,
    black_men: u64,
    /// The numbered bits of White's and Black's promotion rows.
    white_promotion: u64,
    black_promotion: u64,
    /// The slice starts found so far, by the move's start and end squares (a square holds one
    /// man, so these say who moved): a few a slice, a side having at most two moves a man.
    /// Kept inline, not allocated: a slice of a few positions (most slices of a material
    /// with many men) makes one of these for a handful of moves. Past its room, a start is
    /// found again at each move.
    starts: [(u16, u64); STARTS],
    /// How many of `starts` are found.
    found: usize,
}

impl<'i> ManMoves<'i> {
    /// The man moves of the slice whose men are `white_men` and `black_men` (numbered
    /// bitboards) in the material of `index`.
    pub(crate) fn new(index: &'i PositionIndex, (white_men, black_men): (u64, u64)) -> Self {
        let squares = u32::from(index.variant().square_count());
        let row = u32::from(index.variant().squares_per_row());
        let row_bits = (1u64 << row) - 1;
        ManMoves {
            index,
            white_men,
            black_men,
            white_promotion: row_bits,
            black_promotion: row_bits << (squares - row),
            starts: [(0, 0); STARTS],
            found: 0,
        }
    }

    /// The kings of a position of the slice, as [`ManMoves::destination`] takes them.
    #[inline]
    pub(crate) fn kings(pos: &Position) -> (u64, u64) {
        (
            pos.numbered_bits(Color::White, Role::King),
            pos.numbered_bits(Color::Black, Role::King),
        )
    }

    /// The index, in the slice's material, of the position after `mv`, a move of a man of the
    /// side to move that captures nothing, from a position of the slice with `kings` (see
    /// [`ManMoves::kings`]); `None` if the man is crowned (the material changes).
    #[inline]
    pub(crate) fn destination(&mut self, mv: &Move, kings: (u64, u64)) -> Option<Destination> {
        debug_assert!(!mv.is_capture());
        let (from_number, to_number) = (mv.from().number(), mv.to().number());
        let key = u16::from(from_number) << 8 | u16::from(to_number);
        let (from, to) = (1u64 << (from_number - 1), 1u64 << (to_number - 1));
        let white_moves = self.white_men & from != 0;
        let promotion = if white_moves {
            self.white_promotion
        } else {
            self.black_promotion
        };
        if to & promotion != 0 {
            return None;
        }
        let (white_men, black_men) = if white_moves {
            ((self.white_men & !from) | to, self.black_men)
        } else {
            (self.white_men, (self.black_men & !from) | to)
        };
        let (start, entry) = match self.starts[..self.found].iter().position(|s| s.0 == key) {
            Some(entry) => (self.starts[entry].1, entry),
            None => {
                let men = self.index.men_placement(white_men, black_men);
                // White moved: Black is to move after, and the other way round.
                let start = self.index.slice_start(white_moves, men);
                let entry = self.found;
                if entry < STARTS {
                    self.starts[entry] = (key, start);
                    self.found += 1;
                }
                (start, entry)
            }
        };
        let men = white_men | black_men;
        Some(Destination {
            index: start + self.index.king_placement(men, kings.0, kings.1),
            start,
            entry,
        })
    }
}

#[cfg(test)]
mod tests {
    use rafle_probe::draughts::{Material, MoveList, Variant};

    use super::*;

    /// Every man move of every quiet position of every slice of some materials with men, on
    /// both boards: the index given is the rank of the position the move leads to, and the
    /// crowning moves are the ones left out.
    #[test]
    fn destinations_are_the_ranks_of_the_positions_after() {
        let cases = [
            (Variant::Brazilian, "KMvM"),
            (Variant::Brazilian, "MMvKM"),
            (Variant::Brazilian, "KKMvMM"),
            (Variant::International, "MvK"),
            (Variant::International, "KMvMM"),
        ];
        let mut checked = 0u64;
        let mut crowned = 0u64;
        for (variant, material) in cases {
            let material: Material = material.parse().unwrap();
            let index = PositionIndex::new(variant, material);
            let mut moves = MoveList::new();
            // Every third men placement keeps the test quick in debug builds.
            for men in (0..index.men_placements()).step_by(3) {
                let slice = index.slice(men);
                let mut man_moves = ManMoves::new(&index, slice.men_bits());
                for local in 0..slice.len() {
                    let pos = slice.position(local);
                    pos.legal_moves_counting_king_moves(&mut moves);
                    if moves.first().is_some_and(|m| m.is_capture()) {
                        continue;
                    }
                    let kings = ManMoves::kings(&pos);
                    for mv in moves.iter() {
                        let next = pos.play(mv);
                        match man_moves.destination(mv, kings) {
                            Some(to) => {
                                assert_eq!(Material::of(&next), material);
                                assert_eq!(to.index, index.rank(&next), "{pos:?} {mv:?}");
                                let half = index.king_placements();
                                assert_eq!(to.start, to.index / half * half);
                                assert!(to.entry <= STARTS);
                                checked += 1;
                            }
                            None => {
                                assert_ne!(Material::of(&next), material, "{pos:?} {mv:?}");
                                crowned += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 100_000 && crowned > 1_000, "{checked} {crowned}");
    }
}
