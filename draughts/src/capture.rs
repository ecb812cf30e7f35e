//! A capture under way: the position lidraughts sends between the plies of one capture, with
//! the pieces already taken still on the board as *ghosts* (`G12` a man, `P12` a king, in the
//! list of the side that owned them), the capturing piece on the square it has just landed on,
//! and the capturing side still to move (docs/rules.md §2: captured pieces leave the board only
//! when the move ends).
//!
//! Such a FEN does not say which piece is capturing (lidraughts knows it from the last move it
//! played). It is inferred, by this rule:
//!
//! 1. The ghosts belong to the side not to move.
//! 2. The capturing piece is a piece of the side to move that could have just taken a ghost:
//!    a man with a ghost on a diagonal neighbour and the square past that ghost (where it
//!    jumped from) empty; a king with a ghost along a diagonal, only empty squares between,
//!    and the square past the ghost empty. A man keeps its role through the capture (it may
//!    stand on its promotion row, passing it).
//! 3. It can take at least one more piece: jumping only pieces of the other side that are not
//!    ghosts (a ghost is an obstacle and is never jumped twice).
//! 4. Exactly one piece fits 2 and 3; with none, or with several, the FEN is refused (an answer
//!    for the wrong piece would be a wrong value).
//!
//! The completions are the longest ways that piece can go on (the capture began as one of the
//! longest captures, so it must end as one): each takes the ghosts and the pieces it jumps off
//! the board, crowns a man ending on its promotion row, and gives the turn to the other side.

use crate::fen::{parse, CaptureError, Ghosts, Parsed};
use crate::geometry::{step, Dir};
use crate::movegen::continue_capture;
use crate::{
    Color, FenError, FenErrorKind, Move, MoveList, Piece, Position, Role, Square, SquareSet,
    SquareStyle, Variant,
};

/// A position in the middle of a capture (see the module documentation): the board with the
/// ghosts, the capturing piece, and its completions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CaptureUnderWay {
    /// Every piece, the ghosts as pieces of their side; the capturing side to move.
    board: Position,
    /// The internal bits of the ghosts.
    ghosts: u64,
    capturer: Square,
}

impl CaptureUnderWay {
    /// Reads a FEN with ghost pieces, as lidraughts writes it mid-capture
    /// (`W:W28,G32:B19,K4:H0:F30`), and identifies the capturing piece.
    ///
    /// # Errors
    ///
    /// Any error of [`Position::from_fen`] but the ghost pieces, and
    /// [`FenErrorKind::CaptureUnderWay`] when the FEN has no ghost, a ghost of the side to
    /// move, or no single piece that can be capturing. A man of the side to move on its
    /// promotion row is refused unless it is the capturing piece.
    pub fn from_fen(variant: Variant, fen: &str) -> Result<CaptureUnderWay, FenError> {
        let parsed = parse(variant, fen, Ghosts::Read)?;
        if parsed.ghosts == 0 {
            return Err(FenError {
                column: 1,
                kind: FenErrorKind::CaptureUnderWay(CaptureError::NoGhost),
            });
        }
        CaptureUnderWay::of_parsed(parsed)
    }

    fn of_parsed(parsed: Parsed) -> Result<CaptureUnderWay, FenError> {
        let board = parsed.board;
        let ghosts = parsed.ghosts;
        let error = |e: CaptureError| FenError {
            column: parsed.first_ghost.unwrap_or(1),
            kind: FenErrorKind::CaptureUnderWay(e),
        };
        let variant = board.variant;
        let own_ghosts = ghosts & board.side(board.turn);
        if own_ghosts != 0 {
            let bit = own_ghosts.trailing_zeros();
            return Err(error(CaptureError::GhostOfMover(Square::from_bit_index(
                variant, bit,
            ))));
        }
        let candidates: Vec<Square> = board
            .side_pieces(board.turn)
            .into_iter()
            .filter(|&sq| {
                let at = sq.bit(variant);
                let king = board.kings & at != 0;
                could_have_just_taken(&board, ghosts, at, king) && {
                    let mut list = MoveList::new();
                    continue_capture(&board, at, ghosts, &mut list);
                    !list.is_empty()
                }
            })
            .collect();
        for (square, e) in parsed.men_on_promotion_row {
            if !candidates.contains(&square) {
                return Err(e);
            }
        }
        match candidates.as_slice() {
            [] => Err(error(CaptureError::NoCapturingPiece)),
            [capturer] => Ok(CaptureUnderWay {
                board,
                ghosts,
                capturer: *capturer,
            }),
            many => Err(error(CaptureError::AmbiguousCapturingPiece(many.to_vec()))),
        }
    }

    /// The board.
    pub fn variant(&self) -> Variant {
        self.board.variant
    }

    /// The side capturing, to move.
    pub fn turn(&self) -> Color {
        self.board.turn
    }

    /// The square the capturing piece stands on.
    pub fn capturer(&self) -> Square {
        self.capturer
    }

    /// The capturing piece.
    pub fn capturing_piece(&self) -> Piece {
        let king = self.board.kings & self.capturer.bit(self.board.variant) != 0;
        Piece {
            color: self.board.turn,
            role: if king { Role::King } else { Role::Man },
        }
    }

    /// The squares of the ghosts, the pieces already taken.
    pub fn ghosts(&self) -> SquareSet {
        SquareSet::from_bits(self.board.variant, self.ghosts)
    }

    /// The board as it stands, the ghosts on it as pieces of their side: the material the
    /// move began in, whose draw rule counts until the move ends (`Category::of_position`).
    /// Its capturing man may stand on its promotion row, which no position between moves has:
    /// it is a view of the board, not a position to probe.
    pub fn board(&self) -> Position {
        self.board
    }

    /// The longest ways the capture can go on, each a [`Move`] from the capturing piece's
    /// square whose captured set holds the ghosts and the pieces it takes; play them with
    /// [`CaptureUnderWay::play`].
    pub fn completions(&self) -> MoveList {
        let mut list = MoveList::new();
        continue_capture(
            &self.board,
            self.capturer.bit(self.board.variant),
            self.ghosts,
            &mut list,
        );
        list
    }

    /// The position after a completion, the other side to move: the ghosts and the pieces
    /// taken off the board, a man ending on its promotion row crowned.
    #[must_use]
    pub fn play(&self, completion: &Move) -> Position {
        self.board.play(completion)
    }

    /// The squares a completion passes through: the capturing piece's square, every landing
    /// square, and its end (the first path where several make it).
    pub fn completion_path(&self, completion: &Move) -> Vec<Square> {
        self.board
            .paths_after(completion, self.ghosts)
            .into_iter()
            .next()
            .unwrap_or_else(|| vec![completion.from(), completion.to()])
    }

    /// A completion in lidraughts' uci, as lidraughts writes the rest of a capture under way:
    /// from the capturing piece's square, every landing square, two digits each.
    pub fn completion_uci(&self, completion: &Move) -> String {
        self.completion_path(completion)
            .iter()
            .map(|sq| format!("{:02}", sq.number()))
            .collect()
    }

    /// A completion in PDN move text from the capturing piece's square (`28x17`), the whole
    /// path only when another of `completions` has the same end.
    pub fn completion_text(
        &self,
        completion: &Move,
        completions: &[Move],
        style: SquareStyle,
    ) -> String {
        let v = self.board.variant;
        let ambiguous = completions
            .iter()
            .any(|m| m != completion && m.to() == completion.to());
        let squares = if ambiguous {
            self.completion_path(completion)
        } else {
            vec![completion.from(), completion.to()]
        };
        squares
            .iter()
            .map(|sq| sq.display(v, style))
            .collect::<Vec<_>>()
            .join("x")
    }

    /// The FEN as lidraughts writes it: squares in ascending order, kings `K`, ghosts `G`
    /// (a man) and `P` (a king).
    pub fn to_fen(&self) -> String {
        let v = self.board.variant;
        let mut fen = String::new();
        fen.push(self.board.turn.letter());
        for color in [Color::White, Color::Black] {
            fen.push(':');
            fen.push(color.letter());
            let squares: Vec<String> = self
                .board
                .side_pieces(color)
                .into_iter()
                .map(|sq| {
                    let king = self.board.kings & sq.bit(v) != 0;
                    let ghost = self.ghosts & sq.bit(v) != 0;
                    let mark = match (ghost, king) {
                        (true, true) => "P",
                        (true, false) => "G",
                        (false, true) => "K",
                        (false, false) => "",
                    };
                    format!("{mark}{}", sq.number())
                })
                .collect();
            fen.push_str(&squares.join(","));
        }
        fen
    }
}

/// Whether the piece on `at` could have just taken a ghost: past a ghost on a diagonal (next
/// to it for a man, across empty squares for a king), with the square beyond the ghost, where
/// the piece jumped from or passed, empty.
fn could_have_just_taken(board: &Position, ghosts: u64, at: u64, king: bool) -> bool {
    let v = board.variant;
    let occupied = board.white | board.black;
    Dir::ALL.iter().any(|&d| {
        let mut next = step(v, at, d);
        if king {
            while next != 0 && next & occupied == 0 {
                next = step(v, next, d);
            }
        }
        if next & ghosts == 0 {
            return false;
        }
        let beyond = step(v, next, d);
        beyond != 0 && beyond & occupied == 0
    })
}

/// What a FEN holds: a position between moves, or one in the middle of a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FenPosition {
    /// A position between moves.
    Whole(Position),
    /// A capture under way (the FEN has ghost pieces).
    CaptureUnderWay(CaptureUnderWay),
}

impl FenPosition {
    /// Reads a FEN: a position between moves as [`Position::from_fen`] reads it, or, when it
    /// has ghost pieces, a capture under way as [`CaptureUnderWay::from_fen`] reads it.
    ///
    /// # Errors
    ///
    /// As those two.
    pub fn from_fen(variant: Variant, fen: &str) -> Result<FenPosition, FenError> {
        let parsed = parse(variant, fen, Ghosts::Read)?;
        if parsed.ghosts == 0 {
            // Read again strictly, so that a FEN without ghosts gets exactly the answer and the
            // errors it always had (a man on its promotion row among them).
            return Position::from_fen(variant, fen).map(FenPosition::Whole);
        }
        CaptureUnderWay::of_parsed(parsed).map(FenPosition::CaptureUnderWay)
    }
}

#[cfg(test)]
mod tests;
