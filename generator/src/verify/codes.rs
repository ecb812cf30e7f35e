//! The codes kept in memory per position ([`Codes`]): a position's win/draw/loss, draw-rule
//! and distance codes, in the 4 bytes a page holds for each position, and a successor's codes
//! as the comparison of a position with its successors takes them.

use rafle_probe::toolkit::codec::{Codec, DtwCodec, WdlCodec};
use rafle_probe::{Dtw, RuleValue, Wdl};

use crate::probed::Values;

/// The code of a drawn position in the 16-bit distance codes kept in memory.
pub(super) const DTW_DRAW: u16 = u16::MAX;

/// A position's three values as kept in memory: the win/draw/loss code, the draw-rule code and
/// the distance code (always 16 bits wide, whatever the table's width, so that a derived
/// distance never meets the draw code of an 8-bit table), in 4 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub(super) struct Codes {
    /// [`Wdl::code`]; an invalid code reads as a draw, as the probe of a successor would have
    /// failed on it while the position itself is reported when it is checked.
    pub wdl: u8,
    /// [`RuleValue::code`]; an invalid code reads as a draw, as for `wdl`.
    pub rule: u8,
    /// The distance in plies, [`DTW_DRAW`] for a draw.
    pub dtw: u16,
}

impl Codes {
    /// Every code zero: what a page holds before it is read.
    pub const ZERO: Codes = Codes {
        wdl: 0,
        rule: 0,
        dtw: 0,
    };

    /// The codes of a drawn position.
    pub const DRAW: Codes = Codes {
        wdl: 0,
        rule: 0,
        dtw: DTW_DRAW,
    };

    /// The codes of a position whose side to move has no piece: lost at once.
    pub const NO_PIECE: Codes = Codes {
        wdl: 2,
        rule: 4,
        dtw: 0,
    };

    /// The codes of `values`.
    pub fn of(values: Values) -> Codes {
        Codes {
            wdl: values.wdl.code(),
            rule: values.rule.code(),
            dtw: DtwCodec::encode(values.dtw, 16),
        }
    }

    /// The win/draw/loss value.
    #[inline]
    pub fn wdl(self) -> Wdl {
        WdlCodec::decode(u16::from(self.wdl), 2).unwrap_or(Wdl::Draw)
    }

    /// The distance to win.
    #[inline]
    pub fn dtw(self) -> Dtw {
        DtwCodec::decode(self.dtw, 16).unwrap_or(Dtw::Draw)
    }

    /// The rule value.
    #[inline]
    pub fn rule(self) -> RuleValue {
        RuleValue::from_code(self.rule).unwrap_or(RuleValue::DRAW)
    }
}

/// A distance code of a table `bits` wide as a 16-bit code.
#[inline]
pub(super) fn widen_dtw(code: u16, bits: u8) -> u16 {
    if code == DtwCodec::draw_code(bits) {
        DTW_DRAW
    } else {
        code
    }
}

/// A successor's codes and whether the move to it resets the draw-rule counter.
pub(super) type Successor = (Codes, bool);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_of_values() {
        assert_eq!(Codes::of(Values::NO_PIECE), Codes::NO_PIECE);
        assert_eq!(Codes::of(Values::DRAW), Codes::DRAW);
        let won = Values {
            wdl: Wdl::Win,
            dtw: Dtw::Win(301),
            rule: RuleValue::win(9),
        };
        let codes = Codes::of(won);
        assert_eq!(
            (codes.wdl(), codes.dtw(), codes.rule()),
            (won.wdl, won.dtw, won.rule)
        );
        assert_eq!(widen_dtw(255, 8), DTW_DRAW);
        assert_eq!(widen_dtw(254, 8), 254);
    }
}
