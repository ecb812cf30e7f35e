//! The two rule sets rafle knows and their board sizes.

use std::fmt;
use std::str::FromStr;

/// A draughts variant: the board and the rules played on it.
///
/// Both variants use the FMJD rules (flying kings, majority capture, men capturing backwards);
/// only the board differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// International draughts: 10x10 board, 50 squares, 20 men each.
    International,
    /// Brazilian draughts: 8x8 board, 32 squares, 12 men each.
    Brazilian,
}

impl Variant {
    /// Every variant, in a fixed order.
    pub const ALL: [Variant; 2] = [Variant::International, Variant::Brazilian];

    /// The name used on the command line and in file names: `international` or `brazilian`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::International => "international",
            Variant::Brazilian => "brazilian",
        }
    }

    /// Width (and height) of the board: 10 or 8.
    pub fn board_size(self) -> u8 {
        match self {
            Variant::International => 10,
            Variant::Brazilian => 8,
        }
    }

    /// Number of playable (dark) squares: 50 or 32.
    pub fn square_count(self) -> u8 {
        let size = self.board_size();
        size * size / 2
    }

    /// Number of dark squares on one row: 5 or 4.
    pub fn squares_per_row(self) -> u8 {
        self.board_size() / 2
    }

    /// The FEN of the start position.
    pub fn start_fen(self) -> &'static str {
        match self {
            Variant::International => "W:W31-50:B1-20",
            Variant::Brazilian => "W:W21-32:B1-12",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The text given for a variant named none of the known ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVariant(pub String);

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown variant '{}' (expected 'international' or 'brazilian')",
            self.0
        )
    }
}

impl std::error::Error for UnknownVariant {}

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "international" | "intl" | "10x10" => Ok(Variant::International),
            "brazilian" | "brazil" | "8x8" => Ok(Variant::Brazilian),
            _ => Err(UnknownVariant(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(Variant::International.square_count(), 50);
        assert_eq!(Variant::Brazilian.square_count(), 32);
        assert_eq!(Variant::Brazilian.squares_per_row(), 4);
    }

    #[test]
    fn parse_names() {
        for v in Variant::ALL {
            assert_eq!(v.name().parse::<Variant>(), Ok(v));
        }
        assert!("russian".parse::<Variant>().is_err());
    }
}
