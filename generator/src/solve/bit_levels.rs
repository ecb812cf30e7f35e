//! Propagation in bits, for a set whose every open position has only moves inside the set and
//! no floor: the positions of a kings-only material, where a quiet move is a king move that
//! stays in the material and a capture leaves it.
//!
//! The [engine](crate::solve::propagation) keeps four bytes a position (a state with a count of open moves,
//! and a level) and lists the positions of each level: for a kings-only material of 7 × 10⁹
//! positions, some 70 GiB. Here each position has six bits: whether its seed fixes it (it must
//! capture, or has no move), whether it is won, lost, in the level being walked back
//! (`front`), decided at the next (`next`), and a candidate to be lost (`candidates`). A
//! position's level is never held: each level's `next` is handed to the caller as it is
//! completed, and the seeds come as lists by level.
//!
//! A loss's predecessors are won at the next level, as in the engine. A win's predecessors are
//! marked as candidates instead of having a count decremented, and each candidate is then
//! confirmed by generating its moves: it is lost at the next level if every move reaches a
//! position won at this level or before (mark and confirm, as Syzygy's generator does). A
//! position is lost at one more than the level of its last successor won, which is what the
//! engine's count gives when the floor is 0, so the outcome is the same. Every update is an
//! idempotent bit set whose result does not depend on the order of the threads, so the
//! outcome is the same for any thread count too.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

/// Words of a bitmap scanned per unit of parallel work.
const WORDS_PER_CHUNK: usize = 1 << 12;

/// Positions of a batch of [`Bits::par_for_each_batched`]: their codes in a work file (3 bytes
/// a position) span 192 MiB.
pub(crate) const POSITIONS_PER_BATCH: u64 = 1 << 26;

/// Calls `f` with every position set in `words`, whose first word is word `first` of its set,
/// in parallel chunks, each in order.
fn for_each_in(words: &[AtomicU64], first: usize, f: &(impl Fn(u64) + Sync)) {
    words
        .par_chunks(WORDS_PER_CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            for (i, w) in chunk.iter().enumerate() {
                let mut bits = w.load(Ordering::Relaxed);
                let base = ((first + c * WORDS_PER_CHUNK + i) * 64) as u64;
                while bits != 0 {
                    f(base + u64::from(bits.trailing_zeros()));
                    bits &= bits - 1;
                }
            }
        });
}

/// The moves inside the set, walked backwards and forwards, positions numbered in `u64`.
pub(crate) trait SetMoves: Sync {
    /// Calls `f` with every position from which a move inside the set leads to `x`.
    fn for_each_predecessor(&self, x: u64, f: impl FnMut(u64));

    /// Calls `f` with every position a move inside the set leads to from `x`, a position whose
    /// side to move need not capture; stops early when `f` returns `false`, and returns
    /// whether it went through every move.
    fn all_successors(&self, x: u64, f: impl FnMut(u64) -> bool) -> bool;
}

impl SetMoves for rafle_probe::toolkit::SliceMoves {
    #[inline]
    fn for_each_predecessor(&self, x: u64, f: impl FnMut(u64)) {
        rafle_probe::toolkit::SliceMoves::for_each_predecessor(self, x, f);
    }

    #[inline]
    fn all_successors(&self, x: u64, mut f: impl FnMut(u64) -> bool) -> bool {
        // The slice's moves are generated whole; the check stops reading at the first failure.
        let mut all = true;
        rafle_probe::toolkit::SliceMoves::for_each_successor(self, x, |s| {
            if all {
                all = f(s);
            }
        });
        all
    }
}

/// A set of positions `0..len`, one bit each, updated from any thread.
pub(crate) struct Bits(Vec<AtomicU64>);

impl Bits {
    /// The empty set of `0..len`.
    pub(crate) fn new(len: u64) -> Bits {
        Bits((0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
    }

    #[inline]
    pub(crate) fn contains(&self, x: u64) -> bool {
        self.0[(x / 64) as usize].load(Ordering::Relaxed) & (1 << (x % 64)) != 0
    }

    #[inline]
    pub(crate) fn insert(&self, x: u64) {
        self.0[(x / 64) as usize].fetch_or(1 << (x % 64), Ordering::Relaxed);
    }

    /// Whether the set is empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.par_iter().all(|w| w.load(Ordering::Relaxed) == 0)
    }

    fn clear(&mut self) {
        self.0.par_iter_mut().for_each(|w| *w.get_mut() = 0);
    }

    /// Calls `f` with every position of the set, in parallel chunks, each in order.
    pub(crate) fn par_for_each(&self, f: impl Fn(u64) + Sync) {
        for_each_in(&self.0, 0, &f);
    }

    /// As [`Bits::par_for_each`], a batch of [`POSITIONS_PER_BATCH`] positions after another,
    /// calling `between` after each batch: what `f` touches of a file mapped by position is
    /// then at most a batch's share of it when `between` gives pages back.
    pub(crate) fn par_for_each_batched(&self, f: impl Fn(u64) + Sync, mut between: impl FnMut()) {
        let words = (POSITIONS_PER_BATCH / 64) as usize;
        for (b, batch) in self.0.chunks(words).enumerate() {
            for_each_in(batch, b * words, &f);
            between();
        }
    }

    /// The positions of the set, in order.
    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.0.iter().enumerate().flat_map(|(i, w)| {
            let mut bits = w.load(Ordering::Relaxed);
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let x = i as u64 * 64 + u64::from(bits.trailing_zeros());
                    bits &= bits - 1;
                    x
                })
            })
        })
    }
}

/// The state of a set being solved in bits.
pub(crate) struct BitLevels {
    fixed: Bits,
    won: Bits,
    lost: Bits,
    front: Bits,
    next: Bits,
    candidates: Bits,
}

impl BitLevels {
    /// The set whose positions decided by their seeds (won, lost or settled) are `fixed`, every
    /// other one open.
    pub(crate) fn new(fixed: Bits) -> BitLevels {
        let len = 64 * fixed.0.len() as u64;
        let empty = || Bits::new(len);
        BitLevels {
            won: empty(),
            lost: empty(),
            front: empty(),
            next: empty(),
            candidates: empty(),
            fixed,
        }
    }

    /// The positions decided by their seeds, given back for another propagation of the same
    /// positions.
    pub(crate) fn into_fixed(self) -> Bits {
        self.fixed
    }

    /// Runs the levels below `limit`. The seeds come by level: `seeds(level, add)` calls
    /// `add(x, won)` for each position its seed decides at `level` (won or lost), and none come
    /// after `last_seed`. `decided(level, positions, won)` is called with the positions the
    /// propagation decides at each level (`won` tells which of them are won), in level order;
    /// positions decided by their seeds are the caller's to know.
    ///
    /// # Errors
    ///
    /// The first error of `seeds` or `decided`, which ends the run.
    pub(crate) fn run<E>(
        &mut self,
        moves: &impl SetMoves,
        limit: u16,
        last_seed: Option<u16>,
        mut seeds: impl FnMut(u16, &mut dyn FnMut(u64, bool)) -> Result<(), E>,
        mut decided: impl FnMut(u16, &Bits, &Bits) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut level = 0u16;
        while level < limit {
            // The front: the positions the last level decided, and the seeds of this one.
            std::mem::swap(&mut self.front, &mut self.next);
            self.next.clear();
            let (won, lost, front) = (&self.won, &self.lost, &self.front);
            seeds(level, &mut |x, is_won| {
                if is_won {
                    won.insert(x);
                } else {
                    lost.insert(x);
                }
                front.insert(x);
            })?;
            let later_seeds = last_seed.is_some_and(|last| last > level);
            if !later_seeds && self.front.is_empty() {
                break;
            }
            self.walk_back(moves);
            self.confirm_losses(moves);
            let next = level + 1;
            decided(next, &self.next, &self.won)?;
            level = next;
        }
        Ok(())
    }

    /// Walks the front back one move: a loss's undecided predecessors are won at the next
    /// level, a win's are candidates to be lost.
    fn walk_back(&self, moves: &impl SetMoves) {
        self.front.par_for_each(|x| {
            let lost = self.lost.contains(x);
            moves.for_each_predecessor(x, |p| {
                if self.fixed.contains(p) || self.won.contains(p) || self.lost.contains(p) {
                    return;
                }
                if lost {
                    self.won.insert(p);
                    self.next.insert(p);
                } else {
                    self.candidates.insert(p);
                }
            });
        });
    }

    /// Confirms the candidates: lost at the next level if every move reaches a position won
    /// at this level or before.
    fn confirm_losses(&mut self, moves: &impl SetMoves) {
        self.candidates.par_for_each(|p| {
            if self.won.contains(p) {
                return;
            }
            let all_won =
                moves.all_successors(p, |s| self.won.contains(s) && !self.next.contains(s));
            if all_won {
                self.lost.insert(p);
                self.next.insert(p);
            }
        });
        self.candidates.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::propagation::{Moves, Outcome, Propagation, Seed};

    #[test]
    fn a_batched_walk_meets_every_position_once_and_stops_after_each_batch() {
        let len = 2 * POSITIONS_PER_BATCH + 100;
        let set = Bits::new(len);
        let members = [
            0,
            63,
            64,
            POSITIONS_PER_BATCH - 1,
            POSITIONS_PER_BATCH,
            2 * POSITIONS_PER_BATCH + 99,
        ];
        for x in members {
            set.insert(x);
        }
        let met = std::sync::Mutex::new(Vec::new());
        let mut batches = Vec::new();
        set.par_for_each_batched(
            |x| met.lock().unwrap().push(x),
            || batches.push(met.lock().unwrap().len()),
        );
        let mut met = met.into_inner().unwrap();
        met.sort_unstable();
        assert_eq!(met, members);
        // After each batch, the positions below its end, and none past it.
        assert_eq!(batches, [4, 5, 6]);
    }

    /// A position's seed, as the bit propagation takes it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum BitSeed {
        /// Undecided, every move inside the set (lost once all of them reach wins).
        Open,
        /// Won at this level by the seed alone.
        Won(u16),
        /// Lost at this level by the seed alone.
        Lost(u16),
        /// Fixed by its seed as neither won nor lost.
        Settled,
    }

    /// A random graph of `n` positions, each with up to `out` moves.
    struct Graph {
        successors: Vec<Vec<u64>>,
        predecessors: Vec<Vec<u64>>,
    }

    impl Graph {
        fn random(n: usize, out: usize, seed: u64) -> Graph {
            let mut state = seed;
            let mut next = move || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let mut successors = vec![Vec::new(); n];
            let mut predecessors = vec![Vec::new(); n];
            for (x, moves) in successors.iter_mut().enumerate() {
                let k = (next() % (out as u64 + 1)) as usize;
                for _ in 0..k {
                    let s = next() % n as u64;
                    if !moves.contains(&s) {
                        moves.push(s);
                        predecessors[s as usize].push(x as u64);
                    }
                }
            }
            Graph {
                successors,
                predecessors,
            }
        }
    }

    impl SetMoves for Graph {
        fn for_each_predecessor(&self, x: u64, f: impl FnMut(u64)) {
            self.predecessors[x as usize].iter().copied().for_each(f);
        }

        fn all_successors(&self, x: u64, mut f: impl FnMut(u64) -> bool) -> bool {
            self.successors[x as usize].iter().all(|&s| f(s))
        }
    }

    impl Moves for Graph {
        fn for_each_predecessor(&self, x: u32, mut f: impl FnMut(u32)) {
            self.predecessors[x as usize]
                .iter()
                .for_each(|&p| f(p as u32));
        }

        fn for_each_successor(&self, x: u32, mut f: impl FnMut(u32)) {
            self.successors[x as usize]
                .iter()
                .for_each(|&s| f(s as u32));
        }
    }

    /// The outcomes the bit propagation gives.
    fn bit_outcomes(seeds: &[BitSeed], moves: &impl SetMoves, limit: u16) -> Vec<Outcome> {
        let n = seeds.len();
        let fixed = Bits::new(n as u64);
        let mut by_level: Vec<Vec<(u64, bool)>> = Vec::new();
        let mut outcomes = vec![Outcome::Undecided; n];
        for (x, &seed) in seeds.iter().enumerate() {
            let x64 = x as u64;
            let (level, won) = match seed {
                BitSeed::Open => continue,
                BitSeed::Settled => {
                    fixed.insert(x64);
                    continue;
                }
                BitSeed::Won(l) => (l, true),
                BitSeed::Lost(l) => (l, false),
            };
            fixed.insert(x64);
            outcomes[x] = if won {
                Outcome::Won(level)
            } else {
                Outcome::Lost(level)
            };
            let level = usize::from(level);
            if by_level.len() <= level {
                by_level.resize_with(level + 1, Vec::new);
            }
            by_level[level].push((x64, won));
        }
        let last = by_level.len().checked_sub(1).map(|l| l as u16);
        let mut levels = BitLevels::new(fixed);
        levels
            .run::<()>(
                moves,
                limit,
                last,
                |level, add| {
                    for &(x, won) in by_level.get(usize::from(level)).into_iter().flatten() {
                        add(x, won);
                    }
                    Ok(())
                },
                |level, decided, won| {
                    for x in decided.iter() {
                        outcomes[x as usize] = if won.contains(x) {
                            Outcome::Won(level)
                        } else {
                            Outcome::Lost(level)
                        };
                    }
                    Ok(())
                },
            )
            .unwrap();
        outcomes
    }

    /// The engine's seed of a bit seed, for a position with `open` moves inside.
    fn engine_seed(seed: BitSeed, open: usize) -> Seed {
        match seed {
            BitSeed::Open if open == 0 => Seed::Lost(0),
            BitSeed::Open => Seed::Open {
                open: open as u8,
                floor: 0,
            },
            BitSeed::Won(l) => Seed::Won(l),
            BitSeed::Lost(l) => Seed::Lost(l),
            BitSeed::Settled => Seed::Settled,
        }
    }

    /// On random graphs with random fixed positions, the bits give the engine's outcomes, for
    /// several limits.
    #[test]
    fn the_bits_agree_with_the_engine_on_random_graphs() {
        for case in 0..40u64 {
            let n = 200 + (case as usize * 97) % 3000;
            let graph = Graph::random(n, 1 + (case % 6) as usize, case + 1);
            let mut rng = case.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let seeds: Vec<BitSeed> = (0..n)
                .map(|x| {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    if graph.successors[x].is_empty() {
                        return BitSeed::Lost(0);
                    }
                    match rng % 10 {
                        0 => BitSeed::Won(1 + (rng >> 8) as u16 % 9),
                        1 => BitSeed::Lost(2 + (rng >> 8) as u16 % 8),
                        2 => BitSeed::Settled,
                        _ => BitSeed::Open,
                    }
                })
                .collect();
            for limit in [u16::MAX, 4, 1] {
                let engine: Vec<Seed> = seeds
                    .iter()
                    .enumerate()
                    .map(|(x, &s)| engine_seed(s, graph.successors[x].len()))
                    .collect();
                let mut p = Propagation::new(n, engine.into_iter());
                p.run(&graph, limit);
                let expected: Vec<Outcome> = (0..n).map(|x| p.outcome(x)).collect();
                assert_eq!(
                    bit_outcomes(&seeds, &graph, limit),
                    expected,
                    "case {case}, limit {limit}"
                );
            }
        }
    }
}
