//! Walking consecutive indices of a material with the bitboards of each position at hand, and
//! the indices of its successors inside the material found from them.
//!
//! [`rafle_probe::toolkit::IndexCursor`] rebuilds the placements it unranks square by square; here each
//! step moves to the next combination directly on the bitboards (the colex successor of a set of
//! squares among the free ones), and the parts of the index a king move keeps (the men, and for
//! Black's king moves White's kings) are not ranked again.

use rafle_probe::draughts::{Color, Position, Variant};

use super::rank::{binomial, Pieces, Ranker};

/// The next combination after `set` in colex order among the squares of `free` (`set` a
/// non-empty subset of `free` that is not its last combination): Gosper's hack, the carry
/// running over the squares that are not free.
#[inline]
fn next_within(set: u64, free: u64) -> u64 {
    let low = set & set.wrapping_neg();
    let moved = (set | !free).wrapping_add(low) & free;
    // The run of the set's squares the carry went through: one moved up, the rest restart
    // from the lowest free squares.
    let restart = (set & !moved).count_ones() - 1;
    moved | lowest(free, restart)
}

/// The `k` lowest squares of `free`.
#[inline]
fn lowest(mut free: u64, k: u32) -> u64 {
    let mut set = 0;
    for _ in 0..k {
        let bit = free & free.wrapping_neg();
        set |= bit;
        free ^= bit;
    }
    set
}

/// The combination of `k` squares of `free` of colex rank `rank`.
fn unrank_within(mut rank: u64, k: u32, free: u64) -> u64 {
    let squares: Vec<u32> = (0..64).filter(|b| free >> b & 1 != 0).collect();
    let mut set = 0;
    let mut top = squares.len() as u32;
    for i in (1..=k).rev() {
        // The largest slot c below `top` with C(c, i) <= rank.
        let mut c = top - 1;
        while binomial(c, i) > rank {
            c -= 1;
        }
        rank -= binomial(c, i);
        set |= 1 << squares[c as usize];
        top = c;
    }
    set
}

/// A position of a material's index, moved to the next index cheaply.
#[derive(Debug, Clone)]
pub(super) struct Walker<'r> {
    ranker: &'r Ranker,
    /// The position's index.
    index: u64,
    /// Its bitboards.
    pieces: Pieces,
    /// The placement of its men, `0..men_configs`.
    men: u64,
    /// The rank of White's men's combination.
    white_rank: u64,
    /// The rank of White's kings' combination among the squares the men leave.
    white_kings_rank: u64,
    /// The rank of Black's kings' combination among the squares left after that.
    black_kings_rank: u64,
    /// `slots[b]`: the squares below square bit `b` that no man holds (with kings only).
    slots: [u8; 64],
}

impl<'r> Walker<'r> {
    /// The walker on position `index` of `ranker`'s material (below its size).
    pub fn new(ranker: &'r Ranker, index: u64) -> Walker<'r> {
        let kings = ranker.black_king_configs;
        let placements = ranker.white_king_configs * kings;
        let black_kings_rank = index % kings;
        let white_kings_rank = index / kings % ranker.white_king_configs;
        let men = index / placements % ranker.men_configs;
        let black_to_move = index / placements >= ranker.men_configs;
        let mut walker = Walker {
            ranker,
            index,
            pieces: Pieces {
                white_men: 0,
                white_kings: 0,
                black_men: 0,
                black_kings: 0,
                black_to_move,
            },
            men,
            white_rank: 0,
            white_kings_rank,
            black_kings_rank,
            slots: [0; 64],
        };
        walker.place_men();
        let m = ranker.material;
        let free = walker.free_for_kings();
        let white_kings = unrank_within(white_kings_rank, u32::from(m.white_kings), free);
        walker.pieces.white_kings = white_kings;
        walker.pieces.black_kings = unrank_within(
            black_kings_rank,
            u32::from(m.black_kings),
            free & !white_kings,
        );
        walker
    }

    /// The position's index.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// The position's bitboards.
    pub fn pieces(&self) -> &Pieces {
        &self.pieces
    }

    /// The position, `None` only if the index were not one of the material's.
    pub fn position(&self) -> Option<Position> {
        let p = &self.pieces;
        let turn = if p.black_to_move {
            Color::Black
        } else {
            Color::White
        };
        Position::from_numbered_bits(
            self.variant(),
            turn,
            p.white_men,
            p.white_kings,
            p.black_men,
            p.black_kings,
        )
    }

    fn variant(&self) -> Variant {
        self.ranker.variant
    }

    /// Every square of the board.
    fn board(&self) -> u64 {
        (1u64 << self.ranker.squares) - 1
    }

    /// The squares White's men may stand on: off White's promotion row (the first).
    fn white_men_squares(&self) -> u64 {
        self.board() & !((1u64 << self.ranker.row) - 1)
    }

    /// The squares Black's men may stand on: off Black's promotion row (the last), and free
    /// of White's men.
    fn black_men_squares(&self) -> u64 {
        let men_squares = self.ranker.squares - self.ranker.row;
        ((1u64 << men_squares) - 1) & !self.pieces.white_men
    }

    /// The squares the men leave to the kings.
    fn free_for_kings(&self) -> u64 {
        self.board() & !(self.pieces.white_men | self.pieces.black_men)
    }

    /// Sets the men's bitboards from `self.men`, and the squares' slots.
    fn place_men(&mut self) {
        let r = self.ranker;
        let m = r.material;
        let white_rank = r.men_offsets.partition_point(|&o| o <= self.men) - 1;
        self.white_rank = white_rank as u64;
        let black_rank = self.men - r.men_offsets[white_rank];
        self.pieces.white_men = unrank_within(
            white_rank as u64,
            u32::from(m.white_men),
            self.white_men_squares(),
        );
        self.pieces.black_men =
            unrank_within(black_rank, u32::from(m.black_men), self.black_men_squares());
        self.set_slots();
    }

    /// Recomputes the slots of the squares after the men changed (only kings use them).
    fn set_slots(&mut self) {
        let m = self.ranker.material;
        if m.white_kings + m.black_kings == 0 {
            return;
        }
        let men = self.pieces.white_men | self.pieces.black_men;
        let mut below = 0u8;
        for b in 0..self.ranker.squares as usize {
            self.slots[b] = b as u8 - below;
            below += u8::from(men >> b & 1 != 0);
        }
    }

    /// Moves to the next index (past the last, the walker must not be used again).
    pub fn advance(&mut self) {
        let r = self.ranker;
        let m = r.material;
        self.index += 1;
        let free = self.free_for_kings();
        self.black_kings_rank += 1;
        if self.black_kings_rank < r.black_king_configs {
            let free_black = free & !self.pieces.white_kings;
            self.pieces.black_kings = next_within(self.pieces.black_kings, free_black);
            return;
        }
        self.black_kings_rank = 0;
        self.white_kings_rank += 1;
        if self.white_kings_rank < r.white_king_configs {
            let white_kings = next_within(self.pieces.white_kings, free);
            self.pieces.white_kings = white_kings;
            self.pieces.black_kings = lowest(free & !white_kings, u32::from(m.black_kings));
            return;
        }
        self.white_kings_rank = 0;
        self.men += 1;
        if self.men == r.men_configs {
            self.men = 0;
            self.pieces.black_to_move = true;
            self.place_men();
        } else {
            self.next_men();
        }
        let free = self.free_for_kings();
        let white_kings = lowest(free, u32::from(m.white_kings));
        self.pieces.white_kings = white_kings;
        self.pieces.black_kings = lowest(free & !white_kings, u32::from(m.black_kings));
    }

    /// Moves the men to their next placement (`self.men` already counts it).
    fn next_men(&mut self) {
        let r = self.ranker;
        let m = r.material;
        let next_white = r.men_offsets[self.white_rank as usize + 1];
        if self.men < next_white {
            let free = self.black_men_squares();
            self.pieces.black_men = next_within(self.pieces.black_men, free);
        } else {
            self.white_rank += 1;
            let white = next_within(self.pieces.white_men, self.white_men_squares());
            self.pieces.white_men = white;
            self.pieces.black_men = lowest(self.black_men_squares(), u32::from(m.black_men));
        }
        self.set_slots();
    }

    /// The index of the position after a move inside the material that is not a capture nor
    /// a promotion, from square bit `from` to square bit `to` (single bits), `man` telling
    /// whether a man moves.
    #[inline]
    pub fn successor(&self, from: u64, to: u64, man: bool) -> u64 {
        let r = self.ranker;
        let p = &self.pieces;
        let moved = from | to;
        let mut next = *p;
        next.black_to_move = !p.black_to_move;
        if man {
            if p.black_to_move {
                next.black_men ^= moved;
            } else {
                next.white_men ^= moved;
            }
            return r.rank(&next);
        }
        let (kings, placements) = (r.black_king_configs, r.white_king_configs);
        if p.black_to_move {
            // White to move next, men and White's kings as they are.
            let base = (self.men * placements + self.white_kings_rank) * kings;
            base + self.rank_black(p.black_kings ^ moved, p.white_kings)
        } else {
            let white_kings = p.white_kings ^ moved;
            let white = self.rank_white(white_kings);
            ((r.men_configs + self.men) * placements + white) * kings
                + self.rank_black(p.black_kings, white_kings)
        }
    }

    /// The rank of White's kings on `set` among the squares the men leave.
    #[inline]
    fn rank_white(&self, mut set: u64) -> u64 {
        let mut rank = 0;
        let mut k = 1;
        while set != 0 {
            let b = set.trailing_zeros();
            set &= set - 1;
            rank += binomial(u32::from(self.slots[b as usize]), k);
            k += 1;
        }
        rank
    }

    /// The rank of Black's kings on `set` among the squares the men and White's kings on
    /// `white` leave.
    #[inline]
    fn rank_black(&self, mut set: u64, mut white: u64) -> u64 {
        let mut rank = 0;
        let mut k = 1;
        let mut below = 0;
        while set != 0 {
            let b = set.trailing_zeros();
            set &= set - 1;
            while white != 0 && white.trailing_zeros() < b {
                below += 1;
                white &= white - 1;
            }
            rank += binomial(u32::from(self.slots[b as usize]) - below, k);
            k += 1;
        }
        rank
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rafle_probe::{draughts::Material, toolkit::PositionIndex};

    /// The walker goes through whole materials as the index does, and finds every king or
    /// man move's successor where the index ranks it.
    #[test]
    fn walks_and_ranks_as_the_index() {
        for (variant, name) in [
            (Variant::Brazilian, "KKvK"),
            (Variant::Brazilian, "KMvKM"),
            (Variant::Brazilian, "MMvM"),
            (Variant::Brazilian, "KKKvM"),
            (Variant::International, "KMvK"),
            (Variant::International, "MvMM"),
        ] {
            let material: Material = name.parse().unwrap();
            let index = PositionIndex::new(variant, material);
            let ranker = Ranker::new(variant, material);
            let mut walker = Walker::new(&ranker, 0);
            for i in 0..index.size() {
                let pos = index.unrank(i);
                assert_eq!(walker.position(), Some(pos), "{name} {i}");
                assert_eq!(walker.index(), i);
                if i % 97 == 0 {
                    let fresh = Walker::new(&ranker, i);
                    assert_eq!(fresh.position(), Some(pos), "{name} {i}");
                }
                for mv in &pos.legal_moves() {
                    let next = pos.play(mv);
                    if mv.is_capture() || Material::of(&next) != material {
                        continue;
                    }
                    let from = 1u64 << (mv.from().number() - 1);
                    let to = 1u64 << (mv.to().number() - 1);
                    let p = walker.pieces();
                    let man = (p.white_men | p.black_men) & from != 0;
                    assert_eq!(walker.successor(from, to, man), index.rank(&next), "{name}");
                }
                if i + 1 < index.size() {
                    walker.advance();
                }
            }
        }
    }

    #[test]
    fn combinations_within_free_squares() {
        let free = 0b1011_0110;
        let mut set = lowest(free, 2);
        let mut seen = vec![set];
        for r in 1..binomial(5, 2) {
            set = next_within(set, free);
            assert_eq!(set, unrank_within(r, 2, free));
            seen.push(set);
        }
        assert!(seen.windows(2).all(|w| w[0] < w[1]));
        assert!(seen.iter().all(|&s| s & !free == 0 && s.count_ones() == 2));
    }
}
