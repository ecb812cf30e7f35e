//! Squares in the numbering of the rules, their algebraic names, and sets of squares.

use std::fmt;

use crate::geometry::{bit_of_square, internal_to_numbered, numbered_to_internal, square_of_bit};
use crate::{excerpt, Variant};

/// A playable square, numbered 1..=50 (international) or 1..=32 (Brazilian) from the top-left
/// dark square as White sees the board (FMJD article 2.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

/// How squares are written: numbers (`32-28`) or algebraic names (`c3-d4`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SquareStyle {
    /// Numbers 1..=50 or 1..=32, the PDN default.
    #[default]
    Numeric,
    /// File letter and rank, `a1` at White's bottom left (PDN `GameType 26` for Brazilian).
    Algebraic,
}

impl Square {
    /// The square with this number, if the variant has it.
    pub fn new(variant: Variant, number: u8) -> Option<Square> {
        (1..=variant.square_count())
            .contains(&number)
            .then_some(Square(number))
    }

    /// The square's number, 1-based.
    pub fn number(self) -> u8 {
        self.0
    }

    /// Row from the top as White sees the board, 0-based.
    pub fn row(self, variant: Variant) -> u8 {
        (self.0 - 1) / variant.squares_per_row()
    }

    /// Column from the left as White sees the board, 0-based (0 = file `a`).
    pub fn column(self, variant: Variant) -> u8 {
        let per_row = variant.squares_per_row();
        let index = (self.0 - 1) % per_row;
        2 * index + u8::from(self.row(variant).is_multiple_of(2))
    }

    /// The dark square at a column and row (both 0-based from White's top left), if any.
    pub fn from_coordinates(variant: Variant, column: u8, row: u8) -> Option<Square> {
        let size = variant.board_size();
        if column >= size || row >= size || (column + row).is_multiple_of(2) {
            return None;
        }
        Some(Square(row * variant.squares_per_row() + column / 2 + 1))
    }

    /// The algebraic name: `a1` is White's bottom-left corner.
    pub fn algebraic(self, variant: Variant) -> String {
        let file = char::from(b'a' + self.column(variant));
        let rank = variant.board_size() - self.row(variant);
        format!("{file}{rank}")
    }

    /// The name in the chosen style.
    pub fn display(self, variant: Variant, style: SquareStyle) -> String {
        match style {
            SquareStyle::Numeric => self.0.to_string(),
            SquareStyle::Algebraic => self.algebraic(variant),
        }
    }

    pub(crate) fn bit(self, variant: Variant) -> u64 {
        1 << bit_of_square(variant, self.0)
    }

    pub(crate) fn from_bit_index(variant: Variant, bit: u32) -> Square {
        Square(square_of_bit(variant, bit))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Why a square name could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SquareError {
    /// A number outside 1..=N.
    OutOfRange {
        /// The number as written: it may be too long for any integer type.
        number: String,
        /// The variant's last square.
        max: u8,
    },
    /// An algebraic name of a light square, which is never played on.
    LightSquare(String),
    /// A file or rank beyond the board.
    OffBoard(String),
    /// Neither a number nor a file letter followed by a rank.
    Unknown(String),
}

impl fmt::Display for SquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SquareError::OutOfRange { number, max } => {
                write!(f, "square {} is out of range (1..{max})", excerpt(number))
            }
            SquareError::LightSquare(name) => {
                write!(
                    f,
                    "'{}' is a light square; pieces stand on dark squares only",
                    excerpt(name)
                )
            }
            SquareError::OffBoard(name) => {
                write!(f, "square '{}' is off the board", excerpt(name))
            }
            SquareError::Unknown(name) => write!(
                f,
                "unknown square '{}' (expected a number or an algebraic name like c3)",
                excerpt(name)
            ),
        }
    }
}

impl std::error::Error for SquareError {}

/// Reads a square written as a number (`28`) or an algebraic name (`c3`).
///
/// # Errors
///
/// [`SquareError`] says why the text names no square of the variant.
pub fn parse_square(variant: Variant, text: &str) -> Result<Square, SquareError> {
    let bytes = text.as_bytes();
    if !bytes.is_empty() && bytes.iter().all(u8::is_ascii_digit) {
        return text
            .parse::<u8>()
            .ok()
            .and_then(|n| Square::new(variant, n))
            .ok_or_else(|| SquareError::OutOfRange {
                number: text.to_string(),
                max: variant.square_count(),
            });
    }
    let Some((&file, rank)) = bytes.split_first() else {
        return Err(SquareError::Unknown(text.to_string()));
    };
    let file = file.to_ascii_lowercase();
    if !file.is_ascii_lowercase() || rank.is_empty() || !rank.iter().all(u8::is_ascii_digit) {
        return Err(SquareError::Unknown(text.to_string()));
    }
    let size = variant.board_size();
    let rank: u32 = std::str::from_utf8(rank)
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(u32::MAX);
    let column = file - b'a';
    if column >= size || rank == 0 || rank > u32::from(size) {
        return Err(SquareError::OffBoard(text.to_string()));
    }
    let row = size - rank as u8;
    Square::from_coordinates(variant, column, row)
        .ok_or_else(|| SquareError::LightSquare(text.to_string()))
}

/// A set of squares of one variant, iterated in ascending square order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SquareSet {
    bits: u64,
    variant: Variant,
}

impl SquareSet {
    pub(crate) fn from_bits(variant: Variant, bits: u64) -> SquareSet {
        SquareSet { bits, variant }
    }

    /// The empty set.
    pub fn empty(variant: Variant) -> SquareSet {
        SquareSet { bits: 0, variant }
    }

    /// Number of squares in the set.
    pub fn len(self) -> usize {
        self.bits.count_ones() as usize
    }

    /// Whether the set has no square.
    pub fn is_empty(self) -> bool {
        self.bits == 0
    }

    /// Whether the square is in the set.
    pub fn contains(self, square: Square) -> bool {
        self.bits & square.bit(self.variant) != 0
    }

    /// The set with `square` added.
    #[must_use]
    pub fn with(self, square: Square) -> SquareSet {
        SquareSet {
            bits: self.bits | square.bit(self.variant),
            ..self
        }
    }

    /// The squares with bit `n - 1` set for square `n`: the layout engines use (docs/rules.md §1).
    pub fn to_numbered_bits(self) -> u64 {
        internal_to_numbered(self.variant, self.bits)
    }

    /// The set whose squares are the bits `n - 1` of `bits`, ignoring bits past the board.
    pub fn from_numbered_bits(variant: Variant, bits: u64) -> SquareSet {
        SquareSet {
            bits: numbered_to_internal(variant, bits),
            variant,
        }
    }
}

impl IntoIterator for SquareSet {
    type Item = Square;
    type IntoIter = SquareIter;

    fn into_iter(self) -> SquareIter {
        SquareIter {
            bits: self.bits,
            variant: self.variant,
        }
    }
}

/// Iterator over a [`SquareSet`] in ascending square order.
#[derive(Debug, Clone)]
pub struct SquareIter {
    bits: u64,
    variant: Variant,
}

impl Iterator for SquareIter {
    type Item = Square;

    fn next(&mut self) -> Option<Square> {
        if self.bits == 0 {
            return None;
        }
        let bit = self.bits.trailing_zeros();
        self.bits &= self.bits - 1;
        Some(Square::from_bit_index(self.variant, bit))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.bits.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for SquareIter {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brazilian_algebraic_names() {
        let v = Variant::Brazilian;
        let name = |n| Square::new(v, n).unwrap().algebraic(v);
        assert_eq!(name(1), "b8");
        assert_eq!(name(4), "h8");
        assert_eq!(name(29), "a1");
        assert_eq!(name(32), "g1");
        assert_eq!(name(22), "c3");
        for n in 1..=32 {
            let sq = Square::new(v, n).unwrap();
            assert_eq!(parse_square(v, &sq.algebraic(v)), Ok(sq));
            assert_eq!(parse_square(v, &n.to_string()), Ok(sq));
        }
    }

    #[test]
    fn international_algebraic_names() {
        let v = Variant::International;
        assert_eq!(Square::new(v, 46).unwrap().algebraic(v), "a1");
        assert_eq!(Square::new(v, 5).unwrap().algebraic(v), "j10");
        assert_eq!(parse_square(v, "j10"), Ok(Square::new(v, 5).unwrap()));
    }

    #[test]
    fn bad_squares() {
        let v = Variant::Brazilian;
        assert!(matches!(
            parse_square(v, "33"),
            Err(SquareError::OutOfRange { .. })
        ));
        assert!(matches!(
            parse_square(v, "0"),
            Err(SquareError::OutOfRange { .. })
        ));
        assert_eq!(
            parse_square(v, "99999999999999999999"),
            Err(SquareError::OutOfRange {
                number: "99999999999999999999".to_string(),
                max: 32
            })
        );
        assert_eq!(
            parse_square(v, "99999999999999999999")
                .unwrap_err()
                .to_string(),
            "square 99999999999999999999 is out of range (1..32)"
        );
        assert_eq!(
            parse_square(v, "256").unwrap_err().to_string(),
            "square 256 is out of range (1..32)"
        );
        assert!(matches!(
            parse_square(v, "b1"),
            Err(SquareError::LightSquare(_))
        ));
        assert!(matches!(
            parse_square(v, "i1"),
            Err(SquareError::OffBoard(_))
        ));
        assert!(matches!(
            parse_square(v, "a9"),
            Err(SquareError::OffBoard(_))
        ));
        assert!(matches!(
            parse_square(v, "é3"),
            Err(SquareError::Unknown(_))
        ));
        assert!(matches!(parse_square(v, ""), Err(SquareError::Unknown(_))));
        assert!(matches!(parse_square(v, "c"), Err(SquareError::Unknown(_))));
    }

    #[test]
    fn numbered_bits_round_trip() {
        let v = Variant::International;
        let set = SquareSet::from_numbered_bits(v, 0b1011 | 1 << 49);
        let squares: Vec<u8> = set.into_iter().map(Square::number).collect();
        assert_eq!(squares, [1, 2, 4, 50]);
        assert_eq!(set.to_numbered_bits(), 0b1011 | 1 << 49);
    }
}
