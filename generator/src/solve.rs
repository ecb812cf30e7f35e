//! Solving one material slice by slice: distances to win and rule-aware values.
//!
//! A slice is the positions with the same men (both sides to move): a king move stays in it,
//! a man move leads to a slice whose men are one step closer to promotion, a capture or a
//! promotion to a material solved before. So the slices are solved in bands of equal
//! advancement (the men's total distance to promotion), the most advanced first: the slices of
//! a band are independent and solved in parallel, each on its own, from the values of finished
//! slices and materials in the [`Store`]. For each slice one pass generates every position's
//! moves and reads the values their moves out of the slice reach, which seeds two runs of the
//! [propagation engine](crate::engine): distances (levels are plies; RULES.md §5.2) and
//! rule-aware values (levels are counts up to the rule's limit; RULES.md §5.3: a move that
//! resets the counter reaches a position whose class alone matters, any other adds one to its
//! count; a king move never resets). What the rules leave undecided takes the class the
//! distance gives: a cursed win, a draw or a blessed loss.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use rafle_probe::{
    Category, Color, Dtw, KingSlice, Limits, Material, MoveList, Position, PositionIndex, Role,
    RuleClass, RuleValue, SliceMoves, Wdl,
};
use rayon::prelude::*;

use crate::engine::{Moves, Outcome, Propagation, Seed};
use crate::store::Store;
use crate::values::{distance, distance_code, ValuesFile, CAPTURE, DRAW};
use crate::{GenerateError, NoProgress, Progress, UNITS_PER_POSITION};

/// Positions seeded per unit of parallel work.
const CHUNK: u64 = 1 << 12;

/// Slices of fewer positions than this are solved in groups of about this many positions (one
/// unit of parallel work, one progress report).
const GROUP_POSITIONS: u64 = 1 << 14;

/// Slices up to this many positions seed distances and rule values in one pass over their
/// moves; larger ones (kings-only materials) make a pass for each, so that only one
/// propagation's state (4 bytes a position) is held at a time.
pub(crate) const TOGETHER: u64 = 1 << 26;

/// The men placements of a material in the order their slices are solved: bands of equal
/// advancement, the most advanced first, each in index order.
pub(crate) fn bands(index: &PositionIndex) -> Vec<Vec<u64>> {
    let mut by_distance: std::collections::BTreeMap<u32, Vec<u64>> = Default::default();
    for men in 0..index.men_placements() {
        let slice = index.slice(men);
        by_distance
            .entry(promotion_distance(index, &slice))
            .or_default()
            .push(men);
    }
    by_distance.into_values().collect()
}

/// Plies the men of a slice need, all together, to reach their promotion rows.
fn promotion_distance(index: &PositionIndex, slice: &KingSlice) -> u32 {
    let v = index.variant();
    let last_row = u32::from(v.board_size()) - 1;
    let pos = slice.position(0);
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

/// What solving a material needs: its index, the values it reads, where its own go, and the
/// draw-rule limit of its category.
pub(crate) struct MaterialSolver<'a> {
    pub(crate) index: &'a PositionIndex,
    /// Every material a move can reach, this one included (for its finished slices).
    pub(crate) store: &'a Store,
    /// This material's work file.
    pub(crate) values: &'a ValuesFile,
    category: Category,
    limit: u8,
    /// Whether the rule-aware values are solved (else only win, draw or loss: the distance
    /// codes written then hold no true distance, and every rule code is 0).
    rules: bool,
    /// Resident memory past which the pages of the work files are given back.
    release_at: u64,
}

impl<'a> MaterialSolver<'a> {
    pub(crate) fn new(
        index: &'a PositionIndex,
        store: &'a Store,
        values: &'a ValuesFile,
        limits: Limits,
        rules: bool,
    ) -> MaterialSolver<'a> {
        let category = Category::of(index.variant(), index.material());
        MaterialSolver {
            index,
            store,
            values,
            category,
            limit: limits.of(category),
            rules,
            release_at: u64::MAX,
        }
    }

    /// The same solver giving back the pages of the work files it has read or written
    /// whenever the process's resident memory passes `bytes`.
    pub(crate) fn releasing_past(self, bytes: u64) -> MaterialSolver<'a> {
        MaterialSolver {
            release_at: bytes,
            ..self
        }
    }

    /// Gives the pages of the work files back if resident memory is past its mark, and the
    /// allocator's free memory (at most once a second). Checked after every slice (or group of
    /// small ones), not only between bands: a band of a large material reads more of its own
    /// work file (the slices its men's moves reach) than the budget leaves room for. What is
    /// given back stays in the system's cache and the file.
    fn keep_within_budget(&self) {
        match crate::memory::past_mark(self.release_at) {
            Some(true) => self.store.release(),
            Some(false) => {}
            None => return,
        }
        // Blocks the cache dropped leave free memory in the allocator's arenas.
        self.store.trim();
    }

    /// Solves the slices of one band and writes them to the work file. Returns the longest
    /// win found.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if the work file cannot be written, and as [`Store::value`] if
    /// the values of a finished material cannot be read.
    pub(crate) fn solve_band(
        &self,
        band: &[u64],
        progress: &dyn Progress,
    ) -> Result<u16, GenerateError> {
        let n = 2 * self.index.king_placements();
        // Materials of many men have millions of slices of a few positions: solved one by one
        // in a group, with progress reported once for the group.
        let grouped = n < GROUP_POSITIONS;
        let group = (GROUP_POSITIONS / n).max(1) as usize;
        let slice_progress: &dyn Progress = if grouped { &NoProgress } else { progress };
        band.par_chunks(group)
            .map(|slices| {
                let mut longest = 0;
                for &men in slices {
                    longest = longest.max(self.solve_slice(men, slice_progress)?);
                }
                if grouped {
                    progress.advance(UNITS_PER_POSITION * n * slices.len() as u64);
                }
                self.keep_within_budget();
                Ok(longest)
            })
            .try_reduce(|| 0, |a, b| Ok(a.max(b)))
    }

    /// Solves one slice and writes it, reporting its progress as it goes. Returns the longest
    /// win found.
    fn solve_slice(&self, men: u64, progress: &dyn Progress) -> Result<u16, GenerateError> {
        let slice = self.index.slice(men);
        let n = slice.len();
        let kings = self.index.king_placements();
        let moves = slice.king_moves();
        let captures: Vec<AtomicU64> = (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        let together = n <= TOGETHER;
        let mut distances = Propagation::with_len(n as usize);
        let rules = (self.rules && together).then(|| Propagation::with_len(n as usize));
        self.seed_slice(&slice, &captures, Some(&distances), rules.as_ref())?;
        progress.advance(n);
        distances.run(&moves, u16::MAX);
        let captured = |x: usize| captures[x / 64].load(Ordering::Relaxed) & (1 << (x % 64)) != 0;
        let mut longest = 0;
        let codes: Vec<u16> = (0..n as usize)
            .map(|x| {
                let dtw = match distances.outcome(x) {
                    Outcome::Won(d) => {
                        longest = longest.max(d);
                        Dtw::Win(d)
                    }
                    Outcome::Lost(d) => Dtw::Loss(d),
                    Outcome::Undecided => Dtw::Draw,
                };
                let code = distance_code(dtw);
                assert!(code < DRAW || dtw == Dtw::Draw, "a win of {code} plies");
                code | if captured(x) { CAPTURE } else { 0 }
            })
            .collect();
        drop(distances);
        progress.advance(n);
        let rule_codes = if self.rules {
            let mut rules = match rules {
                Some(rules) => rules,
                None => {
                    let rules = Propagation::with_len(n as usize);
                    self.seed_slice(&slice, &captures, None, Some(&rules))?;
                    rules
                }
            };
            rules.run(&moves, u16::from(self.limit));
            (0..n as usize)
                .map(|x| {
                    let value = match rules.outcome(x) {
                        // Counts never pass the limit, a u8.
                        Outcome::Won(c) => RuleValue::win(c as u8),
                        Outcome::Lost(c) => RuleValue::loss(c as u8),
                        Outcome::Undecided => {
                            RuleValue::uncounted(RuleClass::not_forced(distance(codes[x]).wdl()))
                        }
                    };
                    value.code()
                })
                .collect()
        } else {
            vec![0; n as usize]
        };
        let half = kings as usize;
        self.values
            .write_range(slice.global(0), &codes[..half], &rule_codes[..half])?;
        self.values
            .write_range(slice.global(kings), &codes[half..], &rule_codes[half..])?;
        progress.advance(n);
        Ok(longest)
    }

    /// One pass over the moves of every position of a slice: seeds the propagations given,
    /// and marks the positions that must capture.
    ///
    /// # Errors
    ///
    /// As [`Store::value`].
    fn seed_slice(
        &self,
        slice: &KingSlice,
        captures: &[AtomicU64],
        distances: Option<&Propagation>,
        rules: Option<&Propagation>,
    ) -> Result<(), GenerateError> {
        let n = slice.len();
        let kings = self.index.king_placements();
        // Ranges of local numbers that each lie in one half (one side to move).
        let ranges: Vec<Range<u64>> = (0..n.div_ceil(CHUNK))
            .flat_map(|c| {
                let range = c * CHUNK..((c + 1) * CHUNK).min(n);
                if range.start < kings && range.end > kings {
                    vec![range.start..kings, kings..range.end]
                } else {
                    vec![range]
                }
            })
            .collect();
        let seed_range = |range: &Range<u64>| {
            let mut cursor = self.index.cursor(slice.global(range.start));
            let mut moves = MoveList::new();
            for x in range.clone() {
                let pos = cursor.position();
                cursor.advance();
                let (distance, rule, capture) = self.seed(&pos, &mut moves)?;
                let at = x as usize;
                if capture {
                    captures[at / 64].fetch_or(1 << (at % 64), Ordering::Relaxed);
                }
                if let Some(p) = distances {
                    p.seed(at, distance);
                }
                if let Some(p) = rules {
                    p.seed(at, rule);
                }
            }
            Ok(())
        };
        // A small slice is seeded on this thread: its band keeps the others busy.
        if n <= CHUNK {
            ranges.iter().try_for_each(seed_range)?;
        } else {
            ranges.par_iter().try_for_each(seed_range)?;
        }
        Ok(())
    }

    /// The seeds of a position for distances and for rule-aware values, and whether it must
    /// capture.
    ///
    /// # Errors
    ///
    /// As [`Store::value`].
    fn seed(
        &self,
        pos: &Position,
        moves: &mut MoveList,
    ) -> Result<(Seed, Seed, bool), GenerateError> {
        // The king moves stay in the slice: only their number matters here.
        let king_moves = pos.legal_moves_counting_king_moves(moves);
        let capture = moves.first().is_some_and(|m| m.is_capture());
        if moves.is_empty() && king_moves == 0 {
            return Ok((Seed::Lost(0), Seed::Lost(0), false));
        }
        // Fewer than 256 moves: a king has at most 17 quiet moves, a side at most 12 kings.
        let inside = king_moves as u8;
        let variant = self.index.variant();
        let material = self.index.material();
        let mut distance = Exits::default();
        let mut rule = Exits::default();
        for mv in moves.iter() {
            let next = pos.play(mv);
            if !self.rules {
                // Only win, draw or loss is wanted: the first winning move out settles the
                // position, whatever the others, and every move out counts as the shortest
                // game it can end (a win in one ply, a loss in two: wins stay odd and losses
                // even, as the codes have them). The levels are then those of the slice's own
                // moves, not distances (nor are the values read), but who wins is the same: a
                // position is decided only by a loss it reaches or by wins everywhere it goes,
                // whatever their levels.
                match self.store.dtw(&next)? {
                    Dtw::Loss(_) => {
                        distance.win(1);
                        break;
                    }
                    Dtw::Win(_) => distance.floor = 2,
                    Dtw::Draw => distance.escapes = true,
                }
                continue;
            }
            let (dtw, value) = self.store.value(&next)?;
            match dtw {
                Dtw::Loss(d) => distance.win(d + 1),
                Dtw::Win(d) => distance.floor = distance.floor.max(d + 1),
                Dtw::Draw => distance.escapes = true,
            }
            // A man move (the only move out that keeps the material) resets outside the
            // categories; a capture or promotion resets unless it stays in the category.
            let next_material = Material::of(&next);
            let resets = self.category == Category::Outside
                || (next_material != material
                    && Category::of(variant, next_material) != self.category);
            debug_assert_eq!(resets, rafle_probe::resets_counter(pos, mv, &next));
            match RuleValue::through_move(value, resets, self.limit) {
                Some((Wdl::Win, c)) => rule.win(u16::from(c)),
                Some((_, c)) => rule.floor = rule.floor.max(u16::from(c)),
                None => rule.escapes = true,
            }
        }
        Ok((
            distance.seed(capture, inside),
            rule.seed(capture, inside),
            capture,
        ))
    }
}

/// What a position's moves out of its slice give.
#[derive(Default)]
struct Exits {
    quickest_win: Option<u16>,
    escapes: bool,
    floor: u16,
}

impl Exits {
    fn win(&mut self, level: u16) {
        self.quickest_win = Some(self.quickest_win.map_or(level, |w| w.min(level)));
    }

    fn seed(&self, capture: bool, inside: u8) -> Seed {
        Seed::of(capture, inside, self.quickest_win, self.escapes, self.floor)
    }
}

impl Moves for SliceMoves {
    #[inline]
    fn for_each_predecessor(&self, x: u32, mut f: impl FnMut(u32)) {
        SliceMoves::for_each_predecessor(self, u64::from(x), |p| f(p as u32));
    }

    #[inline]
    fn for_each_successor(&self, x: u32, mut f: impl FnMut(u32)) {
        SliceMoves::for_each_successor(self, u64::from(x), |s| f(s as u32));
    }
}
