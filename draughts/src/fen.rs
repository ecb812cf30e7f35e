//! PDN FEN: `W:W31-50,K3:B1-20` — side to move, then each side's pieces.

use std::fmt;

use crate::square::{parse_square, SquareError};
use crate::{
    printable, Color, Piece, PlacementError, Position, Role, Square, SquareStyle, Variant,
};

/// The most characters of unexpected text an error quotes: enough to recognise it, and a
/// runaway line does not make a runaway message.
pub const FOUND_CHARS: usize = 24;

/// Why a FEN could not be read, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenError {
    /// 1-based character position in the text where the problem starts.
    pub column: usize,
    /// What is wrong.
    pub kind: FenErrorKind,
}

/// What is wrong with a FEN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FenErrorKind {
    /// Nothing but white space.
    Empty,
    /// Something other than what the grammar allows here.
    Unexpected {
        /// The text found: a separator alone, or the text up to the next separator, at most
        /// [`FOUND_CHARS`] characters (empty at the end of the FEN).
        found: String,
        /// What the grammar allows there.
        expected: &'static str,
    },
    /// A square missing from a piece list: `W31,,32`, `W31,:B1`.
    EmptyItem {
        /// What stands where the square should (a separator, or empty at the end of the FEN).
        found: String,
    },
    /// A `.` with more text after it: it may only end the FEN.
    DotBeforeEnd,
    /// A square that the variant does not have.
    Square(SquareError),
    /// A range whose end comes before its start.
    BackwardRange {
        /// The range's first square.
        first: u8,
        /// The range's last square, lower than the first.
        last: u8,
    },
    /// The same colour's piece list given twice.
    SideTwice(Color),
    /// A piece that cannot stand where it is put.
    Placement(PlacementError),
    /// A ghost piece (`G12`, `P12`: lidraughts' mark of a piece already taken by a capture
    /// still under way) where only a position between moves is read
    /// ([`Position::from_fen`]; [`crate::FenPosition::from_fen`] reads it).
    GhostPiece {
        /// The ghost as written.
        ghost: String,
    },
    /// A reason a FEN with ghost pieces is not a capture under way that can be answered.
    CaptureUnderWay(CaptureError),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid FEN at column {}: ", self.column)?;
        match &self.kind {
            FenErrorKind::Empty => f.write_str("the FEN is empty"),
            FenErrorKind::Unexpected { found, expected } => {
                if found.is_empty() {
                    write!(f, "the FEN ends where {expected} was expected")
                } else {
                    write!(
                        f,
                        "found '{}' where {expected} was expected",
                        printable(found)
                    )
                }
            }
            FenErrorKind::EmptyItem { found } => {
                f.write_str("empty square item in a piece list: ")?;
                if found.is_empty() {
                    f.write_str("the FEN ends where a square was expected")
                } else {
                    write!(
                        f,
                        "found '{}' where a square was expected",
                        printable(found)
                    )
                }
            }
            FenErrorKind::DotBeforeEnd => f.write_str("unexpected '.': a '.' may only end the FEN"),
            FenErrorKind::Square(e) => e.fmt(f),
            FenErrorKind::BackwardRange { first, last } => {
                write!(f, "range {first}-{last} runs backwards")
            }
            FenErrorKind::SideTwice(c) => {
                write!(f, "the pieces of {} are listed twice", c.letter())
            }
            FenErrorKind::Placement(e) => e.fmt(f),
            FenErrorKind::GhostPiece { ghost } => write!(
                f,
                "'{}' is a ghost piece, a piece already taken by a capture still under way: \
                 the FEN is in the middle of a move, which only a probe answers",
                printable(ghost)
            ),
            FenErrorKind::CaptureUnderWay(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FenError {}

/// Why a FEN with ghost pieces is not a capture under way that can be answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaptureError {
    /// The FEN has no ghost piece: no capture is under way.
    NoGhost,
    /// A ghost in the list of the side to move: ghosts are the pieces the side to move has
    /// taken, so they belong to the other side.
    GhostOfMover(Square),
    /// No piece of the side to move stands just past a ghost with one more piece to take.
    NoCapturingPiece,
    /// Several pieces could be the one capturing, and the FEN does not tell which.
    AmbiguousCapturingPiece(Vec<Square>),
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaptureError::NoGhost => f.write_str(
                "the FEN has no ghost piece (G or P before a square): no capture is under way",
            ),
            CaptureError::GhostOfMover(sq) => write!(
                f,
                "the ghost piece on {sq} is in the list of the side to move: ghosts are pieces \
                 already taken by the capture under way, so they belong to the side not to move"
            ),
            CaptureError::NoCapturingPiece => f.write_str(
                "no piece of the side to move can be the one capturing: none stands just past a \
                 ghost piece with one more piece to take",
            ),
            CaptureError::AmbiguousCapturingPiece(squares) => {
                let names: Vec<String> = squares.iter().map(ToString::to_string).collect();
                write!(
                    f,
                    "the capture under way could be that of the piece on {}: the FEN does not \
                     tell which, and the answers differ",
                    names.join(" or on ")
                )
            }
        }
    }
}

impl std::error::Error for CaptureError {}

/// A cursor over the FEN text that remembers character columns for errors.
struct Reader<'a> {
    chars: Vec<(usize, char)>,
    at: usize,
    text: &'a str,
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).map(|&(_, c)| c)
    }

    fn column(&self) -> usize {
        self.at + 1
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek();
        self.at += usize::from(c.is_some());
        c
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }

    fn error(&self, kind: FenErrorKind) -> FenError {
        FenError {
            column: self.column(),
            kind,
        }
    }

    /// The text at the cursor, for an error: a separator alone (the text after it is not
    /// what is wrong), or the run up to the next separator; empty at the end.
    fn found(&self) -> String {
        match self.peek() {
            None => String::new(),
            Some(c @ (',' | ':')) => c.to_string(),
            Some(_) => {
                let start = self.chars[self.at].0;
                let rest = &self.text[start..];
                let run = rest.split([',', ':']).next().unwrap_or("");
                match run.char_indices().nth(FOUND_CHARS) {
                    Some((cut, _)) => format!("{}...", &run[..cut]),
                    None => run.to_string(),
                }
            }
        }
    }

    fn unexpected(&self, expected: &'static str) -> FenError {
        let found = self.found();
        self.error(FenErrorKind::Unexpected { found, expected })
    }

    /// A run of square-name characters (letters and digits).
    fn word(&mut self) -> (usize, String) {
        let column = self.column();
        let mut word = String::new();
        while let Some(c) = self.peek().filter(char::is_ascii_alphanumeric) {
            word.push(c);
            self.at += 1;
        }
        (column, word)
    }
}

impl Position {
    /// Reads a PDN FEN such as `W:W31-50:B1-20` or `B:BK17,K24:W6,9,10`.
    ///
    /// Accepted: `W` or `B` to move; each side's list once, in either order, possibly empty or
    /// missing; `K` before a king; ranges `31-35`; numeric squares and, for both variants,
    /// algebraic ones (`c3`); surrounding quotes, a final `.`, and the `H..`/`F..` move-counter
    /// fields some programs append (ignored).
    ///
    /// # Errors
    ///
    /// [`FenError`] names the column and what was expected there: an unknown or out-of-range
    /// square, a man on its own promotion row, a square given twice, or any other garbage.
    ///
    /// A ghost piece (`G12`, `P12`, see [`crate::CaptureUnderWay`]) is refused with
    /// [`FenErrorKind::GhostPiece`]: never read as another square.
    pub fn from_fen(variant: Variant, fen: &str) -> Result<Position, FenError> {
        parse(variant, fen, Ghosts::Refused).map(|parsed| parsed.board)
    }

    /// The FEN, squares in ascending order, kings marked `K`, numeric squares.
    pub fn to_fen(&self) -> String {
        self.to_fen_with(SquareStyle::Numeric)
    }

    /// The FEN with squares written in `style`.
    pub fn to_fen_with(&self, style: SquareStyle) -> String {
        let mut fen = String::new();
        fen.push(self.turn.letter());
        for color in [Color::White, Color::Black] {
            fen.push(':');
            fen.push(color.letter());
            let squares: Vec<String> = self
                .side_pieces(color)
                .into_iter()
                .map(|sq| {
                    let king = self.piece_at(sq).is_some_and(|p| p.role == Role::King);
                    let name = sq.display(self.variant, style);
                    if king {
                        format!("K{name}")
                    } else {
                        name
                    }
                })
                .collect();
            fen.push_str(&squares.join(","));
        }
        fen
    }
}

/// Whether ghost pieces may be read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ghosts {
    /// A ghost is an error: only positions between moves.
    Refused,
    /// Ghosts are read, and a man of the side to move may stand on its promotion row (the
    /// capturing man passing it mid-capture); [`crate::CaptureUnderWay`] checks the rest.
    Read,
}

/// What a FEN holds: the pieces (ghosts placed as pieces of their list's colour) and, with
/// [`Ghosts::Read`], which are ghosts.
pub(crate) struct Parsed {
    /// Every piece on the board, ghosts included, and the side to move.
    pub(crate) board: Position,
    /// The internal bits of the ghost pieces.
    pub(crate) ghosts: u64,
    /// The first ghost's column, for errors about the capture as a whole.
    pub(crate) first_ghost: Option<usize>,
    /// Men standing on their own promotion row (only read with [`Ghosts::Read`]), with the
    /// error each is if it is not the capturing piece.
    pub(crate) men_on_promotion_row: Vec<(Square, FenError)>,
}

/// Reads a FEN (see [`Position::from_fen`] for the grammar).
pub(crate) fn parse(variant: Variant, fen: &str, ghosts: Ghosts) -> Result<Parsed, FenError> {
    let mut r = Reader {
        chars: fen.char_indices().collect(),
        at: 0,
        text: fen,
    };
    r.skip_spaces();
    if r.peek().is_none() {
        return Err(r.error(FenErrorKind::Empty));
    }
    let quoted = r.peek() == Some('"');
    if quoted {
        r.bump();
    }
    let turn = match r.peek() {
        Some('W' | 'w') => Color::White,
        Some('B' | 'b') => Color::Black,
        _ => return Err(r.unexpected("the side to move, W or B")),
    };
    r.bump();
    let mut parsed = Parsed {
        board: Position::empty(variant, turn),
        ghosts: 0,
        first_ghost: None,
        men_on_promotion_row: Vec::new(),
    };
    let mut seen = [false; 2];
    loop {
        r.skip_spaces();
        match r.peek() {
            Some(':') => {
                r.bump();
            }
            None | Some('"' | '.') => break,
            _ => return Err(r.unexpected("':' before a piece list")),
        }
        r.skip_spaces();
        let color = match r.peek() {
            Some('W' | 'w') => Color::White,
            Some('B' | 'b') => Color::Black,
            Some('H' | 'F' | 'h' | 'f') => {
                r.bump();
                let (_, counter) = r.word();
                if counter.is_empty() || !counter.chars().all(|c| c.is_ascii_digit()) {
                    return Err(r.unexpected("a move counter number"));
                }
                continue;
            }
            _ => return Err(r.unexpected("W or B starting a piece list")),
        };
        let side = usize::from(color == Color::Black);
        if seen[side] {
            return Err(r.error(FenErrorKind::SideTwice(color)));
        }
        seen[side] = true;
        r.bump();
        read_piece_list(&mut r, &mut parsed, color, ghosts)?;
    }
    if seen == [false; 2] {
        return Err(r.unexpected("':' and a piece list"));
    }
    if quoted {
        if r.peek() != Some('"') {
            return Err(r.unexpected("the closing quote"));
        }
        r.bump();
    }
    if r.peek() == Some('.') {
        let dot = r.error(FenErrorKind::DotBeforeEnd);
        r.bump();
        r.skip_spaces();
        if r.peek().is_some() {
            return Err(dot);
        }
    }
    r.skip_spaces();
    if r.peek().is_some() {
        return Err(r.unexpected("the end of the FEN"));
    }
    Ok(parsed)
}

fn read_piece_list(
    r: &mut Reader<'_>,
    parsed: &mut Parsed,
    color: Color,
    ghosts: Ghosts,
) -> Result<(), FenError> {
    let variant = parsed.board.variant;
    r.skip_spaces();
    if matches!(r.peek(), None | Some(':' | '"' | '.')) {
        return Ok(());
    }
    loop {
        r.skip_spaces();
        if matches!(r.peek(), None | Some(',' | ':' | '"' | '.')) {
            let found = r.found();
            return Err(r.error(FenErrorKind::EmptyItem { found }));
        }
        // Lidraughts marks a piece already taken by a capture under way `G` (a man) or `P`
        // (a king), always upper case: `G7` is a ghost on 7, never the square g7.
        let ghost = matches!(r.peek(), Some('G' | 'P'))
            && r.chars
                .get(r.at + 1)
                .is_some_and(|&(_, c)| c.is_ascii_alphanumeric());
        if ghost && ghosts == Ghosts::Refused {
            let ghost = r.found();
            return Err(r.error(FenErrorKind::GhostPiece { ghost }));
        }
        let ghost_column = r.column();
        let role = if ghost {
            let king = r.peek() == Some('P');
            r.bump();
            if king {
                Role::King
            } else {
                Role::Man
            }
        } else if matches!(r.peek(), Some('K' | 'k')) {
            r.bump();
            Role::King
        } else {
            Role::Man
        };
        let (column, first) = read_square(r, variant)?;
        r.skip_spaces();
        let last = if r.peek() == Some('-') {
            r.bump();
            r.skip_spaces();
            if matches!(r.peek(), Some('K' | 'k')) {
                r.bump();
            }
            let (_, last) = read_square(r, variant)?;
            if last < first {
                return Err(FenError {
                    column,
                    kind: FenErrorKind::BackwardRange {
                        first: first.number(),
                        last: last.number(),
                    },
                });
            }
            last
        } else {
            first
        };
        for number in first.number()..=last.number() {
            let square = Square::new(variant, number).expect("range ends are squares");
            let piece = Piece { color, role };
            let placed = parsed.board.put(square, piece).map_err(|e| FenError {
                column,
                kind: FenErrorKind::Placement(e),
            });
            match placed {
                Ok(()) => {}
                // Mid-capture, the capturing man may be passing its promotion row: placed,
                // and refused later unless it is the capturing piece.
                Err(
                    e @ FenError {
                        kind: FenErrorKind::Placement(PlacementError::ManOnPromotionRow { .. }),
                        ..
                    },
                ) if ghosts == Ghosts::Read && !ghost && color == parsed.board.turn => {
                    parsed.board.put_unchecked(square, piece);
                    parsed.men_on_promotion_row.push((square, e));
                }
                Err(e) => return Err(e),
            }
            if ghost {
                parsed.ghosts |= square.bit(variant);
                parsed.first_ghost.get_or_insert(ghost_column);
            }
        }
        r.skip_spaces();
        match r.peek() {
            Some(',') => {
                r.bump();
            }
            None | Some(':' | '"' | '.') => return Ok(()),
            _ => return Err(r.unexpected("',' or ':' after a square")),
        }
    }
}

fn read_square(r: &mut Reader<'_>, variant: Variant) -> Result<(usize, Square), FenError> {
    let (column, word) = r.word();
    if word.is_empty() {
        return Err(r.unexpected("a square"));
    }
    parse_square(variant, &word)
        .map(|sq| (column, sq))
        .map_err(|e| FenError {
            column,
            kind: FenErrorKind::Square(e),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fen_of(variant: Variant, fen: &str) -> String {
        Position::from_fen(variant, fen).unwrap().to_fen()
    }

    #[test]
    fn start_positions_round_trip() {
        for v in Variant::ALL {
            let pos = Position::from_fen(v, v.start_fen()).unwrap();
            assert_eq!(pos, Position::start(v));
            assert_eq!(Position::from_fen(v, &pos.to_fen()).unwrap(), pos);
        }
    }

    #[test]
    fn piece_lists_in_either_order_and_kings() {
        let v = Variant::International;
        let a = Position::from_fen(v, "B:BK17,K24:W6,9,10,K31").unwrap();
        let b = Position::from_fen(v, "B:W6,9,10,K31:BK17,K24").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_fen(), "B:W6,9,10,K31:BK17,K24");
        assert_eq!(a.turn(), Color::Black);
    }

    #[test]
    fn empty_and_missing_sides() {
        let v = Variant::International;
        assert_eq!(fen_of(v, "W:W31:B"), "W:W31:B");
        assert_eq!(fen_of(v, "W:W31"), "W:W31:B");
        assert_eq!(fen_of(v, "B:B"), "B:W:B");
    }

    #[test]
    fn tolerated_decorations() {
        let v = Variant::International;
        assert_eq!(fen_of(v, " \"W:W31-33:B1,2\". "), "W:W31,32,33:B1,2");
        assert_eq!(fen_of(v, "W:W31, 32 :B1:H0:F1"), "W:W31,32:B1");
        assert_eq!(fen_of(v, "W:WK1-K3:B10"), "W:WK1,K2,K3:B10");
    }

    #[test]
    fn brazilian_numeric_and_algebraic() {
        let v = Variant::Brazilian;
        let numeric = Position::from_fen(v, "W:W21,22,K1:B5,K32").unwrap();
        let algebraic = Position::from_fen(v, "W:Wa3,c3,Kb8:Ba7,Kg1").unwrap();
        assert_eq!(numeric, algebraic);
        let written = numeric.to_fen_with(SquareStyle::Algebraic);
        assert_eq!(written, "W:WKb8,a3,c3:Ba7,Kg1");
        assert_eq!(Position::from_fen(v, &written).unwrap(), numeric);
    }

    fn error(variant: Variant, fen: &str) -> FenError {
        Position::from_fen(variant, fen).unwrap_err()
    }

    #[test]
    fn malformed_fens_are_rejected_with_their_column() {
        let v = Variant::International;
        let e = error(v, "W:W31,51:B1");
        assert_eq!(e.column, 7);
        assert!(matches!(
            e.kind,
            FenErrorKind::Square(SquareError::OutOfRange { ref number, .. }) if number == "51"
        ));
        let e = error(v, "W:W31,0:B1");
        assert!(matches!(
            e.kind,
            FenErrorKind::Square(SquareError::OutOfRange { ref number, .. }) if number == "0"
        ));
        let e = error(v, "W:W31,zz:B1");
        assert!(matches!(
            e.kind,
            FenErrorKind::Square(SquareError::Unknown(_))
        ));
        let e = error(Variant::Brazilian, "W:Wb1:B5");
        assert!(matches!(
            e.kind,
            FenErrorKind::Square(SquareError::LightSquare(_))
        ));
        let e = error(v, "W:W3:B10");
        assert!(matches!(
            e.kind,
            FenErrorKind::Placement(PlacementError::ManOnPromotionRow {
                color: Color::White,
                ..
            })
        ));
        let e = error(v, "W:W31:B47");
        assert!(matches!(
            e.kind,
            FenErrorKind::Placement(PlacementError::ManOnPromotionRow {
                color: Color::Black,
                ..
            })
        ));
        let e = error(v, "W:W31,32:B31");
        assert!(matches!(
            e.kind,
            FenErrorKind::Placement(PlacementError::Occupied(_))
        ));
        assert_eq!(e.column, 11);
        let e = error(v, "W:W31,31:B1");
        assert!(matches!(
            e.kind,
            FenErrorKind::Placement(PlacementError::Occupied(_))
        ));
        assert!(matches!(
            error(v, "W:W35-31:B1").kind,
            FenErrorKind::BackwardRange { .. }
        ));
        assert!(matches!(
            error(v, "W:W31:W32").kind,
            FenErrorKind::SideTwice(Color::White)
        ));
        assert!(matches!(error(v, "").kind, FenErrorKind::Empty));
        for garbage in [
            "hello",
            "X:W31:B1",
            "W",
            "W:",
            "W:W31,:B1",
            "W:W31;B1",
            "W:W31:B1 extra",
            "W::",
            "W:W31-:B1",
            "W:WK:B1",
            "\"W:W31",
            "W:W31:B1:H",
            "W:W3€:B1",
            "31,32",
        ] {
            let Err(e) = Position::from_fen(v, garbage) else {
                panic!("accepted garbage {garbage:?}");
            };
            assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn error_messages_say_what_and_where() {
        let e = error(Variant::International, "W:W31,51:B1");
        assert_eq!(
            e.to_string(),
            "invalid FEN at column 7: square 51 is out of range (1..50)"
        );
        let e = error(Variant::International, "W:W31;B1");
        assert_eq!(
            e.to_string(),
            "invalid FEN at column 6: found ';B1' where ',' or ':' after a square was expected"
        );
    }

    fn message(fen: &str) -> String {
        error(Variant::International, fen).to_string()
    }

    #[test]
    fn separators_and_dots_out_of_place_are_named() {
        assert_eq!(
            message("W:W31.:B20"),
            "invalid FEN at column 6: unexpected '.': a '.' may only end the FEN"
        );
        assert_eq!(
            message("W:W31,,32:B20"),
            "invalid FEN at column 7: empty square item in a piece list: \
             found ',' where a square was expected"
        );
        assert_eq!(
            message("W:W31,:B20"),
            "invalid FEN at column 7: empty square item in a piece list: \
             found ':' where a square was expected"
        );
        assert_eq!(
            message("W:W31,"),
            "invalid FEN at column 7: empty square item in a piece list: \
             the FEN ends where a square was expected"
        );
        assert_eq!(
            message("W:W31::B20"),
            "invalid FEN at column 7: found ':' where W or B starting a piece list was expected"
        );
        assert_eq!(
            message("W:W31-:B1"),
            "invalid FEN at column 7: found ':' where a square was expected"
        );
        // A final '.' is still allowed, after the quotes too.
        assert!(Position::from_fen(Variant::International, "\"W:W31:B20\". ").is_ok());
    }

    #[test]
    fn huge_numbers_are_reported_as_written() {
        assert_eq!(
            message("W:B99999999999999999999"),
            "invalid FEN at column 4: square 99999999999999999999 is out of range (1..50)"
        );
        assert_eq!(
            message("W:W31:B99999999999999999999"),
            "invalid FEN at column 8: square 99999999999999999999 is out of range (1..50)"
        );
    }

    #[test]
    fn control_characters_are_escaped_and_long_garbage_cut() {
        assert_eq!(
            message("W:W\0\x1b[31m:B1"),
            "invalid FEN at column 4: found '\\0\\u{1b}[31m' where a square was expected"
        );
        let long = format!("W:W31:B1 {}", "x".repeat(1000));
        assert_eq!(
            message(&long),
            format!(
                "invalid FEN at column 10: found '{}...' where ',' or ':' after a square was \
                 expected",
                "x".repeat(FOUND_CHARS)
            )
        );
    }
}
