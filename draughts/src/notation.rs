//! Move text: `32-28`, `28x19`, and the full path `47x38x24x13x36` when two legal moves share
//! their start and end squares (docs/rules.md §2).

use std::fmt;

use crate::geometry::{step, Dir};
use crate::square::{parse_square, SquareError};
use crate::{excerpt, Move, Position, Square, SquareStyle};

/// Why a move text matches no single legal move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveError {
    /// Not of the form `a-b`, `axb` or `axbxc…`.
    Syntax(String),
    /// A square the variant does not have.
    Square(SquareError),
    /// Not lidraughts' uci: two-digit squares run together, like `3126` or `4632231405`.
    UciSyntax(String),
    /// Well formed, but no legal move fits; the legal moves are listed.
    Illegal {
        /// The move text.
        text: String,
        /// The legal moves, in the notation of the text: PDN, or lidraughts' uci for
        /// [`Position::parse_uci`].
        legal: Vec<String>,
    },
    /// Several legal moves fit; their full forms are listed.
    Ambiguous {
        /// The move text.
        text: String,
        /// The full forms of the moves that fit.
        candidates: Vec<String>,
    },
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax(text) => write!(
                f,
                "cannot read move '{}' (expected squares joined by '-' or 'x', like 32-28 or \
                 28x19)",
                excerpt(text)
            ),
            MoveError::Square(e) => e.fmt(f),
            MoveError::UciSyntax(text) => write!(
                f,
                "cannot read uci move '{}' (expected two-digit squares run together, the \
                 start then every landing square, like 3126 or 4632231405)",
                excerpt(text)
            ),
            MoveError::Illegal { text, legal } if legal.is_empty() => write!(
                f,
                "'{}' is not legal: the side to move has no legal move",
                excerpt(text)
            ),
            MoveError::Illegal { text, legal } => write!(
                f,
                "'{}' is not a legal move here (legal: {})",
                excerpt(text),
                legal.join(" ")
            ),
            MoveError::Ambiguous { text, candidates } => write!(
                f,
                "'{}' is ambiguous: write the full path, one of {}",
                excerpt(text),
                candidates.join(" ")
            ),
        }
    }
}

impl std::error::Error for MoveError {}

impl Position {
    /// The squares a capture passes through: its start, every landing square, and its end. A
    /// quiet move gives its start and end. Where several paths make the same move, the first in
    /// a fixed direction order is given.
    pub fn move_path(&self, mv: &Move) -> Vec<Square> {
        self.move_paths(mv)
            .into_iter()
            .next()
            .unwrap_or_else(|| vec![mv.from(), mv.to()])
    }

    /// Every path (start, landing squares, end) that makes the move.
    pub fn move_paths(&self, mv: &Move) -> Vec<Vec<Square>> {
        self.paths_after(mv, 0)
    }

    /// The paths of `mv` for a piece that has already taken `taken` (internal bits, part of
    /// the move's captured set): a capture under way goes on from where its piece stands.
    pub(crate) fn paths_after(&self, mv: &Move, taken: u64) -> Vec<Vec<Square>> {
        if !mv.is_capture() {
            return vec![vec![mv.from(), mv.to()]];
        }
        let from = 1u64 << mv.origin_bit();
        let mut finder = PathFinder {
            pos: self,
            goal: 1u64 << mv.target_bit(),
            wanted: mv.captured_bits(),
            empty: !(self.white | self.black) & crate::geometry::board_mask(self.variant) | from,
            is_king: self.kings & from != 0,
            path: vec![from],
            found: Vec::new(),
        };
        finder.search(from, taken);
        finder
            .found
            .into_iter()
            .map(|path| {
                path.into_iter()
                    .map(|bit| Square::from_bit_index(self.variant, bit.trailing_zeros()))
                    .collect()
            })
            .collect()
    }

    /// The move's text in PDN notation, in long form only when another legal move shares its
    /// start and end squares.
    pub fn move_text(&self, mv: &Move, style: SquareStyle) -> String {
        self.move_text_among(mv, &self.legal_moves(), style)
    }

    /// As [`Position::move_text`], with the legal moves already at hand.
    pub fn move_text_among(&self, mv: &Move, legal: &[Move], style: SquareStyle) -> String {
        let v = self.variant;
        let ambiguous = legal
            .iter()
            .any(|m| m != mv && m.from() == mv.from() && m.to() == mv.to());
        if !mv.is_capture() {
            return format!(
                "{}-{}",
                mv.from().display(v, style),
                mv.to().display(v, style)
            );
        }
        let squares = if ambiguous {
            self.move_path(mv)
        } else {
            vec![mv.from(), mv.to()]
        };
        squares
            .iter()
            .map(|sq| sq.display(v, style))
            .collect::<Vec<_>>()
            .join("x")
    }

    /// Finds the legal move a text names: `32-28`, `28x19`, a full path `28x19x10`, in numbers
    /// or algebraic squares. The separator is not checked against the move's kind.
    ///
    /// # Errors
    ///
    /// [`MoveError`]: bad syntax, an unknown square, no legal move that fits, or several.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let text = text.trim();
        let parts: Vec<&str> = text.split(['-', 'x', 'X', ':']).map(str::trim).collect();
        if parts.len() < 2 || parts.iter().any(|p| p.is_empty()) {
            return Err(MoveError::Syntax(text.to_string()));
        }
        let squares = parts
            .iter()
            .map(|p| parse_square(self.variant, p))
            .collect::<Result<Vec<_>, _>>()
            .map_err(MoveError::Square)?;
        let (first, last) = (squares[0], squares[squares.len() - 1]);
        let legal = self.legal_moves();
        let fits = |mv: &Move| {
            mv.from() == first
                && mv.to() == last
                && (squares.len() == 2 || self.move_paths(mv).contains(&squares))
        };
        let candidates: Vec<&Move> = legal.iter().filter(|m| fits(m)).collect();
        match candidates.as_slice() {
            [mv] => Ok(**mv),
            [] => Err(MoveError::Illegal {
                text: text.to_string(),
                legal: legal
                    .iter()
                    .map(|m| self.move_text_among(m, &legal, SquareStyle::Numeric))
                    .collect(),
            }),
            many => Err(MoveError::Ambiguous {
                text: text.to_string(),
                candidates: many
                    .iter()
                    .map(|m| self.move_text_among(m, &legal, SquareStyle::Numeric))
                    .collect(),
            }),
        }
    }
}

/// Replays a known capture to recover its landing squares.
struct PathFinder<'a> {
    pos: &'a Position,
    goal: u64,
    wanted: u64,
    empty: u64,
    is_king: bool,
    path: Vec<u64>,
    found: Vec<Vec<u64>>,
}

impl PathFinder<'_> {
    fn search(&mut self, at: u64, captured: u64) {
        if captured == self.wanted {
            if at == self.goal {
                self.found.push(self.path.clone());
            }
            return;
        }
        let v = self.pos.variant;
        for d in Dir::ALL {
            let mut victim = step(v, at, d);
            if self.is_king {
                while victim & self.empty != 0 {
                    victim = step(v, victim, d);
                }
            }
            if victim & self.wanted & !captured == 0 {
                continue;
            }
            let mut landing = step(v, victim, d) & self.empty;
            while landing != 0 {
                self.path.push(landing);
                self.search(landing, captured | victim);
                self.path.pop();
                landing = if self.is_king {
                    step(v, landing, d) & self.empty
                } else {
                    0
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    #[test]
    fn short_and_long_forms() {
        let v = Variant::International;
        let pos = Position::start(v);
        let mv = pos.parse_move("32-28").unwrap();
        assert_eq!(pos.move_text(&mv, SquareStyle::Numeric), "32-28");
        assert!(pos.parse_move("32-26").is_err());
        // Woldouby after 33-29: the circular capture 24x33x42x31x22x33... is one move.
        let pos = Position::from_fen(
            v,
            "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38",
        )
        .unwrap();
        let after = pos.play(&pos.parse_move("33-29").unwrap());
        let texts: Vec<String> = after
            .legal_moves()
            .iter()
            .map(|m| after.move_text(m, SquareStyle::Numeric))
            .collect();
        assert!(texts.iter().any(|t| t.starts_with("24x")), "{texts:?}");
    }

    #[test]
    fn brazilian_algebraic_moves() {
        let v = Variant::Brazilian;
        let pos = Position::start(v);
        let mv = pos.parse_move("c3-d4").unwrap();
        assert_eq!(pos.move_text(&mv, SquareStyle::Numeric), "22-18");
        assert_eq!(pos.move_text(&mv, SquareStyle::Algebraic), "c3-d4");
    }

    #[test]
    fn move_errors() {
        let pos = Position::start(Variant::International);
        assert!(matches!(pos.parse_move("32"), Err(MoveError::Syntax(_))));
        assert!(matches!(pos.parse_move("32-"), Err(MoveError::Syntax(_))));
        assert!(matches!(pos.parse_move("32-99"), Err(MoveError::Square(_))));
        assert!(matches!(
            pos.parse_move("36-31"),
            Err(MoveError::Illegal { .. })
        ));
    }
}
