//! Game values.

use std::fmt;
use std::ops::Neg;

/// Win, draw or loss for the side to move with perfect play, ignoring the draw rules 6.2–6.4
/// (docs/rules.md §5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move loses.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins.
    Win,
}

impl Wdl {
    /// `"win"`, `"draw"` or `"loss"`.
    pub fn name(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        }
    }

    /// The 2-bit code stored in tables: draw 0, win 1, loss 2.
    pub fn code(self) -> u8 {
        match self {
            Wdl::Draw => 0,
            Wdl::Win => 1,
            Wdl::Loss => 2,
        }
    }

    /// The value as a signed number for the side to move: win 1, draw 0, loss -1.
    pub fn signum(self) -> i8 {
        match self {
            Wdl::Win => 1,
            Wdl::Draw => 0,
            Wdl::Loss => -1,
        }
    }

    /// The value of a 2-bit table code, `None` for the unused code 3.
    pub fn from_code(code: u8) -> Option<Wdl> {
        match code {
            0 => Some(Wdl::Draw),
            1 => Some(Wdl::Win),
            2 => Some(Wdl::Loss),
            _ => None,
        }
    }
}

/// The value seen from the other side.
impl Neg for Wdl {
    type Output = Wdl;

    fn neg(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
