//! The one propagation engine of retrograde analysis, for distances to win and for draw-rule
//! counts alike: seed, propagate level by level, finish.
//!
//! It works on a set of positions closed under the moves it propagates (a slice: the positions
//! with the same men, whose king moves stay among them); every other move leaves the set for
//! positions already final, so it is summed up in the position's [`Seed`]. A level is a number
//! of plies (distance to win) or a count (draw rules). Level `l` holds the positions decided
//! at `l`; walking one back through its predecessors inside the set, a predecessor of a loss
//! at `l` is a win at `l + 1` (the first level to reach it is the quickest), and a predecessor
//! all of whose moves lead to wins is lost at one more than the longest, which a count of the
//! moves not yet known to win for the opponent tells. A win through a move out of the set falls
//! due at its own level unless a quicker one came first. What is never decided is neither won
//! nor lost.
//!
//! Where men stand, most wins are known from the seeds (a capture that wins), and walking each
//! of them back visits every predecessor only to count down positions that can never be lost
//! (a move out escapes, or a capture decides them). Where the positions that can be lost are
//! fewer than those wins, the wins are counted off forwards instead, from those positions,
//! before the levels run ([`SeededWins`]); the outcome is the same either way.
//!
//! Positions are numbered `0..len`; states are atomic, so one large set (a kings-only
//! material) spreads over rayon's threads, and the outcome is the same whatever the thread
//! count: every level depends only on the levels before it.

use std::sync::atomic::{AtomicU16, Ordering};

use rayon::prelude::*;

/// Undecided, every move out of the set winning for the opponent: lost once its count of moves
/// inside not yet known to win for the opponent runs out.
const OPEN: u8 = 0;
/// Decided: won at the level held.
const WON: u8 = 1;
/// Decided: lost at the level held.
const LOST: u8 = 2;
/// Never decided, and left alone when walking back: a position that must capture (its quiet
/// moves are not legal) and is neither won nor lost.
const SETTLED: u8 = 3;
/// Undecided, with a win through a move out of the set falling due at the level held.
const PENDING: u8 = 4;
/// Undecided, with a move out of the set that neither wins nor loses: won if a move inside
/// reaches a loss, else never decided.
const ESCAPES: u8 = 5;

/// Decided positions walked back per unit of parallel work.
const CHUNK: usize = 1 << 12;

/// Decided positions whose predecessors are gathered (and their cells prefetched) before any
/// is updated: enough to keep many reads from memory in flight, few enough that the first
/// prefetched cells are still in the cache when they are updated.
const GATHER: usize = 8;

/// Asks the processor to bring `cell` into its cache ahead of use; a hint, with no effect on
/// what the program computes.
#[inline(always)]
fn prefetch(cell: &AtomicU16) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: prefetching only hints the cache and never faults, whatever the address;
        // this one is a valid reference besides.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(cell).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = cell;
}

/// What a position's moves out of the set, and the number of its moves inside, say before
/// propagation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seed {
    /// Won at this level.
    Won(u16),
    /// Lost at this level.
    Lost(u16),
    /// Undecided, every move out wins for the opponent: lost once its moves inside all lead to
    /// wins too.
    Open {
        /// Moves inside the set.
        open: u8,
        /// The least level a loss can have: one more than the longest win a move out gives.
        floor: u16,
    },
    /// Undecided, with moves inside, and a move out that wins at this level: won then, unless
    /// a move inside wins sooner.
    Pending(u16),
    /// Undecided, with a move out that neither wins nor loses: won if a move inside reaches a
    /// loss, never lost.
    Escapes,
    /// Neither won nor lost, and skipped when walking back.
    Settled,
}

impl Seed {
    /// The seed of a position from its moves: `inside` moves inside the set; of the moves out,
    /// the quickest win's level, whether one escapes, and the least level of a loss.
    /// `must_capture`: its moves are all captures, so it is no one's quiet predecessor.
    pub(crate) fn of(
        must_capture: bool,
        inside: u8,
        quickest_win: Option<u16>,
        escapes: bool,
        floor: u16,
    ) -> Seed {
        match quickest_win {
            Some(level) if inside == 0 => Seed::Won(level),
            Some(level) => Seed::Pending(level),
            None if must_capture && escapes => Seed::Settled,
            None if escapes => Seed::Escapes,
            None if inside == 0 => Seed::Lost(floor),
            None => Seed::Open {
                open: inside,
                floor,
            },
        }
    }
}

/// A position's outcome once the levels have run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Won(u16),
    Lost(u16),
    /// Neither won nor lost.
    Undecided,
}

/// The moves inside a set, walked backwards and forwards.
pub(crate) trait Moves: Sync {
    /// Calls `f` with every position of the set from which a move inside the set leads to
    /// position `x`.
    fn for_each_predecessor(&self, x: u32, f: impl FnMut(u32));

    /// Calls `f` with every position of the set a move inside the set leads to from position
    /// `x`, if its side to move need not capture.
    fn for_each_successor(&self, x: u32, f: impl FnMut(u32));
}

/// A position's cell: its state and, while open, its count of moves not yet known to win for
/// the opponent, in one half-word: what walking back reads and updates at every predecessor.
/// Its level, needed only when it is decided, lies apart, so that the cells walking back
/// reaches take half the memory (and the cache).
#[derive(Clone, Copy)]
struct Cell(u16);

impl Cell {
    /// One open move, as counted in the half-word.
    const ONE_OPEN: u16 = 1 << 8;

    #[inline]
    fn new(state: u8, open: u8) -> Cell {
        Cell(u16::from(state) | u16::from(open) << 8)
    }

    #[inline]
    fn state(self) -> u8 {
        self.0 as u8
    }

    #[inline]
    fn open(self) -> u8 {
        (self.0 >> 8) as u8
    }

    /// Whether a move inside the set to a loss makes this position won.
    #[inline]
    fn undecided(self) -> bool {
        matches!(self.state(), OPEN | PENDING | ESCAPES)
    }
}

/// The state of a set being solved.
pub(crate) struct Propagation {
    cells: Vec<AtomicU16>,
    /// Each position's level: where it was decided, else its pending win's level or its floor.
    /// Written only by the thread that decides the position (or seeds it).
    levels: Vec<AtomicU16>,
    /// `due[l]`: positions decided at level `l`, to walk back.
    due: Vec<Vec<u32>>,
    /// `pending[l]`: positions whose win through a move out falls due at level `l + 1`.
    pending: Vec<Vec<u32>>,
}

/// Positions whose wins from the seeds are counted off per unit of parallel work.
const COUNT_CHUNK: usize = 1 << 14;

/// How the wins the seeds give reach the positions that move to them: each costs a look at
/// every move between the two, so the fewer side is walked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SeededWins {
    /// Walked back from each win, at its level, like any other.
    WalkedBack,
    /// Counted off forwards from each open position before the levels run.
    CountedOff,
}

/// Which of a propagation's lists a seeded position goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Listed {
    Due = 0,
    Pending = 1,
}

/// Appends `x` to list `level` of `lists`, growing them as needed.
fn push(lists: &mut Vec<Vec<u32>>, level: u16, x: u32) {
    let level = usize::from(level);
    if lists.len() <= level {
        lists.resize_with(level + 1, Vec::new);
    }
    lists[level].push(x);
}

/// The most positions a set may have: they are numbered in 32 bits on the lists of each level.
pub(crate) const MAX_POSITIONS: u64 = 1 << 32;

impl Propagation {
    /// The set of positions `0..n`, unseeded: each must be given its seed by
    /// [`Propagation::seed`] before [`Propagation::run`].
    ///
    /// # Panics
    ///
    /// If `n` is past [`MAX_POSITIONS`]: positions would be numbered wrong (generation
    /// refuses such a material first).
    pub(crate) fn with_len(n: usize) -> Propagation {
        assert!(n as u64 <= MAX_POSITIONS, "{n} positions in one set");
        Propagation {
            cells: (0..n).map(|_| AtomicU16::new(0)).collect(),
            levels: (0..n).map(|_| AtomicU16::new(0)).collect(),
            due: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// The set of positions `0..n`, with their seeds.
    #[cfg(test)]
    pub(crate) fn new(n: usize, seeds: impl Iterator<Item = Seed>) -> Propagation {
        let propagation = Propagation::with_len(n);
        for (x, seed) in seeds.enumerate() {
            propagation.seed(x, seed);
        }
        propagation
    }

    /// Gives position `x` its seed (from any thread).
    pub(crate) fn seed(&self, x: usize, seed: Seed) {
        let (state, open, level) = match seed {
            Seed::Won(l) => (WON, 0, l),
            Seed::Lost(l) => (LOST, 0, l),
            Seed::Open { open, floor } => (OPEN, open, floor),
            Seed::Pending(l) => (PENDING, 0, l),
            Seed::Escapes => (ESCAPES, 0, 0),
            Seed::Settled => (SETTLED, 0, 0),
        };
        self.cells[x].store(Cell::new(state, open).0, Ordering::Relaxed);
        self.levels[x].store(level, Ordering::Relaxed);
    }

    /// Counts off, from each open position, its moves to positions the seeds make won below
    /// `limit` (the levels that would walk them back), raising its floor to one more than the
    /// longest; a position whose moves all lead there is lost. Those wins need not be walked
    /// back then. Each position updates only its own cell, and reads only cells won from the
    /// start, so the outcome is the same whatever the order.
    fn count_seeded_wins(&self, moves: &impl Moves, limit: u16) {
        // As when walking back, the moves of a few positions are gathered, their cells
        // prefetched, before any is read.
        let count = |xs: std::ops::Range<usize>| {
            let mut successors: Vec<u32> = Vec::new();
            // (open position, its count, end of its successors)
            let mut open: Vec<(usize, u8, usize)> = Vec::new();
            for start in xs.clone().step_by(GATHER) {
                successors.clear();
                open.clear();
                for x in start..(start + GATHER).min(xs.end) {
                    let c = Cell(self.cells[x].load(Ordering::Relaxed));
                    if c.state() == OPEN {
                        moves.for_each_successor(x as u32, |s| {
                            prefetch(&self.cells[s as usize]);
                            successors.push(s);
                        });
                        open.push((x, c.open(), successors.len()));
                    }
                }
                let mut from = 0;
                for &(x, count, to) in &open {
                    self.count_off(x, count, &successors[from..to], limit);
                    from = to;
                }
            }
        };
        let n = self.cells.len();
        if n <= COUNT_CHUNK {
            count(0..n);
        } else {
            (0..n.div_ceil(COUNT_CHUNK))
                .into_par_iter()
                .for_each(|c| count(c * COUNT_CHUNK..((c + 1) * COUNT_CHUNK).min(n)));
        }
    }

    /// Counts off the moves of open position `x`, of count `open`, to `successors` won by their
    /// seeds below `limit`.
    #[inline]
    fn count_off(&self, x: usize, open: u8, successors: &[u32], limit: u16) {
        let mut won = 0u8;
        let mut floor = self.levels[x].load(Ordering::Relaxed);
        for &s in successors {
            let s = s as usize;
            if Cell(self.cells[s].load(Ordering::Relaxed)).state() == WON {
                let level = self.levels[s].load(Ordering::Relaxed);
                if level < limit {
                    won += 1;
                    floor = floor.max(level + 1);
                }
            }
        }
        if won > 0 {
            let open = open - won;
            let cell = if open == 0 {
                Cell::new(LOST, 0)
            } else {
                Cell::new(OPEN, open)
            };
            self.cells[x].store(cell.0, Ordering::Relaxed);
            self.levels[x].store(floor, Ordering::Relaxed);
        }
    }

    /// How the wins the seeds give below `limit` are best taken: counted off if the open
    /// positions are fewer.
    fn seeded_wins(&self, limit: u16) -> SeededWins {
        let (mut open, mut won) = (0u64, 0u64);
        for (cell, level) in self.cells.iter().zip(&self.levels) {
            match Cell(cell.load(Ordering::Relaxed)).state() {
                OPEN => open += 1,
                WON if level.load(Ordering::Relaxed) < limit => won += 1,
                _ => {}
            }
        }
        if open < won {
            SeededWins::CountedOff
        } else {
            SeededWins::WalkedBack
        }
    }

    /// Puts every position the levels start from where they will find it: a decided one on
    /// its level's list (a win only if `wins` are walked back), one with a pending win on the
    /// list of the level before. The cells tell which, so seeding keeps no list of its own (for
    /// a kings-only material that list would cost more than the propagation). The lists are
    /// counted before they are filled, so each is allocated once at its size, and filled in
    /// position order.
    fn schedule_seeds(&mut self, wins: SeededWins) {
        let mut counts: [Vec<usize>; 2] = Default::default();
        self.for_each_seeded(wins, |list, level, _| {
            let counts = &mut counts[list as usize];
            let level = usize::from(level);
            if counts.len() <= level {
                counts.resize(level + 1, 0);
            }
            counts[level] += 1;
        });
        let mut lists: [Vec<Vec<u32>>; 2] =
            counts.map(|counts| counts.into_iter().map(Vec::with_capacity).collect());
        self.for_each_seeded(wins, |list, level, x| {
            lists[list as usize][usize::from(level)].push(x);
        });
        [self.due, self.pending] = lists;
    }

    /// Calls `f` with the list, the level and the number of every seeded position that goes
    /// on a list, in position order.
    fn for_each_seeded(&self, wins: SeededWins, mut f: impl FnMut(Listed, u16, u32)) {
        for (x, (cell, level)) in self.cells.iter().zip(&self.levels).enumerate() {
            let level = level.load(Ordering::Relaxed);
            match Cell(cell.load(Ordering::Relaxed)).state() {
                LOST => f(Listed::Due, level, x as u32),
                WON if wins == SeededWins::WalkedBack => f(Listed::Due, level, x as u32),
                PENDING => f(Listed::Pending, level - 1, x as u32),
                _ => {}
            }
        }
    }

    /// Runs the levels below `limit` (levels from it on are not wanted: their positions stay
    /// undecided), once every position is seeded.
    pub(crate) fn run(&mut self, moves: &impl Moves, limit: u16) {
        let wins = self.seeded_wins(limit);
        self.run_taking(moves, limit, wins);
    }

    /// [`Propagation::run`], taking the wins of the seeds as `wins` says.
    fn run_taking(&mut self, moves: &impl Moves, limit: u16, wins: SeededWins) {
        if wins == SeededWins::CountedOff {
            self.count_seeded_wins(moves, limit);
        }
        self.schedule_seeds(wins);
        // Kept from level to level: a small set (a slice of a material with men) walks back a
        // few positions at each of many levels, where a new list each time would cost more
        // than the walk.
        let mut gathered = Vec::new();
        let mut decided = Vec::new();
        let mut level = 0u16;
        while usize::from(level) < self.due.len().max(self.pending.len()) && level < limit {
            let at = usize::from(level);
            let frontier = self.due.get_mut(at).map(std::mem::take).unwrap_or_default();
            let pending = self
                .pending
                .get_mut(at)
                .map(std::mem::take)
                .unwrap_or_default();
            decided.clear();
            if frontier.len() <= CHUNK {
                self.walk_back::<true>(&frontier, level, moves, &mut gathered, &mut decided);
            } else {
                decided.par_extend(frontier.par_chunks(CHUNK).flat_map_iter(|chunk| {
                    let mut found = Vec::new();
                    self.walk_back::<false>(chunk, level, moves, &mut Vec::new(), &mut found);
                    found
                }));
            }
            drop(frontier);
            for &(l, x) in &decided {
                push(&mut self.due, l, x);
            }
            let next = level + 1;
            for x in pending {
                let cell = &self.cells[x as usize];
                let c = Cell(cell.load(Ordering::Relaxed));
                // A quicker win may have come first.
                if c.state() == PENDING {
                    cell.store(Cell::new(WON, c.open()).0, Ordering::Relaxed);
                    self.levels[x as usize].store(next, Ordering::Relaxed);
                    push(&mut self.due, next, x);
                }
            }
            level = next;
        }
    }

    /// Walks back the positions of `xs`, decided at `level`: appends the positions this
    /// decides, with their levels, to `decided`. `gathered` is room for the predecessors
    /// of a few positions.
    ///
    /// The predecessors lie anywhere in a set of megabytes, so reaching them is mostly waiting
    /// for memory: they are gathered a few positions at a time with their cells prefetched, and
    /// only then updated, so the waits overlap instead of following one another.
    ///
    /// `ALONE`: no other thread walks back this set meanwhile, so a cell is updated by a plain
    /// read and write instead of an atomic read-modify-write (which locks the cache line and
    /// costs several times more); the outcome is the same.
    fn walk_back<const ALONE: bool>(
        &self,
        xs: &[u32],
        level: u16,
        moves: &impl Moves,
        // (predecessor, whether the position it reaches is lost)
        gathered: &mut Vec<(u32, bool)>,
        decided: &mut Vec<(u16, u32)>,
    ) {
        let next = level + 1;
        let mut batches = xs.chunks(GATHER).peekable();
        if let Some(first) = batches.peek() {
            self.prefetch(first);
        }
        while let Some(batch) = batches.next() {
            if let Some(following) = batches.peek() {
                self.prefetch(following);
            }
            gathered.clear();
            for &x in batch {
                let lost = Cell(self.cells[x as usize].load(Ordering::Relaxed)).state() == LOST;
                moves.for_each_predecessor(x, |p| {
                    prefetch(&self.cells[p as usize]);
                    gathered.push((p, lost));
                });
            }
            for &(p, lost) in gathered.iter() {
                if let Some(level) = self.reach::<ALONE>(p, lost, next) {
                    decided.push((level, p));
                }
            }
        }
    }

    /// Prefetches the cells of `xs`.
    #[inline]
    fn prefetch(&self, xs: &[u32]) {
        for &x in xs {
            prefetch(&self.cells[x as usize]);
        }
    }

    /// Walks back one move from a position decided at `next - 1` (`lost` if lost, else won)
    /// to its predecessor `p`: returns the level `p` is decided at, if this decides it.
    /// `ALONE` as for [`Propagation::walk_back`].
    #[inline]
    fn reach<const ALONE: bool>(&self, p: u32, lost: bool, next: u16) -> Option<u16> {
        let cell = &self.cells[p as usize];
        let mut c = Cell(cell.load(Ordering::Relaxed));
        if lost {
            if !c.undecided() {
                return None;
            }
            // A pending win is never quicker than this one (it would have been decided
            // already); of the threads that reach an undecided position, one decides it.
            if ALONE {
                cell.store(Cell::new(WON, c.open()).0, Ordering::Relaxed);
            } else {
                loop {
                    match cell.compare_exchange_weak(
                        c.0,
                        Cell::new(WON, c.open()).0,
                        Ordering::Relaxed,
                        Ordering::Relaxed,
                    ) {
                        Ok(_) => break,
                        Err(now) => c = Cell(now),
                    }
                    if !c.undecided() {
                        return None;
                    }
                }
            }
            self.levels[p as usize].store(next, Ordering::Relaxed);
            return Some(next);
        }
        // Only an open position can be lost, so only its moves are counted.
        if c.state() != OPEN {
            return None;
        }
        // A move to a lost position is never counted down, so the count reaches zero only
        // while the position is still open, on one thread.
        let before = if ALONE {
            cell.store(c.0 - Cell::ONE_OPEN, Ordering::Relaxed);
            c
        } else {
            Cell(cell.fetch_sub(Cell::ONE_OPEN, Ordering::Relaxed))
        };
        if before.open() == 1 {
            let level = &self.levels[p as usize];
            let longest = level.load(Ordering::Relaxed).max(next);
            cell.store(Cell::new(LOST, 0).0, Ordering::Relaxed);
            level.store(longest, Ordering::Relaxed);
            return Some(longest);
        }
        None
    }

    /// The outcome of position `x`.
    pub(crate) fn outcome(&self, x: usize) -> Outcome {
        let c = Cell(self.cells[x].load(Ordering::Relaxed));
        let level = self.levels[x].load(Ordering::Relaxed);
        match c.state() {
            WON => Outcome::Won(level),
            LOST => Outcome::Lost(level),
            _ => Outcome::Undecided,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The outcomes of the positions seeded with `seeds`, run below `limit`: the same whether
    /// the wins of the seeds are walked back or counted off.
    fn solve(seeds: &[Seed], moves: &impl Moves, limit: u16) -> Vec<Outcome> {
        let [walked, counted] = [SeededWins::WalkedBack, SeededWins::CountedOff].map(|wins| {
            let mut p = Propagation::new(seeds.len(), seeds.iter().copied());
            p.run_taking(moves, limit, wins);
            (0..seeds.len()).map(|x| p.outcome(x)).collect::<Vec<_>>()
        });
        assert_eq!(walked, counted, "walked back, then counted off");
        walked
    }

    /// A line of positions 0 → 1 → … → n-1, each with one move to the next; the last one has
    /// no move.
    struct Line;

    impl Moves for Line {
        fn for_each_predecessor(&self, x: u32, mut f: impl FnMut(u32)) {
            if x > 0 {
                f(x - 1);
            }
        }

        /// Asked only of positions with a move.
        fn for_each_successor(&self, x: u32, mut f: impl FnMut(u32)) {
            f(x + 1);
        }
    }

    #[test]
    fn a_line_alternates_wins_and_losses() {
        let n = 7;
        let mut seeds = vec![Seed::of(false, 1, None, false, 0); n];
        seeds[n - 1] = Seed::of(false, 0, None, false, 0);
        for (x, outcome) in solve(&seeds, &Line, u16::MAX).into_iter().enumerate() {
            let from_end = (n - 1 - x) as u16;
            let expected = if from_end.is_multiple_of(2) {
                Outcome::Lost(from_end)
            } else {
                Outcome::Won(from_end)
            };
            assert_eq!(outcome, expected, "position {x}");
        }
    }

    /// `WIDTH` lines side by side: position `x` moves to `x + WIDTH`; the last row has no
    /// move. Every level is a whole row, wider than a chunk, so it is walked back (or counted
    /// off) in parallel.
    struct Rows;

    const WIDTH: u32 = 3 * CHUNK as u32 + 5;

    impl Moves for Rows {
        fn for_each_predecessor(&self, x: u32, mut f: impl FnMut(u32)) {
            if x >= WIDTH {
                f(x - WIDTH);
            }
        }

        /// Asked only of positions with a move.
        fn for_each_successor(&self, x: u32, mut f: impl FnMut(u32)) {
            f(x + WIDTH);
        }
    }

    #[test]
    fn wide_levels_walked_back_in_parallel_alternate_alike() {
        let rows = 6;
        let n = (rows * WIDTH) as usize;
        let last_row = n - WIDTH as usize;
        // The row before the last is won by its seeds, as by its moves.
        let seeds: Vec<Seed> = (0..n)
            .map(|x| match x {
                x if x >= last_row => Seed::of(false, 0, None, false, 0),
                x if x >= last_row - WIDTH as usize => Seed::of(false, 0, Some(1), false, 0),
                _ => Seed::of(false, 1, None, false, 0),
            })
            .collect();
        let outcomes = solve(&seeds, &Rows, u16::MAX);
        for x in (0..n).step_by(997).chain([n - 1]) {
            let from_end = (rows - 1 - x as u32 / WIDTH) as u16;
            let expected = if from_end.is_multiple_of(2) {
                Outcome::Lost(from_end)
            } else {
                Outcome::Won(from_end)
            };
            assert_eq!(outcomes[x], expected, "position {x}");
        }
    }

    #[test]
    fn limits_and_quicker_exits() {
        let n = 7;
        let mut seeds = vec![Seed::of(false, 1, None, false, 0); n];
        seeds[n - 1] = Seed::of(false, 0, None, false, 0);
        // Position 1, lost in 5 along the line, wins in 2 by a move out of the set.
        seeds[1] = Seed::of(false, 1, Some(2), false, 0);
        let outcomes = solve(&seeds, &Line, 3);
        // Levels stop before 3: positions 6 (lost 0), 5 (won 1), 4 (lost 2), 3 (won 3, decided
        // at level 2 but not walked back, so 2 stays undecided), 1 (won 2 out of the set, so
        // 0, whose one move reaches it, lost at 3).
        assert_eq!(outcomes[6], Outcome::Lost(0));
        assert_eq!(outcomes[5], Outcome::Won(1));
        assert_eq!(outcomes[4], Outcome::Lost(2));
        assert_eq!(outcomes[3], Outcome::Won(3));
        assert_eq!(outcomes[2], Outcome::Undecided);
        assert_eq!(outcomes[1], Outcome::Won(2));
        assert_eq!(outcomes[0], Outcome::Lost(3));
    }

    #[test]
    fn seeds_from_moves() {
        assert_eq!(Seed::of(true, 0, Some(3), true, 9), Seed::Won(3));
        assert_eq!(Seed::of(true, 0, None, true, 9), Seed::Settled);
        assert_eq!(Seed::of(true, 0, None, false, 9), Seed::Lost(9));
        assert_eq!(Seed::of(false, 0, None, false, 0), Seed::Lost(0));
        assert_eq!(Seed::of(false, 2, Some(5), true, 4), Seed::Pending(5));
        assert_eq!(Seed::of(false, 2, None, true, 4), Seed::Escapes);
        assert_eq!(
            Seed::of(false, 2, None, false, 4),
            Seed::Open { open: 2, floor: 4 }
        );
    }

    /// Positions 0..4 each move to 4 and 5, won by their seeds at levels 3 and 8; 6 moves to
    /// 0 and 1; 7 moves to 4 alone.
    struct Fan;

    impl Moves for Fan {
        fn for_each_predecessor(&self, x: u32, mut f: impl FnMut(u32)) {
            match x {
                4 => (0..4).chain([7]).for_each(f),
                5 => (0..4).for_each(f),
                0 | 1 => f(6),
                _ => {}
            }
        }

        fn for_each_successor(&self, x: u32, mut f: impl FnMut(u32)) {
            match x {
                0..4 => [4, 5].into_iter().for_each(f),
                6 => [0, 1].into_iter().for_each(f),
                7 => f(4),
                _ => {}
            }
        }
    }

    /// Wins the seeds give, counted off before the levels run as walking them back at their
    /// levels: a position whose moves all reach them is lost at one more than the longest (or
    /// at its floor), and one past the limit is not counted.
    #[test]
    fn wins_of_the_seeds() {
        let seeds = |floor_of_1| {
            [
                Seed::Open { open: 2, floor: 0 },
                Seed::Open {
                    open: 2,
                    floor: floor_of_1,
                },
                Seed::Escapes,
                Seed::Pending(2),
                Seed::Won(3),
                Seed::Won(8),
                Seed::Open { open: 2, floor: 0 },
                Seed::Open { open: 1, floor: 0 },
            ]
        };
        use Outcome::{Lost, Undecided, Won};
        assert_eq!(
            solve(&seeds(12), &Fan, u16::MAX),
            [
                Lost(9),
                Lost(12),
                Undecided,
                Won(2),
                Won(3),
                Won(8),
                Won(10),
                Lost(4)
            ]
        );
        // Below the limit of 8, position 5's win is never walked back, so 0 and 1 stay open
        // (and 6 with them); 7 is lost at 4 all the same.
        assert_eq!(
            solve(&seeds(0), &Fan, 8),
            [
                Undecided,
                Undecided,
                Undecided,
                Won(2),
                Won(3),
                Won(8),
                Undecided,
                Lost(4)
            ]
        );
    }

    #[test]
    fn the_fewer_side_is_walked() {
        let open = Seed::Open { open: 1, floor: 0 };
        let p = Propagation::new(3, [open, Seed::Won(1), Seed::Won(1)].into_iter());
        assert_eq!(p.seeded_wins(u16::MAX), SeededWins::CountedOff);
        // Wins past the limit are never walked back: nothing to count off.
        assert_eq!(p.seeded_wins(1), SeededWins::WalkedBack);
        let p = Propagation::new(3, [open, open, Seed::Won(1)].into_iter());
        assert_eq!(p.seeded_wins(u16::MAX), SeededWins::WalkedBack);
    }
}
