//! Retrograde solving of one material.
//!
//! Every position gets a state byte: its value (or "unknown"), whether its side to move must
//! capture, and which level's frontier it is in. Positions that must capture take their value
//! from their captures, which all lead to smaller, solved materials; positions without a move
//! are lost; quiet moves that promote lead to a solved material with fewer men. Those are the
//! seeds. Then, level by level, each newly decided position is walked back through its quiet
//! predecessors: a predecessor of a lost position is won, and a predecessor all of whose moves
//! lead to won positions is lost, which a per-position count of undecided successors tells.
//! What is never decided is a draw: play can go on for ever, which repetition makes a draw.
//!
//! Work is spread over rayon's threads by ranges of indices, with atomic states and counts.
//! The outcome does not depend on the order of the work, so the tables are the same whatever
//! the thread count.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};

use rafle_probe::{Material, PositionIndex, Wdl};
use rayon::prelude::*;

use crate::store::Store;
use crate::Progress;

/// Value bits of a state: a [`Wdl`] code, or `UNKNOWN`.
const VALUE: u8 = 0b11;
const UNKNOWN: u8 = 0b11;
/// The side to move must capture: the stored value is free to choose.
pub(crate) const CAPTURE: u8 = 0b100;
/// In the frontier of an even or an odd level.
const FRONTIER: [u8; 2] = [0b1000, 0b1_0000];

/// Positions handled per unit of parallel work.
const CHUNK: u64 = 1 << 14;

/// The solved states of a material: `state & 3` is the [`Wdl`] code, `state & CAPTURE` marks
/// positions whose side to move must capture.
pub(crate) struct Solution {
    pub(crate) states: Vec<u8>,
}

/// Solves `index`'s material, whose dependencies are all in `store`.
pub(crate) fn solve(index: &PositionIndex, store: &Store, progress: &dyn Progress) -> Solution {
    let n = index.size();
    let material = index.material();
    let states: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(UNKNOWN)).collect();
    let counts: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
    let chunks = n.div_ceil(CHUNK);

    let seeded = AtomicU64::new(0);
    (0..chunks).into_par_iter().for_each(|c| {
        let range = c * CHUNK..((c + 1) * CHUNK).min(n);
        let mut decided = 0;
        let mut cursor = index.cursor(range.start);
        for i in range.clone() {
            let (state, count) = seed(&cursor.position(), material, store);
            cursor.advance();
            states[i as usize].store(state, Ordering::Relaxed);
            counts[i as usize].store(count, Ordering::Relaxed);
            decided += u64::from(state & VALUE != UNKNOWN);
        }
        seeded.fetch_add(decided, Ordering::Relaxed);
        progress.advance(range.end - range.start);
    });
    let mut decided_total = seeded.into_inner();
    progress.advance(decided_total);

    let mut level = 0usize;
    loop {
        let current = FRONTIER[level % 2];
        let next = FRONTIER[(level + 1) % 2];
        let any = AtomicBool::new(false);
        let decided = AtomicU64::new(0);
        (0..chunks).into_par_iter().for_each(|c| {
            let range = c * CHUNK..((c + 1) * CHUNK).min(n);
            let mut newly = 0;
            let mut cursor = index.cursor(range.start);
            for i in range {
                let state = states[i as usize].load(Ordering::Relaxed);
                if state & current == 0 {
                    cursor.advance();
                    continue;
                }
                let pos = cursor.position();
                cursor.advance();
                states[i as usize].fetch_and(!current, Ordering::Relaxed);
                let value = state & VALUE;
                if value == Wdl::Draw.code() {
                    continue;
                }
                let lost = value == Wdl::Loss.code();
                pos.for_each_quiet_predecessor(|p| {
                    let j = index.rank(&p) as usize;
                    let before = states[j].load(Ordering::Relaxed);
                    if before & VALUE != UNKNOWN {
                        return;
                    }
                    if lost {
                        let won = Wdl::Win.code() | next;
                        if states[j]
                            .compare_exchange(before, won, Ordering::Relaxed, Ordering::Relaxed)
                            .is_ok()
                        {
                            newly += 1;
                        }
                    } else if counts[j].fetch_sub(1, Ordering::Relaxed) == 1 {
                        states[j].store(Wdl::Loss.code() | next, Ordering::Relaxed);
                        newly += 1;
                    }
                });
            }
            if newly > 0 {
                any.store(true, Ordering::Relaxed);
                decided.fetch_add(newly, Ordering::Relaxed);
            }
        });
        let decided = decided.into_inner();
        decided_total += decided;
        progress.advance(decided);
        if !any.into_inner() {
            break;
        }
        level += 1;
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
    Solution { states }
}

/// The first state of a position and its count of successors not yet known to be won.
fn seed(pos: &rafle_probe::Position, material: Material, store: &Store) -> (u8, u8) {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return (Wdl::Loss.code() | FRONTIER[0], 0);
    }
    if moves[0].is_capture() {
        let mut best = Wdl::Loss;
        for mv in &moves {
            best = best.max(-store.wdl(&pos.play(mv)));
            if best == Wdl::Win {
                break;
            }
        }
        return (best.code() | CAPTURE | FRONTIER[0], 0);
    }
    let mut open = 0u8;
    for mv in &moves {
        let next = pos.play(mv);
        if Material::of(&next) == material {
            open += 1;
            continue;
        }
        match store.wdl(&next) {
            Wdl::Loss => return (Wdl::Win.code() | FRONTIER[0], 0),
            Wdl::Draw => open += 1,
            Wdl::Win => {}
        }
    }
    if open == 0 {
        (Wdl::Loss.code() | FRONTIER[0], 0)
    } else {
        (UNKNOWN, open)
    }
}
