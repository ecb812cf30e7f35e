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

use std::sync::atomic::{AtomicU16, AtomicU64, AtomicU8, Ordering};

use rafle_probe::{Dtw, Material, Position, PositionIndex, Wdl};
use rayon::prelude::*;

use crate::store::Store;
use crate::Progress;

/// Value bits of a state: a [`Wdl`] code, or `UNKNOWN`.
const VALUE: u8 = 0b11;
const UNKNOWN: u8 = 0b11;
/// The side to move must capture: the stored value is free to choose.
pub(crate) const CAPTURE: u8 = 0b100;
/// Decided and walked back from.
const DONE: u8 = 0b1000;
/// Undecided, but a promotion wins at the level held in the distance.
const PROMOTION_WINS: u8 = 0b1_0000;

/// Positions handled per unit of parallel work.
const CHUNK: u64 = 1 << 14;

/// The solved material: `states[i] & 3` is the [`Wdl`] code, `states[i] & CAPTURE` marks
/// positions whose side to move must capture, and `distances[i]` is the distance to win in
/// plies of a won or lost position (meaningless for a draw).
pub(crate) struct Solution {
    pub(crate) states: Vec<u8>,
    pub(crate) distances: Vec<u16>,
}

/// Solves `index`'s material, whose dependencies are all in `store`.
pub(crate) fn solve(index: &PositionIndex, store: &Store, progress: &dyn Progress) -> Solution {
    let n = index.size();
    let material = index.material();
    let states: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(UNKNOWN)).collect();
    let counts: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
    let distances: Vec<AtomicU16> = (0..n).map(|_| AtomicU16::new(0)).collect();
    let chunks = n.div_ceil(CHUNK);
    // The first level at which each chunk has a position to walk back from or a promotion win
    // falling due: levels skip the chunks with nothing to do, and jump over empty levels.
    let due: Vec<AtomicU16> = (0..chunks).map(|_| AtomicU16::new(u16::MAX)).collect();
    let mark = |i: usize, level: u16| due[i / CHUNK as usize].fetch_min(level, Ordering::Relaxed);

    let seeded = AtomicU64::new(0);
    (0..chunks).into_par_iter().for_each(|c| {
        let range = c * CHUNK..((c + 1) * CHUNK).min(n);
        let mut decided = 0;
        let mut cursor = index.cursor(range.start);
        for i in range.clone() {
            let seed = seed(&cursor.position(), material, store);
            cursor.advance();
            states[i as usize].store(seed.state, Ordering::Relaxed);
            counts[i as usize].store(seed.open, Ordering::Relaxed);
            distances[i as usize].store(seed.distance, Ordering::Relaxed);
            decided += u64::from(seed.state & VALUE != UNKNOWN);
            if seed.state & VALUE != UNKNOWN && seed.state & VALUE != Wdl::Draw.code() {
                mark(i as usize, seed.distance);
            } else if seed.state & PROMOTION_WINS != 0 {
                mark(i as usize, seed.distance - 1);
            }
        }
        seeded.fetch_add(decided, Ordering::Relaxed);
        progress.advance(range.end - range.start);
    });
    let mut decided_total = seeded.into_inner();
    progress.advance(decided_total);

    let mut level: u16 = 0;
    loop {
        let next = level + 1;
        let decided = AtomicU64::new(0);
        (0..chunks).into_par_iter().for_each(|c| {
            if due[c as usize].load(Ordering::Relaxed) > level {
                return;
            }
            // Cleared before reading any position: what this scan leaves waiting, and what
            // other threads decide here meanwhile, marks it again.
            due[c as usize].store(u16::MAX, Ordering::Relaxed);
            let range = c * CHUNK..((c + 1) * CHUNK).min(n);
            let mut newly = 0;
            let mut cursor = index.cursor(range.start);
            for i in range {
                let at = i as usize;
                let state = states[at].load(Ordering::Relaxed);
                let here = distances[at].load(Ordering::Relaxed);
                if state & VALUE == UNKNOWN {
                    // A promotion's win falls due at this level unless something was quicker.
                    if state & PROMOTION_WINS != 0 {
                        if here == next {
                            if states[at]
                                .compare_exchange(
                                    state,
                                    Wdl::Win.code(),
                                    Ordering::Relaxed,
                                    Ordering::Relaxed,
                                )
                                .is_ok()
                            {
                                newly += 1;
                            }
                            mark(at, next);
                        } else {
                            mark(at, here - 1);
                        }
                    }
                    cursor.advance();
                    continue;
                }
                if state & DONE != 0 || state & VALUE == Wdl::Draw.code() {
                    cursor.advance();
                    continue;
                }
                if here != level {
                    mark(at, here);
                    cursor.advance();
                    continue;
                }
                states[at].fetch_or(DONE, Ordering::Relaxed);
                let pos = cursor.position();
                cursor.advance();
                let lost = state & VALUE == Wdl::Loss.code();
                pos.for_each_quiet_predecessor(|p| {
                    let j = index.rank(&p) as usize;
                    let before = states[j].load(Ordering::Relaxed);
                    if before & VALUE != UNKNOWN {
                        return;
                    }
                    if lost {
                        // Every thread that gets here writes the same distance, and a pending
                        // promotion win is never quicker than this level's.
                        distances[j].store(next, Ordering::Relaxed);
                        mark(j, next);
                        if states[j]
                            .compare_exchange(
                                before,
                                Wdl::Win.code(),
                                Ordering::Relaxed,
                                Ordering::Relaxed,
                            )
                            .is_ok()
                        {
                            newly += 1;
                        }
                    } else if counts[j].fetch_sub(1, Ordering::Relaxed) == 1 {
                        let longest = distances[j].load(Ordering::Relaxed).max(next);
                        distances[j].store(longest, Ordering::Relaxed);
                        mark(j, longest);
                        states[j].store(Wdl::Loss.code(), Ordering::Relaxed);
                        newly += 1;
                    }
                });
            }
            decided.fetch_add(newly, Ordering::Relaxed);
        });
        let decided = decided.into_inner();
        decided_total += decided;
        progress.advance(decided);
        // The next level with something due; none: the rest are draws.
        match due.iter().map(|d| d.load(Ordering::Relaxed)).min() {
            Some(first) if first != u16::MAX => level = first.max(next),
            _ => break,
        }
    }
    progress.advance(n - decided_total);
    drop(counts);

    let mut states: Vec<u8> = states.into_iter().map(AtomicU8::into_inner).collect();
    for s in &mut states {
        let value = if *s & VALUE == UNKNOWN {
            Wdl::Draw.code()
        } else {
            *s & VALUE
        };
        *s = value | (*s & CAPTURE);
    }
    let distances = distances.into_iter().map(AtomicU16::into_inner).collect();
    Solution { states, distances }
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
