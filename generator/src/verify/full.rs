//! The check of every position of a material, page by page (see [`super::pages`]).
//!
//! The walk makes pages of the material verified and of the materials it needs, each page from
//! pages of lower levels: the level of a page is twice its material's place in dependency order
//! (captures and promotions lead to earlier materials), plus one for the side to move the
//! tables do not store (the derived half; see [`rafle_probe::toolkit::format::StoredHalf`]).
//! - A page of the stored half holds the stored codes, the captures resolved from the pages
//!   they reach, and a draw's distance and rule value for the draws.
//! - A page of the derived half resolves its captures the same way, and derives the other
//!   positions' values from their moves (the tables leave them out), from the pages of the
//!   stored half of the same material. When the win/draw/loss table stores both halves, each
//!   of those positions' win/draw/loss is also checked against its successors, the first time
//!   the page is made, for the material verified.
//!
//! Then every position of the stored half of the material verified is checked against the
//! pages its moves reach, a window of pages at a time. A position whose successors lie in a
//! page not made yet is set aside with the pages it lacks; those pages are made (in parallel,
//! each cut into chunks) and the positions set aside done again. Pages stay in a cache up to a
//! budget, where the materials verified later find them; when the material and those its
//! captures reach fit, their pages are all made first, level by level, and nothing is set
//! aside: each position's moves are generated once (twice for a capture with White to move).
//! A promotion's successor is read from its page if that is made, and resolved through
//! [`super::outside::Outside`] otherwise (its material, of as many pieces, is not made for it).

use std::ops::Range;

use rafle_probe::toolkit::format::StoredHalf;
use rafle_probe::{draughts::Position, ProbeError, Wdl};
use rayon::prelude::*;

use super::codes::{widen_dtw, Codes};
use super::context::{At, Context, Scratch};
use super::pages::{read_codes, Cache, Page, CHUNK, PAGE_BYTES};
use super::part::Part;
use super::walker::Walker;
use super::Tally;

/// Pages with White to move checked together when the material does not fit in the budget.
const WINDOW: usize = 4;

/// Making a page takes, besides the page, about 26 KiB that lives only while its level is made
/// (its waiting bits, and per chunk of [`CHUNK`] positions the unit of parallel work and what
/// it found, twice over as rayon gathers them), which no look at memory sees: 10% of
/// [`PAGE_BYTES`] on top of the pages' budget. A level is therefore made at most a
/// `BATCH_SHARE`th of that budget at a time, so that the bookkeeping stays under 1% of it: a
/// large material made whole in one go (one level of 8,000 pages and more, on Brazilian up to
/// 7) would take 200 MiB past the budget so.
const BATCH_SHARE: usize = 16;

/// The most pages made together, whatever the budget: 13 MiB of bookkeeping, and many times
/// more chunks of work than threads.
const MOST_BATCH: usize = 512;

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
    let (stored, derived) = part.stored_and_derived_pages();
    // The positions of the derived half are counted while their pages are made: any made
    // before (for another material) are made again. In dependency order there are none.
    for p in derived.clone() {
        cache.remove(first + p);
    }
    let mut walk = Walk {
        ctx,
        cache,
        main,
        checked: vec![false; derived.len()],
        tally: Tally::default(),
        advance,
    };
    let white: Vec<u32> = stored.map(|p| first + p).collect();
    let window = walk.window(white.len())?;
    for pages in white.chunks(window) {
        walk.check_window(pages)?;
    }
    walk.make_unreached(derived)?;
    check_derived_blocks(part)?;
    Ok(walk.tally)
}

/// Reads the blocks of the three tables that hold only positions of the derived half: the walk
/// derives those values and never reads them, but their checksums are checked.
pub(super) fn check_derived_blocks(main: &Part) -> Result<(), ProbeError> {
    let tables = if main.wdl_both {
        vec![main.dtw, main.rules]
    } else {
        vec![main.wdl, main.dtw, main.rules]
    };
    tables.into_par_iter().try_for_each(|table| {
        let header = table.header();
        let per_block = u64::from(header.positions_per_block);
        let blocks = match main.stored {
            StoredHalf::Black => 0..(main.half / per_block) as u32,
            _ => main.half.div_ceil(per_block) as u32..header.blocks,
        };
        blocks
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
    /// Whether it holds positions of the stored half.
    stored: bool,
    made: Page,
    /// What checking its positions found (the material verified, derived half).
    tally: Tally,
    /// The positions not filled yet, a bit each.
    waiting: Vec<u64>,
}

/// A chunk of a page being made, with the positions of it still waiting.
struct Chunk<'a> {
    /// The page's place among the pages being made.
    m: usize,
    /// Its part.
    k: usize,
    /// Whether it holds positions of the stored half.
    stored: bool,
    /// The index of its first position.
    first: u64,
    codes: &'a mut [Codes],
    capture: &'a mut [u64],
    waiting: &'a mut [u64],
}

/// What a unit of parallel work found.
#[derive(Default)]
struct Outcome {
    tally: Tally,
    /// Positions of the stored half of the material verified waiting for a page.
    waiting: Vec<u64>,
    /// The pages they wait for (with repeats).
    missing: Vec<u32>,
}

/// The walk of one material.
struct Walk<'a, 'c> {
    ctx: &'a Context<'c>,
    cache: &'a mut Cache,
    /// The part verified.
    main: usize,
    /// Which pages of the derived half of the material verified have had their positions
    /// counted once.
    checked: Vec<bool>,
    tally: Tally,
    advance: &'a (dyn Fn(u64) + Sync),
}

impl Walk<'_, '_> {
    /// The level of page `page` (see the module documentation): a page needs only pages of
    /// lower levels.
    fn level(&self, page: u32) -> usize {
        let (k, p) = self.ctx.part_of_page(page);
        2 * k + usize::from(!self.ctx.parts[k].is_stored_page(p))
    }

    /// Gives memory back if the process is past its mark, then keeps the pages' budget within
    /// what the mark leaves besides everything else the process holds, measured (see
    /// [`room_for_pages`]): the rest is only estimated up front, and on the largest sets comes
    /// to more (the tables' indices of every material, the allocator's own overhead). Between
    /// steps only, when no page is being made. The budget is only ever lowered.
    fn keep_within_budget(&mut self) {
        self.ctx.keep_within_budget();
        let Some(unmapped) = self.ctx.unmapped_memory() else {
            return;
        };
        let tables = self.ctx.tables;
        let room = room_for_pages(
            self.ctx.release_at,
            unmapped,
            self.cache.held_bytes(),
            tables.cache_bytes() as u64,
            tables.cache_budget() as u64,
        );
        if self.cache.fit(room) {
            self.ctx.trim();
        }
    }

    /// How many of the `white` pages with White to move of the material verified are checked
    /// together: all of them when the pages of the material and of those its moves reach fit
    /// in the budget (they are then made first, level by level, and no position waits), else
    /// [`WINDOW`].
    fn window(&mut self, white: usize) -> Result<usize, ProbeError> {
        let ctx = self.ctx;
        let needed: Vec<u32> = ctx
            .closure(self.main)
            .into_iter()
            .flat_map(|k| {
                let p = &ctx.parts[k];
                p.first_page..p.first_page + p.layout.pages()
            })
            .collect();
        // Whether the material fits is judged on the budget as the memory now held leaves it,
        // once the allocator has given its free memory back.
        if ctx.release_at != u64::MAX {
            ctx.trim();
            self.keep_within_budget();
        }
        if !self.cache.holds(needed.len() as u32) {
            return Ok(WINDOW);
        }
        // Room made first, so that the budget holds even while this material is walked.
        self.cache.touch(&needed);
        let absent = needed.iter().filter(|&&p| !self.cache.contains(p)).count();
        self.cache.make_room(absent);
        self.make(&needed)?;
        Ok(white.max(1))
    }

    /// Checks the positions of `pages`, pages with White to move of the material verified,
    /// making the pages they need; the positions whose successors lie in pages not made yet
    /// wait for them.
    fn check_window(&mut self, pages: &[u32]) -> Result<(), ProbeError> {
        let part = &self.ctx.parts[self.main];
        self.make(pages)?;
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
            let (missing, waiting) = self.check_white(&batches)?;
            self.make(&missing)?;
            batches = waiting
                .chunks(CHUNK)
                .map(|c| Batch::List(c.to_vec()))
                .collect();
        }
        self.cache.end_step();
        self.keep_within_budget();
        Ok(())
    }

    /// Makes the pages of `derived`, the derived half of the material verified (numbered in
    /// the material), that no move of the stored half reached: their positions are checked as
    /// they are made.
    fn make_unreached(&mut self, derived: Range<u32>) -> Result<(), ProbeError> {
        let first = self.ctx.parts[self.main].first_page;
        let rest: Vec<u32> = derived
            .clone()
            .filter(|&p| !self.checked[(p - derived.start) as usize])
            .map(|p| first + p)
            .collect();
        for pages in rest.chunks(WINDOW) {
            self.make(pages)?;
            self.cache.end_step();
            self.keep_within_budget();
        }
        Ok(())
    }

    /// Makes the pages of `pages` that the cache lacks, level by level, with those they need.
    fn make(&mut self, pages: &[u32]) -> Result<(), ProbeError> {
        let mut wanted: Vec<(usize, u32)> = pages
            .iter()
            .filter(|&&p| !self.cache.contains(p))
            .flat_map(|&p| self.with_counterparts(p))
            .filter(|&p| !self.cache.contains(p))
            .map(|p| (self.level(p), p))
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        // Room made first, from the pages this step has not used, so that the budget holds
        // during the step too, not only once it ends.
        self.cache.make_room(wanted.len());
        // The pages of a level need only lower levels, so a level is made a batch at a time
        // (see [`BATCH_SHARE`]).
        let batch = (self.cache.budget_pages() / BATCH_SHARE).clamp(1, MOST_BATCH);
        for level in wanted.chunk_by(|a, b| a.0 == b.0) {
            for pages in level.chunks(batch) {
                let these: Vec<u32> = pages.iter().map(|&(_, p)| p).collect();
                self.ctx.make_room_for((these.len() * PAGE_BYTES) as u64);
                self.make_level(&these)?;
                // A level may read whole tables (a material decoded whole).
                self.ctx.keep_within_budget();
            }
        }
        Ok(())
    }

    /// Page `page`, and for a page of the derived half the pages of the stored half that its
    /// kings' moves reach (a king move keeps the men, so the index moves by less than the
    /// placements of the kings of the side to move and of those ranked after them): made
    /// first, so that few of its positions wait. The others are made when found missing.
    fn with_counterparts(&self, page: u32) -> Vec<u32> {
        let (k, p) = self.ctx.part_of_page(page);
        let part = &self.ctx.parts[k];
        let mut pages = vec![page];
        if !part.is_stored_page(p) {
            let (first, len) = part.layout.span(p);
            let black = part.ranker.black_king_configs;
            let (offset, kings) = if part.stored == StoredHalf::Black {
                // White's king moves: White's kings are ranked before Black's. At most a few
                // pages either side: the rest wait.
                let span = black.saturating_mul(part.ranker.white_king_configs);
                (first, span.min(4 * super::pages::PAGE))
            } else {
                (first - part.half, black)
            };
            let low = offset.saturating_sub(kings);
            let high = (offset + len as u64 + kings).min(part.half) - 1;
            let base = match part.stored {
                StoredHalf::Black => part.half,
                _ => 0,
            };
            let (from, to) = (part.locate(base + low).0, part.locate(base + high).0);
            pages.extend(from..=to);
        }
        pages
    }

    /// Makes pages of one level, first those of lower levels they turn out to need: each
    /// position is filled from the pages its moves reach, and a position whose page is not made
    /// yet waits (a bit per position) until it is.
    fn make_level(&mut self, pages: &[u32]) -> Result<(), ProbeError> {
        let ctx = self.ctx;
        let mut making = pages
            .par_iter()
            .map(|&page| read(ctx, page))
            .collect::<Result<Vec<_>, ProbeError>>()?;
        loop {
            let missing = self.fill_waiting(&mut making)?;
            if missing.is_empty() {
                break;
            }
            self.make(&missing)?;
        }
        for Making {
            page,
            part,
            stored,
            made,
            tally,
            ..
        } in making
        {
            if part == self.main && !stored {
                let main = &ctx.parts[part];
                let derived = main.stored_and_derived_pages().1;
                let k = (page - main.first_page - derived.start) as usize;
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

    /// Fills the waiting positions of the pages `making`, in parallel chunks; returns the pages
    /// those still waiting lack.
    fn fill_waiting(&self, making: &mut [Making]) -> Result<Vec<u32>, ProbeError> {
        let ctx = self.ctx;
        let cache = &*self.cache;
        let main = self.main;
        let chunks: Vec<(usize, &mut Making)> = making.iter_mut().enumerate().collect();
        let work: Vec<Chunk> = chunks
            .into_iter()
            .flat_map(|(m, making)| {
                let part = &ctx.parts[making.part];
                let first = part.layout.span(making.page - part.first_page).0;
                let (k, stored) = (making.part, making.stored);
                making
                    .made
                    .chunks_mut(first)
                    .zip(making.waiting.chunks_mut(CHUNK / 64))
                    .filter(|(_, waiting)| waiting.iter().any(|&w| w != 0))
                    .map(move |(c, waiting)| Chunk {
                        m,
                        k,
                        stored,
                        first: c.first,
                        codes: c.codes,
                        capture: c.capture,
                        waiting,
                    })
            })
            .collect();
        let check = Check { ctx, cache, main };
        let outcomes = work
            .into_par_iter()
            .map(|chunk| check.fill_chunk(chunk))
            .collect::<Result<Vec<_>, ProbeError>>()?;
        let mut missing = Vec::new();
        for (m, outcome) in outcomes {
            making[m].tally.merge(outcome.tally);
            missing.extend(outcome.missing);
        }
        missing.sort_unstable();
        missing.dedup();
        Ok(missing)
    }

    /// Checks the positions with White to move of `batches` of the material verified, whose
    /// pages are made; returns the pages some of them lack and those positions, to check again
    /// once the pages are made.
    fn check_white(&mut self, batches: &[Batch]) -> Result<(Vec<u32>, Vec<u64>), ProbeError> {
        let check = Check {
            ctx: self.ctx,
            cache: &*self.cache,
            main: self.main,
        };
        let advance = self.advance;
        let outcomes = batches
            .par_iter()
            .map(|batch| {
                let outcome = check.white_batch(batch)?;
                advance(outcome.tally.checked);
                Ok(outcome)
            })
            .collect::<Result<Vec<_>, ProbeError>>()?;
        let (mut missing, mut waiting) = (Vec::new(), Vec::new());
        for outcome in outcomes {
            self.tally.merge(outcome.tally);
            missing.extend(outcome.missing);
            waiting.extend(outcome.waiting);
        }
        missing.sort_unstable();
        missing.dedup();
        Ok((missing, waiting))
    }
}

/// The bytes of pages that fit under `release_at` besides what else the process holds, given
/// the memory it holds that maps no file (`unmapped`), of which `pages` are pages and
/// `probe_held` the probe's decoded blocks. The probe's cache counts at its whole
/// `probe_budget`, not at what it holds now: it fills as a step resolves successors through
/// the probe, and from nearly empty when a material's promotions reach tables no page holds,
/// long after the look that set the pages' budget (the Brazilian up to 7 check went 74 MiB
/// past its budget so).
fn room_for_pages(
    release_at: u64,
    unmapped: u64,
    pages: u64,
    probe_held: u64,
    probe_budget: u64,
) -> u64 {
    let others = unmapped
        .saturating_sub(pages)
        .saturating_sub(probe_held)
        .saturating_add(probe_budget);
    release_at.saturating_sub(others)
}

/// Reads the stored codes of page `page`: all three tables' in the stored half; in the derived
/// one, the win/draw/loss table's if it stores both halves.
fn read(ctx: &Context, page: u32) -> Result<Making, ProbeError> {
    let (k, p) = ctx.part_of_page(page);
    let part = &ctx.parts[k];
    let stored = part.is_stored_page(p);
    let (first, len) = part.layout.span(p);
    let mut made = Page::new(len);
    if stored || part.wdl_both {
        read_codes(part.wdl, first, len, |j, c| made.codes[j].wdl = c as u8)?;
    }
    if stored {
        let bits = part.dtw.header().bits;
        read_codes(part.dtw, first, len, |j, c| {
            made.codes[j].dtw = widen_dtw(c, bits)
        })?;
        read_codes(part.rules, first, len, |j, c| made.codes[j].rule = c as u8)?;
    }
    let mut waiting = vec![!0u64; len.div_ceil(64)];
    if len % 64 != 0 {
        waiting[len / 64] = (1 << (len % 64)) - 1;
    }
    Ok(Making {
        page,
        part: k,
        stored,
        made,
        tally: Tally::default(),
        waiting,
    })
}

/// What a unit of parallel work checks, and against what: part `main` of `ctx`, the
/// material verified, with the pages `cache` holds (up to its budget).
#[derive(Clone, Copy)]
struct Check<'a, 'c> {
    ctx: &'a Context<'c>,
    cache: &'a Cache,
    main: usize,
}

impl Check<'_, '_> {
    /// Checks the positions of `batch`, with White to move in the material verified, against
    /// the pages their moves reach; a position whose page or whose successors' pages are not
    /// made waits.
    fn white_batch(self, batch: &Batch) -> Result<Outcome, ProbeError> {
        let main = &self.ctx.parts[self.main];
        let mut scratch = Scratch::new(&self.ctx.outside);
        let mut outcome = Outcome::default();
        batch.for_each(main, |walker, pos| {
            let i = walker.index();
            let (page, offset) = main.locate(i);
            let Some(page) = self.cache.get(page) else {
                scratch.missing.push(page);
                outcome.waiting.push(i);
                return Ok(());
            };
            if page.is_capture(offset) {
                outcome.tally.capture();
                return Ok(());
            }
            let stored = page.codes[offset];
            pos.legal_moves_into(&mut scratch.moves);
            let full = main.holds(i, stored.wdl());
            let at = At {
                part: main,
                walker,
                pos: &pos,
            };
            if self.ctx.quiet(at, full, self.cache, &mut scratch)? {
                let mismatch = main.compare(i, &pos, stored, &scratch.successors)?;
                outcome.tally.quiet(i, mismatch);
            } else {
                outcome.waiting.push(i);
            }
            Ok(())
        })?;
        outcome.missing = scratch.missing;
        Ok(outcome)
    }

    /// Fills the waiting positions of a chunk; returns its page's place among the pages being
    /// made, with what checking them found and the pages those still waiting lack.
    fn fill_chunk(self, chunk: Chunk) -> Result<(usize, Outcome), ProbeError> {
        let Chunk {
            m,
            k,
            stored,
            first,
            codes,
            capture,
            waiting,
        } = chunk;
        let part = &self.ctx.parts[k];
        let checked = k == self.main && !stored;
        let mut scratch = Scratch::new(&self.ctx.outside);
        let mut outcome = Outcome::default();
        // Walked position by position while every one waits (the first time), else jumped to.
        let dense = waiting.iter().all(|&w| w == !0);
        let mut walker = Walker::new(&part.ranker, first);
        for offset in 0..codes.len() {
            if offset > 0 && dense {
                walker.advance();
            }
            if waiting[offset / 64] >> (offset % 64) & 1 == 0 {
                continue;
            }
            let i = first + offset as u64;
            if !dense {
                walker = Walker::new(&part.ranker, i);
            }
            let pos = part.position(&walker)?;
            let at = At {
                part,
                walker: &walker,
                pos: &pos,
            };
            let done = match self.fill(k, stored, at, codes[offset], &mut scratch)? {
                Filled::Done(done, mismatch) => {
                    if checked {
                        outcome.tally.quiet(i, mismatch);
                    }
                    done
                }
                Filled::Capture(done) => {
                    capture[offset / 64] |= 1 << (offset % 64);
                    if checked {
                        outcome.tally.capture();
                    }
                    done
                }
                Filled::Waiting => continue,
            };
            codes[offset] = done;
            waiting[offset / 64] &= !(1 << (offset % 64));
        }
        outcome.missing = scratch.missing;
        Ok((m, outcome))
    }

    /// Fills position `at` of part `k` (of the stored half if `stored`), whose stored codes are
    /// `codes`: its codes through its captures, or its stored ones (a draw's distance and rule
    /// value for a draw), or in the derived half from its successors (its stored
    /// win/draw/loss, if any, checked against them in the material verified).
    fn fill(
        self,
        k: usize,
        stored: bool,
        at: At,
        codes: Codes,
        scratch: &mut Scratch,
    ) -> Result<Filled, ProbeError> {
        let At { part, walker, pos } = at;
        if stored && !pos.must_capture() {
            let drawn = codes.wdl == Wdl::Draw.code();
            return Ok(Filled::Done(if drawn { Codes::DRAW } else { codes }, None));
        }
        pos.legal_moves_into(&mut scratch.moves);
        if scratch.moves.first().is_some_and(|m| m.is_capture()) {
            if !self.ctx.captures(at, self.cache, scratch)? {
                return Ok(Filled::Waiting);
            }
            let successors = &scratch.successors;
            return Ok(Filled::Capture(Codes::of(part.combine(successors, true))));
        }
        if !self.ctx.quiet(at, true, self.cache, scratch)? {
            return Ok(Filled::Waiting);
        }
        let derived = Codes::of(part.combine(&scratch.successors, true));
        let mismatch = if part.wdl_both && k == self.main {
            let stored = Codes {
                wdl: codes.wdl,
                ..Codes::DRAW
            };
            part.compare(walker.index(), pos, stored, &scratch.successors)?
        } else {
            None
        };
        Ok(Filled::Done(derived, mismatch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn the_probes_cache_counts_at_its_budget_however_full() {
        // 7,000 MiB under the mark; 900 MiB held besides 5,000 MiB of pages, 40 of them the
        // probe's blocks out of a 256 MiB budget: the pages get what is left once the probe's
        // cache is full, 7,000 - (860 + 256).
        let room = room_for_pages(7000 * MIB, 5900 * MIB, 5000 * MIB, 40 * MIB, 256 * MIB);
        assert_eq!(room, 5884 * MIB);
        // The same once the cache is full: the room does not move as it fills.
        let full = room_for_pages(7000 * MIB, 6116 * MIB, 5000 * MIB, 256 * MIB, 256 * MIB);
        assert_eq!(full, room);
    }

    #[test]
    fn no_room_is_left_when_the_rest_passes_the_mark() {
        assert_eq!(room_for_pages(1000 * MIB, 1200 * MIB, 0, 0, 256 * MIB), 0);
        // Memory read at another moment than the pages' count: nothing wraps round.
        assert_eq!(
            room_for_pages(1000 * MIB, 10 * MIB, 300 * MIB, 50 * MIB, 0),
            1000 * MIB
        );
    }
}
