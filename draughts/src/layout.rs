//! The internal bitboard layout, for code that visits very many positions of one shape (a
//! tablebase generator walking king moves back) and cannot afford a [`Position`] for each.
//!
//! Square `n` (1-based) sits at bit `n - 1` plus one for every two rows before it: the extra
//! "ghost" bits make each diagonal step one shift from every square. Only [`to_internal`],
//! [`to_numbered`] and the functions here know that.
//!
//! [`Position`]: crate::Position

use crate::geometry::{self, Dir, Eight, Geometry, Ten};
use crate::Variant;

/// The internal bitboard of a numbered one (square `n` at bit `n - 1`); bits past the last
/// square are dropped.
#[inline]
pub fn to_internal(variant: Variant, numbered: u64) -> u64 {
    geometry::numbered_to_internal(variant, numbered)
}

/// The numbered bitboard (square `n` at bit `n - 1`) of an internal one.
#[inline]
pub fn to_numbered(variant: Variant, internal: u64) -> u64 {
    geometry::internal_to_numbered(variant, internal)
}

/// Every square of the board, internal.
#[inline]
pub fn board(variant: Variant) -> u64 {
    geometry::board_mask(variant)
}

/// The squares a king on `from` (one internal bit) reaches by a quiet move over the `empty`
/// squares: each diagonal up to the first square not in `empty`. King moves are reversible,
/// so these are also the squares from which a king reaches `from`.
#[inline]
pub fn king_reach(variant: Variant, from: u64, empty: u64) -> u64 {
    match variant {
        Variant::International => reach::<Ten>(from, empty),
        Variant::Brazilian => reach::<Eight>(from, empty),
    }
}

#[inline(always)]
fn reach<G: Geometry>(from: u64, empty: u64) -> u64 {
    Dir::ALL
        .iter()
        .fold(0, |all, &d| all | G::slide(from, d, empty).0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Position;

    /// A lone king's reach is its quiet moves, from every square of both boards.
    #[test]
    fn reach_is_the_quiet_king_moves() {
        for variant in Variant::ALL {
            for n in 1..=variant.square_count() {
                let fen = format!("W:WK{n}:B");
                let Ok(pos) = Position::from_fen(variant, &fen) else {
                    continue;
                };
                let from = to_internal(variant, 1 << (n - 1));
                let empty = board(variant) & !from;
                let mut expected = 0;
                for mv in &pos.legal_moves() {
                    expected |= 1u64 << (mv.to().number() - 1);
                }
                assert_eq!(
                    to_numbered(variant, king_reach(variant, from, empty)),
                    expected,
                    "{variant} {fen}"
                );
            }
        }
    }
}
