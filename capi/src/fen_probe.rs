//! A probe by FEN that also answers a capture under way (lidraughts' ghost pieces), which a
//! `rafle_position` cannot hold.

use std::ffi::{c_char, c_int};

use rafle_probe::answer::{Answer, Options};
use rafle_probe::{
    draughts::{Counters, FenPosition},
    Dtw, RuleOutcome, Tablebase,
};

use crate::error::{guard, Failure, RAFLE_ERR_INTERNAL, RAFLE_ERR_POSITION, RAFLE_OK};
use crate::position::{fen_text, variant};
use crate::probe::{
    counters as live_counters, handle, rules, wdl_code, RafleCounters, RafleRules, RafleTablebase,
};

/// The values of what a FEN holds: the distance to win and, if asked, the rule-aware outcome
/// with `counters`. A position between moves is probed as `rafle_probe_dtw` and
/// `rafle_probe_rules` probe it; a capture under way is worth its best completion, as
/// [`Answer::probe_capture`] gives it.
fn values(
    tables: &Tablebase,
    read: &FenPosition,
    counters: Option<Counters>,
) -> Result<(Dtw, Option<RuleOutcome>), Failure> {
    match read {
        FenPosition::Whole(pos) => {
            let dtw = tables.probe_dtw(pos)?;
            let rules = counters
                .map(|c| tables.probe_draw_rules(pos, c))
                .transpose()?;
            Ok((dtw, rules))
        }
        FenPosition::CaptureUnderWay(cap) => {
            let options = Options {
                counters,
                line: false,
            };
            let answer = Answer::probe_capture(tables, cap, options)?;
            let internal = |what: &str| {
                Failure::new(
                    RAFLE_ERR_INTERNAL,
                    format!("internal error: a capture under way probed without {what}"),
                )
            };
            let dtw = answer.values.ok_or_else(|| internal("values"))?.dtw;
            let rules = match counters {
                Some(_) => Some(
                    answer
                        .rule_outcome()
                        .ok_or_else(|| internal("rule value"))?,
                ),
                None => None,
            };
            Ok((dtw, rules))
        }
    }
}

/// Probes the position a FEN holds, which may be a capture under way: a FEN with lidraughts'
/// ghost pieces (`G27` a man, `P27` a king, taken by the capture still under way), the
/// capturing side to move. Win, draw or loss into `*wdl`, the distance to the end of the game
/// in plies into `*plies` (-1 for a draw) and, if `out_rules` is not null, the rule-aware
/// answer with the live `counters` (null: fresh; refused past their range, as by
/// `rafle_probe_rules`) into `*out_rules`. A position between moves
/// gets the values of `rafle_probe_dtw` and `rafle_probe_rules`; a capture under way those of
/// its best completion, which are the values of the whole move from the position before the
/// capture. A FEN that does not read, or whose capturing piece cannot be told, is
/// `RAFLE_ERR_POSITION` with the text `rafle_position_from_fen` gives.
///
/// # Safety
///
/// `tb` null or a live handle; `fen` null or a NUL-terminated string; `counters` null or
/// valid for reading; `wdl` and `plies` null or valid for writing; `out_rules` null or valid
/// for writing.
#[no_mangle]
pub unsafe extern "C" fn rafle_probe_fen(
    tb: *const RafleTablebase,
    variant_code: c_int,
    fen: *const c_char,
    counters: *const RafleCounters,
    wdl: *mut c_int,
    plies: *mut c_int,
    out_rules: *mut RafleRules,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promises.
        let tables = unsafe { handle(tb) }?;
        let variant = variant(variant_code)?;
        // SAFETY: the caller's promise.
        let text = unsafe { fen_text(fen) }?;
        // SAFETY: the caller's promises.
        let (wdl, plies) = unsafe { (wdl.as_mut(), plies.as_mut()) };
        let wdl = wdl.ok_or_else(|| Failure::null("wdl"))?;
        let plies = plies.ok_or_else(|| Failure::null("plies"))?;
        // SAFETY: the caller's promises.
        let (live, out_rules) = unsafe { (counters.as_ref(), out_rules.as_mut()) };
        let read = FenPosition::from_fen(variant, text)
            .map_err(|e| Failure::new(RAFLE_ERR_POSITION, e.to_string()))?;
        let live = live_counters(live)?;
        let wanted = out_rules.is_some().then_some(live);
        let (dtw, outcome) = values(tables, &read, wanted)?;
        *wdl = wdl_code(dtw.wdl());
        *plies = dtw.plies().map_or(-1, c_int::from);
        if let (Some(out), Some(outcome)) = (out_rules, outcome) {
            *out = rules(outcome);
        }
        Ok(RAFLE_OK)
    })
}
