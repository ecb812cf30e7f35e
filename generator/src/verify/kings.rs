//! The check of a material of kings alone whose pages do not fit the budget: its values held a
//! byte or so a position instead of the pages' four, one side to move whole and the other a few
//! rows at a time.
//!
//! A material of kings alone has one placement of the men, so its index is the side to move,
//! then White's kings, then Black's kings ranked last: the positions of one side to move with
//! the same White kings (a *row*) are consecutive. A Black king move keeps the row, so the
//! positions with Black to move of a row need only the same row with White to move; a White
//! king move goes anywhere in the other half. Hence the half with Black to move is held whole
//! and the half with White to move is made a few rows at a time:
//! - when the tables store White to move, each row's values with White to move (stored codes,
//!   captures resolved) give the derived values with Black to move of the same row; then each
//!   stored position with White to move is checked against the half held whole;
//! - when they store Black to move, that half is read whole (captures resolved); then each row
//!   with White to move is derived from it, and the stored positions with Black to move of the
//!   same row are checked against that row.
//!
//! The materials the captures reach are held whole, both sides to move, made the same way in
//! dependency order. What is held is either every value at once ([`Lanes::ALL`]: 2.25 bytes a
//! position) or, in two passes over the same positions, the win/draw/loss with the distance
//! (1.25 bytes) and then the rule value (1 byte). Each position's values are those the pages
//! of [`super::full`] give it, so the report is the same; a distance past 254 plies cannot be
//! held in a byte, so only materials whose distance tables are 8 bits wide are checked so (a
//! derived distance of 255 plies is reported as a corrupted distance table).

use rafle_probe::toolkit::format::{StoredHalf, TableKind};
use rafle_probe::{
    draughts::{Material, MoveList, Position, Variant},
    toolkit::PositionIndex,
    ProbeError, Tablebase, Wdl,
};
use rayon::prelude::*;

use super::codes::{widen_dtw, Codes, Successor, DTW_DRAW};
use super::context::{self, Context, Target};
use super::outside::Local;
use super::pages::read_codes;
use super::part::Part;
use super::walker::Walker;
use super::Tally;

/// Positions made per unit of parallel work (at least a row).
const CHUNK: u64 = 1 << 16;

/// Units of parallel work per thread made between two writes into what is held.
const CHUNKS_PER_THREAD: usize = 2;

/// Mismatching positions of a pass remembered, to count a position that disagrees in both
/// passes once: 8 MiB. Past it the count is a lower bound (the material fails either way).
const MISMATCHES_KEPT: usize = 1 << 20;

/// The byte of a drawn position's distance.
const DIST_DRAW: u8 = u8::MAX;

/// The values a pass holds of each position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Lanes {
    /// The win/draw/loss (2 bits) and the distance (a byte).
    pub distance: bool,
    /// The rule value (a byte).
    pub rule: bool,
}

impl Lanes {
    /// Every value: one pass.
    pub const ALL: Lanes = Lanes {
        distance: true,
        rule: true,
    };
    /// The first of two passes.
    const DISTANCE: Lanes = Lanes {
        distance: true,
        rule: false,
    };
    /// The second of two passes.
    const RULE: Lanes = Lanes {
        distance: false,
        rule: true,
    };

    /// Bytes `positions` positions take.
    fn bytes(self, positions: u64) -> u64 {
        let mut bytes = 0;
        if self.distance {
            bytes += positions + positions.div_ceil(4);
        }
        if self.rule {
            bytes += positions;
        }
        bytes
    }
}

/// Positions the check of `material` holds whole (its half with Black to move, both halves of
/// the materials its captures reach), if it can be checked so: a material of kings alone whose
/// tables and those of the materials its captures reach have 8-bit distances.
pub(super) fn held_positions(
    tables: &Tablebase,
    variant: Variant,
    material: Material,
) -> Option<u64> {
    if material.men() > 0 {
        return None;
    }
    let mut widths = Vec::new();
    for m in context::reached(tables, variant, &[material]) {
        let dtw = tables.table_of(TableKind::Dtw, variant, m).ok()?;
        widths.push((
            m == material,
            dtw.header().bits,
            PositionIndex::count(variant, m),
        ));
    }
    held(widths)
}

/// Positions the check of part `main` of `ctx` holds whole, as [`held_positions`] counts them,
/// from the tables `ctx` has open.
pub(super) fn held_in(ctx: &Context, main: usize) -> Option<u64> {
    let material = ctx.parts[main].material;
    if material.men() > 0 {
        return None;
    }
    let widths = ctx.closure(main).into_iter().map(|k| {
        let part = &ctx.parts[k];
        (k == main, part.dtw.header().bits, part.index.size())
    });
    held(widths)
}

/// Positions held given the materials of a check (whether each is the one checked, the width
/// of its distance table, its positions): none unless every width is 8 bits.
fn held(widths: impl IntoIterator<Item = (bool, u8, u64)>) -> Option<u64> {
    let mut held = 0;
    for (checked, bits, positions) in widths {
        if bits != 8 {
            return None;
        }
        held += if checked { positions / 2 } else { positions };
    }
    Some(held)
}

/// Memory a check holding `positions` positions with `lanes` takes: what it holds, the codes of
/// the units of work made between two writes into it (both sides to move of a chunk of rows),
/// and the mismatches it remembers.
pub(super) fn memory(positions: u64, lanes: Lanes) -> u64 {
    let work = (rayon::current_num_threads() * CHUNKS_PER_THREAD) as u64;
    let codes = std::mem::size_of::<Codes>() as u64;
    lanes.bytes(positions) + work * 2 * CHUNK * codes + (MISMATCHES_KEPT * 8) as u64
}

/// The passes a check holding `positions` positions makes when `budget` bytes are left to
/// what it holds (as a budget of pages counts the pages alone): one if every value fits, else
/// two.
pub(super) fn passes(positions: u64, budget: u64) -> Vec<Lanes> {
    if Lanes::ALL.bytes(positions) <= budget {
        vec![Lanes::ALL]
    } else {
        vec![Lanes::DISTANCE, Lanes::RULE]
    }
}

/// The least memory of the check of `material`, if it can be checked so (see
/// [`held_positions`]): two passes.
pub(super) fn least_memory(
    tables: &Tablebase,
    variant: Variant,
    material: Material,
) -> Option<u64> {
    held_positions(tables, variant, material).map(|p| memory(p, Lanes::DISTANCE))
}

/// The memory and the number of passes of the check of `material` held a byte or so a
/// position when `budget` bytes of decoded pages are allowed (see [`passes`]), if it can be
/// checked so.
pub(super) fn planned(
    tables: &Tablebase,
    variant: Variant,
    material: Material,
    budget: u64,
) -> Option<(u64, usize)> {
    let held = held_positions(tables, variant, material)?;
    let passes = passes(held, budget);
    let lanes = if passes.len() == 1 {
        Lanes::ALL
    } else {
        Lanes::DISTANCE
    };
    Some((memory(held, lanes), passes.len()))
}

/// Checks every position of part `main` of `ctx`, a material of kings alone, in `passes`,
/// calling `advance` with the number of positions done (the material's positions in all).
pub(super) fn verify(
    ctx: &Context,
    main: usize,
    passes: &[Lanes],
    advance: &(dyn Fn(u64) + Sync),
) -> Result<Tally, ProbeError> {
    let mut deps: Vec<usize> = ctx
        .closure(main)
        .into_iter()
        .filter(|&k| k != main)
        .collect();
    // Parts are in dependency order: a capture leads to an earlier one.
    deps.sort_unstable();
    let mut tally = Tally::default();
    let mut mismatched: Vec<u64> = Vec::new();
    for (p, &lanes) in passes.iter().enumerate() {
        let share = |n: u64| {
            let count = passes.len() as u64;
            advance(n * (p as u64 + 1) / count - n * p as u64 / count);
        };
        let mut held: Vec<Option<Held>> = (0..ctx.parts.len()).map(|_| None).collect();
        for &k in &deps {
            held[k] = Some(hold_whole(ctx, k, &held, lanes)?);
        }
        let mut found = check_main(ctx, main, &held, lanes, &share)?;
        drop(held);
        found.indices.sort_unstable();
        if p == 0 {
            tally.checked = found.checked;
            tally.captures = found.captures;
            tally.mismatches = found.mismatches;
            mismatched = found.indices;
            if found.mismatches > MISMATCHES_KEPT as u64 {
                break;
            }
        } else {
            mismatched.extend(found.indices);
            mismatched.sort_unstable();
            mismatched.dedup();
            tally.mismatches = (mismatched.len() as u64).max(found.mismatches);
        }
    }
    let lowest = &mismatched[..mismatched.len().min(super::EXAMPLES)];
    tally.examples = super::example::lines(ctx, main, lowest)?;
    super::full::check_derived_blocks(&ctx.parts[main])?;
    Ok(tally)
}

/// Values held of consecutive positions, each lane full length or empty.
struct Held {
    lanes: Lanes,
    /// Win/draw/loss codes, 2 bits each.
    wdl: Vec<u8>,
    /// Distances in plies, [`DIST_DRAW`] for a draw.
    dist: Vec<u8>,
    /// Rule codes.
    rule: Vec<u8>,
}

impl Held {
    fn new(lanes: Lanes, len: u64) -> Held {
        let len = len as usize;
        let lane = |on: bool, n: usize| if on { vec![0u8; n] } else { Vec::new() };
        Held {
            lanes,
            wdl: lane(lanes.distance, len.div_ceil(4)),
            dist: lane(lanes.distance, len),
            rule: lane(lanes.rule, len),
        }
    }

    /// The codes of position `j`, those of the lanes not held a draw's.
    #[inline]
    fn get(&self, j: u64) -> Codes {
        let j = j as usize;
        let mut codes = Codes::DRAW;
        if self.lanes.distance {
            codes.wdl = self.wdl[j / 4] >> (2 * (j % 4)) & 3;
            let d = self.dist[j];
            codes.dtw = if d == DIST_DRAW {
                DTW_DRAW
            } else {
                u16::from(d)
            };
        }
        if self.lanes.rule {
            codes.rule = self.rule[j];
        }
        codes
    }

    /// Keeps `codes` for the positions from `first`; a distance that does not fit a byte is
    /// returned as an error.
    fn put(&mut self, first: u64, codes: &[Codes]) -> Result<(), u16> {
        let first = first as usize;
        if self.lanes.distance {
            for (k, c) in codes.iter().enumerate() {
                let j = first + k;
                self.dist[j] = if c.dtw == DTW_DRAW {
                    DIST_DRAW
                } else {
                    u8::try_from(c.dtw)
                        .ok()
                        .filter(|&d| d != DIST_DRAW)
                        .ok_or(c.dtw)?
                };
                let shift = 2 * (j % 4);
                self.wdl[j / 4] = self.wdl[j / 4] & !(3 << shift) | (c.wdl & 3) << shift;
            }
        }
        if self.lanes.rule {
            for (k, c) in codes.iter().enumerate() {
                self.rule[first + k] = c.rule;
            }
        }
        Ok(())
    }
}

/// What checking positions found.
#[derive(Debug, Default)]
struct Found {
    checked: u64,
    captures: u64,
    mismatches: u64,
    /// The mismatching positions, at most [`MISMATCHES_KEPT`].
    indices: Vec<u64>,
}

impl Found {
    fn mismatch(&mut self, i: u64) {
        self.mismatches += 1;
        if self.indices.len() < MISMATCHES_KEPT {
            self.indices.push(i);
        }
    }

    fn merge(&mut self, other: Found) {
        self.checked += other.checked;
        self.captures += other.captures;
        self.mismatches += other.mismatches;
        let room = MISMATCHES_KEPT - self.indices.len();
        self.indices.extend(other.indices.into_iter().take(room));
    }
}

/// `len` positions from `first` cut into ranges of `step` (the last shorter).
fn ranges(first: u64, len: u64, step: u64) -> Vec<(u64, u64)> {
    (0..len)
        .step_by(step as usize)
        .map(|k| (first + k, step.min(len - k)))
        .collect()
}

/// Runs `work` on `ranges` in parallel, a few per thread at a time; returns what it found,
/// merged in order.
fn in_batches(
    ranges: &[(u64, u64)],
    work: impl Fn(u64, u64) -> Result<Found, ProbeError> + Sync,
) -> Result<Found, ProbeError> {
    let batch = (rayon::current_num_threads() * CHUNKS_PER_THREAD).max(1);
    let mut found = Found::default();
    for group in ranges.chunks(batch) {
        let results = group
            .par_iter()
            .map(|&(first, len)| work(first, len))
            .collect::<Result<Vec<_>, _>>()?;
        for f in results {
            found.merge(f);
        }
    }
    Ok(found)
}

/// Fills `held` (whose position 0 is position `base` of `part`) over `ranges` with the codes
/// `work` makes of each, given what is held so far; returns what `work` found, merged in order.
fn fill(
    part: &Part,
    held: &mut Held,
    base: u64,
    ranges: &[(u64, u64)],
    work: impl Fn(&Held, u64, u64) -> Result<(Vec<Codes>, Found), ProbeError> + Sync,
) -> Result<Found, ProbeError> {
    let batch = (rayon::current_num_threads() * CHUNKS_PER_THREAD).max(1);
    let mut found = Found::default();
    for group in ranges.chunks(batch) {
        let results = {
            let held = &*held;
            group
                .par_iter()
                .map(|&(first, len)| work(held, first, len))
                .collect::<Result<Vec<_>, _>>()?
        };
        for (&(first, _), (codes, f)) in group.iter().zip(results) {
            held.put(first - base, &codes)
                .map_err(|plies| too_long(part, plies))?;
            found.merge(f);
        }
    }
    Ok(found)
}

/// The error for a distance no byte holds, in a material whose distance table is 8 bits wide.
fn too_long(part: &Part, plies: u16) -> ProbeError {
    ProbeError::Corrupted {
        path: part.dtw.path().to_path_buf(),
        reason: format!("its values give a distance of {plies} plies, more than its 8 bits hold"),
    }
}

/// Part `k` held whole, both sides to move, from its tables and `held` (the materials its
/// captures reach).
fn hold_whole(
    ctx: &Context,
    k: usize,
    held: &[Option<Held>],
    lanes: Lanes,
) -> Result<Held, ProbeError> {
    let part = &ctx.parts[k];
    let half = part.half;
    let mut whole = Held::new(lanes, part.index.size());
    let (stored, derived) = match part.stored {
        StoredHalf::Black => (half, 0),
        _ => (0, half),
    };
    let walk = || Walk::new(ctx, k, held);
    fill(
        part,
        &mut whole,
        0,
        &ranges(stored, half, CHUNK),
        |_, first, len| Ok((walk().stored_values(first, len)?, Found::default())),
    )?;
    fill(
        part,
        &mut whole,
        0,
        &ranges(derived, half, CHUNK),
        |own, first, len| {
            let mut found = Found::default();
            let lookup = |j| Some(own.get(j));
            let codes = walk().derived_values(first, len, lookup, false, &mut found)?;
            Ok((codes, found))
        },
    )?;
    Ok(whole)
}

/// Checks part `main`: the half with Black to move held whole, the other made a chunk of rows
/// at a time (see the module documentation).
fn check_main(
    ctx: &Context,
    main: usize,
    held: &[Option<Held>],
    lanes: Lanes,
    advance: &(dyn Fn(u64) + Sync),
) -> Result<Found, ProbeError> {
    let part = &ctx.parts[main];
    let half = part.half;
    let row = part.ranker.black_king_configs.max(1);
    let rows = (CHUNK / row).max(1);
    let chunks = ranges(0, half, rows * row);
    let check_wdl = part.wdl_both && lanes.distance;
    let walk = || Walk::new(ctx, main, held);
    let mut black = Held::new(lanes, half);
    if part.stored == StoredHalf::Black {
        fill(
            part,
            &mut black,
            half,
            &shifted(&chunks, half),
            |_, first, len| {
                let codes = walk().stored_values(first, len)?;
                advance(len);
                Ok((codes, Found::default()))
            },
        )?;
        let black = &black;
        in_batches(&chunks, |first, len| {
            let mut found = Found::default();
            let mut walk = walk();
            let lookup = |j: u64| Some(black.get(j.checked_sub(half)?));
            let white = walk.derived_values(first, len, lookup, check_wdl, &mut found)?;
            let row_of = |j: u64| {
                let offset = usize::try_from(j.checked_sub(first)?).ok()?;
                white.get(offset).copied()
            };
            walk.check_stored(half + first, len, row_of, lanes, &mut found)?;
            advance(len);
            Ok(found)
        })
    } else {
        let mut found = fill(
            part,
            &mut black,
            half,
            &shifted(&chunks, half),
            |_, first, len| {
                let white_first = first - half;
                let mut walk = walk();
                let white = walk.stored_values(white_first, len)?;
                let row_of = |j: u64| {
                    let offset = usize::try_from(j.checked_sub(white_first)?).ok()?;
                    white.get(offset).copied()
                };
                let mut found = Found::default();
                let codes = walk.derived_values(first, len, row_of, check_wdl, &mut found)?;
                advance(len);
                Ok((codes, found))
            },
        )?;
        let black = &black;
        found.merge(in_batches(&chunks, |first, len| {
            let mut found = Found::default();
            let lookup = |j: u64| Some(black.get(j.checked_sub(half)?));
            walk().check_stored(first, len, lookup, lanes, &mut found)?;
            advance(len);
            Ok(found)
        })?);
        Ok(found)
    }
}

/// `ranges` moved by `by`.
fn shifted(ranges: &[(u64, u64)], by: u64) -> Vec<(u64, u64)> {
    ranges
        .iter()
        .map(|&(first, len)| (first + by, len))
        .collect()
}

/// The codes the tables store for the `len` positions of `part` from `first`: all three if
/// `all`, else the win/draw/loss alone if the table stores both halves (else none).
fn read_stored(part: &Part, first: u64, len: u64, all: bool) -> Result<Vec<Codes>, ProbeError> {
    let len = len as usize;
    let mut codes = vec![Codes::ZERO; len];
    if all || part.wdl_both {
        read_codes(part.wdl, first, len, |j, c| codes[j].wdl = c as u8)?;
    }
    if all {
        let bits = part.dtw.header().bits;
        read_codes(part.dtw, first, len, |j, c| {
            codes[j].dtw = widen_dtw(c, bits)
        })?;
        read_codes(part.rules, first, len, |j, c| codes[j].rule = c as u8)?;
    }
    Ok(codes)
}

/// What a unit of work walks positions with: each position's moves, its successors, and the
/// values resolved through the probe.
struct Walk<'c> {
    ctx: &'c Context<'c>,
    /// The part walked.
    k: usize,
    /// What is held of the materials the captures reach.
    held: &'c [Option<Held>],
    local: std::sync::MutexGuard<'c, Local>,
    moves: MoveList,
    successors: Vec<Successor>,
}

impl<'c> Walk<'c> {
    fn new(ctx: &'c Context<'c>, k: usize, held: &'c [Option<Held>]) -> Walk<'c> {
        Walk {
            ctx,
            k,
            held,
            local: ctx.outside.local(),
            moves: MoveList::new(),
            successors: Vec::new(),
        }
    }

    fn part(&self) -> &'c Part<'c> {
        &self.ctx.parts[self.k]
    }

    /// Calls `each` with the offset, walker and position of each of the `len` positions from
    /// `first`, in order, and the walk.
    fn each(
        &mut self,
        first: u64,
        len: u64,
        mut each: impl FnMut(&mut Self, usize, &Walker, &Position) -> Result<(), ProbeError>,
    ) -> Result<(), ProbeError> {
        let part = self.part();
        let mut walker = Walker::new(&part.ranker, first);
        for offset in 0..len as usize {
            if offset > 0 {
                walker.advance();
            }
            let pos = part.position(&walker)?;
            each(self, offset, &walker, &pos)?;
        }
        Ok(())
    }

    /// Generates the moves of `pos`; returns whether they are captures.
    fn moves(&mut self, pos: &Position) -> bool {
        pos.legal_moves_into(&mut self.moves);
        self.moves.first().is_some_and(|m| m.is_capture())
    }

    /// The values of the position at `walker`, `pos`, whose moves (generated) are captures:
    /// the best of them, each from what is held of the material it reaches (through the
    /// probe's rules for one not held).
    fn captured(&mut self, walker: &Walker, pos: &Position) -> Result<Codes, ProbeError> {
        let (ctx, part) = (self.ctx, self.part());
        self.successors.clear();
        for mv in &self.moves {
            let from = 1u64 << (mv.from().number() - 1);
            let to = 1u64 << (mv.to().number() - 1);
            let taken = mv.captured().to_numbered_bits();
            let successor = match ctx.leave(part, walker.pieces(), from, to, taken) {
                Target::NoPiece => (Codes::NO_PIECE, true),
                Target::At(t, j, resets) => match self.held.get(t).and_then(Option::as_ref) {
                    Some(values) => (values.get(j), resets),
                    None => ctx.outside.successor(pos, mv, &mut self.local)?,
                },
                Target::Elsewhere => ctx.outside.successor(pos, mv, &mut self.local)?,
            };
            self.successors.push(successor);
        }
        Ok(Codes::of(part.combine(&self.successors, true)))
    }

    /// The successors of the position at `walker` through its king moves (generated), none a
    /// capture, their values from `lookup`.
    fn quiet(
        &mut self,
        walker: &Walker,
        lookup: &impl Fn(u64) -> Option<Codes>,
    ) -> Result<(), ProbeError> {
        self.successors.clear();
        for mv in &self.moves {
            let from = 1u64 << (mv.from().number() - 1);
            let to = 1u64 << (mv.to().number() - 1);
            let j = walker.successor(from, to, false);
            let codes = lookup(j).ok_or_else(|| ProbeError::Corrupted {
                path: self.ctx.parts[self.k].wdl.path().to_path_buf(),
                reason: format!(
                    "position {} reaches {j}, outside the positions held for it",
                    walker.index()
                ),
            })?;
            self.successors.push((codes, false));
        }
        Ok(())
    }

    /// The values of the `len` positions from `first`, of the stored half: those the tables
    /// store (a draw's for a draw), or through the captures for a position that must capture.
    fn stored_values(&mut self, first: u64, len: u64) -> Result<Vec<Codes>, ProbeError> {
        let mut codes = read_stored(self.part(), first, len, true)?;
        self.each(first, len, |walk, offset, walker, pos| {
            let c = &mut codes[offset];
            if pos.must_capture() {
                walk.moves(pos);
                *c = walk.captured(walker, pos)?;
            } else if c.wdl == Wdl::Draw.code() {
                *c = Codes::DRAW;
            }
            Ok(())
        })?;
        Ok(codes)
    }

    /// The values of the `len` positions from `first`, of the derived half, from their
    /// successors: `lookup` gives those of the other half of the same material. Each position
    /// is counted in `found`, and if `check_wdl` its stored win/draw/loss checked against its
    /// successors.
    fn derived_values(
        &mut self,
        first: u64,
        len: u64,
        lookup: impl Fn(u64) -> Option<Codes>,
        check_wdl: bool,
        found: &mut Found,
    ) -> Result<Vec<Codes>, ProbeError> {
        let part = self.part();
        let stored = if check_wdl {
            read_stored(part, first, len, false)?
        } else {
            Vec::new()
        };
        let mut codes = vec![Codes::ZERO; len as usize];
        self.each(first, len, |walk, offset, walker, pos| {
            found.checked += 1;
            if walk.moves(pos) {
                found.captures += 1;
                codes[offset] = walk.captured(walker, pos)?;
                return Ok(());
            }
            walk.quiet(walker, &lookup)?;
            codes[offset] = Codes::of(part.combine(&walk.successors, true));
            if check_wdl {
                let i = first + offset as u64;
                let stored = Codes {
                    wdl: stored[offset].wdl,
                    ..Codes::DRAW
                };
                if differs(part, i, stored, &walk.successors, Lanes::DISTANCE)? {
                    found.mismatch(i);
                }
            }
            Ok(())
        })?;
        Ok(codes)
    }

    /// Checks the `len` positions from `first`, of the stored half, against their successors
    /// (`lookup` gives those of the other half), in the values of `lanes`.
    fn check_stored(
        &mut self,
        first: u64,
        len: u64,
        lookup: impl Fn(u64) -> Option<Codes>,
        lanes: Lanes,
        found: &mut Found,
    ) -> Result<(), ProbeError> {
        let part = self.part();
        let stored = read_stored(part, first, len, true)?;
        self.each(first, len, |walk, offset, walker, pos| {
            found.checked += 1;
            if walk.moves(pos) {
                found.captures += 1;
                return Ok(());
            }
            walk.quiet(walker, &lookup)?;
            let i = first + offset as u64;
            if differs(part, i, stored[offset], &walk.successors, lanes)? {
                found.mismatch(i);
            }
            Ok(())
        })
    }
}

/// Whether position `i` of `part`, whose stored codes are `stored`, disagrees with its
/// `successors` in the values of `lanes`, as [`Part::compare`] compares them.
///
/// # Errors
///
/// [`ProbeError::Corrupted`] for a stored code no table holds, as [`Part::compare`].
fn differs(
    part: &Part,
    i: u64,
    stored: Codes,
    successors: &[Successor],
    lanes: Lanes,
) -> Result<bool, ProbeError> {
    let (stored, holds) = part.stored_values(i, stored)?;
    let expected = part.combine(successors, holds);
    let distance = stored.wdl != expected.wdl || stored.dtw != expected.dtw;
    Ok(lanes.distance && distance || lanes.rule && stored.rule != expected.rule)
}
