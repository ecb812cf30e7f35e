//! The answer to a probe of one position: its values, every legal move's, and the game played
//! to its end if asked. `rafle probe` prints it as text or JSON and `rafle serve` sends it as
//! JSON; both build it here, so the command line and the API cannot drift apart.
//!
//! The JSON of an answer is in `json`, behind the crate's `json` feature, so that an engine
//! linking this crate does not build serde.

use std::fmt;
use std::path::PathBuf;

use crate::{
    CaptureUnderWay, Color, Counters, DataDir, Dtw, Limits, LineError, Move, Position, ProbeError,
    RuleClass, RuleValue, SquareStyle, Tablebase, Variant, Wdl,
};

mod capture;
#[cfg(feature = "json")]
pub mod json;

/// What to ask of a position besides its values and its moves'.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// The live draw-rule counters: adds the result under the rules with them.
    pub counters: Option<Counters>,
    /// Whether to play the game to its end ([`Tablebase::play_line`]).
    pub line: bool,
}

/// Why a position could not be answered.
#[derive(Debug)]
#[non_exhaustive]
pub enum AnswerError {
    /// A probe failed: more pieces than the tables cover, a missing or damaged table.
    Probe(ProbeError),
    /// The line could not be played.
    Line(LineError),
    /// A line was asked of a capture under way: a line starts between moves.
    LineOfCapture,
    /// Counters or a line were asked of a variant without rule tables.
    NoRuleTables {
        /// The board.
        variant: Variant,
        /// Where the rule tables were looked for.
        dir: PathBuf,
    },
}

impl AnswerError {
    /// Whether the position has more pieces than the tables cover: the question is out of
    /// reach rather than the tables at fault.
    pub fn is_too_many_pieces(&self) -> bool {
        matches!(
            self,
            AnswerError::Probe(ProbeError::TooManyPieces { .. })
                | AnswerError::Line(LineError::Probe(ProbeError::TooManyPieces { .. }))
        )
    }

    /// The probe error underneath, if any.
    pub fn probe_error(&self) -> Option<&ProbeError> {
        match self {
            AnswerError::Probe(e) | AnswerError::Line(LineError::Probe(e)) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for AnswerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnswerError::Probe(e) => e.fmt(f),
            AnswerError::Line(e) => e.fmt(f),
            AnswerError::LineOfCapture => f.write_str(
                "a line is played from a position between moves, and this one is in the middle \
                 of a capture: ask for the line of the position after one of its completions \
                 (its moves)",
            ),
            AnswerError::NoRuleTables { variant, dir } => write!(
                f,
                "the draw-rule counters and the line need the rule tables, and there is no \
                 {variant} rule table (<material>.rules) in {}",
                crate::printable_path(dir)
            ),
        }
    }
}

impl std::error::Error for AnswerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AnswerError::Probe(e) => e.source(),
            AnswerError::Line(e) => e.source(),
            AnswerError::NoRuleTables { .. } | AnswerError::LineOfCapture => None,
        }
    }
}

impl From<ProbeError> for AnswerError {
    fn from(e: ProbeError) -> AnswerError {
        AnswerError::Probe(e)
    }
}

impl From<LineError> for AnswerError {
    fn from(e: LineError) -> AnswerError {
        AnswerError::Line(e)
    }
}

/// A position's values, its moves' values and its best line, as the tables give them.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The position; for a capture under way, its board with the ghosts still on it
    /// ([`CaptureUnderWay::board`]).
    pub position: Position,
    /// The capture under way, when the FEN was one (its moves are then the completions).
    pub capture: Option<CaptureUnderWay>,
    /// Its values; `None` when it has more pieces than the tables cover.
    pub values: Option<Values>,
    /// The counters asked with, if any.
    pub counters: Option<Counters>,
    /// Every legal move, in [`crate::listing_order`] unless reordered
    /// ([`Answer::order_best_first`]).
    pub moves: Vec<MoveAnswer>,
    /// The game played to its end, if asked.
    pub line: Option<crate::Line>,
    /// The most pieces the variant's tables answer a position of: the fewest of the kinds
    /// an answer reads (win/draw/loss, distance, and rules where there are rule tables).
    pub max_pieces: u32,
}

/// What the tables say of a position, for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Values {
    /// Win, draw or loss, the draw rules ignored.
    pub wdl: Wdl,
    /// The distance to win.
    pub dtw: Dtw,
    /// The rule-aware value; `None` without rule tables.
    pub rules: Option<Rules>,
}

/// The rule-aware value of a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// The limits the rule tables were computed with.
    pub limits: crate::Limits,
    /// Class and count with fresh counters.
    pub value: RuleValue,
    /// The result with the counters asked with, if any.
    pub result: Option<Wdl>,
}

/// One legal move and what the tables say after it.
#[derive(Debug, Clone)]
pub struct MoveAnswer {
    /// The move.
    pub mv: Move,
    /// The move as written among the position's legal moves (`32-28`, `28x19`).
    pub text: String,
    /// The position after it.
    pub next: Position,
    /// Whether it resets the draw-rule counter (a man move or a capture).
    pub resets: bool,
    /// The counters after it, when the answer was asked with counters.
    pub counters_after: Option<Counters>,
    /// The values after it; `None` when the position has more pieces than the tables cover.
    pub values: Option<MoveValues>,
}

impl MoveAnswer {
    /// A move of `before` as the tables value it, written `text`: its values, and with the
    /// counters asked, the counters after it and its result under the rules (`limits`); `limit`
    /// is the limit of the rule in force before it, which its rule value is counted against.
    fn of(
        m: &crate::tablebase::MoveValues,
        text: String,
        before: &Position,
        options: Options,
        limits: Option<Limits>,
        limit: Option<u8>,
    ) -> MoveAnswer {
        let rules = limit.and_then(|l| Some((m.draw_rules?, m.rule_value_for_mover(l)?)));
        let counters_after = options.counters.map(|c| m.counters_after(before, c));
        let result = counters_after
            .zip(limits)
            .and_then(|(after, limits)| m.outcome_after(limits, after))
            .map(|o| o.result);
        MoveAnswer {
            mv: m.mv,
            text,
            next: m.next,
            resets: m.resets,
            counters_after,
            values: Some(MoveValues {
                wdl: m.wdl,
                dtw: m.dtw,
                rules,
                result,
            }),
        }
    }
}

/// What the tables say after a move, for the side to move *there* (a winning move shows a
/// loss), as they store it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveValues {
    /// Win, draw or loss after the move.
    pub wdl: Wdl,
    /// The distance to win after the move.
    pub dtw: Dtw,
    /// The rule-aware value after the move with fresh counters there, and what the move is
    /// worth to the side playing it, counted from the position before it; `None` without rule
    /// tables.
    pub rules: Option<(RuleValue, RuleValue)>,
    /// The result under the rules after the move, with the counters after it, when the
    /// answer was asked with counters.
    pub result: Option<Wdl>,
}

impl Answer {
    /// Looks `pos` and all its moves up, and plays its line if asked.
    ///
    /// # Errors
    ///
    /// [`AnswerError::Probe`] as the probes of [`Tablebase`] (too many pieces, a missing or
    /// damaged table), [`AnswerError::Line`] if the line cannot be played,
    /// [`AnswerError::NoRuleTables`] for counters or a line without rule tables.
    pub fn probe(
        tables: &Tablebase,
        pos: &Position,
        options: Options,
    ) -> Result<Answer, AnswerError> {
        let limits = rule_limits(
            tables,
            pos.variant(),
            options.counters.is_some() || options.line,
        )?;
        // The position first: past the tables' reach it fails with "too many pieces" rather
        // than with a missing table of one of its captures.
        let wdl = tables.probe_wdl(pos)?;
        let dtw = tables.probe_dtw(pos)?;
        let outcome = match limits {
            Some(_) => Some(tables.probe_draw_rules(pos, options.counters.unwrap_or_default())?),
            None => None,
        };
        // A finished game has no moves, whatever the move generator would make of the pieces
        // left on the board (docs/rules.md: the game ends as the last piece is taken).
        let found = if pos.game_over().is_some() {
            Vec::new()
        } else {
            tables.probe_moves_all(pos)?
        };
        let legal: Vec<Move> = found.iter().map(|m| m.mv).collect();
        let moves = found
            .iter()
            .map(|m| {
                let text = pos.move_text_among(&m.mv, &legal, SquareStyle::Numeric);
                MoveAnswer::of(m, text, pos, options, limits, outcome.map(|o| o.limit))
            })
            .collect();
        let line = if options.line {
            let counters = options.counters.unwrap_or_default();
            Some(tables.play_line(pos, counters, SquareStyle::Numeric)?)
        } else {
            None
        };
        Ok(Answer {
            position: *pos,
            capture: None,
            values: Some(Values {
                wdl,
                dtw,
                rules: limits.zip(outcome).map(|(limits, outcome)| Rules {
                    limits,
                    value: outcome.value,
                    result: options.counters.map(|_| outcome.result),
                }),
            }),
            counters: options.counters,
            moves,
            line,
            max_pieces: max_pieces(tables, pos.variant()),
        })
    }

    /// The answer for a position with more pieces than the tables cover: its legal moves,
    /// without values (with counters, the counters after each move); none if the game is over.
    pub fn unknown(tables: &Tablebase, pos: &Position, counters: Option<Counters>) -> Answer {
        let legal = pos.moves_in_play();
        let mut moves: Vec<MoveAnswer> = legal
            .iter()
            .map(|mv| {
                let next = pos.play(mv);
                MoveAnswer {
                    mv: *mv,
                    text: pos.move_text_among(mv, &legal, SquareStyle::Numeric),
                    next,
                    resets: crate::resets_counter(pos, mv, &next),
                    counters_after: counters.map(|c| c.after(pos, mv, &next)),
                    values: None,
                }
            })
            .collect();
        moves.sort_by_cached_key(|m| crate::listing_order(&m.mv));
        Answer {
            position: *pos,
            capture: None,
            values: None,
            counters,
            moves,
            line: None,
            max_pieces: max_pieces(tables, pos.variant()),
        }
    }

    /// Orders the moves best first for the side to move, by what the tables say after each
    /// (for the opponent, to move there): the opponent's losses, quickest first (smallest
    /// distance to win, then smallest rule count); its blessed losses (quickest first); draws;
    /// its cursed wins (longest first); its wins, longest first (largest distance, then
    /// largest count). Without rule tables the classes are win, draw and loss alone. With
    /// counters the result under the rules after the move comes first (the opponent's loss,
    /// then a draw, then its win), so a move that the counters turn into a draw comes after
    /// every move still winning. Moves without values (too many pieces) keep their place.
    /// Ties keep [`crate::listing_order`], so the order never depends on the move
    /// generator's.
    pub fn order_best_first(&mut self) {
        // A stable sort: equal keys stay in listing order.
        self.moves.sort_by_key(|m| m.values.map(best_first_key));
    }

    /// The variant the position was read and probed in.
    pub fn variant(&self) -> Variant {
        self.position.variant()
    }

    /// Whether the game is over in the position (and the answer has no moves); never in the
    /// middle of a capture.
    pub fn game_over(&self) -> bool {
        self.capture.is_none() && self.position.game_over().is_some()
    }

    /// The position's FEN: ghost pieces marked `G`/`P` for a capture under way.
    pub fn fen(&self) -> String {
        match &self.capture {
            Some(cap) => cap.to_fen(),
            None => self.position.to_fen(),
        }
    }

    /// The squares a move of the answer passes through (start, landing squares, end): for a
    /// capture under way, from where its piece stands.
    pub fn move_path(&self, m: &MoveAnswer) -> Vec<crate::Square> {
        match &self.capture {
            Some(cap) => cap.completion_path(&m.mv),
            None => self.position.move_path(&m.mv),
        }
    }

    /// A move of the answer in lidraughts' uci: for a capture under way, the rest of the
    /// capture from where its piece stands, as lidraughts writes it.
    pub fn move_uci(&self, m: &MoveAnswer) -> String {
        match &self.capture {
            Some(cap) => cap.completion_uci(&m.mv),
            None => self.position.move_uci(&m.mv),
        }
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.position.turn()
    }
}

/// The sort key of [`Answer::order_best_first`]: smaller is better for the mover.
fn best_first_key(values: MoveValues) -> (u8, u8, i32, i32) {
    let result = match values.result {
        Some(Wdl::Loss) | None => 0,
        Some(Wdl::Draw) => 1,
        Some(Wdl::Win) => 2,
    };
    let class = match values.rules {
        Some((after, _)) => after.class(),
        None => RuleClass::of_wdl(values.wdl),
    };
    let distance = i32::from(values.dtw.plies().unwrap_or(0));
    let count = values
        .rules
        .and_then(|(after, _)| after.count())
        .map_or(0, i32::from);
    match class {
        RuleClass::Loss => (result, 0, distance, count),
        RuleClass::BlessedLoss => (result, 1, distance, 0),
        RuleClass::Draw => (result, 2, 0, 0),
        RuleClass::CursedWin => (result, 3, -distance, 0),
        RuleClass::Win => (result, 4, -distance, -count),
    }
}

/// The draw-rule limits of the variant's rule tables, `None` without rule tables; or
/// [`AnswerError::NoRuleTables`] when there are none and they are `needed` (counters or a line
/// were asked for).
///
/// # Errors
///
/// [`AnswerError::Probe`] if the rule tables cannot be read or mix limits,
/// [`AnswerError::NoRuleTables`] as above.
pub fn rule_limits(
    tables: &Tablebase,
    variant: Variant,
    needed: bool,
) -> Result<Option<Limits>, AnswerError> {
    let limits = tables.limits(variant)?;
    if limits.is_none() && needed {
        return Err(AnswerError::NoRuleTables {
            variant,
            dir: DataDir::new(tables.dir())
                .variant(variant)
                .path()
                .to_path_buf(),
        });
    }
    Ok(limits)
}

/// The most pieces an answer of the variant can be given for: every kind it reads must
/// reach that far.
pub fn max_pieces(tables: &Tablebase, variant: Variant) -> u32 {
    use crate::format::TableKind;
    let mut kinds = vec![TableKind::Wdl, TableKind::Dtw];
    if !tables
        .materials_of(TableKind::DrawRules, variant)
        .is_empty()
    {
        kinds.push(TableKind::DrawRules);
    }
    kinds
        .into_iter()
        .map(|kind| tables.max_pieces_of(kind, variant))
        .min()
        .unwrap_or(0)
}

/// The category of a value for the side to move, as the API names it: the rule class
/// (hyphenated), or win/draw/loss without rule tables.
pub fn category(wdl: Wdl, rules: Option<RuleValue>) -> &'static str {
    match rules.map(RuleValue::class) {
        Some(RuleClass::Win) => "win",
        Some(RuleClass::CursedWin) => "cursed-win",
        Some(RuleClass::Draw) => "draw",
        Some(RuleClass::BlessedLoss) => "blessed-loss",
        Some(RuleClass::Loss) => "loss",
        None => wdl.name(),
    }
}

/// The unknown category: more pieces than the tables cover.
pub const UNKNOWN: &str = "unknown";

/// Moves as the ply texts of a line, each with the position after it.
pub fn line_positions<'a>(
    start: &Position,
    plies: impl IntoIterator<Item = &'a crate::Ply>,
) -> Vec<Position> {
    let mut pos = *start;
    plies
        .into_iter()
        .map(|ply| {
            pos = pos.play(&ply.mv);
            pos
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brazilian tables up to 2 pieces, every kind, in a directory of their own.
    pub(super) fn brazilian_two() -> (tempfile::TempDir, Tablebase) {
        let dir = tempfile::tempdir().unwrap();
        let plan = rafle_generator::Plan::new(Variant::Brazilian, 2, dir.path()).unwrap();
        rafle_generator::generate(&plan, &rafle_generator::NoProgress).unwrap();
        let tables = Tablebase::open(dir.path()).unwrap();
        (dir, tables)
    }

    fn brazilian(fen: &str) -> Position {
        Position::from_fen(Variant::Brazilian, fen).unwrap()
    }

    #[test]
    fn a_finished_game_has_no_moves() {
        let (_dir, tables) = brazilian_two();
        // White's man could still move on the board, but Black has no piece: the game is over.
        let over = brazilian("W:W28:B");
        assert!(
            !over.legal_moves().is_empty(),
            "the generator gives it moves"
        );
        let options = Options {
            counters: None,
            line: true,
        };
        let answer = Answer::probe(&tables, &over, options).unwrap();
        assert!(answer.game_over());
        assert!(answer.moves.is_empty(), "{:?}", answer.moves);
        assert_eq!(answer.values.unwrap().wdl, Wdl::Win);
        assert!(answer.line.unwrap().plies.is_empty());
        // Past the tables' reach too (three pieces against two-piece tables).
        let unknown = Answer::unknown(&tables, &brazilian("B:W28,K1,K2:B"), None);
        assert!(unknown.game_over() && unknown.moves.is_empty());
        // A game under way keeps its moves, with and without values.
        let live = brazilian("W:W28:B1");
        let answer = Answer::probe(&tables, &live, Options::default()).unwrap();
        assert!(!answer.game_over());
        assert_eq!(answer.moves.len(), live.legal_moves().len());
        let unknown = Answer::unknown(&tables, &brazilian("W:W28,K1:B5"), None);
        assert!(!unknown.moves.is_empty());
    }

    #[test]
    fn an_answer_names_the_variant_it_was_read_in() {
        let (_dir, tables) = brazilian_two();
        let answer = Answer::probe(&tables, &brazilian("W:WK1:BK28"), Options::default()).unwrap();
        assert_eq!(answer.variant(), Variant::Brazilian);
        let international = Position::from_fen(Variant::International, "W:WK1:BK28").unwrap();
        let answer = Answer::unknown(&tables, &international, None);
        assert_eq!(answer.variant(), Variant::International);
    }

    #[test]
    fn counters_without_rule_tables_are_refused_naming_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let plan = rafle_generator::Plan::new(Variant::Brazilian, 2, dir.path()).unwrap();
        rafle_generator::generate(&plan, &rafle_generator::NoProgress).unwrap();
        for rules in std::fs::read_dir(dir.path().join("brazilian")).unwrap() {
            let path = rules.unwrap().path();
            if path.extension().is_some_and(|e| e == "rules") {
                std::fs::remove_file(path).unwrap();
            }
        }
        let tables = Tablebase::open(dir.path()).unwrap();
        assert!(rule_limits(&tables, Variant::Brazilian, false)
            .unwrap()
            .is_none());
        let err = rule_limits(&tables, Variant::Brazilian, true).unwrap_err();
        assert!(
            matches!(&err, AnswerError::NoRuleTables { variant: Variant::Brazilian, dir: d }
                if d == &dir.path().join("brazilian")),
            "{err:?}"
        );
        assert!(err.to_string().contains("no brazilian rule table"), "{err}");
    }
}
