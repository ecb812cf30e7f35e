//! The one way a position's value is found, for every table kind and both ways of reading:
//! a finished game ([`Position::game_over`]) answers itself; a position the table of its kind
//! leaves out (the side to move must capture, the side to move the material's tables do not
//! store, a drawn position in the distance and draw-rule tables) follows from its successors or
//! from the win/draw/loss table; the rest is read from the table.
//!
//! A distance or rule value found from successors reads only the successors that decide it:
//! of a won position, the moves to a lost one (their win/draw/loss told first); of a lost
//! position, every move, whose positions are won (so their win/draw/loss need not be read).
//!
//! The plain probes, the cache-only probes and the move listings all go through
//! [`Tablebase::resolve`], so the order of the checks (and so which error a bad position
//! gets) is the same for each.

use super::{table_path, Lookup, Reading, Tablebase};
use crate::codec::{read_code, table_orientation, Codec, DrawRulesCodec, DtwCodec, WdlCodec};
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
        self.resolve_given::<C>(pos, limits, reading, None)
    }

    /// [`Tablebase::resolve`] of a position whose win/draw/loss `known` the caller already has
    /// (a successor of a position being resolved, a move of a listing), so that the distance
    /// and rule kinds do not read it again. `known` must be the position's true value.
    pub(crate) fn resolve_given<C: Resolve>(
        &self,
        pos: &Position,
        limits: Option<Limits>,
        reading: Reading,
        known: Option<Wdl>,
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
        // A draw needs no distance nor count: the win/draw/loss table tells it.
        let wdl = if C::KIND == TableKind::Wdl {
            None
        } else {
            let wdl = match known {
                Some(wdl) => wdl,
                None => match self.resolve::<WdlCodec>(pos, None, reading)? {
                    Some(wdl) => wdl,
                    None => return Ok(None),
                },
            };
            if wdl == Wdl::Draw {
                return Ok(Some(C::DRAW));
            }
            Some(wdl)
        };
        if !pos.must_capture() {
            match self.read_value::<C>(pos, reading)? {
                Lookup::Read(value) => return Ok(Some(value)),
                Lookup::NotCached => return Ok(None),
                Lookup::OtherHalf => {}
            }
        }
        match wdl {
            None => self.through_successors::<C>(pos, limits, reading),
            Some(wdl) => self.through_deciding_successors::<C>(pos, limits, reading, wdl),
        }
    }

    /// A left-out position's win/draw/loss from its successors', combined as they come
    /// (nothing is collected), stopping at the first error or block not cached.
    fn through_successors<C: Resolve>(
        &self,
        pos: &Position,
        limits: Option<Limits>,
        reading: Reading,
    ) -> Result<Option<C::Value>, ProbeError> {
        let mut stop = None;
        let value = C::from_successors(
            0,
            pos.legal_moves().iter().map_while(|mv| {
                let next = pos.play(mv);
                match self.resolve::<C>(&next, limits, reading) {
                    Ok(Some(value)) => Some((value, false)),
                    other => {
                        stop = Some(other);
                        None
                    }
                }
            }),
        );
        combined(stop, value)
    }

    /// A left-out position's distance or rule value from the successors that decide it, given
    /// its win/draw/loss `wdl` (not a draw): when it is won, the quickest win goes through a
    /// move to a lost position, and a move to a drawn or won one changes nothing (not even the
    /// rule value of a win the rules spoil, which a move to a lost position already makes a
    /// win spoilt); when it is lost, every move reaches a won position.
    fn through_deciding_successors<C: Resolve>(
        &self,
        pos: &Position,
        limits: Option<Limits>,
        reading: Reading,
        wdl: Wdl,
    ) -> Result<Option<C::Value>, ProbeError> {
        let limit = match limits {
            Some(limits) if C::COUNTS => limits.of(Category::of_position(pos)),
            _ => 0,
        };
        let won = wdl == Wdl::Win;
        let mut stop = None;
        let mut fail = |outcome| {
            stop = Some(outcome);
            None
        };
        let value = C::from_successors(
            limit,
            pos.legal_moves()
                .iter()
                .map_while(|mv| {
                    let next = pos.play(mv);
                    let known = if won {
                        match self.resolve::<WdlCodec>(&next, None, reading) {
                            Ok(Some(Wdl::Loss)) => Wdl::Loss,
                            Ok(Some(_)) => return Some(None),
                            Ok(None) => return fail(Ok(None)),
                            Err(e) => return fail(Err(e)),
                        }
                    } else {
                        Wdl::Win
                    };
                    match self.resolve_given::<C>(&next, limits, reading, Some(known)) {
                        Ok(Some(value)) => {
                            Some(Some((value, C::COUNTS && resets_counter(pos, mv, &next))))
                        }
                        other => fail(other),
                    }
                })
                .flatten(),
        );
        combined(stop, value)
    }

    /// The value the table of `C`'s kind stores for `pos`, decoded, if it stores its side to
    /// move.
    fn read_value<C: Resolve>(
        &self,
        pos: &Position,
        reading: Reading,
    ) -> Result<Lookup<C::Value>, ProbeError> {
        let read = |block: &[u8], bits, i| (read_code(block, bits, i), bits);
        let (code, bits) = match self.read_if_stored(C::KIND, pos, reading, read)? {
            Lookup::Read(read) => read,
            Lookup::OtherHalf => return Ok(Lookup::OtherHalf),
            Lookup::NotCached => return Ok(Lookup::NotCached),
        };
        match C::decode(code, bits) {
            Some(value) => Ok(Lookup::Read(value)),
            None => {
                let (_, material) = table_orientation(pos);
                let path = table_path(&self.dir, pos.variant(), material, C::KIND);
                Err(ProbeError::invalid_code(C::KIND, &path, code))
            }
        }
    }

    /// The value of `pos` from the tables of `C`'s kind, reading files as needed; `known` as
    /// for [`Tablebase::resolve_given`].
    pub(crate) fn resolve_loaded<C: Resolve>(
        &self,
        pos: &Position,
        limits: Option<Limits>,
        known: Option<Wdl>,
    ) -> Result<C::Value, ProbeError> {
        self.resolve_given::<C>(pos, limits, Reading::Load, known)?
            .ok_or_else(|| self.block_gone())
    }
}

/// The value combined from successors, unless reading one stopped early: on an error, or
/// (`Ok(None)`) on a block not cached.
fn combined<V, W>(stop: Option<Result<W, ProbeError>>, value: V) -> Result<Option<V>, ProbeError> {
    match stop {
        Some(Err(e)) => Err(e),
        Some(Ok(_)) => Ok(None),
        None => Ok(Some(value)),
    }
}
