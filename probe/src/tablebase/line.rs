//! Best play from the tables: the best move by distance to win, and a game played to its end
//! under the draw rules.

use std::cmp::Reverse;
use std::error::Error;
use std::fmt;

use super::Tablebase;
use crate::format::TableKind;
use crate::{
    CaptureUnderWay, Category, Color, Counters, Dtw, GameOver, Move, MoveList, Position,
    ProbeError, RuleOutcome, SquareStyle, Wdl,
};

use super::moves::{listing_order, MoveValues};

/// The most plies [`Tablebase::play_line`] plays: a game under the draw rules always ends well
/// before.
pub const MAX_LINE_PLIES: usize = 2000;

/// A game played to its end with best play under the draw rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The plies played, in order.
    pub plies: Vec<Ply>,
    /// How the game ended.
    pub end: LineEnd,
}

/// One ply of a [`Line`]: the move and, for the side to move after it, the counters, the
/// rule-aware outcome with them and the distance to win.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ply {
    /// The move.
    pub mv: Move,
    /// The move as written among the legal moves of the position it is played in.
    pub text: String,
    /// The draw-rule counters after the move.
    pub counters: Counters,
    /// Who is to move after the ply.
    pub turn: Color,
    /// The rule-aware value after the ply and the result with [`Ply::counters`].
    pub outcome: RuleOutcome,
    /// The distance to win after the ply.
    pub dtw: Dtw,
}

/// How a [`Line`] ended; its `Display` is the sentence `rafle probe --line` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnd {
    /// The loser has no piece left (a line can start so, from a FEN).
    NoPieceLeft {
        /// The side that won.
        winner: Color,
    },
    /// The side to move is blocked.
    NoMove {
        /// The side that won.
        winner: Color,
    },
    /// The live counter reached its rule's limit while the side to move still had a move.
    DrawRule {
        /// The rule whose counter is live.
        category: Category,
        /// Its limit in plies.
        limit: u8,
    },
    /// [`MAX_LINE_PLIES`] plies were played without the game ending.
    Stopped {
        /// The plies played.
        plies: usize,
    },
}

impl fmt::Display for LineEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LineEnd::NoPieceLeft { winner } => write!(
                f,
                "{} wins: {} has no piece left",
                winner.name(),
                winner.opposite().name()
            ),
            LineEnd::NoMove { winner } => write!(
                f,
                "{} wins: {} has no move",
                winner.name(),
                winner.opposite().name()
            ),
            LineEnd::DrawRule { category, limit } => {
                write!(f, "draw: rule {} ({limit} plies)", category.article())
            }
            LineEnd::Stopped { plies } => write!(f, "stopped after {plies} plies"),
        }
    }
}

/// Why a line could not be played.
#[derive(Debug)]
#[non_exhaustive]
pub enum LineError {
    /// A probe failed.
    Probe(ProbeError),
    /// A position's result under the draw rules is kept by none of its moves: the tables
    /// contradict each other.
    Disagree {
        /// The position, in FEN.
        fen: String,
        /// Its result under the draw rules with `counters`.
        result: Wdl,
        /// The live counters.
        counters: Counters,
    },
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Probe(e) => e.fmt(f),
            LineError::Disagree {
                fen,
                result,
                counters,
            } => write!(
                f,
                "the tables disagree: {fen} is a {result} under the draw rules with counters \
                 {},{} but no move keeps it",
                counters.king_plies, counters.category_plies
            ),
        }
    }
}

impl Error for LineError {
    // A probe's error is passed through as it is: its message and its causes.
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            LineError::Probe(e) => e.source(),
            LineError::Disagree { .. } => None,
        }
    }
}

impl From<ProbeError> for LineError {
    fn from(e: ProbeError) -> LineError {
        LineError::Probe(e)
    }
}

/// A move the line may play: its values, the counters after it and the outcome with them.
type Candidate = (MoveValues, Counters, RuleOutcome);

impl Tablebase {
    /// The best move by distance to win, with the value it keeps for the side to move (the
    /// position's own value, [`Tablebase::probe_dtw`]): in a won position the move that wins
    /// quickest, in a drawn one a move that keeps the draw, in a lost one the move that holds
    /// out longest. Among equally good moves the first in [`listing_order`] is chosen, so the
    /// answer does not depend on the move generator's order.
    ///
    /// `None` when the game is over: the side to move has no legal move, or the opponent has
    /// no piece left.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_dtw`]: the distance tables of the position's material and of
    /// those its moves reach must be there.
    ///
    /// ```
    /// # use rafle_probe::{Dtw, Tablebase, draughts::{Position, SquareStyle, Variant}};
    /// # let dir = tempfile::tempdir()?;
    /// # let plan = rafle_generator::Plan::new(Variant::Brazilian, 3, dir.path())?;
    /// # rafle_generator::generate(&plan, &rafle_generator::NoProgress)?;
    /// let tables = Tablebase::open(dir.path())?;
    /// let pos = Position::from_fen(Variant::Brazilian, "B:W29:B25,22")?;
    /// let (mv, value) = tables.best_move(&pos)?.expect("a legal move");
    /// assert_eq!(pos.move_text(&mv, SquareStyle::Numeric), "25-30");
    /// assert_eq!(value, Dtw::Win(3));
    /// assert_eq!(value, tables.probe_dtw(&pos)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn best_move(&self, pos: &Position) -> Result<Option<(Move, Dtw)>, ProbeError> {
        if pos.game_over().is_some() {
            return Ok(None);
        }
        self.best_among(pos, &pos.legal_moves())
    }

    /// The completion of a capture under way [`Tablebase::best_move`] would choose were the
    /// completions the position's only moves, with the capture's value (the best of its
    /// completions, as [`crate::answer::Answer::probe_capture`] gives it).
    ///
    /// # Errors
    ///
    /// As [`Tablebase::best_move`].
    ///
    /// ```
    /// # use rafle_probe::{Dtw, Tablebase, draughts::{CaptureUnderWay, Position, Variant}};
    /// # let dir = tempfile::tempdir()?;
    /// # let plan = rafle_generator::Plan::new(Variant::Brazilian, 3, dir.path())?;
    /// # rafle_generator::generate(&plan, &rafle_generator::NoProgress)?;
    /// let tables = Tablebase::open(dir.path())?;
    /// // The king on 31 takes the king on 27, then the man on 16: the first jump made.
    /// let cap = CaptureUnderWay::from_fen(Variant::Brazilian, "W:WK20:B16,P27")?;
    /// let before = Position::from_fen(Variant::Brazilian, "W:WK31:B16,K27")?;
    /// let (mv, value) = tables.best_completion(&cap)?;
    /// assert_eq!(value, Dtw::Win(1));
    /// assert_eq!(Some((mv.to(), value)), tables.best_move(&before)?.map(|(m, v)| (m.to(), v)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn best_completion(&self, cap: &CaptureUnderWay) -> Result<(Move, Dtw), ProbeError> {
        let best = self.best_among(&cap.board(), &cap.completions())?;
        Ok(best.expect("a capture under way has a completion"))
    }

    /// The best of `moves`, moves of `pos`, by distance to win; `None` if there is none.
    fn best_among(
        &self,
        pos: &Position,
        moves: &MoveList,
    ) -> Result<Option<(Move, Dtw)>, ProbeError> {
        self.check_pieces(TableKind::Dtw, pos)?;
        // Only the distances are needed: probing the other kinds too would slow an engine's
        // move choice for nothing.
        let mut best: Option<(Move, Dtw)> = None;
        for mv in moves {
            let value = Dtw::from_successors([self.probe_dtw(&pos.play(mv))?]);
            let better = best.is_none_or(|(kept_move, kept)| {
                preference(value)
                    .cmp(&preference(kept))
                    .then_with(|| listing_order(&kept_move).cmp(&listing_order(mv)))
                    .is_gt()
            });
            if better {
                best = Some((*mv, value));
            }
        }
        Ok(best)
    }

    /// Plays the game from `start` with live `counters` to its end under the draw rules: the
    /// side that wins under the rules plays, among the moves that keep the win, the one with
    /// the smallest distance to win, then the smallest rule count; the side that loses the
    /// largest distance, then the largest count; a drawn side the first move in
    /// [`listing_order`] that keeps the draw. Moves are written in `style`.
    ///
    /// # Errors
    ///
    /// [`LineError::Probe`] as [`Tablebase::probe_draw_rules`] and [`Tablebase::probe_dtw`]
    /// (the rule tables must be there), [`LineError::Disagree`] if no move keeps a position's
    /// result.
    ///
    /// ```
    /// # use rafle_probe::{LineEnd, Tablebase, draughts::{Counters, Position, SquareStyle, Variant, Color}};
    /// # let dir = tempfile::tempdir()?;
    /// # let plan = rafle_generator::Plan::new(Variant::Brazilian, 3, dir.path())?;
    /// # rafle_generator::generate(&plan, &rafle_generator::NoProgress)?;
    /// let tables = Tablebase::open(dir.path())?;
    /// let pos = Position::from_fen(Variant::Brazilian, "W:WK1,K2:BK28")?;
    /// let counters = Counters { king_plies: 0, category_plies: 2 };
    /// let line = tables.play_line(&pos, counters, SquareStyle::Numeric)?;
    /// assert_eq!(line.plies.len(), 7);
    /// assert_eq!(line.plies[0].text, "2-9");
    /// assert_eq!(line.end, LineEnd::NoPieceLeft { winner: Color::White });
    /// assert_eq!(line.end.to_string(), "White wins: Black has no piece left");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn play_line(
        &self,
        start: &Position,
        mut counters: Counters,
        style: SquareStyle,
    ) -> Result<Line, LineError> {
        let mut pos = *start;
        let mut plies = Vec::new();
        let end = loop {
            let legal = pos.legal_moves();
            let outcome = match self.line_over(&pos, counters, plies.len())? {
                Ok(end) => break end,
                Err(outcome) => outcome,
            };
            let options = self.candidates(&pos, &legal, counters)?;
            let Some((chosen, after, next_outcome)) = choose(outcome.result, &options) else {
                return Err(LineError::Disagree {
                    fen: pos.to_fen(),
                    result: outcome.result,
                    counters,
                });
            };
            plies.push(Ply {
                mv: chosen.mv,
                text: pos.move_text_among(&chosen.mv, &legal, style),
                counters: *after,
                turn: pos.turn().opposite(),
                outcome: *next_outcome,
                dtw: chosen.dtw,
            });
            pos = chosen.next;
            counters = *after;
        };
        Ok(Line { plies, end })
    }

    /// How the line ends at `pos`, after `played` plies: `Ok(end)` if it does, otherwise
    /// `Err` with the position's outcome under the rules with `counters`.
    fn line_over(
        &self,
        pos: &Position,
        counters: Counters,
        played: usize,
    ) -> Result<Result<LineEnd, RuleOutcome>, ProbeError> {
        let (side, opponent) = (pos.turn(), pos.turn().opposite());
        match pos.game_over() {
            Some(GameOver::NoPiece) => return Ok(Ok(LineEnd::NoPieceLeft { winner: opponent })),
            Some(GameOver::OpponentGone) => return Ok(Ok(LineEnd::NoPieceLeft { winner: side })),
            Some(GameOver::Blocked) => return Ok(Ok(LineEnd::NoMove { winner: opponent })),
            None => {}
        }
        let outcome = self.probe_draw_rules(pos, counters)?;
        if counters.used(outcome.category) >= u16::from(outcome.limit) {
            return Ok(Ok(LineEnd::DrawRule {
                category: outcome.category,
                limit: outcome.limit,
            }));
        }
        if played >= MAX_LINE_PLIES {
            return Ok(Ok(LineEnd::Stopped { plies: played }));
        }
        Ok(Err(outcome))
    }

    /// The moves of `legal` with their values, the counters after them and the outcome there.
    fn candidates(
        &self,
        pos: &Position,
        legal: &MoveList,
        counters: Counters,
    ) -> Result<Vec<Candidate>, ProbeError> {
        let limits = self.rule_limits_for(pos)?;
        self.move_values(pos, legal, Some(limits))?
            .into_iter()
            .map(|values| {
                let after = values.counters_after(pos, counters);
                let outcome = values
                    .outcome_after(limits, after)
                    .ok_or_else(|| self.missing_rule_table(pos))?;
                Ok((values, after, outcome))
            })
            .collect()
    }
}

/// The move a side with result `result` plays among `options` (in listing order): the first
/// of the best, as `min_by_key` keeps the first of equal keys.
fn choose(result: Wdl, options: &[Candidate]) -> Option<&Candidate> {
    let after = |wanted: Wdl| move |(_, _, o): &&Candidate| o.result == wanted;
    match result {
        Wdl::Win => options
            .iter()
            .filter(after(Wdl::Loss))
            .min_by_key(|(m, _, o)| (m.dtw.plies(), o.value.count())),
        Wdl::Loss => options
            .iter()
            .filter(after(Wdl::Win))
            .min_by_key(|(m, _, o)| (Reverse(m.dtw.plies()), Reverse(o.value.count()))),
        Wdl::Draw => options.iter().find(after(Wdl::Draw)),
    }
}

/// Orders values from the mover's side: a win beats a draw beats a loss, a quicker win and a
/// longer loss are better.
fn preference(value: Dtw) -> (u8, i32) {
    match value {
        Dtw::Win(n) => (2, -i32::from(n)),
        Dtw::Draw => (1, 0),
        Dtw::Loss(n) => (0, i32::from(n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preference_orders_values() {
        let mut values = [
            Dtw::Loss(2),
            Dtw::Win(5),
            Dtw::Draw,
            Dtw::Loss(8),
            Dtw::Win(1),
        ];
        values.sort_by_key(|&v| std::cmp::Reverse(preference(v)));
        assert_eq!(
            values,
            [
                Dtw::Win(1),
                Dtw::Win(5),
                Dtw::Draw,
                Dtw::Loss(8),
                Dtw::Loss(2)
            ]
        );
    }

    #[test]
    fn line_ends_read_as_before() {
        let ends = [
            LineEnd::NoPieceLeft {
                winner: Color::White,
            },
            LineEnd::NoMove {
                winner: Color::Black,
            },
            LineEnd::DrawRule {
                category: Category::Outside,
                limit: 50,
            },
            LineEnd::Stopped { plies: 2000 },
        ];
        let text: Vec<String> = ends.iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            [
                "White wins: Black has no piece left",
                "Black wins: White has no move",
                "draw: rule 6.2 (50 plies)",
                "stopped after 2000 plies"
            ]
        );
    }
}
