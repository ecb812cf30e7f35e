//! The rule sets rafle knows, each with its constants in one place.

use std::fmt;
use std::str::FromStr;

/// A draughts variant: the board and the rules played on it.
///
/// Both variants use the FMJD rules (flying kings, majority capture, men capturing backwards);
/// only the board and a few constants of the draw rules differ. Every constant of a variant
/// lives in its [`VariantRules`] below: a new variant is one more entry there, and the
/// compiler points at the few places that dispatch on the board (move generation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// International draughts: 10x10 board, 50 squares, 20 men each.
    International,
    /// Brazilian draughts: 8x8 board, 32 squares, 12 men each.
    Brazilian,
}

/// The constants of one variant's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VariantRules {
    /// The name used on the command line and in file names.
    pub name: &'static str,
    /// Other names accepted on input (lower case).
    pub aliases: &'static [&'static str],
    /// Width (and height) of the board.
    pub board_size: u8,
    /// Men of each side in the start position.
    pub men: u8,
    /// The FEN of the start position.
    pub start_fen: &'static str,
    /// The FMJD limits in plies of rules 6.2, 6.3 and 6.4.
    pub fmjd_limits: [u8; 3],
    /// The strong side's (kings, men) against a lone king that fall under rule 6.3.
    pub rule_6_3_materials: &'static [(u8, u8)],
    /// The code that names the variant in a table header (never 0, never reused).
    pub table_code: u8,
    /// Pieces of the table set a small machine builds in minutes (what `rafle generate`
    /// builds by default).
    pub quick_set_pieces: u8,
}

const INTERNATIONAL: VariantRules = VariantRules {
    name: "international",
    aliases: &["intl", "10x10"],
    board_size: 10,
    men: 20,
    start_fen: "W:W31-50:B1-20",
    fmjd_limits: [50, 32, 10],
    rule_6_3_materials: &[(3, 0), (2, 1), (1, 2)],
    table_code: 1,
    quick_set_pieces: 4,
};

const BRAZILIAN: VariantRules = VariantRules {
    name: "brazilian",
    aliases: &["brazil", "8x8"],
    board_size: 8,
    men: 12,
    start_fen: "W:W21-32:B1-12",
    fmjd_limits: [50, 40, 10],
    rule_6_3_materials: &[(3, 0)],
    table_code: 2,
    quick_set_pieces: 5,
};

impl Variant {
    /// Every variant, in a fixed order ([`Variant::ordinal`] is the position here).
    pub const ALL: [Variant; 2] = [Variant::International, Variant::Brazilian];

    /// The constants of the variant's rules.
    pub const fn rules(self) -> &'static VariantRules {
        match self {
            Variant::International => &INTERNATIONAL,
            Variant::Brazilian => &BRAZILIAN,
        }
    }

    /// The variant's place in [`Variant::ALL`], for arrays indexed by variant.
    pub fn ordinal(self) -> usize {
        self as usize
    }

    /// The variant a table header names by [`VariantRules::table_code`].
    pub fn from_table_code(code: u8) -> Option<Variant> {
        Variant::ALL
            .into_iter()
            .find(|v| v.rules().table_code == code)
    }

    /// The name used on the command line and in file names: `international` or `brazilian`.
    pub fn name(self) -> &'static str {
        self.rules().name
    }

    /// Width (and height) of the board: 10 or 8.
    pub fn board_size(self) -> u8 {
        self.rules().board_size
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
        self.rules().start_fen
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
        let names: Vec<String> = Variant::ALL.iter().map(|v| format!("'{v}'")).collect();
        write!(
            f,
            "unknown variant '{}' (expected {})",
            crate::excerpt(&self.0),
            names.join(" or ")
        )
    }
}

impl std::error::Error for UnknownVariant {}

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.to_ascii_lowercase();
        Variant::ALL
            .into_iter()
            .find(|v| v.rules().name == lower || v.rules().aliases.contains(&lower.as_str()))
            .ok_or_else(|| UnknownVariant(s.to_string()))
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
        assert_eq!("8X8".parse::<Variant>(), Ok(Variant::Brazilian));
        assert!("russian".parse::<Variant>().is_err());
        assert_eq!(
            "x".parse::<Variant>().unwrap_err().to_string(),
            "unknown variant 'x' (expected 'international' or 'brazilian')"
        );
    }

    #[test]
    fn table_codes_are_distinct() {
        for (i, v) in Variant::ALL.into_iter().enumerate() {
            assert_eq!(v.ordinal(), i);
            assert_ne!(v.rules().table_code, 0);
            assert_eq!(Variant::from_table_code(v.rules().table_code), Some(v));
        }
    }
}
