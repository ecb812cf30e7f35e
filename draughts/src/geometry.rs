//! Board geometry in the internal bitboard layout.
//!
//! Squares are stored with one unused "ghost" bit after every two rows, so that each of the four
//! diagonal directions is a single shift by the same amount from every square, and a step off
//! the left or right edge lands on a ghost bit that the board mask removes. On 10x10 square `n`
//! (1-based) lives at bit `(n-1) + (n-1)/10` and the directions are ±5 and ±6; on 8x8 at bit
//! `(n-1) + (n-1)/8` with directions ±4 and ±5. Bits grow downwards as White sees the board,
//! so White's men move towards lower bits.

use crate::Variant;

/// One of the four diagonal directions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    /// Towards higher bits, the short step (down-left as White sees the board).
    DownLeft,
    /// Towards higher bits, the long step (down-right).
    DownRight,
    /// Towards lower bits, the short step (up-right).
    UpRight,
    /// Towards lower bits, the long step (up-left).
    UpLeft,
}

impl Dir {
    pub(crate) const ALL: [Dir; 4] = [Dir::DownLeft, Dir::DownRight, Dir::UpRight, Dir::UpLeft];

    /// Whether a step in this direction goes towards higher bits.
    #[inline(always)]
    pub(crate) fn increasing(self) -> bool {
        matches!(self, Dir::DownLeft | Dir::DownRight)
    }

    pub(crate) fn reverse(self) -> Dir {
        match self {
            Dir::DownLeft => Dir::UpRight,
            Dir::DownRight => Dir::UpLeft,
            Dir::UpRight => Dir::DownLeft,
            Dir::UpLeft => Dir::DownRight,
        }
    }
}

/// The constants of one board size, resolved at compile time so that move generation is
/// monomorphised per variant.
pub(crate) trait Geometry {
    const VARIANT: Variant;
    /// Dark squares per row.
    const HALF: u32;
    /// Every bit that is a real square.
    const MASK: u64;
    /// White promotes on the top row.
    const WHITE_PROMOTION: u64;
    /// Black promotes on the bottom row.
    const BLACK_PROMOTION: u64;

    /// `RAYS[d][b]`: the squares a piece on bit `b` sees along direction `d` (in
    /// [`Dir::ALL`] order) up to the edge of an empty board; nothing for a bit that is no
    /// square.
    const RAYS: [[u64; 64]; 4];

    /// Slides from `at` (one square) along `dir` over the squares of `empty`: the squares
    /// passed, and the first square reached that is not in `empty` (0 if the edge comes
    /// first). One lookup and a bit scan, where stepping square by square takes a shift a
    /// square.
    #[inline(always)]
    fn slide(at: u64, dir: Dir, empty: u64) -> (u64, u64) {
        let ray = Self::RAYS[dir as usize][at.trailing_zeros() as usize];
        let blockers = ray & !empty;
        if blockers == 0 {
            return (ray, 0);
        }
        let first = nearest(blockers, dir);
        let passed = if dir.increasing() {
            ray & (first - 1)
        } else {
            ray & !(first | (first - 1))
        };
        (passed, first)
    }

    #[inline(always)]
    fn step(bb: u64, dir: Dir) -> u64 {
        let short = Self::HALF;
        let long = Self::HALF + 1;
        let moved = match dir {
            Dir::DownLeft => bb << short,
            Dir::DownRight => bb << long,
            Dir::UpRight => bb >> short,
            Dir::UpLeft => bb >> long,
        };
        moved & Self::MASK
    }
}

/// Of the squares `bits` on one ray from a square along `dir`, the one nearest to it.
#[inline(always)]
pub(crate) fn nearest(bits: u64, dir: Dir) -> u64 {
    if dir.increasing() {
        bits & bits.wrapping_neg()
    } else {
        1 << (63 - bits.leading_zeros())
    }
}

pub(crate) struct Ten;
pub(crate) struct Eight;

/// The rays of every square of a board of `half` squares a row whose squares are `mask`, as
/// [`Geometry::RAYS`] holds them.
const fn rays(half: u32, mask: u64) -> [[u64; 64]; 4] {
    let mut rays = [[0u64; 64]; 4];
    let mut bit = 0;
    while bit < 64 {
        if mask >> bit & 1 == 1 {
            let mut d = 0;
            while d < 4 {
                let mut at = 1u64 << bit;
                loop {
                    // Dir::ALL order: the short and long steps towards higher bits, then the
                    // short and long ones towards lower bits.
                    at = match d {
                        0 => at << half,
                        1 => at << (half + 1),
                        2 => at >> half,
                        _ => at >> (half + 1),
                    } & mask;
                    if at == 0 {
                        break;
                    }
                    rays[d][bit] |= at;
                }
                d += 1;
            }
        }
        bit += 1;
    }
    rays
}

const fn mask(squares: u32, half: u32) -> u64 {
    let mut bits = 0u64;
    let mut n = 0;
    while n < squares {
        bits |= 1 << bit_of(n, half);
        n += 1;
    }
    bits
}

/// Bit of the square with 0-based number `n`.
const fn bit_of(n: u32, half: u32) -> u32 {
    n + n / (2 * half)
}

const fn row_mask(first: u32, half: u32) -> u64 {
    let mut bits = 0u64;
    let mut n = first;
    while n < first + half {
        bits |= 1 << bit_of(n, half);
        n += 1;
    }
    bits
}

impl Geometry for Ten {
    const VARIANT: Variant = Variant::International;
    const HALF: u32 = 5;
    const MASK: u64 = mask(50, 5);
    const RAYS: [[u64; 64]; 4] = rays(5, mask(50, 5));
    const WHITE_PROMOTION: u64 = row_mask(0, 5);
    const BLACK_PROMOTION: u64 = row_mask(45, 5);
}

impl Geometry for Eight {
    const VARIANT: Variant = Variant::Brazilian;
    const HALF: u32 = 4;
    const MASK: u64 = mask(32, 4);
    const RAYS: [[u64; 64]; 4] = rays(4, mask(32, 4));
    const WHITE_PROMOTION: u64 = row_mask(0, 4);
    const BLACK_PROMOTION: u64 = row_mask(28, 4);
}

/// Internal bit of square `number` (1-based); the caller has checked the range.
#[inline]
pub(crate) fn bit_of_square(variant: Variant, number: u8) -> u32 {
    bit_of(u32::from(number) - 1, u32::from(variant.squares_per_row()))
}

/// Square number (1-based) of an internal bit.
#[inline]
pub(crate) fn square_of_bit(variant: Variant, bit: u32) -> u8 {
    let stride = 2 * u32::from(variant.squares_per_row()) + 1;
    (bit - bit / stride + 1) as u8
}

/// Internal bitboard to numbered bitboard (square n at bit n - 1): each pair of rows moves down
/// past the ghost bits before it, a whole group at a time.
#[inline]
pub(crate) fn internal_to_numbered(variant: Variant, internal: u64) -> u64 {
    let group = 2 * u32::from(variant.squares_per_row());
    let groups = u32::from(variant.board_size()) / 2;
    let mask = (1u64 << group) - 1;
    (0..groups).fold(0, |acc, g| {
        acc | ((internal >> (g * (group + 1))) & mask) << (g * group)
    })
}

/// Numbered bitboard to internal bitboard; bits past the last square are dropped.
#[inline]
pub(crate) fn numbered_to_internal(variant: Variant, numbered: u64) -> u64 {
    let group = 2 * u32::from(variant.squares_per_row());
    let groups = u32::from(variant.board_size()) / 2;
    let mask = (1u64 << group) - 1;
    (0..groups).fold(0, |acc, g| {
        acc | ((numbered >> (g * group)) & mask) << (g * (group + 1))
    })
}

pub(crate) fn board_mask(variant: Variant) -> u64 {
    match variant {
        Variant::International => Ten::MASK,
        Variant::Brazilian => Eight::MASK,
    }
}

pub(crate) fn promotion_row(variant: Variant, white: bool) -> u64 {
    match (variant, white) {
        (Variant::International, true) => Ten::WHITE_PROMOTION,
        (Variant::International, false) => Ten::BLACK_PROMOTION,
        (Variant::Brazilian, true) => Eight::WHITE_PROMOTION,
        (Variant::Brazilian, false) => Eight::BLACK_PROMOTION,
    }
}

/// One step in `dir` from a single-bit board, for code that is not monomorphised.
pub(crate) fn step(variant: Variant, bb: u64, dir: Dir) -> u64 {
    match variant {
        Variant::International => Ten::step(bb, dir),
        Variant::Brazilian => Eight::step(bb, dir),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn neighbour(variant: Variant, n: u8, dir: Dir) -> Option<u8> {
        let to = step(variant, 1 << bit_of_square(variant, n), dir);
        (to != 0).then(|| square_of_bit(variant, to.trailing_zeros()))
    }

    #[test]
    fn masks_have_every_square() {
        assert_eq!(Ten::MASK.count_ones(), 50);
        assert_eq!(Eight::MASK.count_ones(), 32);
        assert_eq!(Ten::WHITE_PROMOTION.count_ones(), 5);
        assert_eq!(Eight::BLACK_PROMOTION.count_ones(), 4);
    }

    #[test]
    fn numbering_round_trips() {
        for v in Variant::ALL {
            for n in 1..=v.square_count() {
                assert_eq!(square_of_bit(v, bit_of_square(v, n)), n);
            }
        }
    }

    #[test]
    fn numbered_conversions() {
        for v in Variant::ALL {
            for n in 1..=v.square_count() {
                let internal = 1u64 << bit_of_square(v, n);
                assert_eq!(internal_to_numbered(v, internal), 1 << (n - 1));
                assert_eq!(numbered_to_internal(v, 1 << (n - 1)), internal);
            }
            assert_eq!(numbered_to_internal(v, u64::MAX), board_mask(v));
        }
    }

    #[test]
    fn international_neighbours() {
        let v = Variant::International;
        // 28 is on an even row (file 5 from the left, 0-based) in the middle of the board.
        assert_eq!(neighbour(v, 28, Dir::UpLeft), Some(22));
        assert_eq!(neighbour(v, 28, Dir::UpRight), Some(23));
        assert_eq!(neighbour(v, 28, Dir::DownLeft), Some(32));
        assert_eq!(neighbour(v, 28, Dir::DownRight), Some(33));
        // Edges: 6 and 46 on the left border, 5 and 45 on the right, 1..5 on top.
        assert_eq!(neighbour(v, 6, Dir::UpLeft), None);
        assert_eq!(neighbour(v, 6, Dir::UpRight), Some(1));
        assert_eq!(neighbour(v, 45, Dir::DownRight), None);
        assert_eq!(neighbour(v, 45, Dir::DownLeft), Some(50));
        assert_eq!(neighbour(v, 3, Dir::UpLeft), None);
        assert_eq!(neighbour(v, 48, Dir::DownLeft), None);
        // The long diagonal 46-41-37-32-28-23-19-14-10-5.
        let mut path = vec![46];
        while let Some(next) = neighbour(v, *path.last().unwrap(), Dir::UpRight) {
            path.push(next);
        }
        assert_eq!(path, [46, 41, 37, 32, 28, 23, 19, 14, 10, 5]);
    }

    #[test]
    fn brazilian_long_diagonal() {
        let v = Variant::Brazilian;
        let mut path = vec![29];
        while let Some(next) = neighbour(v, *path.last().unwrap(), Dir::UpRight) {
            path.push(next);
        }
        assert_eq!(path, [29, 25, 22, 18, 15, 11, 8, 4]);
    }
}
