//! Retrograde solving of one material: win/draw/loss and distance to win.
//!
//! Every position gets a state byte (its value or "unknown", whether its side to move must
//! capture, whether it has been walked back from, whether a promotion already wins) and a
//! distance. The seeds are the positions whose value does not depend on this material:
//! positions that must capture take their value from their captures, which lead to smaller,
//! solved materials; positions without a move are lost in 0; positions whose quiet moves all
//! promote read the material with one man fewer. Then, level by level (level `d` holds the
//! positions decided in `d` plies), each decided position is walked back through its quiet
//! predecessors: a predecessor of a loss in `d` is a win in `d + 1` (the first level to reach it
//! is the shortest win), and a predecessor all of whose moves lead to wins is a loss in one more
//! than its longest, which a per-position count of undecided successors tells. A promotion that
//! reaches a lost position is a win waiting at its own level: a quicker win found before that
//! level takes precedence. What is never decided is a draw: play can go on for ever, which
//! repetition makes a draw.
//!
//! Work is spread over rayon's threads by ranges of indices, with atomic states, counts and
//! distances. Every level depends only on the levels before it, so the tables are the same
//! whatever the thread count.

use std::sync::atomic::{AtomicU16, AtomicU8, Ordering};

use rafle_probe::walk::Captures;
use rafle_probe::{Dtw, Material, Position, PositionIndex, Wdl};
use rayon::prelude::*;

use crate::store::{Distances, Store};
use crate::Progress;

/// Value bits of a state: a [`Wdl`] code, or `UNKNOWN`.
const VALUE: u8 = 0b11;
const UNKNOWN: u8 = 0b11;
/// The side to move must capture: the stored value is free to choose.
const CAPTURE: u8 = 0b100;
/// Decided and walked back from.
const DONE: u8 = 0b1000;
/// Undecided, but a promotion wins at the level held in the distance.
const PROMOTION_WINS: u8 = 0b1_0000;

/// Positions handled per unit of parallel work.
const CHUNK: u64 = 1 << 14;

/// The solved material.
pub(crate) struct Solution {
    /// The value of every position.
    pub(crate) wdl: Vec<Wdl>,
    /// Which positions' side to move must capture.
    pub(crate) captures: Captures,
    /// The distance to win in plies of every won or lost position, the draw marker for draws.
    pub(crate) distances: Distances,
}

/// Solves `index`'s material, whose dependencies are all in `store`.
pub(crate) fn solve(index: &PositionIndex, store: &Store, progress: &dyn Progress) -> Solution {
    let solver = Solver::new(index, store);
    let mut decided = solver.seed(progress);
    progress.advance(decided);
    let mut level: u16 = 0;
    loop {
        let newly = solver.level(level);
        decided += newly;
        progress.advance(newly);
        // The next level with something due; none: the rest are draws.
        match solver.due.iter().map(|d| d.load(Ordering::Relaxed)).min() {
            Some(first) if first != u16::MAX => level = first.max(level + 1),
            _ => break,
        }
    }
    progress.advance(index.size() - decided);
    solver.finish()
}

/// The state of a material being solved.
struct Solver<'a> {
    index: &'a PositionIndex,
    store: &'a Store,
    states: Vec<AtomicU8>,
    /// Successors not yet known to be won, of each undecided position.
    counts: Vec<AtomicU8>,
    distances: Vec<AtomicU16>,
    /// The first level at which each chunk has a position to walk back from or a promotion win
    /// falling due: levels skip the chunks with nothing to do, and jump over empty levels.
    due: Vec<AtomicU16>,
}

impl<'a> Solver<'a> {
    fn new(index: &'a PositionIndex, store: &'a Store) -> Solver<'a> {
        let n = index.size();
        Solver {
            index,
            store,
            states: (0..n).map(|_| AtomicU8::new(UNKNOWN)).collect(),
            counts: (0..n).map(|_| AtomicU8::new(0)).collect(),
            distances: (0..n).map(|_| AtomicU16::new(0)).collect(),
            due: (0..n.div_ceil(CHUNK))
                .map(|_| AtomicU16::new(u16::MAX))
                .collect(),
        }
    }

    /// Chunk `c`'s positions.
    fn range(&self, c: u64) -> std::ops::Range<u64> {
        c * CHUNK..((c + 1) * CHUNK).min(self.index.size())
    }

    /// Marks position `i`'s chunk as having something due at `level`.
    fn mark(&self, i: usize, level: u16) {
        self.due[i / CHUNK as usize].fetch_min(level, Ordering::Relaxed);
    }

    /// The seed pass: every position's first state. Returns the number of positions decided.
    fn seed(&self, progress: &dyn Progress) -> u64 {
        let material = self.index.material();
        (0..self.due.len() as u64)
            .into_par_iter()
            .map(|c| {
                let range = self.range(c);
                let mut decided = 0;
                let mut cursor = self.index.cursor(range.start);
                for i in range.clone() {
                    let seed = seed(&cursor.position(), material, self.store);
                    cursor.advance();
                    let at = i as usize;
                    self.states[at].store(seed.state, Ordering::Relaxed);
                    self.counts[at].store(seed.open, Ordering::Relaxed);
                    self.distances[at].store(seed.distance, Ordering::Relaxed);
                    decided += u64::from(seed.state & VALUE != UNKNOWN);
                    if seed.state & VALUE != UNKNOWN && seed.state & VALUE != Wdl::Draw.code() {
                        self.mark(at, seed.distance);
                    } else if seed.state & PROMOTION_WINS != 0 {
                        self.mark(at, seed.distance - 1);
                    }
                }
                progress.advance(range.end - range.start);
                decided
            })
            .sum()
    }

    /// One level of propagation: the positions decided at `level` walked back from, and the
    /// promotion wins falling due at the next. Returns the number of positions decided.
    fn level(&self, level: u16) -> u64 {
        (0..self.due.len() as u64)
            .into_par_iter()
            .map(|c| {
                if self.due[c as usize].load(Ordering::Relaxed) > level {
                    return 0;
                }
                // Cleared before reading any position: what this scan leaves waiting, and what
                // other threads decide here meanwhile, marks it again.
                self.due[c as usize].store(u16::MAX, Ordering::Relaxed);
                let range = self.range(c);
                let mut newly = 0;
                let mut cursor = self.index.cursor(range.start);
                for i in range {
                    newly += self.step(i as usize, level, &mut cursor);
                }
                newly
            })
            .sum()
    }

    /// Position `at`, under `cursor`, at `level`; moves the cursor on. Returns the number of
    /// positions it decided.
    fn step(&self, at: usize, level: u16, cursor: &mut rafle_probe::IndexCursor) -> u64 {
        let next = level + 1;
        let state = self.states[at].load(Ordering::Relaxed);
        let here = self.distances[at].load(Ordering::Relaxed);
        if state & VALUE == UNKNOWN {
            cursor.advance();
            // A promotion's win falls due at this level unless something was quicker.
            if state & PROMOTION_WINS == 0 {
                return 0;
            }
            if here != next {
                self.mark(at, here - 1);
                return 0;
            }
            let decided = self.decide(at, state, Wdl::Win);
            self.mark(at, next);
            return u64::from(decided);
        }
        if state & DONE != 0 || state & VALUE == Wdl::Draw.code() {
            cursor.advance();
            return 0;
        }
        if here != level {
            self.mark(at, here);
            cursor.advance();
            return 0;
        }
        self.states[at].fetch_or(DONE, Ordering::Relaxed);
        let pos = cursor.position();
        cursor.advance();
        self.walk_back(&pos, state & VALUE == Wdl::Loss.code(), next)
    }

    /// Decides a position still in `before` to be `value`, unless another thread did first.
    fn decide(&self, at: usize, before: u8, value: Wdl) -> bool {
        self.states[at]
            .compare_exchange(before, value.code(), Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    /// Walks back from a position decided at level `next - 1`, `lost` or won, through its
    /// quiet predecessors. Returns the number of positions decided.
    fn walk_back(&self, pos: &Position, lost: bool, next: u16) -> u64 {
        let mut newly = 0;
        pos.for_each_quiet_predecessor(|p| {
            let j = self.index.rank(&p) as usize;
            let before = self.states[j].load(Ordering::Relaxed);
            if before & VALUE != UNKNOWN {
                return;
            }
            if lost {
                // Every thread that gets here writes the same distance, and a pending
                // promotion win is never quicker than this level's.
                self.distances[j].store(next, Ordering::Relaxed);
                self.mark(j, next);
                newly += u64::from(self.decide(j, before, Wdl::Win));
            } else if self.counts[j].fetch_sub(1, Ordering::Relaxed) == 1 {
                let longest = self.distances[j].load(Ordering::Relaxed).max(next);
                self.distances[j].store(longest, Ordering::Relaxed);
                self.mark(j, longest);
                self.states[j].store(Wdl::Loss.code(), Ordering::Relaxed);
                newly += 1;
            }
        });
        newly
    }

    /// The solution: what was never decided is a draw.
    fn finish(self) -> Solution {
        let Solver {
            states,
            counts,
            distances,
            ..
        } = self;
        drop(counts);
        let states: Vec<u8> = states.into_iter().map(AtomicU8::into_inner).collect();
        let wdl: Vec<Wdl> = states
            .iter()
            .map(|&s| Wdl::from_code(s & VALUE).unwrap_or(Wdl::Draw))
            .collect();
        let captures = Captures::from_fn(states.len(), |i| states[i] & CAPTURE != 0);
        drop(states);
        let distances: Vec<u16> = distances.into_iter().map(AtomicU16::into_inner).collect();
        let distances = Distances::new(&wdl, &distances);
        Solution {
            wdl,
            captures,
            distances,
        }
    }
}

/// The first state of a position.
struct Seed {
    state: u8,
    /// Successors not yet known to be won (in this material, or drawn elsewhere).
    open: u8,
    /// The distance if decided; a promotion's win if `PROMOTION_WINS`; otherwise one more than
    /// the longest win reached by a promotion (the least a loss can last).
    distance: u16,
}

fn seed(pos: &Position, material: Material, store: &Store) -> Seed {
    let decided = |value: Wdl, distance: u16, extra: u8| Seed {
        state: value.code() | extra,
        open: 0,
        distance,
    };
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return decided(Wdl::Loss, 0, 0);
    }
    if moves[0].is_capture() {
        let value = Dtw::from_successors(moves.iter().map(|mv| store.dtw(&pos.play(mv))));
        return decided(value.wdl(), value.plies().unwrap_or(0), CAPTURE);
    }
    let mut open = 0u8;
    let mut quickest_win = None::<u16>;
    let mut longest_loss = 0u16;
    for mv in &moves {
        let next = pos.play(mv);
        if Material::of(&next) == material {
            open += 1;
            continue;
        }
        match store.dtw(&next) {
            Dtw::Loss(d) => quickest_win = Some(quickest_win.map_or(d + 1, |w| w.min(d + 1))),
            Dtw::Draw => open += 1,
            Dtw::Win(d) => longest_loss = longest_loss.max(d + 1),
        }
    }
    match (quickest_win, open) {
        (Some(win), 0) => decided(Wdl::Win, win, 0),
        (Some(win), _) => Seed {
            state: UNKNOWN | PROMOTION_WINS,
            open: open + 1,
            distance: win,
        },
        (None, 0) => decided(Wdl::Loss, longest_loss, 0),
        (None, _) => Seed {
            state: UNKNOWN,
            open,
            distance: longest_loss,
        },
    }
}
