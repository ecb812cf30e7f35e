//! The one way a position's value is found, for every table kind and both ways of reading:
//! a finished game ([`Position::game_over`]) answers itself; a position the table of its kind
//! leaves out (the side to move must capture, the side to move the material's tables do not
//! store, a drawn position in the distance and draw-rule tables) follows from its successors or
//! from the win/draw/loss table; the rest is read from the table.
//!
//! The plain probes, the cache-only probes and the move listings all go through
//! [`Tablebase::resolve`], so the order of the checks (and so which error a bad position
//! gets) is the same for each.

use super::{table_path, Reading, Tablebase};
use crate::codec::{
    read_code, table_orientation, white_to_move_in_table, Codec, DrawRulesCodec, DtwCodec, WdlCodec,
};
use crate::format::TableKind;
use crate::{resets_counter, Category, Dtw, Limits, Position, ProbeError, RuleValue, Wdl};

/// What resolving needs of a codec beyond the format itself. Kept here rather than in
/// [`Codec`] because only the probe needs it.
pub(crate) trait Resolve: Codec {
    /// The value when the opponent has no piece left: won, at once.
    fn opponent_gone() -> Self::Value;

    /// Whether combining successors needs the draw-rule limit and which moves reset the
    /// counter; the other kinds skip working them out.
    const COUNTS: bool;
}

impl Resolve for WdlCodec {
    fn opponent_gone() -> Wdl {
        Wdl::Win
    }
    const COUNTS: bool = false;
}

impl Resolve for DtwCodec {
    fn opponent_gone() -> Dtw {
        Dtw::Win(0)
    }
    const COUNTS: bool = false;
}

impl Resolve for DrawRulesCodec {
    const COUNTS: bool = true;

    fn opponent_gone() -> RuleValue {
        RuleValue::win(0)
    }
}

impl Tablebase {
    /// The value of `pos` for the side to move from the tables of `C`'s kind, read as
    /// `reading` says. `limits` are the draw-rule limits, needed only by the draw-rule kind.
    ///
    /// `Ok(None)` only when `reading` is [`Reading::CachedOnly`] and a block needed is not in
    /// the cache (or its table is not open). Nothing is allocated: move lists live on the stack.
    pub(crate) fn resolve<C: Resolve>(
        &self,
        pos: &Position,
        limits: Option<Limits>,
        reading: Reading,
    ) -> Result<Option<C::Value>, ProbeError> {
        // A finished game is answered by its one definition wherever the tables cannot answer
        // it: a side without pieces, or more pieces than they cover. Within the tables a
        // blocked side's loss is stored, so its moves need not be generated here.
        let beyond = pos.piece_count() > self.max_pieces_of(C::KIND, pos.variant());
        let emptied = pos.side_pieces(pos.turn()).is_empty()
            || pos.side_pieces(pos.turn().opposite()).is_empty();
        if beyond || emptied {
            if let Some(end) = pos.game_over() {
                return Ok(Some(if end.side_to_move_wins() {
                    C::opponent_gone()
                } else {
                    C::NO_PIECE
                }));
            }
        }
        self.check_pieces(C::KIND, pos)?;
        if pos.must_capture() {
            return self.through_successors::<C>(pos, limits, reading);
        }
        // A draw needs no distance nor count: the win/draw/loss table tells it, at once when it
        // stores both sides to move.
        let white_to_move = white_to_move_in_table(pos);
        if C::KIND != TableKind::Wdl {
            let Some(wdl_stored) = self.stored_half(TableKind::Wdl, pos, reading)? else {
                return Ok(None);
            };
            // Read at once where stored: the checks above hold for it too.
            let wdl = if wdl_stored.holds_side(white_to_move) {
                self.read_value::<WdlCodec>(pos, reading)?
            } else {
                self.through_successors::<WdlCodec>(pos, None, reading)?
            };
            match wdl {
                Some(Wdl::Draw) => return Ok(Some(C::DRAW)),
                Some(_) => {}
                None => return Ok(None),
            }
        }
        let Some(stored) = self.stored_half(C::KIND, pos, reading)? else {
            return Ok(None);
        };
        if !stored.holds_side(white_to_move) {
            return self.through_successors::<C>(pos, limits, reading);
        }
        self.read_value::<C>(pos, reading)
    }

    /// A left-out position's value from its successors', combined as they come (nothing is
    /// collected), stopping at the first error or block not cached.
    fn through_successors<C: Resolve>(
        &self,
        pos: &Position,
        limits: Option<Limits>,
        reading: Reading,
    ) -> Result<Option<C::Value>, ProbeError> {
        let limit = match limits {
            Some(limits) if C::COUNTS => limits.of(Category::of_position(pos)),
            _ => 0,
        };
        let mut stop = None;
        let value = C::from_successors(
            limit,
            pos.legal_moves().iter().map_while(|mv| {
                let next = pos.play(mv);
                match self.resolve::<C>(&next, limits, reading) {
                    Ok(Some(value)) => Some((value, C::COUNTS && resets_counter(pos, mv, &next))),
                    other => {
                        stop = Some(other);
                        None
                    }
                }
            }),
        );
        match stop {
            Some(Err(e)) => Err(e),
            Some(Ok(_)) => Ok(None),
            None => Ok(Some(value)),
        }
    }

    /// The value the table of `C`'s kind stores for `pos`, decoded; `Ok(None)` as for
    /// [`Tablebase::resolve`].
    fn read_value<C: Resolve>(
        &self,
        pos: &Position,
        reading: Reading,
    ) -> Result<Option<C::Value>, ProbeError> {
        let read = |block: &[u8], bits, i| (read_code(block, bits, i), bits);
        let Some((code, bits)) = self.read_stored(C::KIND, pos, reading, read)? else {
            return Ok(None);
        };
        match C::decode(code, bits) {
            Some(value) => Ok(Some(value)),
            None => {
                let (_, material) = table_orientation(pos);
                let path = table_path(&self.dir, pos.variant(), material, C::KIND);
                Err(ProbeError::invalid_code(C::KIND, &path, code))
            }
        }
    }

    /// The value of `pos` from the tables of `C`'s kind, reading files as needed.
    pub(crate) fn resolve_loaded<C: Resolve>(
        &self,
        pos: &Position,
        limits: Option<Limits>,
    ) -> Result<C::Value, ProbeError> {
        self.resolve::<C>(pos, limits, Reading::Load)?
            .ok_or_else(|| ProbeError::Corrupted {
                path: self.dir.clone(),
                reason: "a block went missing while being read".to_string(),
            })
    }
}
