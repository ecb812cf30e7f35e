//! Checking tables independently of how they were made: every position's stored values against
//! its successors' values, found by forward move generation.
//!
//! The full check ([`Verifier::verify`], [`verify_table`] with the default budget, and for
//! several materials in a row [`Verifier::verify_each`]) walks a material page by page
//! (`full`, `pages`), with a bounded amount of decoded table in memory, the successors of a
//! position found in pages by their index (`context`, `walker`, `rank`), or resolved through
//! the probe's rules where no page holds them (`outside`); a material of kings alone whose pages
//! do not fit is held a byte or so a position instead (`kings`, its report's lines worked out
//! as pages give them by `example`). The sampled check
//! ([`Verifier::verify_sample`]) looks at a few random positions, their successors probed
//! (`sample`). Both compare a position with its successors the same way (`part`). How a check
//! spends its memory budget is [`VerifyBudget`] (`budget`); the record of materials checked
//! whole that a stopped check resumes from is [`VerifiedRecord`] (`resume`).

mod budget;
mod codes;
mod context;
mod example;
mod full;
mod kings;
mod outside;
mod pages;
mod part;
mod rank;
mod resume;
mod sample;
mod set;
mod walker;

pub use budget::VerifyBudget;
pub use resume::{check_block_checksums, VerifiedRecord};
pub use set::{CheckEvent, CheckSelection, CheckTotals, SetCheck};

use rafle_probe::{
    draughts::{Material, Variant},
    toolkit::PositionIndex,
    ProbeError, Tablebase,
};

use context::Context;
use pages::Cache;

/// The outcome of checking one table.
#[derive(Debug, Clone, Default)]
pub struct VerifyReport {
    /// Positions in the table.
    pub positions: u64,
    /// Positions looked at: all of them, or those of a sample.
    pub checked: u64,
    /// Positions looked at whose side to move must capture: their value is resolved from their
    /// captures, so there is nothing stored to check.
    pub capture_positions: u64,
    /// Positions whose stored value disagrees with their successors.
    pub mismatches: u64,
    /// The first few mismatching positions in index order, as `FEN: stored X, successors say Y`,
    /// sorted.
    pub examples: Vec<String>,
}

/// How many mismatching positions a report shows.
const EXAMPLES: usize = 5;

/// Checks every block checksum and every position of a material's three tables against its
/// successors, as [`Verifier::verify`] does, with [`Verifier::DEFAULT_MEMORY`] of decoded
/// pages.
///
/// # Errors
///
/// As [`Verifier::verify`].
pub fn verify_table(
    tablebase: &Tablebase,
    variant: Variant,
    material: Material,
    advance: &(dyn Fn(u64) + Sync),
) -> Result<VerifyReport, ProbeError> {
    Verifier::new(tablebase, variant).verify(material, advance)
}

/// Checks the tables of one variant of a tablebase against their successors: a material whole
/// ([`Verifier::verify`]), several in a row sharing their pages ([`Verifier::verify_each`]),
/// or a random sample of a material's positions ([`Verifier::verify_sample`]). The reports do
/// not depend on the memory budget.
///
/// ```no_run
/// use rafle_generator::Verifier;
/// use rafle_probe::{Tablebase, draughts::Variant};
///
/// let tables = Tablebase::open("data")?;
/// let verifier = Verifier::new(&tables, Variant::Brazilian).with_memory(64 << 20);
/// let report = verifier.verify("KKvK".parse()?, &|_| {})?;
/// assert_eq!(report.mismatches, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Memory
///
/// A material is walked in pages of 65,536 positions with one side to move, decoded from the
/// table blocks that cover them and completed (4 bytes of codes and a capture bit a position:
/// 264 KiB a page, 272 KiB with what the allocator adds); the smaller materials its captures
/// reach are paged the same way. Pages stay in a cache of at most the budget
/// ([`Verifier::DEFAULT_MEMORY`] unless [`Verifier::with_memory`] sets another). When the
/// material and those its captures reach fit, they are decoded whole, room being made first so
/// that the budget holds (every Brazilian material up to 5 pieces fits the default: the
/// largest, KKMvKM, takes 75 MiB).
///
/// A larger one is checked four pages with White to move at a time, the pages their moves
/// reach made as needed; before pages are made, the least recently used ones the window has
/// not used are dropped until the new ones fit in the budget, and what one window needs stays
/// until it is done. Memory is then bounded by the budget or by one window's working set,
/// whichever is larger, and not by the material: the working set is the pages of the positions
/// with the same men as the window (those a king move reaches), with those a man move reaches,
/// a few hundred pages for a material with men. A material of kings alone has a single
/// placement of the men, so there it is the whole material with the materials its captures
/// reach (2.7 GiB for international KKKvKKK). When those pages do not fit the budget, such a
/// material is checked with its values held a byte or so a position instead (its half with
/// Black to move, both halves of the materials its captures reach; the half with White to move
/// made a few rows at a time): 2.25 bytes a position if the budget holds them, else two passes,
/// the win/draw/loss and distance (1.25 bytes) then the rule values (1 byte). The report is the
/// same. International KKKKvKKK is so checked in 5.5 GiB rather than about 32 GiB of pages; a
/// material whose distances need 16 bits is checked in pages, whatever the budget.
/// [`Verifier::least_memory`] tells what a material needs at least.
///
/// On top of that come the probe's block cache for the positions no page holds (the budget
/// the tablebase was opened with), about 3 MiB per thread of positions resolved that way, and
/// the pages of the mapped table files read so far, which [`Verifier::releasing_past`] bounds;
/// with that mark, the pages' budget is also kept within what the mark leaves besides
/// everything else the process holds, as measured.
#[derive(Debug, Clone, Copy)]
pub struct Verifier<'a> {
    /// The tables checked, and those their successors are read from.
    tablebase: &'a Tablebase,
    /// The variant of the materials checked.
    variant: Variant,
    /// The most bytes of decoded pages kept between steps.
    memory: usize,
    /// Resident memory past which the pages of the mapped table files are given back.
    release_at: u64,
}

impl<'a> Verifier<'a> {
    /// The budget of decoded pages unless [`Verifier::with_memory`] sets another: 256 MiB,
    /// which holds every Brazilian material up to 5 pieces whole, with the smaller materials
    /// its captures reach.
    pub const DEFAULT_MEMORY: usize = 256 << 20;

    /// A verifier of the `variant` tables of `tablebase`, with [`Verifier::DEFAULT_MEMORY`] of
    /// decoded pages.
    pub fn new(tablebase: &'a Tablebase, variant: Variant) -> Self {
        Verifier {
            tablebase,
            variant,
            memory: Self::DEFAULT_MEMORY,
            release_at: u64::MAX,
        }
    }

    /// The same verifier keeping at most about `memory` bytes of decoded pages between steps
    /// (see the memory bound above).
    pub fn with_memory(self, memory: usize) -> Self {
        Verifier { memory, ..self }
    }

    /// The same verifier giving back the pages of the mapped table files whenever the
    /// process's resident memory passes `bytes`, checked after each step of a full check:
    /// reading every block of a large set would otherwise leave every table file resident.
    /// What is given back stays in the system's cache (and before a step that would pass
    /// `bytes`, and every 100 ms during one). Between steps, the budget of decoded pages is
    /// lowered, for the rest of the check, to what `bytes` leaves besides the rest of the
    /// memory that maps no file, as measured (the tables' indices and the allocator's overhead
    /// are only estimated up front), with the probe's block cache counted at its whole budget
    /// (it fills during steps), down to a single page.
    pub fn releasing_past(self, bytes: u64) -> Self {
        Verifier {
            release_at: bytes,
            ..self
        }
    }

    /// The allowance for the decoded pages a full check of a material with men holds at once
    /// whatever the budget: one window's working set, the pages with the window's men (those a
    /// king move reaches) and those its men's moves and captures reach (measured with a budget
    /// of one page: at most 137 pages, 36 MiB, on Brazilian up to 5 pieces).
    pub const WINDOW_MEMORY: usize = 128 << 20;

    /// Bytes of decoded values a full check of `material` holds at once, whatever the budget:
    /// a material of kings alone is checked whole (its positions all share one placement of
    /// the men), with the materials its captures reach that have tables, in pages or, when that
    /// is less, in two passes a byte or so a position (with the buffers of its units of work
    /// and the 8 MiB of mismatches it remembers); one with men a window at a time, counted as
    /// [`Verifier::WINDOW_MEMORY`].
    pub fn least_memory(&self, material: Material) -> usize {
        if material.men() > 0 {
            return Self::WINDOW_MEMORY;
        }
        let whole = self.decoded_whole(material);
        match kings::least_memory(self.tablebase, self.variant, material) {
            Some(compact) => whole.min(usize::try_from(compact).unwrap_or(usize::MAX)),
            None => whole,
        }
    }

    /// Bytes of the pages of `material` and of the materials its captures reach, decoded
    /// whole: what a check of a material of kings alone holds when its budget holds it.
    pub fn decoded_whole(&self, material: Material) -> usize {
        context::reached(self.tablebase, self.variant, &[material])
            .iter()
            .map(|&m| {
                let layout = pages::Layout::new(PositionIndex::count(self.variant, m));
                layout.pages() as usize * pages::PAGE_BYTES
            })
            .sum()
    }

    /// Whether the check of `material` holds its values a byte or so a position rather than
    /// in pages: a material of kings alone whose pages, with those its captures reach, do not
    /// fit the budget, and whose distances fit a byte.
    pub fn holds_compactly(&self, material: Material) -> bool {
        material.men() == 0
            && self.decoded_whole(material) > self.memory
            && kings::held_positions(self.tablebase, self.variant, material).is_some()
    }

    /// Checks part `main` of `ctx`: in pages, or a material of kings alone whose pages do not
    /// fit the cache's budget a byte or so a position ([`kings`]).
    fn check(
        &self,
        ctx: &Context,
        cache: &mut Cache,
        main: usize,
        advance: &(dyn Fn(u64) + Sync),
    ) -> Result<Tally, ProbeError> {
        let material = ctx.parts[main].material;
        if material.men() == 0 {
            let pages: u32 = ctx
                .closure(main)
                .iter()
                .map(|&k| ctx.parts[k].layout.pages())
                .sum();
            let budget = cache.budget_pages() * pages::PAGE_BYTES;
            if !cache.holds(pages) {
                if let Some(held) = kings::held_in(ctx, main) {
                    cache.clear();
                    ctx.trim();
                    let passes = kings::passes(held, budget as u64);
                    return kings::verify(ctx, main, &passes, advance);
                }
            }
        }
        full::verify(ctx, cache, main, advance)
    }

    /// Checks every block checksum of a material's win/draw/loss, distance-to-win and rule
    /// tables, then every position: no legal move must be a loss (in 0), otherwise the value is
    /// the best of the negated values of the successors, the distance the quickest win or the
    /// longest loss, and the rule-aware value the one [`rafle_probe::RuleValue::from_successors`]
    /// gives from the successors' rule values and whether each move resets the counter.
    /// Distances and rule values are stored for the positions with White to move that are not
    /// drawn; the others are derived from their moves, as a probe derives them, before the
    /// stored ones are checked. A successor in another material has the values the probe gives
    /// it: read from that material's pages, completed the same way, or resolved through the
    /// tablebase by the probe's rules.
    ///
    /// `advance` is called with the number of positions done as work goes on: the material's
    /// positions in all.
    ///
    /// # Errors
    ///
    /// A [`ProbeError`] reading this table or one it depends on, [`ProbeError::Corrupted`] for
    /// a checksum mismatch or an invalid code, [`ProbeError::MissingTable`] if the material has
    /// no tables.
    pub fn verify(
        &self,
        material: Material,
        advance: &(dyn Fn(u64) + Sync),
    ) -> Result<VerifyReport, ProbeError> {
        let (tablebase, variant) = (self.tablebase, self.variant);
        let (mut ctx, failed) = Context::open(tablebase, variant, &[material], true)?;
        ctx.release_at = self.release_at;
        if let Some((_, err)) = failed.into_iter().find(|&(m, _)| m == material) {
            return Err(err);
        }
        let main = ctx
            .part(material)
            .ok_or_else(|| missing(tablebase, variant, material))?;
        let mut cache = Cache::new(ctx.pages(), self.memory);
        let tally = ctx.tended(|| self.check(&ctx, &mut cache, main, advance))?;
        Ok(tally.report(ctx.parts[main].index.size()))
    }

    /// Checks every position of each of `materials` in turn, as [`Verifier::verify`] does
    /// (with the same reports), calling `done` with each material's report and stopping when
    /// `done` returns `false`. The pages of a material once verified stay in the one cache for
    /// those after it, whose captures and promotions read them instead of making them again:
    /// given in dependency order (as [`Tablebase::materials`] lists them), each material's
    /// pages are made once if the budget holds them. `advance` is called with the number of
    /// positions of the current material done as work goes on.
    ///
    /// # Errors
    ///
    /// None returned: each material's error (as [`Verifier::verify`] gives it) goes to `done`
    /// in place of its report, and the materials after it are still checked.
    pub fn verify_each(
        &self,
        materials: &[Material],
        advance: &(dyn Fn(u64) + Sync),
        done: &mut dyn FnMut(Material, Result<VerifyReport, ProbeError>) -> bool,
    ) {
        let (tablebase, variant) = (self.tablebase, self.variant);
        let Ok((mut ctx, mut failed)) = Context::open(tablebase, variant, materials, true) else {
            // Each material then reports the error for itself.
            for &m in materials {
                if !done(m, self.verify(m, advance)) {
                    return;
                }
            }
            return;
        };
        ctx.release_at = self.release_at;
        let mut cache = Cache::new(ctx.pages(), self.memory);
        ctx.tended(|| {
            for &m in materials {
                let result = match ctx.part(m) {
                    Some(main) => self
                        .check(&ctx, &mut cache, main, advance)
                        .map(|tally| tally.report(ctx.parts[main].index.size())),
                    None => Err(match failed.iter().position(|&(f, _)| f == m) {
                        Some(k) => failed.swap_remove(k).1,
                        None => missing(tablebase, variant, m),
                    }),
                };
                if !done(m, result) {
                    return;
                }
            }
        });
    }

    /// Checks `count` positions of the material drawn at random (without repeats, the same
    /// ones for the same `seed`), each as [`Verifier::verify`] checks it, its successors probed
    /// in the tablebase; the whole material, as [`Verifier::verify`] does, if it has no more
    /// than `count` positions. Only the table blocks the positions and their successors need
    /// are read (and their checksums checked). `advance` is called with the number of
    /// positions done: [`Verifier::sample_size`] in all.
    ///
    /// # Errors
    ///
    /// As [`Verifier::verify`].
    pub fn verify_sample(
        &self,
        material: Material,
        count: u64,
        seed: u64,
        advance: &(dyn Fn(u64) + Sync),
    ) -> Result<VerifyReport, ProbeError> {
        let positions = PositionIndex::count(self.variant, material);
        if count >= positions {
            return self.verify(material, advance);
        }
        let (ctx, failed) = Context::open(self.tablebase, self.variant, &[material], false)?;
        if let Some((_, err)) = failed.into_iter().next() {
            return Err(err);
        }
        let tally = sample::verify(&ctx, count, seed, advance)?;
        Ok(tally.report(positions))
    }

    /// How many positions [`Verifier::verify_sample`] looks at in a material when asked for
    /// `count`.
    pub fn sample_size(&self, material: Material, count: u64) -> u64 {
        count.min(PositionIndex::count(self.variant, material))
    }
}

/// The error for a material without tables.
fn missing(tablebase: &Tablebase, variant: Variant, material: Material) -> ProbeError {
    ProbeError::MissingTable {
        variant,
        material,
        path: tablebase.table_path(variant, material),
    }
}

/// What checking some positions found.
#[derive(Debug, Default)]
struct Tally {
    /// Positions looked at.
    checked: u64,
    /// Of which with a capture to make.
    captures: u64,
    /// Of which disagreeing with their successors.
    mismatches: u64,
    /// The mismatches of the lowest indices, at most [`EXAMPLES`].
    examples: Vec<(u64, String)>,
}

impl Tally {
    /// Counts a position whose side to move must capture.
    fn capture(&mut self) {
        self.checked += 1;
        self.captures += 1;
    }

    /// Counts position `i`, checked against its successors, with the example of its mismatch.
    fn quiet(&mut self, i: u64, mismatch: Option<String>) {
        self.checked += 1;
        if let Some(example) = mismatch {
            self.mismatches += 1;
            self.examples.push((i, example));
            self.keep_first();
        }
    }

    /// Adds what `other` found.
    fn merge(&mut self, other: Tally) {
        self.checked += other.checked;
        self.captures += other.captures;
        self.mismatches += other.mismatches;
        self.examples.extend(other.examples);
        self.keep_first();
    }

    /// Keeps the examples of the lowest indices, so that the report does not depend on the
    /// order in which threads found them.
    fn keep_first(&mut self) {
        if self.examples.len() > EXAMPLES {
            self.examples.sort_unstable_by_key(|&(i, _)| i);
            self.examples.truncate(EXAMPLES);
        }
    }

    /// The report of a material of `positions` positions.
    fn report(self, positions: u64) -> VerifyReport {
        let mut examples: Vec<String> = self.examples.into_iter().map(|(_, e)| e).collect();
        examples.sort();
        VerifyReport {
            positions,
            checked: self.checked,
            capture_positions: self.captures,
            mismatches: self.mismatches,
            examples,
        }
    }
}
