//! The check of every position of a material, page by page (see [`super::pages`]).
//!
//! The walk makes pages of the material verified and of the materials it needs, each page from
//! pages of lower levels: the level of a page is twice its material's place in dependency order
//! (captures and promotions lead to earlier materials), plus one with Black to move.
//! - A page with White to move holds the stored codes, the captures resolved from the pages
//!   they reach, and a draw's distance and rule value for the draws.
//! - A page with Black to move resolves its captures the same way, and derives the other
//!   positions' distance and rule values from their moves (the tables leave them out), from the
//!   pages with White to move of the same material. For the material verified, each of those
//!   positions' win/draw/loss is also checked against its successors, the first time the page
//!   is made.
//!
//! Then every position with White to move of the material verified is checked against the
//! pages its moves reach, a window of pages at a time. A position whose successors lie in a
//! page not made yet is set aside with the pages it lacks; those pages are made (in parallel,
//! each cut into chunks) and the positions set aside done again. Pages stay in a cache up to a
//! budget, where the materials verified later find them; when the material and those its
//! captures reach fit, their pages are all made first, level by level, and nothing is set
//! aside: each position's moves are generated once (twice for a capture with White to move).
//! A promotion's successor is read from its page if that is made, and resolved through
//! [`super::outside::Outside`] otherwise (its material, of as many pieces, is not made for it).

use rafle_probe::{Position, ProbeError, Wdl};
use rayon::prelude::*;

use super::context::Context;
use super::outside::Local;
use super::pages::{read_codes, Cache, Page, CHUNK};
use super::part::{widen_dtw, Codes, Part, Successor, Values};
use super::walker::Walker;
use super::Tally;

/// Pages with White to move checked together when the material does not fit in the budget.
const WINDOW: usize = 4;

/// Checks every position of part `main` of `ctx`, with the pages of `cache` (which keeps
/// those it makes, up to its budget), calling `advance` with the number of positions done as
/// work goes on.
pub(super) fn verify(
    ctx: &Context,
    cache: &mut Cache,
    main: usize,
    advance: &(dyn Fn(u64) + Sync),
) -> Result<Tally, ProbeError> {
    let part = &ctx.parts[main];
    let first = part.first_page;
    // Pages with Black to move made while the material was not the one verified: their
    // positions were not checked.
    for p in first + part.layout.white..first + part.layout.pages() {
        if !cache.is_checked(p) {
            cache.remove(p);
        }
    }
    let mut walk = Walk {
        ctx,
        cache,
        main,
        checked: vec![false; part.layout.black as usize],
        tally: Tally::default(),
        advance,
    };
    let white: Vec<u32> = (first..first + part.layout.white).collect();
    let needed: Vec<u32> = ctx
        .closure(main)
        .into_iter()
        .flat_map(|k| {
            let p = &ctx.parts[k];
            p.first_page..p.first_page + p.layout.pages()
        })
        .collect();
    let window = if walk.cache.holds(needed.len() as u32) {
        walk.make(&needed)?;
        white.len().max(1)
    } else {
        WINDOW
    };
    for pages in white.chunks(window) {
        walk.make(pages)?;
        let mut batches: Vec<Batch> = pages
            .iter()
            .flat_map(|&p| {
                let (first, len) = part.layout.span(p - part.first_page);
                (0..len)
                    .step_by(CHUNK)
                    .map(move |k| Batch::Range(first + k as u64, (len - k).min(CHUNK)))
            })
            .collect();
        while !batches.is_empty() {
            let (missing, waiting) = walk.check_white(&batches)?;
            walk.make(&missing)?;
            batches = waiting
                .chunks(CHUNK)
                .map(|c| Batch::List(c.to_vec()))
                .collect();
        }
        walk.cache.end_step();
    }
    // The pages with Black to move that no move with White to move reaches.
    let rest: Vec<u32> = (0..part.layout.black)
        .filter(|&k| !walk.checked[k as usize])
        .map(|k| first + part.layout.white + k)
        .collect();
    for pages in rest.chunks(WINDOW) {
        walk.make(pages)?;
        walk.cache.end_step();
    }
    check_black_blocks(part)?;
    Ok(walk.tally)
}

/// Reads the blocks of the distance and rule tables that hold only positions with Black to
/// move: the walk derives those values and never reads them, but their checksums are checked.
fn check_black_blocks(main: &Part) -> Result<(), ProbeError> {
    [main.dtw, main.rules]
        .into_par_iter()
        .try_for_each(|table| {
            let header = table.header();
            let first = main.half.div_ceil(u64::from(header.positions_per_block)) as u32;
            (first..header.blocks)
                .into_par_iter()
                .try_for_each(|b| table.read_block(b).map(drop))
        })
}

/// Positions to check, given by their indices.
#[derive(Debug)]
enum Batch {
    /// `len` consecutive positions from the first.
    Range(u64, usize),
    /// These positions.
    List(Vec<u64>),
}

impl Batch {
    /// Calls `each` with a walker on every position of `part` in the batch and the position,
    /// in order.
    fn for_each(
        &self,
        part: &Part,
        mut each: impl FnMut(&Walker, Position) -> Result<(), ProbeError>,
    ) -> Result<(), ProbeError> {
        match self {
            Batch::Range(first, len) => {
                let mut walker = Walker::new(&part.ranker, *first);
                for k in 0..*len {
                    if k > 0 {
                        walker.advance();
                    }
                    each(&walker, part.position(&walker)?)?;
                }
            }
            Batch::List(list) => {
                for &i in list {
                    let walker = Walker::new(&part.ranker, i);
                    each(&walker, part.position(&walker)?)?;
                }
            }
        }
        Ok(())
    }
}

/// What became of a position of a page being made.
enum Filled {
    /// Its codes, and for the material verified the example of its mismatch if any.
    Done(Codes, Option<String>),
    /// Its side to move must capture: its codes, from the captures.
    Capture(Codes),
    /// A page it needs is not made yet.
    Waiting,
}

/// A page being made.
struct Making {
    /// Its number among every part's pages.
    page: u32,
    /// Its part.
    part: usize,
    /// Whether it holds positions with White to move.
    white: bool,
    made: Page,
    /// What checking its positions found (the material verified, Black to move).
    tally: Tally,
}

/// What a unit of parallel work found.
#[derive(Default)]
struct Outcome {
    tally: Tally,
    /// Positions waiting for a page, with the page being made they belong to if any.
    waiting: Vec<(usize, u64)>,
    /// The pages they wait for (with repeats).
    missing: Vec<u32>,
}

/// The walk of one material.
struct Walk<'a, 'c> {
    ctx: &'a Context<'c>,
    cache: &'a mut Cache,
    /// The part verified.
    main: usize,
    /// Which pages with Black to move of the material verified have had their positions
    /// checked (and counted) once.
    checked: Vec<bool>,
    tally: Tally,
    advance: &'a (dyn Fn(u64) + Sync),
}

impl Walk<'_, '_> {
    /// The level of page `page` (see the module documentation): a page needs only pages of
    /// lower levels.
    fn level(&self, page: u32) -> usize {
        let (k, p) = self.ctx.part_of_page(page);
        2 * k + usize::from(!self.ctx.parts[k].layout.is_white(p))
    }

    /// Makes the pages of `pages` that the cache lacks, level by level, with those they need.
    fn make(&mut self, pages: &[u32]) -> Result<(), ProbeError> {
        let mut wanted: Vec<(usize, u32)> = pages
            .iter()
            .filter(|&&p| !self.cache.contains(p))
            .map(|&p| (self.level(p), p))
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        for level in wanted.chunk_by(|a, b| a.0 == b.0) {
            let these: Vec<u32> = level.iter().map(|&(_, p)| p).collect();
            self.make_level(&these)?;
        }
        Ok(())
    }

    /// Makes pages of one level, first those of lower levels they turn out to need.
    fn make_level(&mut self, pages: &[u32]) -> Result<(), ProbeError> {
        let ctx = self.ctx;
        let mut making = pages
            .par_iter()
            .map(|&page| read(ctx, page))
            .collect::<Result<Vec<_>, ProbeError>>()?;
        let infos: Vec<(usize, bool)> = making.iter().map(|m| (m.part, m.white)).collect();
        let chunks: Vec<(usize, u64, &mut [Codes], &mut [u64])> = making
            .iter_mut()
            .enumerate()
            .flat_map(|(m, making)| {
                let part = &ctx.parts[making.part];
                let first = part.layout.span(making.page - part.first_page).0;
                making
                    .made
                    .chunks_mut(first)
                    .map(move |c| (m, c.first, c.codes, c.capture))
            })
            .collect();
        let cache = &*self.cache;
        let main = self.main;
        let outcomes = chunks
            .into_par_iter()
            .map(|(m, first, codes, capture)| {
                let (k, white) = infos[m];
                let part = &ctx.parts[k];
                let mut local = ctx.outside.local();
                let mut outcome = Outcome::default();
                let mut successors = Vec::new();
                let mut walker = Walker::new(&part.ranker, first);
                for (offset, slot) in codes.iter_mut().enumerate() {
                    if offset > 0 {
                        walker.advance();
                    }
                    let i = first + offset as u64;
                    let pos = part.position(&walker)?;
                    let filled = fill(
                        ctx,
                        cache,
                        main,
                        k,
                        white,
                        &walker,
                        &pos,
                        *slot,
                        &mut local,
                        &mut successors,
                        &mut outcome.missing,
                    )?;
                    match filled {
                        Filled::Done(done, mismatch) => {
                            *slot = done;
                            if k == main && !white {
                                outcome.tally.quiet(i, mismatch);
                            }
                        }
                        Filled::Capture(done) => {
                            *slot = done;
                            capture[offset / 64] |= 1 << (offset % 64);
                            if k == main && !white {
                                outcome.tally.capture();
                            }
                        }
                        Filled::Waiting => outcome.waiting.push((m, i)),
                    }
                }
                Ok((m, outcome))
            })
            .collect::<Result<Vec<_>, ProbeError>>()?;
        let mut waiting = Vec::new();
        let mut missing = Vec::new();
        for (m, outcome) in outcomes {
            // A chunk lies in one page.
            making[m].tally.merge(outcome.tally);
            waiting.extend(outcome.waiting);
            missing.extend(outcome.missing);
        }
        while !waiting.is_empty() {
            missing.sort_unstable();
            missing.dedup();
            self.make(&std::mem::take(&mut missing))?;
            waiting = self.finish(&mut making, &waiting, &mut missing)?;
        }
        for Making {
            page,
            part,
            white,
            mut made,
            tally,
        } in making
        {
            if part == self.main && !white {
                let main = &ctx.parts[part];
                let k = (page - main.first_page - main.layout.white) as usize;
                made.checked = true;
                if !self.checked[k] {
                    self.checked[k] = true;
                    (self.advance)(made.len() as u64);
                    self.tally.merge(tally);
                }
            }
            self.cache.insert(page, made);
        }
        Ok(())
    }

    /// Fills the positions of `waiting` (each with its page in `making`) now that more pages
    /// are made; returns those still waiting, adding the pages they lack to `missing`.
    fn finish(
        &self,
        making: &mut [Making],
        waiting: &[(usize, u64)],
        missing: &mut Vec<u32>,
    ) -> Result<Vec<(usize, u64)>, ProbeError> {
        let ctx = self.ctx;
        let cache = &*self.cache;
        let main = self.main;
        let done = waiting
            .par_chunks(CHUNK)
            .map(|list| {
                let mut local = ctx.outside.local();
                let mut successors = Vec::new();
                let mut lacking = Vec::new();
                let mut done = Vec::with_capacity(list.len());
                for &(m, i) in list {
                    let making = &making[m];
                    let part = &ctx.parts[making.part];
                    let walker = Walker::new(&part.ranker, i);
                    let pos = part.position(&walker)?;
                    let offset = part.layout.locate(i).1;
                    let stored = making.made.codes[offset];
                    let filled = fill(
                        ctx,
                        cache,
                        main,
                        making.part,
                        making.white,
                        &walker,
                        &pos,
                        stored,
                        &mut local,
                        &mut successors,
                        &mut lacking,
                    )?;
                    done.push((m, i, filled));
                }
                Ok((done, lacking))
            })
            .collect::<Result<Vec<_>, ProbeError>>()?;
        let mut still = Vec::new();
        for (list, lacking) in done {
            missing.extend(lacking);
            for (m, i, filled) in list {
                let making = &mut making[m];
                let offset = ctx.parts[making.part].layout.locate(i).1;
                let checked = making.part == main && !making.white;
                match filled {
                    Filled::Done(codes, mismatch) => {
                        making.made.codes[offset] = codes;
                        if checked {
                            making.tally.quiet(i, mismatch);
                        }
                    }
                    Filled::Capture(codes) => {
                        making.made.codes[offset] = codes;
                        making.made.capture[offset / 64] |= 1 << (offset % 64);
                        if checked {
                            making.tally.capture();
                        }
                    }
                    Filled::Waiting => still.push((m, i)),
                }
            }
        }
        Ok(still)
    }

    /// Checks the positions with White to move of `batches` of the material verified, whose
    /// pages are made; returns the pages some of them lack and those positions, to check again
    /// once the pages are made.
    fn check_white(&mut self, batches: &[Batch]) -> Result<(Vec<u32>, Vec<u64>), ProbeError> {
        let ctx = self.ctx;
        let main = &ctx.parts[self.main];
        let cache = &*self.cache;
        let advance = self.advance;
        let outcomes = batches
            .par_iter()
            .map(|batch| {
                let mut local = ctx.outside.local();
                let mut outcome = Outcome::default();
                let mut successors = Vec::new();
                batch.for_each(main, |walker, pos| {
                    let i = walker.index();
                    let (page, offset) = main.locate(i);
                    let Some(page) = cache.get(page) else {
                        outcome.missing.push(page);
                        outcome.waiting.push((0, i));
                        return Ok(());
                    };
                    if page.is_capture(offset) {
                        outcome.tally.capture();
                        return Ok(());
                    }
                    let stored = page.codes[offset];
                    let moves = pos.legal_moves();
                    let full = main.holds(i, stored.wdl());
                    let complete = ctx.quiet(
                        main,
                        walker,
                        &pos,
                        &moves,
                        full,
                        cache,
                        &mut local,
                        &mut outcome.missing,
                        &mut successors,
                    )?;
                    if complete {
                        let mismatch = main.compare(i, &pos, stored, &successors)?;
                        outcome.tally.quiet(i, mismatch);
                    } else {
                        outcome.waiting.push((0, i));
                    }
                    Ok(())
                })?;
                advance(outcome.tally.checked);
                Ok(outcome)
            })
            .collect::<Result<Vec<_>, ProbeError>>()?;
        let (mut missing, mut waiting) = (Vec::new(), Vec::new());
        for outcome in outcomes {
            self.tally.merge(outcome.tally);
            missing.extend(outcome.missing);
            waiting.extend(outcome.waiting.into_iter().map(|(_, i)| i));
        }
        missing.sort_unstable();
        missing.dedup();
        Ok((missing, waiting))
    }
}

/// Reads the stored codes of page `page`: all three tables' with White to move, the
/// win/draw/loss table's alone with Black to move (the others are derived).
fn read(ctx: &Context, page: u32) -> Result<Making, ProbeError> {
    let (k, p) = ctx.part_of_page(page);
    let part = &ctx.parts[k];
    let white = part.layout.is_white(p);
    let (first, len) = part.layout.span(p);
    let mut made = Page::new(len);
    read_codes(part.wdl, first, len, |j, c| made.codes[j].wdl = c as u8)?;
    if white {
        let bits = part.dtw.header().bits;
        read_codes(part.dtw, first, len, |j, c| {
            made.codes[j].dtw = widen_dtw(c, bits)
        })?;
        read_codes(part.rules, first, len, |j, c| made.codes[j].rule = c as u8)?;
    }
    Ok(Making {
        page,
        part: k,
        white,
        made,
        tally: Tally::default(),
    })
}

/// Fills the position of part `k` at `walker`, `pos` (with White to move if `white`), whose
/// stored codes are `stored`: its codes through its captures, or its stored ones (a draw's
/// distance and rule value for a draw), or with Black to move derived from its successors (its
/// win/draw/loss checked against them in part `main`, the material verified).
#[allow(clippy::too_many_arguments)]
fn fill(
    ctx: &Context,
    cache: &Cache,
    main: usize,
    k: usize,
    white: bool,
    walker: &Walker,
    pos: &Position,
    stored: Codes,
    local: &mut Local,
    successors: &mut Vec<Successor>,
    missing: &mut Vec<u32>,
) -> Result<Filled, ProbeError> {
    let part = &ctx.parts[k];
    let drawn = stored.wdl == Wdl::Draw.code();
    if white && !pos.must_capture() {
        return Ok(Filled::Done(if drawn { Codes::DRAW } else { stored }, None));
    }
    let moves = pos.legal_moves();
    if moves.first().is_some_and(|m| m.is_capture()) {
        if !ctx.captures(part, walker, pos, &moves, cache, local, missing, successors)? {
            return Ok(Filled::Waiting);
        }
        return Ok(Filled::Capture(Codes::of(part.combine(successors, true))));
    }
    // A draw's distance and rule value are a draw's: only the win/draw/loss is needed.
    if !ctx.quiet(
        part, walker, pos, &moves, !drawn, cache, local, missing, successors,
    )? {
        return Ok(Filled::Waiting);
    }
    let mismatch = if k == main {
        let stored = Codes {
            wdl: stored.wdl,
            ..Codes::DRAW
        };
        part.compare(walker.index(), pos, stored, successors)?
    } else {
        None
    };
    let derived = if drawn {
        Values::DRAW
    } else {
        part.combine(successors, true)
    };
    let codes = Codes {
        wdl: stored.wdl,
        ..Codes::of(derived)
    };
    Ok(Filled::Done(codes, mismatch))
}
