//! Retro moves: the positions from which a quiet move leads to a given position, for
//! retrograde analysis.

use crate::geometry::{promotion_row, step, Dir};
use crate::{Color, Position};

impl Position {
    /// Calls `f` with every position from which a quiet (non-capturing, non-promoting) move of
    /// the side that just moved leads here: a king moving back along a diagonal over empty
    /// squares, or a man stepping back one square.
    ///
    /// The positions are not checked for a capture the mover would have had to make instead;
    /// the caller decides whether such a position counts.
    pub fn for_each_quiet_predecessor(&self, f: impl FnMut(Position)) {
        self.quiet_predecessors(true, f);
    }

    /// As [`Position::for_each_quiet_predecessor`], for king moves only: the predecessors with
    /// the same men.
    pub fn for_each_quiet_king_predecessor(&self, f: impl FnMut(Position)) {
        self.quiet_predecessors(false, f);
    }

    fn quiet_predecessors(&self, men_too: bool, mut f: impl FnMut(Position)) {
        let mover = self.turn.opposite();
        let v = self.variant;
        let empty = !(self.white | self.black) & crate::geometry::board_mask(v);
        let own = self.side(mover);
        let backwards = match mover {
            Color::White => [Dir::DownLeft, Dir::DownRight],
            Color::Black => [Dir::UpLeft, Dir::UpRight],
        };
        let promotion = promotion_row(v, mover == Color::White);
        let mut pieces = own;
        while pieces != 0 {
            let at = pieces & pieces.wrapping_neg();
            pieces &= pieces - 1;
            let is_king = self.kings & at != 0;
            if is_king {
                for d in Dir::ALL {
                    let mut from = step(v, at, d) & empty;
                    while from != 0 {
                        f(self.moved_back(mover, at, from, true));
                        from = step(v, from, d) & empty;
                    }
                }
            } else if men_too && at & promotion == 0 {
                for d in backwards {
                    let from = step(v, at, d) & empty;
                    if from != 0 {
                        f(self.moved_back(mover, at, from, false));
                    }
                }
            }
        }
    }

    fn moved_back(&self, mover: Color, at: u64, from: u64, king: bool) -> Position {
        let mut p = *self;
        match mover {
            Color::White => p.white = (p.white & !at) | from,
            Color::Black => p.black = (p.black & !at) | from,
        }
        if king {
            p.kings = (p.kings & !at) | from;
        }
        p.turn = mover;
        p
    }
}

#[cfg(test)]
mod tests {
    use crate::{Material, Position, Variant};

    /// Every quiet predecessor really has the move, and every quiet move of every position is
    /// found backwards from its result.
    #[test]
    fn predecessors_match_forward_moves() {
        let cases = [
            (
                Variant::International,
                [
                    "W:WK28,33:BK19,10",
                    "B:W32,K46:B18,K5",
                    "W:W21,22,K30:B9,K12",
                ],
            ),
            (
                Variant::Brazilian,
                ["W:WK23,27:BK14,6", "B:W24,K29:B14,K4", "W:W17,18,K26:B5,K9"],
            ),
        ];
        for (v, fens) in cases {
            let mut checked = 0;
            for fen in fens {
                let pos = Position::from_fen(v, fen).unwrap();
                for mv in pos.legal_moves().iter().filter(|m| !m.is_capture()) {
                    let next = pos.play(mv);
                    if Material::of(&next) != Material::of(&pos) {
                        continue;
                    }
                    let mut found = false;
                    next.for_each_quiet_predecessor(|p| found |= p == pos);
                    assert!(found, "{v} {fen}: {mv:?}");
                    checked += 1;
                }
                let mut predecessors = 0;
                pos.for_each_quiet_predecessor(|p| {
                    let leads_here = p.legal_moves().iter().any(|m| p.play(m) == pos);
                    assert!(leads_here || p.must_capture(), "{v} {fen} from {p:?}");
                    predecessors += 1;
                });
                assert!(predecessors > 0, "{v} {fen} has quiet predecessors");
            }
            assert!(checked >= 10, "{v}: only {checked} moves checked");
        }
    }
}
