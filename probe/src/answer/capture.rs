//! The answer to a capture under way (a FEN with ghost pieces, see
//! [`crate::CaptureUnderWay`]): its moves are the completions of the capture, and its value
//! the best of them, as the value of a position is the best of its moves. Every entry point
//! answers a FEN through [`Answer::probe_fen`], so none can read ghosts another way.

use super::{max_pieces, rule_limits, Answer, AnswerError, MoveAnswer, Options};
use super::{Rules, Values};
use crate::{
    CaptureUnderWay, Category, Counters, Dtw, FenPosition, RuleOutcome, RuleValue, SquareStyle,
    Tablebase,
};

impl Answer {
    /// The answer to what a FEN holds: [`Answer::probe`] for a position between moves,
    /// [`Answer::probe_capture`] for a capture under way.
    ///
    /// # Errors
    ///
    /// As those two.
    pub fn probe_fen(
        tables: &Tablebase,
        read: &FenPosition,
        options: Options,
    ) -> Result<Answer, AnswerError> {
        match read {
            FenPosition::Whole(pos) => Answer::probe(tables, pos, options),
            FenPosition::CaptureUnderWay(cap) => Answer::probe_capture(tables, cap, options),
        }
    }

    /// The rule-aware outcome with the counters asked, as [`Tablebase::probe_draw_rules`]
    /// gives it for a position between moves; for a capture under way, that of its value (the
    /// best completion) under the rule of the material the move began in. `None` without
    /// counters or rule values.
    pub fn rule_outcome(&self) -> Option<RuleOutcome> {
        let rules = self.values?.rules?;
        Some(RuleOutcome::new(
            rules.value,
            Category::of_position(&self.position),
            rules.limits,
            self.counters?,
        ))
    }

    /// As [`Answer::unknown`], for what a FEN holds.
    pub fn unknown_fen(
        tables: &Tablebase,
        read: &FenPosition,
        counters: Option<Counters>,
    ) -> Answer {
        match read {
            FenPosition::Whole(pos) => Answer::unknown(tables, pos, counters),
            FenPosition::CaptureUnderWay(cap) => Answer::unknown_capture(tables, cap, counters),
        }
    }

    /// Looks a capture under way up: every completion with the values of the position it
    /// reaches (the other side to move there, probed as any position), and the capture's value
    /// for the side capturing, the best of its completions: the win/draw/loss, the distance
    /// and the rule value it would have as a position whose only moves were the completions.
    /// The draw rule in force is that of the material the move began in (the ghosts still
    /// count); a completion is a capture, so the counters after it follow
    /// [`Counters::after`] as for any capture.
    ///
    /// # Errors
    ///
    /// As [`Answer::probe`]; [`AnswerError::LineOfCapture`] if a line is asked.
    pub fn probe_capture(
        tables: &Tablebase,
        cap: &CaptureUnderWay,
        options: Options,
    ) -> Result<Answer, AnswerError> {
        if options.line {
            return Err(AnswerError::LineOfCapture);
        }
        let board = cap.board();
        let limits = rule_limits(tables, cap.variant(), options.counters.is_some())?;
        let found = tables.probe_completions(cap)?;
        let completions: Vec<_> = found.iter().map(|m| m.mv).collect();
        let category = Category::of_position(&board);
        let wdl = found
            .iter()
            .map(|m| -m.wdl)
            .max()
            .expect("a capture under way has a completion");
        let dtw = Dtw::from_successors(found.iter().map(|m| m.dtw));
        let rules = match limits {
            Some(limits) => {
                let limit = limits.of(category);
                let successors = found
                    .iter()
                    .map(|m| m.draw_rules.map(|after| (after, m.resets)))
                    .collect::<Option<Vec<_>>>();
                successors.map(|successors| {
                    let value = RuleValue::from_successors(limit, successors);
                    let outcome = RuleOutcome::new(
                        value,
                        category,
                        limits,
                        options.counters.unwrap_or_default(),
                    );
                    Rules {
                        limits,
                        value,
                        result: options.counters.map(|_| outcome.result),
                    }
                })
            }
            None => None,
        };
        let moves = found
            .iter()
            .map(|m| {
                let text = cap.completion_text(&m.mv, &completions, SquareStyle::Numeric);
                let limit = limits.map(|l| l.of(category));
                MoveAnswer::of(m, text, &board, options, limits, limit)
            })
            .collect();
        Ok(Answer {
            position: board,
            capture: Some(*cap),
            values: Some(Values { wdl, dtw, rules }),
            counters: options.counters,
            moves,
            line: None,
            max_pieces: max_pieces(tables, cap.variant()),
        })
    }

    /// The answer to a capture under way whose completions reach more pieces than the tables
    /// cover: the completions without values.
    pub fn unknown_capture(
        tables: &Tablebase,
        cap: &CaptureUnderWay,
        counters: Option<Counters>,
    ) -> Answer {
        let board = cap.board();
        let completions = cap.completions();
        let mut moves: Vec<MoveAnswer> = completions
            .iter()
            .map(|mv| {
                let next = cap.play(mv);
                MoveAnswer {
                    mv: *mv,
                    text: cap.completion_text(mv, &completions, SquareStyle::Numeric),
                    next,
                    resets: crate::resets_counter(&board, mv, &next),
                    counters_after: counters.map(|c| c.after(&board, mv, &next)),
                    values: None,
                }
            })
            .collect();
        moves.sort_by_cached_key(|m| crate::listing_order(&m.mv));
        Answer {
            position: board,
            capture: Some(*cap),
            values: None,
            counters,
            moves,
            line: None,
            max_pieces: max_pieces(tables, cap.variant()),
        }
    }
}
