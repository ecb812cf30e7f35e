//! The materials of a verification (its [`Part`]s) and the successors of their positions: inside
//! a material from its pages, across a capture or a promotion from the pages of the material
//! reached, and through [`Outside`] where no page holds them.
//!
//! A page derives the distance and rule value of a position with Black to move from its moves,
//! where the probe reads those of a symmetric material's position from its mirror image (with
//! White to move); both agree unless that material's table is wrong, which its own check
//! reports.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::MutexGuard;
use std::time::Duration;

use rafle_probe::{
    draughts::{resets_counter, Category, Counters, Material, Move, MoveList, Position, Variant},
    ProbeError, Tablebase,
};

use super::codes::{Codes, Successor};
use super::outside::{Local, Outside};
use super::pages::Cache;
use super::part::Part;
use super::rank::Pieces;
use super::walker::Walker;
use crate::memory::Trimmer;
use crate::probed::Values;

/// Where a move leaving the material leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    /// To a position whose side to move has no piece left.
    NoPiece,
    /// To the position of this index of this part; whether the move resets the counter.
    At(usize, u64, bool),
    /// To a material with no part.
    Elsewhere,
}

/// A position whose successors are wanted: the position of `part` at `walker`.
#[derive(Clone, Copy)]
pub(super) struct At<'p, 'a> {
    /// Its material.
    pub part: &'p Part<'a>,
    /// Its index, and the indices of its successors in its material.
    pub walker: &'p Walker<'a>,
    /// The position itself.
    pub pos: &'p Position,
}

/// What one unit of parallel work keeps while it goes through positions' successors: the
/// thread's remembered answers of [`Outside`], the moves and successors of the position at
/// hand, and the pages found missing so far.
pub(super) struct Scratch<'o> {
    /// The thread's remembered answers.
    pub local: MutexGuard<'o, Local>,
    /// The moves of the position at hand.
    pub moves: MoveList,
    /// The successors of the position at hand.
    pub successors: Vec<Successor>,
    /// The pages lacking, with repeats, in the order found.
    pub missing: Vec<u32>,
}

impl<'o> Scratch<'o> {
    /// Empty, with the current thread's remembered answers of `outside`.
    pub fn new(outside: &'o Outside) -> Scratch<'o> {
        Scratch {
            local: outside.local(),
            moves: MoveList::new(),
            successors: Vec::new(),
            missing: Vec::new(),
        }
    }
}

/// The materials of a verification and what their successors need.
#[derive(Debug)]
pub(super) struct Context<'a> {
    /// Every table, for the successors in no part.
    pub tables: &'a Tablebase,
    /// The values of the successors in no part.
    pub outside: Outside<'a>,
    /// The materials, in dependency order: captures and promotions lead to earlier ones.
    pub parts: Vec<Part<'a>>,
    /// The part of each material plus one (0 for none), at [`key`].
    part_of: Vec<u16>,
    /// The board.
    variant: Variant,
    /// Squares on the board.
    squares: u32,
    /// The promotion rows, numbered bitboards: White's, then Black's.
    promotion: [u64; 2],
    /// Resident memory past which the pages of the mapped table files, and the free memory the
    /// allocator keeps, are given back.
    pub release_at: u64,
    /// Gives the allocator's free memory back past the mark.
    trimmer: Trimmer,
}

/// How often [`Context::tended`] looks at the process's memory: reading it costs a few
/// microseconds, and a step reads table files at a few MiB a second.
const TEND_EVERY: Duration = Duration::from_millis(100);

/// Stops the watcher of [`Context::tended`] when dropped.
struct StopWatcher<'s>(&'s AtomicBool, std::thread::Thread);

impl Drop for StopWatcher<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
        self.1.unpark();
    }
}

impl<'a> Context<'a> {
    /// Opens the tables of `materials` (header and block index checked), with `closure` those
    /// of every material their captures reach, however many captures away. Returns the
    /// materials whose tables could not be opened, with the error.
    ///
    /// # Errors
    ///
    /// [`ProbeError::MixedLimits`] or [`ProbeError::Corrupted`] if the variant's rule tables do
    /// not record one set of limits.
    pub fn open(
        tables: &'a Tablebase,
        variant: Variant,
        materials: &[Material],
        closure: bool,
    ) -> Result<(Context<'a>, Vec<(Material, ProbeError)>), ProbeError> {
        let limits = tables
            .limits(variant)?
            .ok_or_else(|| ProbeError::Corrupted {
                path: rafle_probe::toolkit::DataDir::new(tables.dir())
                    .variant(variant)
                    .path()
                    .to_path_buf(),
                reason: "a rule table without limits".to_string(),
            })?;
        let mut wanted = match closure {
            true => reached(tables, variant, materials),
            false => materials.to_vec(),
        };
        wanted.sort_by_key(|m| (m.pieces(), m.men(), *m));
        wanted.dedup();
        let mut parts: Vec<Part> = Vec::with_capacity(wanted.len());
        let mut failed = Vec::new();
        for m in wanted {
            let first_page = parts.last().map_or(0, |p| p.first_page + p.layout.pages());
            match Part::open(tables, variant, m, limits, first_page) {
                Ok(part) => parts.push(part),
                Err(err) => failed.push((m, err)),
            }
        }
        let mut part_of = vec![0u16; 1 << 16];
        for (k, p) in parts.iter().enumerate() {
            if let Some(key) = key(p.material) {
                part_of[key] = k as u16 + 1;
            }
        }
        let squares = u32::from(variant.square_count());
        let row = u32::from(variant.squares_per_row());
        let first_row = (1u64 << row) - 1;
        let ctx = Context {
            tables,
            outside: Outside::new(tables, limits),
            parts,
            part_of,
            variant,
            squares,
            promotion: [first_row, first_row << (squares - row)],
            release_at: u64::MAX,
            trimmer: Trimmer::new(),
        };
        Ok((ctx, failed))
    }

    /// Gives memory back to the system if the process's resident memory is past
    /// [`Context::release_at`]: the pages of the mapped table files (a check reads every block
    /// of its tables, which would otherwise all end up resident; they stay in the system's
    /// cache), and the free memory the allocator keeps.
    pub fn keep_within_budget(&self) {
        self.make_room_for(0);
    }

    /// The process's resident memory that maps no file, if there is a mark to keep it under
    /// and it can be read.
    pub fn unmapped_memory(&self) -> Option<u64> {
        if self.release_at == u64::MAX {
            return None;
        }
        let (resident, mapped) = crate::memory::resident_and_mapped_memory()?;
        Some(resident.saturating_sub(mapped))
    }

    /// Gives memory back to the system, as [`Context::keep_within_budget`] does, if `bytes`
    /// more would take the process past [`Context::release_at`]: a step may make gigabytes of
    /// pages at once (a material decoded whole), more than the room the mark leaves, and the
    /// table files' pages read before it (the checksums of the materials a resumed check
    /// skips) would stay resident beside them.
    pub fn make_room_for(&self, bytes: u64) {
        if self.release_at == u64::MAX {
            return;
        }
        let Some(files_worth_it) = crate::memory::would_pass_mark(self.release_at, bytes) else {
            return;
        };
        if files_worth_it {
            self.tables.release_mapped_pages();
        }
        self.trimmer.trim();
    }

    /// Runs `work` with a watcher beside it that gives memory back, as
    /// [`Context::keep_within_budget`] does, whenever the process passes its mark (looked at
    /// every [`TEND_EVERY`]): a single step of a large material reads table files for minutes,
    /// and their pages would otherwise pile up until it ends.
    pub fn tended<T>(&self, work: impl FnOnce() -> T) -> T {
        if self.release_at == u64::MAX {
            return work();
        }
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let watcher = scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    self.make_room_for(0);
                    std::thread::park_timeout(TEND_EVERY);
                }
            });
            // Stopped on the way out, unwinding included, so that the scope can join it.
            let _stop = StopWatcher(&stop, watcher.thread().clone());
            work()
        })
    }

    /// Gives the allocator's free memory back to the system at once: after pages were dropped,
    /// or before the memory is measured.
    pub fn trim(&self) {
        self.trimmer.trim_now();
    }

    /// The part of `material`, if it has one.
    #[inline]
    pub fn part(&self, material: Material) -> Option<usize> {
        let k = self.part_of[key(material)?];
        (k > 0).then(|| usize::from(k) - 1)
    }

    /// Pages of every part.
    pub fn pages(&self) -> u32 {
        self.parts
            .last()
            .map_or(0, |p| p.first_page + p.layout.pages())
    }

    /// The part holding page `page` (numbered among every part's pages) and the page's number
    /// in it.
    pub fn part_of_page(&self, page: u32) -> (usize, u32) {
        let k = self
            .parts
            .partition_point(|p| p.first_page <= page)
            .saturating_sub(1);
        (k, page - self.parts[k].first_page)
    }

    /// Part `main` and the parts its captures reach, however many captures away.
    pub fn closure(&self, main: usize) -> Vec<usize> {
        let mut found = vec![main];
        let mut k = 0;
        while k < found.len() {
            for target in capture_targets(self.parts[found[k]].material) {
                if let Some(t) = self.part(target) {
                    if !found.contains(&t) {
                        found.push(t);
                    }
                }
            }
            k += 1;
        }
        found
    }

    /// Where a move of the position of `part` with bitboards `pieces` that leaves the
    /// material leads: from square bit `from` to square bit `to`, taking the pieces on `taken`
    /// (a capture) or crowning a man (a promotion, `taken` empty). The same as playing the
    /// move and ranking the result in its stored orientation, on the bitboards alone.
    pub fn leave(&self, part: &Part, pieces: &Pieces, from: u64, to: u64, taken: u64) -> Target {
        let black = pieces.black_to_move;
        let mut next = *pieces;
        next.black_to_move = !black;
        let (own_men, own_kings, opp_men, opp_kings) = if black {
            let p = &mut next;
            (
                &mut p.black_men,
                &mut p.black_kings,
                &mut p.white_men,
                &mut p.white_kings,
            )
        } else {
            let p = &mut next;
            (
                &mut p.white_men,
                &mut p.white_kings,
                &mut p.black_men,
                &mut p.black_kings,
            )
        };
        let man = *own_men & from != 0;
        let crowned = man && to & self.promotion[usize::from(black)] != 0;
        // Off the start square first: a circular capture ends where it began.
        if man {
            *own_men &= !from;
        } else {
            *own_kings &= !from;
        }
        if man && !crowned {
            *own_men |= to;
        } else {
            *own_kings |= to;
        }
        let men_gone = (*opp_men & taken).count_ones() as u8;
        let kings_gone = (*opp_kings & taken).count_ones() as u8;
        *opp_men &= !taken;
        *opp_kings &= !taken;
        if *opp_men | *opp_kings == 0 {
            return Target::NoPiece;
        }
        let mut m = part.material;
        {
            let (own, opp) = if black {
                (
                    (&mut m.black_men, &mut m.black_kings),
                    (&mut m.white_men, &mut m.white_kings),
                )
            } else {
                (
                    (&mut m.white_men, &mut m.white_kings),
                    (&mut m.black_men, &mut m.black_kings),
                )
            };
            if crowned {
                *own.0 -= 1;
                *own.1 += 1;
            }
            *opp.0 -= men_gone;
            *opp.1 -= kings_gone;
        }
        // What resets_counter says of a capture or a man move that changes the material.
        let before = Category::of(self.variant, part.material);
        let resets = Category::of(self.variant, m) != before || before == Category::Outside;
        if !m.is_canonical() {
            m = m.mirrored();
            let flip = |bits: u64| bits.reverse_bits() >> (64 - self.squares);
            next = Pieces {
                white_men: flip(next.black_men),
                white_kings: flip(next.black_kings),
                black_men: flip(next.white_men),
                black_kings: flip(next.white_kings),
                black_to_move: !next.black_to_move,
            };
        }
        match self.part(m) {
            Some(k) => Target::At(k, self.parts[k].ranker.rank(&next), resets),
            None => Target::Elsewhere,
        }
    }

    /// The values of `next`, a position of another material, through [`Outside`]: all three
    /// when `full`, else the win/draw/loss alone (the others those of a draw).
    fn other(&self, next: &Position, full: bool, local: &mut Local) -> Result<Values, ProbeError> {
        if full {
            self.outside.values(next, local)
        } else {
            let wdl = self.tables.probe_wdl(next)?;
            Ok(Values {
                wdl,
                ..Values::DRAW
            })
        }
    }

    /// The values of `next`, through the probe: all three when `full`, else the win/draw/loss
    /// alone (the others those of a draw).
    pub fn probe(&self, next: &Position, full: bool) -> Result<Values, ProbeError> {
        let wdl = self.tables.probe_wdl(next)?;
        if !full {
            return Ok(Values {
                wdl,
                ..Values::DRAW
            });
        }
        Ok(Values {
            wdl,
            dtw: self.tables.probe_dtw(next)?,
            rule: self.tables.probe_draw_rules(next, Counters::FRESH)?.value,
        })
    }

    /// The successors of position `at`, whose side to move must capture, through the moves of
    /// `scratch` (all captures, so all leaving the material), into its successors (cleared
    /// first): from the pages of `cache`, through [`Outside`] for a material with no part.
    ///
    /// Returns `false` when a page was missing: the successors are then incomplete, and the
    /// missing pages of `scratch` have every page lacking.
    pub fn captures(
        &self,
        at: At,
        cache: &Cache,
        scratch: &mut Scratch,
    ) -> Result<bool, ProbeError> {
        let At { part, walker, pos } = at;
        let Scratch {
            local,
            moves,
            successors: out,
            missing,
        } = scratch;
        out.clear();
        let mut complete = true;
        for mv in &*moves {
            let from = 1u64 << (mv.from().number() - 1);
            let to = 1u64 << (mv.to().number() - 1);
            let taken = mv.captured().to_numbered_bits();
            let successor = match self.leave(part, walker.pieces(), from, to, taken) {
                Target::NoPiece => (Codes::NO_PIECE, true),
                Target::At(k, j, resets) => match cache.codes(self.parts[k].locate(j)) {
                    Ok(codes) => (codes, resets),
                    Err(page) => {
                        missing.push(page);
                        complete = false;
                        continue;
                    }
                },
                Target::Elsewhere if complete => {
                    let next = pos.play(mv);
                    let values = self.other(&next, true, local)?;
                    (Codes::of(values), resets_counter(pos, mv, &next))
                }
                Target::Elsewhere => continue,
            };
            if complete {
                out.push(successor);
            }
        }
        Ok(complete)
    }

    /// The successors of position `at`, whose side to move need not capture, through the moves
    /// of `scratch`, into its successors (cleared first): from the pages of `cache`, a
    /// promotion through [`Outside`] when the page it reaches is not made (it is not waited
    /// for: it is a material of as many pieces); the distance and rule values only when `full`.
    ///
    /// Returns `false` when a page of the material was missing: the successors are then
    /// incomplete, and the missing pages of `scratch` have every page lacking.
    pub fn quiet(
        &self,
        at: At,
        full: bool,
        cache: &Cache,
        scratch: &mut Scratch,
    ) -> Result<bool, ProbeError> {
        let At { part, walker, .. } = at;
        let Scratch {
            local,
            moves,
            successors: out,
            missing,
        } = scratch;
        out.clear();
        let pieces = walker.pieces();
        let black = pieces.black_to_move;
        let (men, promotion) = if black {
            (pieces.black_men, self.promotion[1])
        } else {
            (pieces.white_men, self.promotion[0])
        };
        let mut complete = true;
        for mv in &*moves {
            let from = 1u64 << (mv.from().number() - 1);
            let to = 1u64 << (mv.to().number() - 1);
            let man = men & from != 0;
            if man && to & promotion != 0 {
                if complete {
                    out.push(self.promotion(at, mv, full, cache, local)?);
                }
                continue;
            }
            match cache.codes(part.locate(walker.successor(from, to, man))) {
                Ok(codes) if complete => out.push((codes, man && part.man_moves_reset)),
                Ok(_) => {}
                Err(page) => {
                    missing.push(page);
                    complete = false;
                }
            }
        }
        Ok(complete)
    }

    /// The successor of position `at` through the promotion `mv`: from its page if made, else
    /// through [`Outside`].
    fn promotion(
        &self,
        at: At,
        mv: &Move,
        full: bool,
        cache: &Cache,
        local: &mut Local,
    ) -> Result<Successor, ProbeError> {
        let At { part, walker, pos } = at;
        let from = 1u64 << (mv.from().number() - 1);
        let to = 1u64 << (mv.to().number() - 1);
        if let Target::At(k, j, resets) = self.leave(part, walker.pieces(), from, to, 0) {
            if let Ok(codes) = cache.codes(self.parts[k].locate(j)) {
                return Ok((codes, resets));
            }
        }
        let next = pos.play(mv);
        let values = self.other(&next, full, local)?;
        Ok((Codes::of(values), resets_counter(pos, mv, &next)))
    }
}

/// Where a material's part is found: the four piece counts, a nibble each (none above 15).
#[inline]
fn key(m: Material) -> Option<usize> {
    let counts = [m.white_men, m.white_kings, m.black_men, m.black_kings];
    if counts.iter().any(|&c| c > 15) {
        return None;
    }
    Some(counts.iter().fold(0, |acc, &c| acc << 4 | usize::from(c)))
}

/// `materials` and every material with tables that their captures reach, however many
/// captures away. A missing table is left out: it is reported when a capture reaches it, as
/// the probe does.
pub(super) fn reached(
    tables: &Tablebase,
    variant: Variant,
    materials: &[Material],
) -> Vec<Material> {
    let mut found = materials.to_vec();
    let mut k = 0;
    while k < found.len() {
        for target in capture_targets(found[k]) {
            if !found.contains(&target) && tables.table(variant, target).is_ok() {
                found.push(target);
            }
        }
        k += 1;
    }
    found
}

/// The canonical materials one capture from `material` reaches: some of the opponent's pieces
/// gone (men and kings in any number, at least one, not all), the capturing man perhaps
/// crowned.
fn capture_targets(material: Material) -> Vec<Material> {
    let mut found = Vec::new();
    let m = material;
    for white_captures in [true, false] {
        let (own_men, opp_men, opp_kings) = if white_captures {
            (m.white_men, m.black_men, m.black_kings)
        } else {
            (m.black_men, m.white_men, m.white_kings)
        };
        for men_gone in 0..=opp_men {
            for kings_gone in 0..=opp_kings {
                if men_gone + kings_gone == 0 || men_gone + kings_gone == opp_men + opp_kings {
                    continue;
                }
                for crowned in 0..=u8::from(own_men > 0) {
                    let mut t = m;
                    let (own, opp) = if white_captures {
                        (
                            (&mut t.white_men, &mut t.white_kings),
                            (&mut t.black_men, &mut t.black_kings),
                        )
                    } else {
                        (
                            (&mut t.black_men, &mut t.black_kings),
                            (&mut t.white_men, &mut t.white_kings),
                        )
                    };
                    *opp.0 -= men_gone;
                    *opp.1 -= kings_gone;
                    *own.0 -= crowned;
                    *own.1 += crowned;
                    let t = t.canonical();
                    if !found.contains(&t) {
                        found.push(t);
                    }
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate, NoProgress, Plan};

    /// Where every capture and promotion leads, found on the bitboards, is where playing the
    /// move and ranking the result in its stored orientation leads.
    #[test]
    fn moves_leaving_the_material_as_played() {
        let dir = tempfile::tempdir().unwrap();
        let mut left = 0;
        for variant in Variant::ALL {
            generate(&Plan::new(variant, 3, dir.path()).unwrap(), &NoProgress).unwrap();
            let tables = Tablebase::open(dir.path()).unwrap();
            let all = tables.materials(variant);
            let (ctx, failed) = Context::open(&tables, variant, &all, false).unwrap();
            assert!(failed.is_empty());
            for part in &ctx.parts {
                let mut walker = Walker::new(&part.ranker, 0);
                for i in 0..part.index.size() {
                    if i > 0 {
                        walker.advance();
                    }
                    let pos = part.position(&walker).unwrap();
                    for mv in &pos.legal_moves() {
                        let next = pos.play(mv);
                        if Material::of(&next) == part.material {
                            continue;
                        }
                        left += 1;
                        let expected = if next.side_pieces(next.turn()).is_empty() {
                            Target::NoPiece
                        } else {
                            let (oriented, m) = next.canonical();
                            let k = ctx.part(m).unwrap();
                            let resets = resets_counter(&pos, mv, &next);
                            Target::At(k, ctx.parts[k].index.rank(&oriented), resets)
                        };
                        let from = 1u64 << (mv.from().number() - 1);
                        let to = 1u64 << (mv.to().number() - 1);
                        let taken = mv.captured().to_numbered_bits();
                        let found = ctx.leave(part, walker.pieces(), from, to, taken);
                        assert_eq!(found, expected, "{variant} {}", pos.to_fen());
                    }
                }
            }
        }
        assert!(left > 100_000, "{left}");
    }
}
