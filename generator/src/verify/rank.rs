//! A material's index computed straight from numbered bitboards (square `n` is bit `n - 1`).
//!
//! Verification ranks every successor of every position, so it cannot afford
//! [`rafle_probe::toolkit::PositionIndex::rank`], which first builds the four bitboards of a
//! [`rafle_probe::draughts::Position`]: here the successor's bitboards are those of the position with one
//! bit moved. The layout is the one
//! `PositionIndex` documents (side to move, White's men, Black's men among the squares White's
//! men leave, White's kings, Black's kings, each a combination ranked in colex order); the tests
//! check both give the same index for every position of small materials.

use rafle_probe::draughts::{Material, Variant};
#[cfg(test)]
use rafle_probe::{
    draughts::{Color, Position, Role},
    toolkit::PositionIndex,
};

pub(super) use rafle_probe::toolkit::binomial;

/// The colex rank of `set` once its squares are squeezed past `occupied` (which `set` avoids):
/// each square counts only the free squares below it.
#[inline]
fn rank_squeezed(mut set: u64, occupied: u64) -> u64 {
    let mut rank = 0;
    let mut k = 1;
    while set != 0 {
        let bit = set.trailing_zeros();
        set &= set - 1;
        let slot = bit - (occupied & ((1u64 << bit) - 1)).count_ones();
        rank += binomial(slot, k);
        k += 1;
    }
    rank
}

/// The four numbered bitboards of a position and its side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pieces {
    /// White's men.
    pub white_men: u64,
    /// White's kings.
    pub white_kings: u64,
    /// Black's men.
    pub black_men: u64,
    /// Black's kings.
    pub black_kings: u64,
    /// Whether Black is to move.
    pub black_to_move: bool,
}

impl Pieces {
    /// The bitboards of `pos`.
    #[cfg(test)]
    pub fn of(pos: &Position) -> Pieces {
        Pieces {
            white_men: pos.numbered_bits(Color::White, Role::Man),
            white_kings: pos.numbered_bits(Color::White, Role::King),
            black_men: pos.numbered_bits(Color::Black, Role::Man),
            black_kings: pos.numbered_bits(Color::Black, Role::King),
            black_to_move: pos.turn() == Color::Black,
        }
    }
}

/// What [`Ranker::rank`] needs of a material's index.
#[derive(Debug, Clone)]
pub(super) struct Ranker {
    /// The board.
    pub variant: Variant,
    /// The material, in the orientation ranked.
    pub material: Material,
    /// Squares on one row: White's men never stand on the first.
    pub row: u32,
    /// Squares on the board.
    pub squares: u32,
    /// `men_offsets[r]`: the first men index of White's men combination of rank `r`.
    pub men_offsets: Vec<u64>,
    /// Placements of the men, for one side to move.
    pub men_configs: u64,
    /// Placements of White's kings around one placement of the men.
    pub white_king_configs: u64,
    /// Placements of Black's kings around one placement of the other pieces.
    pub black_king_configs: u64,
}

impl Ranker {
    /// The ranker of `material`'s index on `variant`'s board, in the orientation given.
    pub fn new(variant: Variant, material: Material) -> Ranker {
        let squares = u32::from(variant.square_count());
        let row = u32::from(variant.squares_per_row());
        let men_squares = squares - row;
        let (wm, bm) = (u32::from(material.white_men), u32::from(material.black_men));
        let (wk, bk) = (
            u32::from(material.white_kings),
            u32::from(material.black_kings),
        );
        // White's men combinations in colex order are the k-bit numbers in increasing order,
        // which Gosper's hack walks; Black's men choose among the squares off their promotion
        // row (the lowest `men_squares` numbers) that White's men leave.
        let mut men_offsets = Vec::new();
        let mut total = 0u64;
        let blocked = |white: u64| ((white << row) & ((1u64 << men_squares) - 1)).count_ones();
        if wm == 0 {
            men_offsets.push(0);
            total = binomial(men_squares, bm);
        } else {
            let mut set = (1u64 << wm) - 1;
            while set < 1u64 << men_squares {
                men_offsets.push(total);
                total += binomial(men_squares - blocked(set), bm);
                let low = set & set.wrapping_neg();
                let ripple = set + low;
                set = (((ripple ^ set) >> 2) / low) | ripple;
            }
        }
        men_offsets.push(total);
        let free = squares - wm - bm;
        Ranker {
            variant,
            material,
            row,
            squares,
            men_offsets,
            men_configs: total,
            white_king_configs: binomial(free, wk),
            black_king_configs: binomial(free - wk, bk),
        }
    }

    /// The index of the position with these pieces, which must be of the ranker's material
    /// (otherwise the answer is meaningless but there is no panic unless a man stands on its
    /// promotion row).
    #[inline]
    pub fn rank(&self, p: &Pieces) -> u64 {
        let white_rank = rank_squeezed(p.white_men >> self.row, 0);
        let black_rank = rank_squeezed(p.black_men, p.white_men);
        let men = self.men_offsets[white_rank as usize] + black_rank;
        let men_all = p.white_men | p.black_men;
        let wk = rank_squeezed(p.white_kings, men_all);
        let bk = rank_squeezed(p.black_kings, men_all | p.white_kings);
        let side = u64::from(p.black_to_move);
        ((side * self.men_configs + men) * self.white_king_configs + wk) * self.black_king_configs
            + bk
    }
}

/// Whether the ranker agrees with `index` (the same material and variant) on a thousand
/// indices spread over it.
#[cfg(test)]
fn agrees(ranker: &Ranker, index: &PositionIndex) -> bool {
    let step = index.size() / 997 + 1;
    (0..index.size())
        .step_by(step as usize)
        .all(|i| ranker.rank(&Pieces::of(&index.unrank(i))) == i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ranker gives every position of whole small materials the index's own rank.
    #[test]
    fn same_index_as_the_position_index() {
        for variant in Variant::ALL {
            for material in Material::all_up_to(variant, 3) {
                for m in [material, material.mirrored()] {
                    let index = PositionIndex::new(variant, m);
                    let ranker = Ranker::new(variant, m);
                    let kings = ranker.white_king_configs * ranker.black_king_configs;
                    assert_eq!(ranker.men_configs * kings * 2, index.size());
                    for i in 0..index.size() {
                        let pieces = Pieces::of(&index.unrank(i));
                        assert_eq!(ranker.rank(&pieces), i, "{variant} {m} {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn larger_materials_sampled() {
        for (variant, name) in [
            (Variant::Brazilian, "KMMvMM"),
            (Variant::Brazilian, "MMMvKK"),
            (Variant::International, "KKMvMM"),
            (Variant::International, "MMMvMM"),
        ] {
            let m: Material = name.parse().unwrap();
            assert!(agrees(
                &Ranker::new(variant, m),
                &PositionIndex::new(variant, m)
            ));
        }
    }
}
