//! The lines a report gives of a few mismatching positions, worked out for those positions
//! alone, with the values the pages of [`super::full`] give their successors: for a check that
//! does not keep pages (see [`super::kings`]), so that its report is the same.

use std::collections::hash_map::{Entry, HashMap};

use rafle_probe::toolkit::codec::read_code;
use rafle_probe::{draughts::Move, toolkit::Table, ProbeError, Wdl};

use super::codes::{widen_dtw, Codes, Successor};
use super::context::{Context, Target};
use super::outside::Local;
use super::part::Part;
use super::walker::Walker;

/// The report's lines for the mismatching positions `indices` of part `main`, with each index.
///
/// # Errors
///
/// A [`ProbeError`] reading a table.
pub(super) fn lines(
    ctx: &Context,
    main: usize,
    indices: &[u64],
) -> Result<Vec<(u64, String)>, ProbeError> {
    let mut local = ctx.outside.local();
    let mut blocks = Blocks::default();
    indices
        .iter()
        .map(|&i| Ok((i, example(ctx, main, i, &mut blocks, &mut local)?)))
        .collect()
}

/// Decoded table blocks, for the few positions an example reads.
#[derive(Default)]
struct Blocks(HashMap<(usize, u32), Vec<u8>>);

impl Blocks {
    /// The code `table` stores for position `i`.
    fn code(&mut self, table: &Table, i: u64) -> Result<u16, ProbeError> {
        let header = table.header();
        let per_block = u64::from(header.positions_per_block);
        let block = (i / per_block) as u32;
        let key = (std::ptr::from_ref(table) as usize, block);
        let data = match self.0.entry(key) {
            Entry::Occupied(held) => held.into_mut(),
            Entry::Vacant(slot) => slot.insert(table.read_block(block)?),
        };
        Ok(read_code(data, header.bits, (i % per_block) as usize))
    }

    /// The codes a page holds for position `i` of `part` as stored: all three, or in the
    /// derived half the win/draw/loss if stored.
    fn stored(&mut self, part: &Part, i: u64) -> Result<Codes, ProbeError> {
        let mut codes = Codes::DRAW;
        let in_stored = part.in_stored_half(i);
        if in_stored || part.wdl_both {
            codes.wdl = self.code(part.wdl, i)? as u8;
        }
        if in_stored {
            codes.dtw = widen_dtw(self.code(part.dtw, i)?, part.dtw.header().bits);
            codes.rule = self.code(part.rules, i)? as u8;
        }
        Ok(codes)
    }
}

/// The codes the pages of [`super::full`] give position `j` of part `k`: through its captures,
/// as stored (a draw's for a draw), or in the derived half from its moves.
fn page_codes(
    ctx: &Context,
    k: usize,
    j: u64,
    blocks: &mut Blocks,
    local: &mut Local,
) -> Result<Codes, ProbeError> {
    let part = &ctx.parts[k];
    let walker = Walker::new(&part.ranker, j);
    let pos = part.position(&walker)?;
    let moves = pos.legal_moves();
    let mut successors = Vec::new();
    if moves.first().is_some_and(|m| m.is_capture()) {
        for mv in &moves {
            let from = 1u64 << (mv.from().number() - 1);
            let to = 1u64 << (mv.to().number() - 1);
            let taken = mv.captured().to_numbered_bits();
            successors.push(match ctx.leave(part, walker.pieces(), from, to, taken) {
                Target::NoPiece => (Codes::NO_PIECE, true),
                Target::At(t, i, resets) => (page_codes(ctx, t, i, blocks, local)?, resets),
                Target::Elsewhere => ctx.outside.successor(&pos, mv, local)?,
            });
        }
        return Ok(Codes::of(part.combine(&successors, true)));
    }
    if part.in_stored_half(j) {
        let codes = blocks.stored(part, j)?;
        return Ok(if codes.wdl == Wdl::Draw.code() {
            Codes::DRAW
        } else {
            codes
        });
    }
    let successors = quiet_successors(ctx, k, &walker, &moves, blocks, local)?;
    Ok(Codes::of(part.combine(&successors, true)))
}

/// The successors through `moves`, moves that stay in part `k` (none a capture), of the
/// position `walker` stands on, with the codes the pages give them.
fn quiet_successors(
    ctx: &Context,
    k: usize,
    walker: &Walker,
    moves: &[Move],
    blocks: &mut Blocks,
    local: &mut Local,
) -> Result<Vec<Successor>, ProbeError> {
    let mut successors = Vec::with_capacity(moves.len());
    for mv in moves {
        let from = 1u64 << (mv.from().number() - 1);
        let to = 1u64 << (mv.to().number() - 1);
        let next = walker.successor(from, to, false);
        successors.push((page_codes(ctx, k, next, blocks, local)?, false));
    }
    Ok(successors)
}

/// The report's line for mismatching position `i` of part `main`, as [`Part::compare`] writes
/// it with the successors' values the pages give.
fn example(
    ctx: &Context,
    main: usize,
    i: u64,
    blocks: &mut Blocks,
    local: &mut Local,
) -> Result<String, ProbeError> {
    let part = &ctx.parts[main];
    let walker = Walker::new(&part.ranker, i);
    let pos = part.position(&walker)?;
    let stored = blocks.stored(part, i)?;
    let successors = quiet_successors(ctx, main, &walker, &pos.legal_moves(), blocks, local)?;
    Ok(part
        .compare(i, &pos, stored, &successors)?
        .unwrap_or_else(|| format!("{}: stored values disagree with successors", pos.to_fen())))
}
