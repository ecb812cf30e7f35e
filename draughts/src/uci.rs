//! Moves in lidraughts' uci: every square of the move's path written with two digits and run
//! together, the start then every landing square in order (`3126`, `2819`, `4632231405`).
//! Lidraughts numbers the squares as rafle does (docs/rules.md §1), on both boards, so a uci
//! is read and written with the same square numbers as PDN move text.

use crate::{Move, MoveError, Position, Square};

impl Position {
    /// The move in lidraughts' uci: the start and every landing square, two digits each.
    /// A capture that several paths make is written along the first of
    /// [`Position::move_paths`], so the same move always gets the same text.
    pub fn move_uci(&self, mv: &Move) -> String {
        self.move_path(mv)
            .iter()
            .map(|sq| format!("{:02}", sq.number()))
            .collect()
    }

    /// Finds the legal move a lidraughts uci names. Four digits are a start and an end square:
    /// a quiet move, or a capture of one piece. Longer, they are a capture's whole path, which
    /// must be one of the paths that make the move (any of them when several do).
    ///
    /// # Errors
    ///
    /// [`MoveError::UciSyntax`] for anything but an even number (at least four) of digits,
    /// [`MoveError::Square`] for a square the board does not have, [`MoveError::Illegal`]
    /// (listing the legal moves in uci) when no legal move has that path,
    /// [`MoveError::Ambiguous`] when several do.
    pub fn parse_uci(&self, text: &str) -> Result<Move, MoveError> {
        let text = text.trim();
        let digits = text.as_bytes();
        if digits.len() < 4
            || !digits.len().is_multiple_of(2)
            || !digits.iter().all(u8::is_ascii_digit)
        {
            return Err(MoveError::UciSyntax(text.to_string()));
        }
        let squares = digits
            .chunks(2)
            .map(|pair| {
                // Two ASCII digits: both the slice and the number are valid.
                let pair = std::str::from_utf8(pair).unwrap_or_default();
                crate::parse_square(self.variant(), pair).map_err(MoveError::Square)
            })
            .collect::<Result<Vec<Square>, _>>()?;
        let legal = self.legal_moves();
        let candidates: Vec<&Move> = legal
            .iter()
            .filter(|mv| {
                mv.from() == squares[0]
                    && mv.to() == squares[squares.len() - 1]
                    && self.move_paths(mv).contains(&squares)
            })
            .collect();
        match candidates.as_slice() {
            [mv] => Ok(**mv),
            [] => Err(MoveError::Illegal {
                text: text.to_string(),
                legal: legal.iter().map(|mv| self.move_uci(mv)).collect(),
            }),
            many => Err(MoveError::Ambiguous {
                text: text.to_string(),
                candidates: many.iter().map(|mv| self.move_uci(mv)).collect(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SquareStyle, Variant};

    fn pos(variant: Variant, fen: &str) -> Position {
        Position::from_fen(variant, fen).unwrap()
    }

    /// Every legal move's uci reads back as that move, and names the squares of its PDN text.
    fn round_trips(pos: &Position) {
        let legal = pos.legal_moves();
        for mv in legal.iter() {
            let uci = pos.move_uci(mv);
            assert_eq!(pos.parse_uci(&uci), Ok(*mv), "{uci}");
            let text = pos.move_text_among(mv, &legal, SquareStyle::Numeric);
            let first: u8 = text.split(['-', 'x']).next().unwrap().parse().unwrap();
            let last: u8 = text.rsplit(['-', 'x']).next().unwrap().parse().unwrap();
            assert_eq!(uci[..2].parse::<u8>().unwrap(), first, "{uci} {text}");
            assert_eq!(
                uci[uci.len() - 2..].parse::<u8>().unwrap(),
                last,
                "{uci} {text}"
            );
        }
    }

    #[test]
    fn a_king_capture_writes_every_landing_square() {
        // The long diagonal: 46 takes 37, 28, 19 and 10, landing on 32, 23, 14 and 5.
        let p = pos(Variant::International, "W:WK46:B10,19,28,37");
        let legal = p.legal_moves();
        assert_eq!(legal.len(), 1);
        assert_eq!(p.move_uci(&legal[0]), "4632231405");
        assert_eq!(p.move_text(&legal[0], SquareStyle::Numeric), "46x5");
        assert_eq!(p.parse_uci("4632231405"), Ok(legal[0]));
        // Its start and end alone are not its path.
        assert!(matches!(
            p.parse_uci("4605"),
            Err(MoveError::Illegal { legal, .. }) if legal == ["4632231405"]
        ));
        round_trips(&p);
    }

    #[test]
    fn quiet_moves_and_single_captures_have_four_digits() {
        let start = Position::start(Variant::International);
        let mv = start.parse_uci("3227").unwrap();
        assert_eq!(start.move_text(&mv, SquareStyle::Numeric), "32-27");
        assert_eq!(start.move_uci(&mv), "3227");
        round_trips(&start);
        let p = pos(Variant::International, "W:W28:B23");
        let mv = p.parse_uci("2819").unwrap();
        assert_eq!(p.move_text(&mv, SquareStyle::Numeric), "28x19");
        // A square below 10 keeps its leading zero.
        let p = pos(Variant::International, "B:W40:BK5");
        let mv = p.parse_move("5-14").unwrap();
        assert_eq!(p.move_uci(&mv), "0514");
        assert_eq!(p.parse_uci("0514"), Ok(mv));
    }

    #[test]
    fn brazilian_squares_are_numbered_as_lidraughts_does() {
        // Lidraughts' 8x8 board: 1 = b8, 4 = h8, 5 = a7, 29 = a1, 32 = g1.
        let v = Variant::Brazilian;
        for (number, name) in [(1, "b8"), (4, "h8"), (5, "a7"), (29, "a1"), (32, "g1")] {
            assert_eq!(Square::new(v, number).unwrap().algebraic(v), name);
        }
        let start = Position::start(v);
        let mv = start.parse_uci("2218").unwrap();
        assert_eq!(start.move_text(&mv, SquareStyle::Algebraic), "c3-d4");
        round_trips(&start);
        // A man's double capture: 22 takes 18 and 11, landing on 15 and then 8.
        let p = pos(v, "W:W22:B11,18");
        let legal = p.legal_moves();
        assert_eq!(legal.len(), 1);
        assert_eq!(p.move_uci(&legal[0]), "221508");
        assert_eq!(p.move_text(&legal[0], SquareStyle::Numeric), "22x8");
        round_trips(&p);
    }

    #[test]
    fn a_capture_of_several_paths_is_written_along_the_first() {
        // A king going round a ring of four men comes back by either way round: one move
        // (the same start, end and captured men) of two paths.
        let p = pos(Variant::Brazilian, "W:WK22:B18,19,26,27");
        let legal = p.legal_moves();
        let ring = legal
            .iter()
            .find(|mv| p.move_paths(mv).len() > 1)
            .expect("a capture of several paths");
        let paths = p.move_paths(ring);
        let written: String = paths[0]
            .iter()
            .map(|s| format!("{:02}", s.number()))
            .collect();
        assert_eq!(p.move_uci(ring), written);
        for path in &paths {
            let uci: String = path.iter().map(|s| format!("{:02}", s.number())).collect();
            assert_eq!(p.parse_uci(&uci), Ok(*ring), "{uci}");
        }
        round_trips(&p);
    }

    #[test]
    fn malformed_uci_is_refused_with_what_is_wrong() {
        let start = Position::start(Variant::International);
        for bad in ["", "32", "322", "32-27", "3227a", "+3227", "３２２７"] {
            assert!(
                matches!(start.parse_uci(bad), Err(MoveError::UciSyntax(_))),
                "{bad}"
            );
        }
        let err = start.parse_uci("3299").unwrap_err();
        assert!(matches!(err, MoveError::Square(_)), "{err:?}");
        let err = start.parse_uci("0000").unwrap_err();
        assert!(matches!(err, MoveError::Square(_)), "{err:?}");
        // 36 is blocked by the man on 31, which may go to 26 or 27.
        let err = start.parse_uci("3631").unwrap_err();
        assert!(
            err.to_string().contains("'3631' is not a legal move"),
            "{err}"
        );
        assert!(
            matches!(&err, MoveError::Illegal { legal, .. }
                if legal.contains(&"3126".to_string()) && legal.contains(&"3127".to_string())),
            "{err}"
        );
        let err = start.parse_uci("32").unwrap_err();
        assert!(err.to_string().contains("two-digit squares"), "{err}");
        // Squares of the 10x10 board are off the 8x8 one.
        let err = Position::start(Variant::Brazilian)
            .parse_uci("3328")
            .unwrap_err();
        assert!(matches!(err, MoveError::Square(_)), "{err:?}");
    }
}
