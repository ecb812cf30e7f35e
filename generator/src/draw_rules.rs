//! Retrograde solving of the rule-aware values of one material (RULES.md §5.3): the class with
//! fresh counters and the count, the plies to the next counter reset that keeps the result.
//!
//! A ply either resets the live counter (see [`resets_counter`]) or adds one to it. After a
//! reset the position reached starts afresh, so only its class matters; after any other ply
//! its count does, plus one. The positions a move reaches without a reset have the same
//! material, and:
//!
//! - outside the 6.3/6.4 categories they are king moves, which keep the men where they are.
//!   A man move resets, and it brings the men one step closer to promotion. So the material is
//!   solved in groups of men placements with the same total distance of the men to promotion,
//!   the closest first: the man moves of a group lead to groups already final;
//! - inside a category every move that stays in the material is counted (a man move too), and
//!   the whole material is one group; promotions and captures that stay in the category are
//!   counted moves into materials solved before.
//!
//! Inside a group, counts are found level by level as in [`crate::solve`]: level `c` holds the
//! positions whose count is `c`. A move that resets into a position lost under the rules is a
//! win with count 1; a counted move into a loss with count `c` a win with count `c + 1` (the
//! quickest is kept); a position every move of which leads to a win under the rules is lost,
//! with the longest count. Counts past the rule's limit are never reached: what is left is not
//! forced under the rules, and the win/draw/loss value (ignoring the rules) tells a cursed win,
//! a draw and a blessed loss apart.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU8, Ordering};

use rafle_probe::{
    resets_counter, Category, Color, Dtw, Limits, Material, Position, PositionIndex, Role,
    RuleClass, RuleValue, Wdl,
};
use rayon::prelude::*;

use crate::store::{Distances, Store};
use crate::Progress;

/// Decided: won (the value is the count).
const WIN: u8 = 1;
/// Decided: lost (the value is the count).
const LOSS: u8 = 2;
const DECIDED: u8 = WIN | LOSS;
/// Undecided, but a move out of the group wins at the level held in the value.
const PENDING_WIN: u8 = 4;
/// Decided and walked back from.
const DONE: u8 = 8;
/// The value holds the final [`RuleValue::code`].
const FINAL: u8 = 16;
/// Settled by its seed as neither won nor lost under the rules, and skipped when walking back:
/// a draw with the rules ignored (the rules only add draws), or a position that must capture
/// (its quiet moves are not legal) and escapes.
const SETTLED: u8 = 32;

/// Positions per unit of parallel work.
const CHUNK: u64 = 1 << 14;

/// The rule-aware value codes of every position of `index`'s material (capture positions
/// included), whose dependencies are all in `store`; `distances` is the material's solution
/// with the rules ignored.
pub(crate) fn solve_draw_rules(
    index: &PositionIndex,
    store: &Store,
    distances: &Distances,
    limits: Limits,
    progress: &dyn Progress,
) -> Vec<u8> {
    let n = index.size();
    let category = Category::of(index.variant(), index.material());
    let solver = Solver {
        index,
        store,
        category,
        limit: limits.of(category),
        states: (0..n).map(|_| AtomicU8::new(0)).collect(),
        open: (0..n).map(|_| AtomicU8::new(0)).collect(),
        values: (0..n).map(|_| AtomicU8::new(0)).collect(),
        due: (0..n.div_ceil(CHUNK))
            .map(|_| AtomicU8::new(u8::MAX))
            .collect(),
    };
    for group in groups(index, category) {
        solver.seed(&group, distances);
        solver.run_levels(&group);
        solver.finish(&group, distances, progress);
    }
    solver
        .values
        .into_iter()
        .map(AtomicU8::into_inner)
        .collect()
}

/// The positions of one group: per chunk of the index, the ranges of the group inside it.
type Group = Vec<(usize, Vec<Range<u64>>)>;

/// The groups of a material in the order they are solved.
fn groups(index: &PositionIndex, category: Category) -> Vec<Group> {
    let n = index.size();
    if category != Category::Outside || index.material().men() == 0 {
        return vec![by_chunk(std::iter::once(0..n))];
    }
    let (men, kings) = (index.men_placements(), index.king_placements());
    let mut by_distance: BTreeMap<u32, Vec<Range<u64>>> = BTreeMap::new();
    for m in 0..men {
        let distance = promotion_distance(&index.unrank(m * kings));
        let ranges = by_distance.entry(distance).or_default();
        for side in 0..2 {
            let start = (side * men + m) * kings;
            ranges.push(start..start + kings);
        }
    }
    by_distance
        .into_values()
        .map(|mut ranges| {
            ranges.sort_by_key(|r| r.start);
            by_chunk(ranges.into_iter())
        })
        .collect()
}

/// Sorted ranges cut at chunk boundaries, adjacent ones joined.
fn by_chunk(ranges: impl Iterator<Item = Range<u64>>) -> Group {
    let mut group: Group = Vec::new();
    for range in ranges {
        let mut start = range.start;
        while start < range.end {
            let chunk = (start / CHUNK) as usize;
            let end = range.end.min((chunk as u64 + 1) * CHUNK);
            match group.last_mut() {
                Some((c, parts)) if *c == chunk => match parts.last_mut() {
                    Some(last) if last.end == start => last.end = end,
                    _ => parts.push(start..end),
                },
                _ => group.push((chunk, std::iter::once(start..end).collect())),
            }
            start = end;
        }
    }
    group
}

/// Plies the men of a position need, all together, to reach their promotion rows.
fn promotion_distance(pos: &Position) -> u32 {
    let v = pos.variant();
    let last_row = u32::from(v.board_size()) - 1;
    let white: u32 = pos
        .pieces(Color::White, Role::Man)
        .into_iter()
        .map(|sq| u32::from(sq.row(v)))
        .sum();
    let black: u32 = pos
        .pieces(Color::Black, Role::Man)
        .into_iter()
        .map(|sq| last_row - u32::from(sq.row(v)))
        .sum();
    white + black
}

struct Solver<'a> {
    index: &'a PositionIndex,
    store: &'a Store,
    category: Category,
    limit: u8,
    states: Vec<AtomicU8>,
    /// Counted moves not yet known to lose for the side playing them (plus one for a move
    /// that escapes under the rules, or a pending win, so it never runs out).
    open: Vec<AtomicU8>,
    /// The count once decided; before: a pending win's count, or the least count a loss can
    /// have; once final, the code.
    values: Vec<AtomicU8>,
    /// Per chunk, the first level with something to do there in the current group.
    due: Vec<AtomicU8>,
}

impl Solver<'_> {
    fn mark(&self, i: u64, level: u8) {
        self.due[(i / CHUNK) as usize].fetch_min(level, Ordering::Relaxed);
    }

    /// First states of a group, from the moves that leave it.
    fn seed(&self, group: &Group, distances: &Distances) {
        group.par_iter().for_each(|(_, ranges)| {
            for range in ranges {
                let mut cursor = self.index.cursor(range.start);
                for i in range.clone() {
                    let (state, open, value) = if distances.get(i as usize) == Dtw::Draw {
                        (SETTLED, 0, 0)
                    } else {
                        self.seed_position(&cursor.position())
                    };
                    cursor.advance();
                    let at = i as usize;
                    self.states[at].store(state, Ordering::Relaxed);
                    self.open[at].store(open, Ordering::Relaxed);
                    self.values[at].store(value, Ordering::Relaxed);
                    if state & DECIDED != 0 {
                        self.mark(i, value);
                    } else if state & PENDING_WIN != 0 {
                        self.mark(i, value - 1);
                    }
                }
            }
        });
    }

    /// State, open count and value of a position before the levels.
    fn seed_position(&self, pos: &Position) -> (u8, u8, u8) {
        let moves = pos.legal_moves();
        let material = self.index.material();
        let mut open = 0u8;
        let mut quickest_win = None::<u8>;
        let mut longest_loss = 0u8;
        let mut escapes = false;
        let variant = self.index.variant();
        let men = pos.pieces(pos.turn(), Role::Man);
        for mv in &moves {
            let next = pos.play(mv);
            let next_material = Material::of(&next);
            let same = next_material == material;
            // What `resets_counter` says, knowing the category: a move that stays in the
            // material keeps it, and one that leaves it captures or promotes.
            let resets = if same {
                self.category == Category::Outside && men.contains(mv.from())
            } else {
                self.category == Category::Outside
                    || Category::of(variant, next_material) != self.category
            };
            debug_assert_eq!(resets, resets_counter(pos, mv, &next));
            if same && !resets {
                open += 1;
                continue;
            }
            let value = if same {
                // A man move outside the categories: its group is final.
                let code = self.values[self.index.rank(&next) as usize].load(Ordering::Relaxed);
                debug_assert!(
                    self.states[self.index.rank(&next) as usize].load(Ordering::Relaxed) & FINAL
                        != 0
                );
                RuleValue::from_code(code).expect("final codes are valid")
            } else {
                self.store.rule(&next)
            };
            match RuleValue::through_move(value, resets, self.limit) {
                Some((Wdl::Win, c)) => quickest_win = Some(quickest_win.map_or(c, |w| w.min(c))),
                Some((_, c)) => longest_loss = longest_loss.max(c),
                None => escapes = true,
            }
        }
        let capture = moves.first().is_some_and(|mv| mv.is_capture());
        match quickest_win {
            // Nothing is quicker than 1, and nothing else can come.
            Some(c) if c == 1 || open == 0 => (WIN, 0, c),
            None if capture && escapes => (SETTLED, 0, 0),
            Some(c) => (PENDING_WIN, open + 1, c),
            None if open == 0 && !escapes => (LOSS, 0, longest_loss),
            None => (0, open + u8::from(escapes), longest_loss),
        }
    }

    /// Walks the decided positions of a group back, level by level, up to the limit.
    fn run_levels(&self, group: &Group) {
        let mut level = 0u8;
        loop {
            let next = level + 1;
            group.par_iter().for_each(|(chunk, ranges)| {
                if self.due[*chunk].load(Ordering::Relaxed) > level {
                    return;
                }
                self.due[*chunk].store(u8::MAX, Ordering::Relaxed);
                for range in ranges {
                    self.run_range(range.clone(), level);
                }
            });
            let first = group
                .iter()
                .map(|(c, _)| self.due[*c].load(Ordering::Relaxed))
                .min();
            // Levels from the limit on would only give counts past it.
            match first.map(|f| (f, f.max(next))) {
                Some((first, new)) if first != u8::MAX && new < self.limit => level = new,
                _ => break,
            }
        }
    }

    fn run_range(&self, range: Range<u64>, level: u8) {
        let next = level + 1;
        let mut cursor = self.index.cursor(range.start);
        for i in range {
            let at = i as usize;
            let state = self.states[at].load(Ordering::Relaxed);
            let here = self.values[at].load(Ordering::Relaxed);
            if state & DECIDED == 0 {
                if state & PENDING_WIN != 0 {
                    if here == next {
                        let _ = self.states[at].compare_exchange(
                            state,
                            WIN,
                            Ordering::Relaxed,
                            Ordering::Relaxed,
                        );
                        self.mark(i, next);
                    } else {
                        self.mark(i, here - 1);
                    }
                }
                cursor.advance();
                continue;
            }
            if state & DONE != 0 {
                cursor.advance();
                continue;
            }
            if here != level {
                self.mark(i, here);
                cursor.advance();
                continue;
            }
            self.states[at].fetch_or(DONE, Ordering::Relaxed);
            let pos = cursor.position();
            cursor.advance();
            if next > self.limit {
                continue;
            }
            let lost = state & LOSS != 0;
            let visit = |p: Position| {
                let j = self.index.rank(&p);
                let jt = j as usize;
                let before = self.states[jt].load(Ordering::Relaxed);
                if before & (DECIDED | SETTLED) != 0 {
                    return;
                }
                if lost {
                    self.values[jt].store(next, Ordering::Relaxed);
                    self.mark(j, next);
                    let _ = self.states[jt].compare_exchange(
                        before,
                        WIN,
                        Ordering::Relaxed,
                        Ordering::Relaxed,
                    );
                } else if self.open[jt].fetch_sub(1, Ordering::Relaxed) == 1 {
                    let longest = self.values[jt].load(Ordering::Relaxed).max(next);
                    self.values[jt].store(longest, Ordering::Relaxed);
                    self.mark(j, longest);
                    self.states[jt].store(LOSS, Ordering::Relaxed);
                }
            };
            if self.category == Category::Outside {
                pos.for_each_quiet_king_predecessor(visit);
            } else {
                pos.for_each_quiet_predecessor(visit);
            }
        }
    }

    /// Writes the final codes of a group: counted wins and losses, and for the rest the class
    /// the win/draw/loss value leaves.
    fn finish(&self, group: &Group, distances: &Distances, progress: &dyn Progress) {
        group.par_iter().for_each(|(_, ranges)| {
            let mut done = 0;
            for range in ranges {
                for i in range.clone() {
                    let at = i as usize;
                    let state = self.states[at].load(Ordering::Relaxed);
                    let count = self.values[at].load(Ordering::Relaxed);
                    let wdl = distances.get(at).wdl();
                    let value = if state & WIN != 0 {
                        debug_assert_eq!(
                            wdl,
                            Wdl::Win,
                            "rule win at {i}: {}",
                            self.index.unrank(i).to_fen()
                        );
                        RuleValue::win(count)
                    } else if state & LOSS != 0 {
                        debug_assert_eq!(
                            wdl,
                            Wdl::Loss,
                            "rule loss at {i}: {}",
                            self.index.unrank(i).to_fen()
                        );
                        RuleValue::loss(count)
                    } else {
                        RuleValue::uncounted(RuleClass::not_forced(wdl))
                    };
                    self.values[at].store(value.code(), Ordering::Relaxed);
                    self.states[at].store(FINAL, Ordering::Relaxed);
                }
                done += range.end - range.start;
            }
            progress.advance(done);
        });
    }
}
