//! Every legal move of a position with what each kind of table says of the position it
//! reaches, from one move list: what `rafle probe`, the line player and an engine's move
//! listing need.

use super::Tablebase;
use crate::codec::{DrawRulesCodec, DtwCodec, WdlCodec};
use crate::{
    resets_counter, CaptureUnderWay, Category, Counters, Dtw, Limits, Move, MoveList, Position,
    ProbeError, RuleOutcome, RuleValue, Wdl,
};

/// One legal move and the values of the position it reaches, for the side to move *there*
/// (so a winning move shows [`Wdl::Loss`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveValues {
    /// The move.
    pub mv: Move,
    /// The position after it.
    pub next: Position,
    /// Win, draw or loss after the move.
    pub wdl: Wdl,
    /// The distance to win after the move.
    pub dtw: Dtw,
    /// The rule-aware value after the move with fresh counters there; `None` without rule
    /// tables.
    pub draw_rules: Option<RuleValue>,
    /// Whether the move resets the draw-rule counter (a man move or a capture).
    pub resets: bool,
}

impl MoveValues {
    /// What the move is worth under the draw rules to the side playing it, counted from the
    /// position before it, whose rule has limit `limit`: that position's value were this its
    /// only move. `None` without rule tables.
    pub fn rule_value_for_mover(&self, limit: u8) -> Option<RuleValue> {
        self.draw_rules
            .map(|next| RuleValue::from_successors(limit, [(next, self.resets)]))
    }

    /// The counters after the move from `pos` (the position it is played in) with live
    /// `counters` there.
    pub fn counters_after(&self, pos: &Position, counters: Counters) -> Counters {
        counters.after(pos, &self.mv, &self.next)
    }

    /// The rule-aware outcome after the move for the side to move there, with the counters
    /// after it (see [`MoveValues::counters_after`]) under `limits`. `None` without rule tables.
    pub fn outcome_after(&self, limits: Limits, counters_after: Counters) -> Option<RuleOutcome> {
        let category = Category::of_position(&self.next);
        self.draw_rules
            .map(|value| RuleOutcome::new(value, category, limits, counters_after))
    }
}

impl Tablebase {
    /// Every legal move of `pos` with the win/draw/loss value, the distance to win and (when
    /// the directory has rule tables for the variant) the rule-aware value of the position it
    /// reaches, in the order `rafle moves` lists them (see [`listing_order`]). The moves are
    /// generated once, and each position reached is probed once for each kind.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_wdl`] and [`Tablebase::probe_dtw`], and as
    /// [`Tablebase::probe_draw_rules`] when there are rule tables.
    ///
    /// ```
    /// # use rafle_probe::{Dtw, Tablebase, Wdl, draughts::{Position, SquareStyle, Variant}};
    /// # let dir = tempfile::tempdir()?;
    /// # let plan = rafle_generator::Plan::new(Variant::Brazilian, 3, dir.path())?;
    /// # rafle_generator::generate(&plan, &rafle_generator::NoProgress)?;
    /// let tables = Tablebase::open(dir.path())?;
    /// let pos = Position::from_fen(Variant::Brazilian, "B:W29:B25,22")?;
    /// let moves = tables.probe_moves_all(&pos)?;
    /// let text: Vec<String> =
    ///     moves.iter().map(|m| pos.move_text(&m.mv, SquareStyle::Numeric)).collect();
    /// assert_eq!(text, ["22-26", "25-30"]);
    /// assert_eq!((moves[1].wdl, moves[1].dtw), (Wdl::Loss, Dtw::Loss(2)));
    /// assert!(moves[1].resets && moves[1].draw_rules.is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn probe_moves_all(&self, pos: &Position) -> Result<Vec<MoveValues>, ProbeError> {
        let limits = self.limits(pos.variant())?;
        self.move_values(pos, &pos.legal_moves(), limits)
    }

    /// Every completion of a capture under way ([`CaptureUnderWay::completions`]) with the
    /// values of the position it reaches, as [`Tablebase::probe_moves_all`] gives a position's
    /// moves: each played on the board with its ghosts, counted from there.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_moves_all`].
    pub fn probe_completions(&self, cap: &CaptureUnderWay) -> Result<Vec<MoveValues>, ProbeError> {
        let limits = self.limits(cap.variant())?;
        self.move_values(&cap.board(), &cap.completions(), limits)
    }

    /// The values after each of `legal`, the legal moves of `pos`, in listing order; rule
    /// values under `limits` if given.
    pub(super) fn move_values(
        &self,
        pos: &Position,
        legal: &MoveList,
        limits: Option<Limits>,
    ) -> Result<Vec<MoveValues>, ProbeError> {
        let mut values = legal
            .iter()
            .map(|mv| {
                let next = pos.play(mv);
                let wdl = self.resolve_loaded::<WdlCodec>(&next, None, None)?;
                let dtw = self.resolve_loaded::<DtwCodec>(&next, None, Some(wdl))?;
                let draw_rules = match limits {
                    Some(_) => {
                        Some(self.resolve_loaded::<DrawRulesCodec>(&next, limits, Some(wdl))?)
                    }
                    None => None,
                };
                Ok(MoveValues {
                    mv: *mv,
                    next,
                    wdl,
                    dtw,
                    draw_rules,
                    resets: resets_counter(pos, mv, &next),
                })
            })
            .collect::<Result<Vec<_>, ProbeError>>()?;
        values.sort_by_cached_key(|m| listing_order(&m.mv));
        Ok(values)
    }

    /// Every legal move with the value for the side to move *after* it (so a winning move
    /// shows [`Wdl::Loss`]), in the move generator's order.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_wdl`].
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<(Move, Wdl)>, ProbeError> {
        pos.legal_moves()
            .iter()
            .map(|mv| Ok((*mv, self.probe_wdl(&pos.play(mv))?)))
            .collect()
    }

    /// Every legal move with the value and distance for the side to move *after* it, in the
    /// move generator's order.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_dtw`].
    pub fn probe_moves_dtw(&self, pos: &Position) -> Result<Vec<(Move, Dtw)>, ProbeError> {
        pos.legal_moves()
            .iter()
            .map(|mv| Ok((*mv, self.probe_dtw(&pos.play(mv))?)))
            .collect()
    }
}

/// The order `rafle moves` lists moves in, as a sort key: start square, end square, then the
/// captured squares. Listing and choosing by it makes answers independent of the move
/// generator's order.
pub fn listing_order(mv: &Move) -> (u8, u8, Vec<u8>) {
    let captured = mv.captured().into_iter().map(|sq| sq.number()).collect();
    (mv.from().number(), mv.to().number(), captured)
}
