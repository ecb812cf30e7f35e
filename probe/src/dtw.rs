//! Distance to win.

use std::fmt;

use crate::Wdl;

/// The value of a position with its distance to the end of the game, in plies, with best play:
/// the winner shortening it, the loser lengthening it (docs/rules.md §5.2). A position whose side to
/// move has no move is `Loss(0)`; capturing the last piece is `Win(1)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dtw {
    /// The side to move wins in this many plies (odd).
    Win(u16),
    /// Neither side can force a win.
    Draw,
    /// The side to move loses in this many plies (even).
    Loss(u16),
}

impl Dtw {
    /// The value without the distance.
    pub fn wdl(self) -> Wdl {
        match self {
            Dtw::Win(_) => Wdl::Win,
            Dtw::Draw => Wdl::Draw,
            Dtw::Loss(_) => Wdl::Loss,
        }
    }

    /// Plies to the end of the game, `None` for a draw.
    pub fn plies(self) -> Option<u16> {
        match self {
            Dtw::Win(n) | Dtw::Loss(n) => Some(n),
            Dtw::Draw => None,
        }
    }

    /// Plies to the end of the game signed for the side to move: positive when it wins,
    /// negative (or 0, lost already) when it loses, `None` for a draw.
    pub fn signed_plies(self) -> Option<i32> {
        match self {
            Dtw::Win(n) => Some(i32::from(n)),
            Dtw::Loss(n) => Some(-i32::from(n)),
            Dtw::Draw => None,
        }
    }

    /// Moves of the side to move until the end (plies counted in whole moves, rounded up).
    pub fn moves(self) -> Option<u16> {
        self.plies().map(|p| p.div_ceil(2))
    }

    /// The value of a position from those of all its successors (each seen from the side to
    /// move after the move): the quickest win over a lost successor, else a draw if one is
    /// drawn, else the longest loss. With no successor at all, a loss in 0.
    pub fn from_successors(successors: impl IntoIterator<Item = Dtw>) -> Dtw {
        let mut quickest_win = None::<u16>;
        let mut drawn = false;
        let mut longest_loss = 0u16;
        for s in successors {
            match s {
                Dtw::Loss(d) => quickest_win = Some(quickest_win.map_or(d + 1, |w| w.min(d + 1))),
                Dtw::Draw => drawn = true,
                Dtw::Win(d) => longest_loss = longest_loss.max(d + 1),
            }
        }
        match quickest_win {
            Some(w) => Dtw::Win(w),
            None if drawn => Dtw::Draw,
            None => Dtw::Loss(longest_loss),
        }
    }
}

impl fmt::Display for Dtw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dtw::Win(n) => write!(f, "win in {n} plies"),
            Dtw::Draw => f.write_str("draw"),
            Dtw::Loss(n) => write!(f, "loss in {n} plies"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_plies_follow_the_side_to_move() {
        assert_eq!(Dtw::Win(7).signed_plies(), Some(7));
        assert_eq!(Dtw::Loss(8).signed_plies(), Some(-8));
        assert_eq!(Dtw::Loss(0).signed_plies(), Some(0));
        assert_eq!(Dtw::Draw.signed_plies(), None);
    }

    #[test]
    fn best_of_successors() {
        assert_eq!(Dtw::from_successors([]), Dtw::Loss(0));
        assert_eq!(
            Dtw::from_successors([Dtw::Win(3), Dtw::Loss(4), Dtw::Loss(2)]),
            Dtw::Win(3)
        );
        assert_eq!(Dtw::from_successors([Dtw::Win(3), Dtw::Draw]), Dtw::Draw);
        assert_eq!(
            Dtw::from_successors([Dtw::Win(3), Dtw::Win(7)]),
            Dtw::Loss(8)
        );
        assert_eq!(Dtw::Win(7).moves(), Some(4));
    }
}
