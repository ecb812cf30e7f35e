//! A position's three values found as the probe finds them: read from its material's tables
//! when they store it, else folded from its successors' values by the probe's own rules (see
//! `rafle_probe::toolkit::codec`).
//!
//! Two readers need this outside the probe, because each has a better source than the probe
//! for the successors' values: the verifier (`verify::outside`), which remembers answers per
//! thread, and the block-by-block read-back of a finished material ([`crate::write::streamed`]),
//! whose other materials are complete in the run's store. The part they share (which
//! positions the tables store, the draw short-cut, the fold over the successors) lives here
//! once; where each successor's values come from is theirs.

use rafle_probe::toolkit::codec::{Codec, DrawRulesCodec, DtwCodec, WdlCodec};
use rafle_probe::toolkit::format::TableKind;
use rafle_probe::{
    draughts::{resets_counter, Position},
    Dtw, ProbeError, RuleValue, Tablebase, Wdl,
};

/// A position's value in each table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Values {
    /// Win, draw or loss.
    pub wdl: Wdl,
    /// Distance to win.
    pub dtw: Dtw,
    /// Class and count under the draw rules.
    pub rule: RuleValue,
}

impl Values {
    /// A drawn position's values.
    pub const DRAW: Values = Values {
        wdl: Wdl::Draw,
        dtw: Dtw::Draw,
        rule: RuleValue::DRAW,
    };

    /// The values of a position whose side to move has no piece: lost at once.
    pub const NO_PIECE: Values = Values {
        wdl: WdlCodec::NO_PIECE,
        dtw: DtwCodec::NO_PIECE,
        rule: DrawRulesCodec::NO_PIECE,
    };
}

/// The values `tables` store for `pos` (both sides have pieces; its side to move must capture
/// if `capture`), or `None` when they leave it out: it must capture, or its side to move is
/// not the one stored. A drawn position reads only its win/draw/loss table, whose draw the
/// other two do not repeat.
///
/// # Errors
///
/// A [`ProbeError`] reading a table, as the probe would report it.
pub(crate) fn stored(
    tables: &Tablebase,
    pos: &Position,
    capture: bool,
) -> Result<Option<Values>, ProbeError> {
    // The three tables of a material store the same side to move, in the same orientation.
    if capture || !tables.stores_side_to_move(TableKind::Dtw, pos)? {
        return Ok(None);
    }
    let wdl = tables.stored_wdl(pos)?;
    if wdl == Wdl::Draw {
        return Ok(Some(Values::DRAW));
    }
    Ok(Some(Values {
        wdl,
        dtw: tables.stored_dtw(pos)?,
        rule: tables.stored_draw_rules(pos)?,
    }))
}

/// The values of `pos` from its successors', under the draw-rule limit `limit` of its
/// category: `successor` gives the values of each position a legal move reaches.
///
/// # Errors
///
/// The first error `successor` returns.
pub(crate) fn through_moves<E>(
    pos: &Position,
    limit: u8,
    mut successor: impl FnMut(&Position) -> Result<Values, E>,
) -> Result<Values, E> {
    let moves = pos.legal_moves();
    let mut successors: Vec<(Values, bool)> = Vec::with_capacity(moves.len());
    for mv in &moves {
        let next = pos.play(mv);
        successors.push((successor(&next)?, resets_counter(pos, mv, &next)));
    }
    Ok(Values {
        wdl: WdlCodec::from_successors(limit, successors.iter().map(|&(v, r)| (v.wdl, r))),
        dtw: DtwCodec::from_successors(limit, successors.iter().map(|&(v, r)| (v.dtw, r))),
        rule: DrawRulesCodec::from_successors(limit, successors.iter().map(|&(v, r)| (v.rule, r))),
    })
}

#[cfg(test)]
mod tests {
    use rafle_probe::draughts::Variant;

    use super::*;

    /// The fold follows the probe's rules: one successor lost in 4 plies makes a win in 5
    /// whatever the others (a draw here), and a position with no successor lost is lost only
    /// when every successor is won.
    #[test]
    fn the_fold_takes_the_quickest_win_and_the_longest_loss() {
        // White to move with two kings against one: several legal moves.
        let pos = Position::from_fen(Variant::Brazilian, "W:WK1,K2:BK32").unwrap();
        let mut first = true;
        let won = through_moves(&pos, 50, |_| {
            let lost = std::mem::take(&mut first);
            Ok::<_, ()>(if lost {
                Values {
                    wdl: Wdl::Loss,
                    dtw: Dtw::Loss(4),
                    rule: RuleValue::loss(4),
                }
            } else {
                Values::DRAW
            })
        })
        .unwrap();
        assert_eq!((won.wdl, won.dtw), (Wdl::Win, Dtw::Win(5)));
        let lost = through_moves(&pos, 50, |_| {
            Ok::<_, ()>(Values {
                wdl: Wdl::Win,
                dtw: Dtw::Win(3),
                rule: RuleValue::win(3),
            })
        })
        .unwrap();
        assert_eq!((lost.wdl, lost.dtw), (Wdl::Loss, Dtw::Loss(4)));
        let drawn = through_moves(&pos, 50, |_| Ok::<_, ()>(Values::DRAW)).unwrap();
        assert_eq!(drawn, Values::DRAW);
        assert_eq!(
            through_moves(&pos, 50, |_| Err("no value")),
            Err("no value")
        );
    }
}
