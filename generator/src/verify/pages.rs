//! Pages: runs of consecutive positions of a material with one side to move, their codes
//! decoded from the table blocks that cover them and completed (captures resolved, draws and
//! left-out positions filled in), kept in a cache bounded in bytes.
//!
//! The positions with White to move and those with Black to move are paged separately (each
//! half from its own start), because their pages are made differently: a page with White to move
//! needs only the pages its captures reach (in smaller materials), while a page with Black to
//! move also derives its distances and rule values from the pages with White to move of the
//! same material that its moves reach.

use std::sync::atomic::{AtomicU32, Ordering};

use rafle_probe::toolkit::codec::read_code;
use rafle_probe::{toolkit::Table, ProbeError};

use super::codes::Codes;

/// Positions in a page: the tables' block size, so that a page with White to move decodes one
/// block of each table.
pub(super) const PAGE: u64 = 1 << 16;

/// Positions handled per unit of parallel work; a multiple of 64 (a word of capture bits).
pub(super) const CHUNK: usize = 1 << 10;

/// Memory a page of [`PAGE`] positions takes: a byte of win/draw/loss code, two of distance,
/// one of rule value and a bit of capture flag per position ([`Codes`] is 4 bytes), and what
/// the allocator adds to those two allocations (the codes' mapping rounded up to whole system
/// pages with its header, the capture bits' header): about 3% more, which across the 27,000
/// pages of a 7 GiB budget comes to 110 MiB.
pub(super) const PAGE_BYTES: usize = PAGE as usize * 4 + PAGE as usize / 8 + (8 << 10);

/// Which page holds which positions. Pages `0..white` cover the positions with White to move,
/// pages `white..white + black` those with Black to move.
#[derive(Debug, Clone, Copy)]
pub(super) struct Layout {
    /// Positions with White to move: the first half of the index.
    pub half: u64,
    /// Pages with White to move.
    pub white: u32,
    /// Pages with Black to move.
    pub black: u32,
}

impl Layout {
    /// The pages of a material of `positions` positions.
    pub fn new(positions: u64) -> Layout {
        let half = positions / 2;
        let pages = half.div_ceil(PAGE) as u32;
        Layout {
            half,
            white: pages,
            black: pages,
        }
    }

    /// Every page.
    pub fn pages(&self) -> u32 {
        self.white + self.black
    }

    /// Whether page `page` holds positions with White to move.
    pub fn is_white(&self, page: u32) -> bool {
        page < self.white
    }

    /// The page of position `i` and the position's offset in it.
    #[inline]
    pub fn locate(&self, i: u64) -> (u32, usize) {
        let (page, offset) = if i < self.half {
            (i / PAGE, i % PAGE)
        } else {
            let j = i - self.half;
            (u64::from(self.white) + j / PAGE, j % PAGE)
        };
        (page as u32, offset as usize)
    }

    /// The first position of page `page` and how many it holds.
    pub fn span(&self, page: u32) -> (u64, usize) {
        let (base, k) = if self.is_white(page) {
            (0, u64::from(page))
        } else {
            (self.half, u64::from(page - self.white))
        };
        let first = base + k * PAGE;
        (first, (base + self.half - first).min(PAGE) as usize)
    }
}

/// The completed codes of a page's positions.
#[derive(Debug)]
pub(super) struct Page {
    /// Each position's codes, together so that a lookup touches one cache line.
    pub codes: Vec<Codes>,
    /// Whether each position's side to move must capture, a bit each.
    pub capture: Vec<u64>,
}

impl Page {
    /// A page of `len` positions, every code zero.
    pub fn new(len: usize) -> Page {
        Page {
            codes: vec![Codes::ZERO; len],
            capture: vec![0; len.div_ceil(64)],
        }
    }

    /// Positions in the page.
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    /// Whether the side to move of the position at `offset` must capture.
    #[inline]
    pub fn is_capture(&self, offset: usize) -> bool {
        self.capture[offset / 64] >> (offset % 64) & 1 != 0
    }

    /// The page cut into chunks of [`CHUNK`] positions that can be filled in parallel, each
    /// with the index of its first position (the page's first being `first`).
    pub fn chunks_mut(&mut self, first: u64) -> impl Iterator<Item = ChunkMut<'_>> {
        self.codes
            .chunks_mut(CHUNK)
            .zip(self.capture.chunks_mut(CHUNK / 64))
            .enumerate()
            .map(move |(k, (codes, capture))| ChunkMut {
                first: first + (k * CHUNK) as u64,
                codes,
                capture,
            })
    }
}

/// Consecutive positions of a page being filled.
#[derive(Debug)]
pub(super) struct ChunkMut<'a> {
    /// The index of the first position.
    pub first: u64,
    /// Their codes.
    pub codes: &'a mut [Codes],
    /// Their capture bits.
    pub capture: &'a mut [u64],
}

/// Calls `put(k, code)` with the code `table` stores for each position `first + k` of the
/// `len` positions from `first`, reading (and checking) every block that covers them.
///
/// # Errors
///
/// [`ProbeError::Corrupted`] for a block whose checksum or size is wrong.
pub(super) fn read_codes(
    table: &Table,
    first: u64,
    len: usize,
    mut put: impl FnMut(usize, u16),
) -> Result<(), ProbeError> {
    let header = table.header();
    let per_block = u64::from(header.positions_per_block);
    let end = first + len as u64;
    let mut i = first;
    while i < end {
        let block = i / per_block;
        let block_first = block * per_block;
        let block_end = (block_first + per_block).min(end);
        let data = table.read_block(block as u32)?;
        let (from, to) = (
            (i - block_first) as usize,
            (block_end - block_first) as usize,
        );
        // Position `j` of the block is `k = j - from + at` of the range.
        let at = (i - first) as usize;
        // One loop per width, so that the width is not tested for every position.
        match header.bits {
            2 => (from..to).for_each(|j| put(j - from + at, read_code(&data, 2, j))),
            8 => (from..to).for_each(|j| put(j - from + at, read_code(&data, 8, j))),
            _ => (from..to).for_each(|j| put(j - from + at, read_code(&data, 16, j))),
        }
        i = block_end;
    }
    Ok(())
}

/// The pages made so far, up to a budget in bytes, the least recently used dropped first.
///
/// Pages are made and dropped only between the parallel steps of the walk; during a step the
/// cache is shared read-only and a lookup only notes the step it happened in.
#[derive(Debug)]
pub(super) struct Cache {
    pages: Vec<Option<Box<Page>>>,
    /// The step in which each page was last looked up or made.
    used: Vec<AtomicU32>,
    /// The current step.
    step: u32,
    /// The pages held.
    held: Vec<u32>,
    /// Most pages held once a step ends.
    most: usize,
}

/// The pages a budget of `budget` bytes holds: at least one, the least any step needs.
pub(super) fn budget_pages(budget: usize) -> usize {
    (budget / PAGE_BYTES).max(1)
}

impl Cache {
    /// An empty cache for pages `0..pages`, holding up to `budget` bytes of pages between
    /// steps (at least one page).
    pub fn new(pages: u32, budget: usize) -> Cache {
        let pages = pages as usize;
        Cache {
            pages: (0..pages).map(|_| None).collect(),
            used: (0..pages).map(|_| AtomicU32::new(0)).collect(),
            step: 1,
            held: Vec::new(),
            most: budget_pages(budget),
        }
    }

    /// The budget, in pages.
    pub fn budget_pages(&self) -> usize {
        self.most
    }

    /// Whether `pages` pages fit in the budget at once.
    pub fn holds(&self, pages: u32) -> bool {
        pages as usize <= self.most
    }

    /// Whether page `page` is held.
    pub fn contains(&self, page: u32) -> bool {
        self.pages[page as usize].is_some()
    }

    /// Page `page`, if held.
    #[inline]
    pub fn get(&self, page: u32) -> Option<&Page> {
        let found = self.pages[page as usize].as_deref()?;
        let used = &self.used[page as usize];
        // Written only when it changes, so that lookups do not keep dirtying the line.
        if used.load(Ordering::Relaxed) != self.step {
            used.store(self.step, Ordering::Relaxed);
        }
        Some(found)
    }

    /// The codes at `offset` in page `page` (where `Part::locate` puts a position), or the page
    /// to make first.
    #[inline]
    pub fn codes(&self, (page, offset): (u32, usize)) -> Result<Codes, u32> {
        self.get(page).map(|p| p.codes[offset]).ok_or(page)
    }

    /// Drops page `page` if held.
    pub fn remove(&mut self, page: u32) {
        if self.pages[page as usize].take().is_some() {
            self.held.retain(|&p| p != page);
        }
    }

    /// Keeps page `page`, used in the current step.
    pub fn insert(&mut self, page: u32, made: Page) {
        let slot = &mut self.pages[page as usize];
        if slot.is_none() {
            self.held.push(page);
        }
        *slot = Some(Box::new(made));
        self.used[page as usize].store(self.step, Ordering::Relaxed);
    }

    /// Notes pages `pages` as used in the current step (those held).
    pub fn touch(&mut self, pages: &[u32]) {
        for &p in pages {
            *self.used[p as usize].get_mut() = self.step;
        }
    }

    /// Drops the least recently used pages not used in the current step until `more` pages
    /// can be made within the budget (or nothing is left to drop).
    pub fn make_room(&mut self, more: usize) {
        let most = self.most.saturating_sub(more);
        if self.held.len() <= most {
            return;
        }
        let step = self.step;
        let used = |p: u32| self.used[p as usize].load(Ordering::Relaxed);
        self.held
            .sort_unstable_by_key(|&p| (used(p) == step, used(p)));
        let drop = self.held.len() - most;
        let old = self
            .held
            .iter()
            .take(drop)
            .filter(|&&p| used(p) != step)
            .count();
        for p in self.held.drain(..old) {
            self.pages[p as usize] = None;
        }
    }

    /// Drops every page.
    pub fn clear(&mut self) {
        for p in self.held.drain(..) {
            self.pages[p as usize] = None;
        }
    }

    /// Bytes of the pages held.
    pub fn held_bytes(&self) -> u64 {
        (self.held.len() * PAGE_BYTES) as u64
    }

    /// Lowers the budget, if it is more, to `bytes` (whole pages, at least one) and drops the
    /// least recently used pages not used in the current step until it is met; returns
    /// whether any page was dropped.
    pub fn fit(&mut self, bytes: u64) -> bool {
        let pages = usize::try_from(bytes / PAGE_BYTES as u64).unwrap_or(usize::MAX);
        self.most = self.most.min(pages).max(1);
        let held = self.held.len();
        self.make_room(0);
        self.held.len() < held
    }

    /// Ends a step: drops the least recently used pages not used in it until the budget is
    /// met (the pages of the step itself stay, whatever their number).
    pub fn end_step(&mut self) {
        self.make_room(0);
        self.step += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitting_drops_the_pages_of_earlier_steps_and_keeps_those_of_this_one() {
        let mut cache = Cache::new(8, 4 * PAGE_BYTES);
        for p in 0..4 {
            cache.insert(p, Page::new(1));
        }
        cache.end_step();
        cache.insert(4, Page::new(1));
        assert_eq!(cache.held_bytes(), 5 * PAGE_BYTES as u64);
        // Room for three and a half pages: three, the oldest of the earlier step dropped.
        assert!(cache.fit(7 * PAGE_BYTES as u64 / 2));
        assert_eq!(cache.most, 3);
        assert_eq!(cache.held.len(), 3);
        assert!(cache.contains(4));
        // A larger budget is not taken back.
        assert!(!cache.fit(100 * PAGE_BYTES as u64));
        assert_eq!(cache.most, 3);
        // Room for none: one page, but this step's page stays.
        assert!(cache.fit(0));
        assert_eq!(cache.most, 1);
        assert_eq!(cache.held, vec![4]);
        assert!(!cache.fit(0));
        cache.end_step();
        assert!(cache.holds(1) && !cache.holds(2));
    }
}
