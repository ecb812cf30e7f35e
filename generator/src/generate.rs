//! Generating the tables of a plan: each material solved slice by slice in dependency order
//! (see [`crate::solve`]) from the work files of the materials its moves reach, then its three
//! tables written from its own work file. Complete and valid tables already on disk are reused,
//! a rule table alone is recomputed when only it is missing or has other limits, and a stopped
//! run starts again at the first band of slices it had not finished.

mod banded;
mod found;
mod parts;
mod reuse;

use std::path::Path;
use std::time::Instant;

use rafle_probe::{Material, PositionIndex, Tables, WorkFiles};

use crate::files::WriterLock;
use crate::packed::{self, PackedValues};
use crate::plan::{MaterialPlan, Plan, LEAST_CACHE_BYTES};
use crate::seed_part::PartSeeds;
use crate::solve::{band_checksum, bands, MaterialSolver};
use crate::store::Store;
use crate::summary::{Counts, SummaryFile};
use crate::values::remove_bands;
use crate::values::{remove_values, Journal, ValuesFile, BYTES_PER_POSITION};
use crate::write::{write_tables, Writing, Written};
use crate::{GenerateError, Progress, UNITS_PER_POSITION};

use banded::BandedMaterial;
use found::Found;
use parts::{ready_seed_parts, seed_part, seed_parts_here};
use reuse::{reuse, work_to_do, NotReused, Values};

/// What was done for one material.
#[derive(Debug, Clone)]
pub struct MaterialSummary {
    /// The board.
    pub variant: rafle_probe::Variant,
    /// The material (stored orientation).
    pub material: rafle_probe::Material,
    /// Positions, both sides to move.
    pub positions: u64,
    /// Positions won for the side to move (capture positions included).
    pub wins: u64,
    /// Positions drawn.
    pub draws: u64,
    /// Positions lost.
    pub losses: u64,
    /// Wall-clock seconds spent on the material.
    pub seconds: f64,
    /// Of which solving the rule-aware values took (0 if they were read back). Distances and
    /// rule-aware values are solved together, slice by slice, so this is 0 unless the rule
    /// table alone was recomputed.
    pub draw_rules_seconds: f64,
    /// The longest win, in plies (0 if there is none, and 0 when only win/draw/loss was
    /// solved: see `rules_solved`).
    pub longest_win: u16,
    /// Size of the win/draw/loss table file.
    pub bytes: u64,
    /// Size of the distance-to-win table file.
    pub dtw_bytes: u64,
    /// Size of the rule table file.
    pub draw_rules_bytes: u64,
    /// Positions won ignoring the draw rules but drawn under them (capture positions included).
    pub cursed_wins: u64,
    /// Positions lost ignoring the draw rules but drawn under them.
    pub blessed_losses: u64,
    /// Whether the distances and the draw rules were solved (not with `--tables wdl`, unless
    /// the tables were reused): if not, `longest_win`, `cursed_wins` and `blessed_losses` are
    /// 0 and mean nothing.
    pub rules_solved: bool,
    /// Whether an existing valid table was reused instead of generated.
    pub reused: bool,
    /// Why an existing file was not reused, if there was one.
    pub rebuilt_because: Option<String>,
    /// Whether the tables were converted from the previous format version (their values
    /// read, not solved again); `reused` is then true too.
    pub converted: bool,
    /// For a seed part's unit, which part (from 1) of how many: the summary is then of the
    /// part (its positions; no counts, no tables), `reused` when its file was already there
    /// or the material finished.
    pub seed_part: Option<(u32, u32)>,
    /// Whether the material's tables store one side to move (`--compact`), as found on disk
    /// after the run: a reused table keeps the form it was written in, whatever the plan
    /// asks. `false` for a seed part.
    pub compact: bool,
}

/// Generates (or reuses) every table of `plan`, reporting to `progress`. Runs on the current
/// rayon thread pool.
///
/// # Errors
///
/// [`GenerateError::Busy`] when another generation writes the directory and this one or the
/// other is a whole run (a unit of work waits for another unit of the same material),
/// [`GenerateError::Io`] when a file cannot be written,
/// [`GenerateError::Check`] when a written table does not read back the same,
/// [`GenerateError::Stopped`] when `progress` asked the run to stop
/// ([`Progress::should_stop`]).
pub fn generate(
    plan: &Plan,
    progress: &dyn Progress,
) -> Result<Vec<MaterialSummary>, GenerateError> {
    let layout = plan.layout();
    let dir = layout.path();
    let lock = match (plan.unit, plan.part) {
        (Some(material), Some(part)) => {
            WriterLock::unit_at(&layout, &layout.seed_part_lock(material, part), &|pid| {
                progress.waiting_for_unit(dir, material, pid);
            })?
        }
        (Some(material), None) => WriterLock::unit(&layout, material, &|pid| {
            progress.waiting_for_unit(dir, material, pid);
        })?,
        (None, _) => WriterLock::whole(&layout)?,
    };
    plan.check_limits_agree()?;
    let removed = lock.remove_leftovers()?;
    if removed > 0 {
        progress.leftovers_removed(dir, removed);
    }
    progress.variant_started(plan);
    let found: Vec<Found> = plan
        .materials
        .iter()
        .map(|m| Found::look(plan, m))
        .collect();
    if let Some(unit) = plan.unit {
        let missing: Vec<(Material, String)> = plan
            .materials
            .iter()
            .zip(&found)
            .filter(|(m, f)| m.material != unit && !matches!(f, Found::Complete))
            .map(|(m, f)| {
                let why = match f {
                    Found::Incomplete(None) => "no tables".to_string(),
                    Found::WdlOnly => "only its win/draw/loss table".to_string(),
                    f => f.why().unwrap_or_else(|| "no rule table".to_string()),
                };
                (m.material, why)
            })
            .collect();
        if !missing.is_empty() {
            return Err(GenerateError::MissingTables {
                variant: plan.variant,
                material: unit,
                missing,
            });
        }
    }
    // A unit solving a material seeded in parts whose every part is there (checked whole)
    // reads those files, not the materials they read.
    let last = plan.materials.len().saturating_sub(1);
    let mut ready_parts = match plan.materials.last() {
        Some(m)
            if plan.unit.is_some()
                && plan.part.is_none()
                && m.seed_parts > 0
                && !matches!(found[last], Found::Complete) =>
        {
            ready_seed_parts(plan, m)
        }
        _ => None,
    };
    let work = work_to_do(plan, &found, ready_parts.is_some(), progress)?;
    let (solved, needed) = (&work.solved, &work.needed);
    plan.check_slices(|j| solved[j])?;
    let last_reader = plan.last_readers(|k| work.reads_values[k]);
    let mut store = Store::new(LEAST_CACHE_BYTES);
    let mut summaries = Vec::with_capacity(plan.materials.len());
    for (j, m) in plan.materials.iter().enumerate() {
        if progress.should_stop() {
            return Err(GenerateError::Stopped);
        }
        progress.material_started(plan.variant, m.material, m.positions);
        let started = Instant::now();
        let index = PositionIndex::new(plan.variant, m.material);
        store.set_cache_budget(plan.cache_bytes(&index));
        let paths = plan.layout().work_files(m.material, plan.tables);
        if let (Some(part), true) = (plan.part, j == last) {
            let summary = seed_part(plan, j, &found[j], &index, &store, part, progress)?;
            progress.material_finished(&summary);
            summaries.push(summary);
            break;
        }
        let reused = if solved[j] {
            Err(NotReused::Solve(None))
        } else {
            let values = match (needed[j], work.kept[j]) {
                (false, _) => Values::NotNeeded,
                (true, true) => Values::Kept,
                (true, false) => Values::Rebuilt,
            };
            let counts = work.counts[j];
            reuse(
                plan, m, &found[j], &index, counts, values, &paths, &store, progress,
            )
        };
        let done = match reused {
            Ok(done) => done,
            Err(NotReused::Failed(e)) => return Err(e),
            Err(NotReused::Solve(because)) => {
                // A reused table that turns out damaged rebuilds all three kinds.
                let because = because.or_else(|| found[j].why());
                let rules_only =
                    matches!(found[j], Found::RulesOnly(_)) && because == found[j].why();
                let parts = if j == last { ready_parts.take() } else { None };
                let mut done = solve_material(
                    plan, m, &index, &mut store, rules_only, needed[j], parts, progress,
                )?;
                done.rebuilt_because = because;
                done
            }
        };
        if needed[j] && store.banded(m.material).is_some() {
            // Solved into band files just now: they stay, read as they are.
        } else if let Some(bands) = needed[j]
            .then(|| banded::finished_bands(plan, m, &index, &paths))
            .flatten()
        {
            store.insert_banded(index, bands);
        } else if needed[j] {
            let packed = PackedValues::open(&paths.packed, &plan.packed_identity(m), m.positions)?;
            store.insert_packed(index, packed);
            // Nothing reads a raw file an older version left: the packed one replaces it.
            remove(&paths.legacy);
        } else if plan.unit.is_none() {
            remove_values(&paths);
        }
        // A unit leaves the work files of the materials below it alone, needed or not: units
        // running beside it may be about to open them (it checked they were there, then
        // opens them when it reaches their material), and only a whole run, which no unit
        // runs beside, knows when no one reads them any more.
        // Values no later material reads are dropped; a unit's dependencies keep their
        // packed files, which the other units read too (rebuilt from the tables, they would
        // cost each unit more than solving it).
        for &d in &m.reads {
            if last_reader[d] == Some(j) {
                let dep = plan.materials[d].material;
                store.remove(dep);
                if plan.unit.is_none() {
                    remove_values(&plan.layout().work_files(dep, plan.tables));
                }
            }
        }
        let summary = done.summary(plan, m, started.elapsed().as_secs_f64());
        progress.material_finished(&summary);
        summaries.push(summary);
    }
    Ok(summaries)
}

/// How often a material being solved records its progress (and gives back the pages of its
/// raw work file it read): a stopped run loses at most this much work, plus the band under
/// way.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// What was done for a material, before timing.
struct Done {
    counts: Counts,
    written: Written,
    reused: bool,
    rebuilt_because: Option<String>,
    draw_rules_seconds: f64,
    rules_solved: bool,
    converted: bool,
    /// Whether the tables on disk store one side to move ([`MaterialSummary::compact`]).
    compact: bool,
}

impl Done {
    /// What reusing finished tables did (their values read, converted or neither).
    fn reused(
        counts: Counts,
        written: Written,
        rules_solved: bool,
        converted: bool,
        compact: bool,
    ) -> Done {
        Done {
            counts,
            written,
            reused: true,
            rebuilt_because: None,
            draw_rules_seconds: 0.0,
            rules_solved,
            converted,
            compact,
        }
    }

    fn summary(self, plan: &Plan, m: &MaterialPlan, seconds: f64) -> MaterialSummary {
        let c = self.counts;
        MaterialSummary {
            variant: plan.variant,
            material: m.material,
            positions: m.positions,
            wins: c.wins,
            draws: c.draws,
            losses: c.losses,
            cursed_wins: c.cursed_wins,
            blessed_losses: c.blessed_losses,
            longest_win: c.longest_win,
            seconds,
            draw_rules_seconds: self.draw_rules_seconds,
            bytes: self.written.wdl,
            dtw_bytes: self.written.dtw,
            draw_rules_bytes: self.written.draw_rules,
            reused: self.reused,
            rebuilt_because: self.rebuilt_because,
            rules_solved: self.rules_solved,
            converted: self.converted,
            seed_part: None,
            compact: self.compact,
        }
    }
}

fn remove(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// Removes the work files of a material whose tables are written and whose values are packed
/// if needed: the journal first (a raw file without one is never taken for finished), then the
/// raw file, then its seed parts (a whole run seeds the material itself, but units may have
/// left parts).
fn remove_finished_work(paths: &WorkFiles, m: &MaterialPlan) {
    remove(&paths.journal);
    remove(&paths.partial);
    for part in 1..=m.seed_parts {
        remove(&paths.seed_part(part));
    }
}

/// Solves a material (resuming its work file where a stopped run left it) and writes its
/// tables: all three, or the rule table alone when `rules_only`; then packs its values if a
/// later material reads them (`needed`).
#[allow(clippy::too_many_arguments)]
fn solve_material(
    plan: &Plan,
    m: &MaterialPlan,
    index: &PositionIndex,
    store: &mut Store,
    rules_only: bool,
    needed: bool,
    seed_parts: Option<PartSeeds>,
    progress: &dyn Progress,
) -> Result<Done, GenerateError> {
    let started = Instant::now();
    let paths = plan.layout().work_files(m.material, plan.tables);
    if crate::bands::is_banded(index) {
        let material = BandedMaterial {
            plan,
            m,
            index,
            paths: &paths,
        };
        let longest = material.solve(store, progress)?;
        let values = store
            .banded_through_cache(m.material)
            .expect("held by the banded solve");
        let (written, counts) = write_tables(plan, m, &values, longest, writing(plan, rules_only))?;
        SummaryFile::new(plan, m, plan.tables).write(&counts)?;
        if !needed {
            store.remove(m.material);
            remove_bands(&paths.partial);
        }
        remove_finished_work(&paths, m);
        return Ok(Done::solved(plan, m, counts, written, rules_only, started));
    }
    let (mut journal, resumed) = Journal::open(
        &paths.journal,
        plan.variant,
        m.material,
        m.positions,
        m.limits,
    )?;
    if let Some(damage) = &journal.damage {
        progress.damaged_work_file(
            &paths.journal,
            &format!("{damage}: the bands from there are solved again"),
        );
    }
    let expected_len = m.positions * BYTES_PER_POSITION;
    let partial_len = std::fs::symlink_metadata(&paths.partial).map(|md| md.len());
    if resumed && partial_len.as_ref().is_ok_and(|&len| len != expected_len) {
        progress.damaged_work_file(
            &paths.partial,
            &format!(
                "not the size of its values ({expected_len} bytes): solved again from the start"
            ),
        );
        journal.keep_first(0)?;
    }
    if !resumed || journal.bands.is_empty() {
        remove(&paths.partial);
    }
    store.insert_raw(
        index.clone(),
        ValuesFile::open(&paths.partial, m.positions, true)?,
    );
    let bands = bands(index);
    let values = store.values(m.material).expect("inserted above");
    // Nothing of the raw file is trusted before every band it holds matches its checksum.
    let checksum = |b: usize| bands.get(b).map(|band| band_checksum(index, values, band));
    if let Some(b) = journal.keep_intact(checksum)? {
        progress.damaged_work_file(
            &paths.partial,
            &format!(
                "band {b} does not match its checksum in {}: solved again from that band",
                paths.journal.display()
            ),
        );
    }
    // A kings-only material seeded in parts is solved from them (seeded here if they are not
    // all there), unless it is finished already.
    let seed_parts = match seed_parts {
        Some(parts) if journal.bands.len() < bands.len() => {
            progress.advance(m.positions);
            Some(parts)
        }
        None if m.seed_parts > 0 && journal.bands.len() < bands.len() => {
            Some(seed_parts_here(plan, m, index, store, progress)?)
        }
        _ => None,
    };
    let kings = index.king_placements();
    for band in bands.iter().take(journal.bands.len()) {
        progress.advance(UNITS_PER_POSITION * 2 * kings * band.len() as u64);
    }
    let rules = plan.tables == Tables::All;
    let mut solver = MaterialSolver::new(index, store, values, m.limits, rules)
        .releasing_past(plan.release_mark());
    if let Some(parts) = seed_parts {
        solver = solver.with_seed_parts(parts);
    }
    let mut checkpoint = Instant::now();
    for band in bands.iter().skip(journal.bands.len()) {
        journal.finish_band(solver.solve_band(band, progress)?);
        if progress.should_stop() {
            // Recorded as at any checkpoint: the next run starts from the next band.
            journal.checkpoint(values)?;
            store.release();
            return Err(GenerateError::Stopped);
        }
        if checkpoint.elapsed() >= CHECKPOINT_EVERY {
            journal.checkpoint(values)?;
            store.release();
            checkpoint = Instant::now();
        }
    }
    journal.checkpoint(values)?;
    store.release();
    let longest = journal.longest();
    let (written, counts) = write_tables(plan, m, values, longest, writing(plan, rules_only))?;
    SummaryFile::new(plan, m, plan.tables).write(&counts)?;
    if needed {
        // Durable before the raw file goes: a stop before it is complete resumes from the raw
        // file (see `adopt_finished`).
        packed::pack(values, &paths.packed, &plan.packed_identity(m))?;
    }
    store.remove(m.material);
    remove_finished_work(&paths, m);
    Ok(Done::solved(plan, m, counts, written, rules_only, started))
}

/// Which tables a solve writes.
fn writing(plan: &Plan, rules_only: bool) -> Writing {
    match (plan.tables, rules_only) {
        (Tables::Wdl, _) => Writing::WdlOnly,
        (Tables::All, true) => Writing::RulesOnly,
        (Tables::All, false) => Writing::All,
    }
}

impl Done {
    /// What solving a material gave.
    fn solved(
        plan: &Plan,
        m: &MaterialPlan,
        counts: Counts,
        written: Written,
        rules_only: bool,
        started: Instant,
    ) -> Done {
        Done {
            counts,
            written,
            reused: false,
            rebuilt_because: None,
            converted: false,
            draw_rules_seconds: if rules_only {
                started.elapsed().as_secs_f64()
            } else {
                0.0
            },
            rules_solved: plan.tables == Tables::All,
            // A rule table solved again beside kept tables takes their form.
            compact: if rules_only {
                found::is_compact(plan, m)
            } else {
                plan.compact
            },
        }
    }
}
