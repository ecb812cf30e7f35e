//! A kings-only material solved in bits, straight into its work file, in memory that does not
//! grow with its positions past seven bits each.
//!
//! A kings-only material is one slice: every quiet move stays in it, every capture leaves it.
//! The engine would hold four bytes a position and lists of each level's positions (some 70 GiB
//! for international KKKKvKKK); here the [bit propagation](crate::solve::bit_levels) holds six bits a
//! position and the positions decided by their seeds one more, shared by both propagations. The
//! values never sit in memory whole:
//!
//! 1. The seed pass walks the positions in groups and writes each one's final codes to the
//!    work file when its seed decides it (it must capture, or has no move), a draw in place of
//!    the others; the seeds themselves go to a [`SeedFile`], by level, read back when their
//!    level comes.
//! 2. The distance propagation writes each level's positions' codes as the level completes.
//! 3. With the rule tables: every position not fixed by its seed takes the class its distance
//!    gives, then the rule propagation writes the codes of the positions it decides.
//!
//! Every value is the one the engine gives (see [`crate::solve::bit_levels`] and `tests/e2e/kings_in_bits.rs`),
//! written at the same place, so the work file, its checksum and the tables are the same.

use std::ops::Range;
use std::sync::atomic::{AtomicU16, Ordering};

use rafle_probe::{
    draughts::MoveList,
    toolkit::{KingSlice, SliceMoves},
    Dtw,
};
use rayon::prelude::*;

use super::{rule_code, MaterialSolver, CHUNK};
use crate::solve::bit_levels::{BitLevels, Bits};
use crate::solve::man_moves::ManMoves;
use crate::solve::propagation::{Outcome, Seed};
use crate::work::seed_file::{GroupSeeds, Propagated, SeedFile, Seeds};
use crate::work::seed_part::{PartFile, PartId, PartSeeds, PartWriter};
use crate::work::values::{distance_code, FinishedBand, CAPTURE, MAX_DISTANCE};
use crate::{GenerateError, Progress};

/// Ranges of [`CHUNK`] positions seeded per group: a group's seeds are gathered in memory
/// (up to 16 bytes a position) before they are appended to the seed file.
const RANGES_PER_GROUP: usize = 1 << 10;

/// Seeds written to the work file between two checks of the memory budget: scattered, they
/// touch at most two pages each (512 MiB), and a check costs some microseconds.
const SEEDS_BETWEEN_CHECKS: u64 = 1 << 16;

/// Positions above which a kings-only material is solved in bits rather than by the engine:
/// the engine is faster, and up to here holds at most about 3 GiB.
pub(crate) const IN_BITS_ABOVE: u64 = 1 << 28;

/// Bytes a kings-only slice of `positions` positions holds while it is solved in bits: seven
/// bits a position, and a group's seeds and codes.
pub(crate) fn bits_working_bytes(positions: u64) -> u64 {
    positions * 7 / 8 + seed_group_bytes()
}

/// Bytes one group of the seed pass holds: its seeds and codes.
pub(crate) fn seed_group_bytes() -> u64 {
    RANGES_PER_GROUP as u64 * CHUNK * 19
}

/// What the seed pass found in one range of positions.
struct SeededRange {
    start: u64,
    codes: Vec<u16>,
    rule_codes: Vec<u8>,
    seeds: GroupSeeds,
    longest: u16,
    deepest: u16,
}

/// Where the seed pass puts what it finds.
enum SeedSink<'f> {
    /// Codes to the work file, seeds to a scratch file.
    Work(&'f mut SeedFile),
    /// Both to a seed part's file.
    Part(&'f mut PartWriter),
}

impl MaterialSolver<'_> {
    /// Solves the one slice of a kings-only material into the work file (see the module docs).
    /// Returns the longest win and the slice's checksum in the work file.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if the work file or the seed file cannot be written, as
    /// [`crate::solve::store::Store::value`] if the values of a finished material cannot be read,
    /// [`GenerateError::DamagedWorkFile`] if the seed file or a seed part changed on disk,
    /// and [`GenerateError::ImpossibleValue`] for a distance past the longest a work file
    /// holds.
    pub(super) fn solve_kings_only(
        &self,
        slice: &KingSlice,
        progress: &dyn Progress,
    ) -> Result<FinishedBand, GenerateError> {
        let n = slice.len();
        let fixed = Bits::new(n);
        let scratch;
        let (seeds, longest, deepest): (&dyn Seeds, u16, u16) = match &self.seed_parts {
            Some(parts) => {
                // Their seeding reported its progress (see `generate::parts`).
                let (longest, deepest) = self.copy_parts(slice, parts, &fixed)?;
                (parts, longest, deepest)
            }
            None => {
                let mut file = SeedFile::create(self.values().path())?;
                let sink = SeedSink::Work(&mut file);
                let (longest, deepest) =
                    self.seed_positions(slice, 0..n, Some(&fixed), sink, progress)?;
                file.finish()?;
                scratch = file;
                (&scratch, longest, deepest)
            }
        };
        self.propagate_kings_only(slice, fixed, seeds, longest, deepest, progress)
    }

    /// Seeds the positions `range` of the one slice of a kings-only material into the part
    /// file `path`, as part `id` (see [`crate::work::seed_part`]).
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if the part file cannot be written, as
    /// [`crate::solve::store::Store::value`] if the values of a finished material cannot be read.
    pub(crate) fn seed_part(
        &self,
        path: &std::path::Path,
        id: &PartId,
        progress: &dyn Progress,
    ) -> Result<(), GenerateError> {
        let slice = self.index.slice(0);
        let mut writer = PartWriter::create(path)?;
        let range = id.start..id.start + id.len;
        let sink = SeedSink::Part(&mut writer);
        let (longest, deepest) = self.seed_positions(&slice, range, None, sink, progress)?;
        writer.finish(id, longest, deepest)
    }

    /// The seed pass over the positions `positions` (local numbers; a part's range starts and
    /// ends on a [`CHUNK`] boundary), group by group: marks the positions their seeds decide
    /// in `fixed` (if given) and sends codes and seeds to `sink`. Returns the longest win and
    /// loss of the seeds.
    fn seed_positions(
        &self,
        slice: &KingSlice,
        positions: Range<u64>,
        fixed: Option<&Bits>,
        mut sink: SeedSink,
        progress: &dyn Progress,
    ) -> Result<(u16, u16), GenerateError> {
        let to_part = matches!(sink, SeedSink::Part(_));
        let ranges: Vec<Range<u64>> = self
            .ranges(slice.len())
            .into_iter()
            .filter(|r| positions.contains(&r.start))
            .collect();
        let (mut longest, mut deepest) = (0u16, 0u16);
        for group in ranges.chunks(RANGES_PER_GROUP) {
            let seeded: Vec<Result<SeededRange, GenerateError>> = group
                .par_iter()
                .map(|range| {
                    // A part's file holds seeds only: the codes are derived from them.
                    let seeded = self.seed_range(slice, range.clone(), fixed, to_part)?;
                    if !to_part {
                        self.values().write_range(
                            slice.global(seeded.start),
                            &seeded.codes,
                            &seeded.rule_codes,
                        )?;
                    }
                    Ok(seeded)
                })
                .collect();
            let mut group_seeds = GroupSeeds::default();
            for range in seeded {
                let range = range?;
                progress.advance(range.codes.len() as u64);
                group_seeds.append(range.seeds);
                longest = longest.max(range.longest);
                deepest = deepest.max(range.deepest);
            }
            match &mut sink {
                SeedSink::Work(file) => file.append(&group_seeds)?,
                SeedSink::Part(writer) => writer.append_seeds(&group_seeds)?,
            }
            self.keep_within_budget();
        }
        Ok((longest, deepest))
    }

    /// Writes the codes of every seed part's positions into the work file, derived from the
    /// part's seeds, and marks the positions they fix. Returns the longest win and loss of
    /// their seeds.
    ///
    /// # Errors
    ///
    /// As [`Seeds::for_each`], [`GenerateError::Io`] if the work file cannot be written.
    fn copy_parts(
        &self,
        slice: &KingSlice,
        parts: &PartSeeds,
        fixed: &Bits,
    ) -> Result<(u16, u16), GenerateError> {
        let (mut longest, mut deepest) = (0u16, 0u16);
        for part in &parts.0 {
            self.codes_of_part(slice, part, fixed)?;
            longest = longest.max(part.longest);
            deepest = deepest.max(part.deepest);
        }
        Ok((longest, deepest))
    }

    /// The codes the seed pass would have written for the positions of `part`, from its
    /// seeds alone: a draw for a position no seed fixes; for one its distance seed fixes, that
    /// distance, marked a capture unless it is lost at once (no move; a position that must
    /// capture and loses does so a ply later at the soonest); a draw marked a capture for one
    /// its seed settles (a capture that draws); and the rule code its rule seed gives, or else
    /// its distance's class.
    fn codes_of_part(
        &self,
        slice: &KingSlice,
        part: &PartFile,
        fixed: &Bits,
    ) -> Result<(), GenerateError> {
        let values = self.values();
        let at = |x: u64| slice.global(x);
        let draw = distance_code(Dtw::Draw);
        let range = part.range();
        let ranges: Vec<Range<u64>> = self
            .ranges(slice.len())
            .into_iter()
            .filter(|r| range.contains(&r.start))
            .collect();
        for group in ranges.chunks(RANGES_PER_GROUP) {
            group.par_iter().try_for_each(|r| {
                let len = (r.end - r.start) as usize;
                values
                    .write_range(at(r.start), &vec![draw; len], &vec![0; len])
                    .map(drop)
            })?;
            self.keep_within_budget();
        }
        // A level's seeds can lie all over the part: pages given back as they are written.
        let mut written = 0u64;
        let mut written_one = || {
            written += 1;
            if written.is_multiple_of(SEEDS_BETWEEN_CHECKS) {
                self.keep_within_budget();
            }
        };
        for level in 0..=part.last_level(Propagated::Distances).unwrap_or(0) {
            part.for_each(Propagated::Distances, level, &mut |x, won| {
                let dtw = if won {
                    Dtw::Win(level)
                } else {
                    Dtw::Loss(level)
                };
                let capture = if won || level > 0 { CAPTURE } else { 0 };
                values.set_distance_code(at(x), distance_code(dtw) | capture);
                fixed.insert(x);
                written_one();
            })?;
        }
        part.for_each(Propagated::Settled, 0, &mut |x, _| {
            values.set_distance_code(at(x), draw | CAPTURE);
            fixed.insert(x);
            written_one();
        })?;
        self.keep_within_budget();
        if !self.rules {
            return Ok(());
        }
        for group in ranges.chunks(RANGES_PER_GROUP) {
            group.par_iter().for_each(|r| {
                for x in r.clone().filter(|&x| fixed.contains(x)) {
                    values.set_rule_code(at(x), rule_code(None, values.distance_code(at(x))));
                }
            });
            self.keep_within_budget();
        }
        for level in 0..=part.last_level(Propagated::Rules).unwrap_or(0) {
            part.for_each(Propagated::Rules, level, &mut |x, won| {
                let outcome = if won {
                    Outcome::Won(level)
                } else {
                    Outcome::Lost(level)
                };
                values.set_rule_code(at(x), rule_code(Some(outcome), values.distance_code(at(x))));
                written_one();
            })?;
        }
        self.keep_within_budget();
        Ok(())
    }

    /// The propagations of a kings-only material from its seeds, written to the work file as
    /// their levels complete. Returns the longest win and the slice's checksum.
    fn propagate_kings_only(
        &self,
        slice: &KingSlice,
        fixed: Bits,
        seeds: &dyn Seeds,
        longest: u16,
        deepest: u16,
        progress: &dyn Progress,
    ) -> Result<FinishedBand, GenerateError> {
        let n = slice.len();
        let moves = slice.king_moves();
        let (distances, won_at) = self.propagate_distances(slice, &moves, fixed, seeds)?;
        let longest = longest.max(won_at);
        // Only values read wrong (the successors' files damaged past their checksums) can
        // give a distance the codes cannot hold: never written as if it were one.
        if deepest.max(longest) > MAX_DISTANCE {
            return Err(self.past_longest(deepest.max(longest)));
        }
        progress.advance(n);
        if self.rules {
            self.propagate_rules(slice, &moves, distances.into_fixed(), seeds)?;
        }
        progress.advance(n);
        let values = self.values();
        let kings = self.index.king_placements();
        let checksum = u64::from(values.checksum(slice.global(0), kings))
            + u64::from(values.checksum(slice.global(kings), kings));
        Ok(FinishedBand { longest, checksum })
    }

    /// The distance propagation from the positions `fixed` by their seeds, each level's codes
    /// written as it completes. Returns its levels, for the positions they fix, and the
    /// longest win it found (its last level with a win).
    ///
    /// # Errors
    ///
    /// As [`Seeds::for_each`], and [`GenerateError::ImpossibleValue`] for a level past the
    /// longest distance a code holds (refused as it comes).
    fn propagate_distances(
        &self,
        slice: &KingSlice,
        moves: &SliceMoves,
        fixed: Bits,
        seeds: &dyn Seeds,
    ) -> Result<(BitLevels, u16), GenerateError> {
        let values = self.values();
        let global = |x: u64| slice.global(x);
        let mut distances = BitLevels::new(fixed);
        // The longest win the propagation finds: its last level with a win (levels past the
        // longest a code holds are refused as they come).
        let won_at = AtomicU16::new(0);
        distances.run(
            moves,
            u16::MAX,
            seeds.last_level(Propagated::Distances),
            |level, add| seeds.for_each(Propagated::Distances, level, &mut *add),
            |level, decided, won| {
                if level > MAX_DISTANCE {
                    return Err(self.past_longest(level));
                }
                // A level can touch most of the work file: pages given back batch by batch.
                decided.par_for_each_batched(
                    |x| {
                        let dtw = if won.contains(x) {
                            // Read first: one write a level, not one a position, to the shared
                            // line.
                            if won_at.load(Ordering::Relaxed) < level {
                                won_at.fetch_max(level, Ordering::Relaxed);
                            }
                            Dtw::Win(level)
                        } else {
                            Dtw::Loss(level)
                        };
                        values.set_distance_code(global(x), distance_code(dtw));
                    },
                    || self.keep_within_budget(),
                );
                Ok(())
            },
        )?;
        Ok((distances, won_at.into_inner()))
    }

    /// The rule propagation from the positions `fixed` by their seeds or by the distance
    /// propagation: every other position takes the rule code its distance gives, then each
    /// level's codes are written as it completes.
    ///
    /// # Errors
    ///
    /// As [`Seeds::for_each`].
    fn propagate_rules(
        &self,
        slice: &KingSlice,
        moves: &SliceMoves,
        fixed: Bits,
        seeds: &dyn Seeds,
    ) -> Result<(), GenerateError> {
        let values = self.values();
        let global = |x: u64| slice.global(x);
        self.rule_codes_of_distances(slice, &fixed);
        let mut rules = BitLevels::new(fixed);
        rules.run(
            moves,
            u16::from(self.limit),
            seeds.last_level(Propagated::Rules),
            |level, add| seeds.for_each(Propagated::Rules, level, &mut *add),
            |level, decided, won| {
                decided.par_for_each_batched(
                    |x| {
                        let outcome = if won.contains(x) {
                            Outcome::Won(level)
                        } else {
                            Outcome::Lost(level)
                        };
                        let at = global(x);
                        let code = rule_code(Some(outcome), values.distance_code(at));
                        values.set_rule_code(at, code);
                    },
                    || self.keep_within_budget(),
                );
                Ok(())
            },
        )
    }

    /// Seeds the positions of `range` (local numbers): their codes (final for those their
    /// seeds decide, which are marked `fixed` if given; a draw for the others) and their
    /// seeds, with the positions whose seed settles them a draw if `settled` (a seed part's
    /// file, which holds no codes, needs them; the propagations do not).
    fn seed_range(
        &self,
        slice: &KingSlice,
        range: Range<u64>,
        fixed: Option<&Bits>,
        settled: bool,
    ) -> Result<SeededRange, GenerateError> {
        let mut cursor = self.index.cursor(slice.global(range.start));
        let mut list = MoveList::new();
        let mut man_moves = ManMoves::new(self.index, slice.men_bits());
        let len = (range.end - range.start) as usize;
        let mut out = SeededRange {
            start: range.start,
            codes: Vec::with_capacity(len),
            rule_codes: Vec::with_capacity(len),
            seeds: GroupSeeds::default(),
            longest: 0,
            deepest: 0,
        };
        for x in range.clone() {
            let pos = cursor.position();
            cursor.advance();
            let (distance, rule, capture) = self.seed(&pos, &mut list, &mut man_moves, None)?;
            let (code, rule_outcome) = match (distance, rule) {
                (Seed::Open { floor: 0, .. }, Seed::Open { floor: 0, .. }) => {
                    out.codes.push(distance_code(Dtw::Draw));
                    out.rule_codes.push(0);
                    continue;
                }
                (distance, rule) => (
                    self.fixed_code(distance, x, settled, &mut out),
                    self.fixed_rule(rule, x, &mut out.seeds),
                ),
            };
            if let Some(fixed) = fixed {
                fixed.insert(x);
            }
            let code = code | if capture { CAPTURE } else { 0 };
            out.codes.push(code);
            out.rule_codes.push(if self.rules {
                rule_code(rule_outcome, code)
            } else {
                0
            });
        }
        Ok(out)
    }

    /// The distance code of a position its seed decides, its seed noted.
    fn fixed_code(&self, seed: Seed, x: u64, settled: bool, out: &mut SeededRange) -> u16 {
        let dtw = match seed {
            Seed::Won(l) => {
                out.longest = out.longest.max(l);
                out.seeds.push(Propagated::Distances, l, true, x);
                Dtw::Win(l)
            }
            Seed::Lost(l) => {
                out.deepest = out.deepest.max(l);
                out.seeds.push(Propagated::Distances, l, false, x);
                Dtw::Loss(l)
            }
            Seed::Settled => {
                if settled {
                    out.seeds.push(Propagated::Settled, 0, false, x);
                }
                Dtw::Draw
            }
            seed => unreachable_seed(seed),
        };
        distance_code(dtw)
    }

    /// The rule outcome of a position its seed decides, its seed noted.
    fn fixed_rule(&self, seed: Seed, x: u64, seeds: &mut GroupSeeds) -> Option<Outcome> {
        match seed {
            Seed::Won(c) => {
                seeds.push(Propagated::Rules, c, true, x);
                Some(Outcome::Won(c))
            }
            Seed::Lost(c) => {
                seeds.push(Propagated::Rules, c, false, x);
                Some(Outcome::Lost(c))
            }
            Seed::Settled => None,
            seed => unreachable_seed(seed),
        }
    }

    /// Gives every position its seed does not fix the rule code its distance gives (what the
    /// rules leave undecided), before the rule propagation writes those it decides.
    fn rule_codes_of_distances(&self, slice: &KingSlice, fixed: &Bits) {
        for group in self.ranges(slice.len()).chunks(RANGES_PER_GROUP) {
            // Through the mapping: only the rule codes change, the distance codes stay put.
            group.par_iter().for_each(|range| {
                for x in range.clone().filter(|&x| !fixed.contains(x)) {
                    let at = slice.global(x);
                    let code = rule_code(None, self.values().distance_code(at));
                    self.values().set_rule_code(at, code);
                }
            });
            self.keep_within_budget();
        }
    }
}

/// Only a move out of the slice gives a floor, a pending win or an escape to a position with
/// moves inside, and in a kings-only material every move out is a capture, which leaves no
/// quiet move legal; a position without a capture has its moves inside (open) or none (lost).
#[cold]
fn unreachable_seed(seed: Seed) -> ! {
    unreachable!("a kings-only position seeded {seed:?}")
}
