//! Generating the tables of a plan: each material solved slice by slice in dependency order
//! (see [`crate::solve`]) from the work files of the materials its moves reach, then its three
//! tables written from its own work file. Complete and valid tables already on disk are reused,
//! a rule table alone is recomputed when only it is missing or has other limits, and a stopped
//! run starts again at the first band of slices it had not finished.

use std::path::Path;
use std::time::Instant;

use rafle_probe::format::TableKind;
use rafle_probe::{Material, PositionIndex, Table, Tables, WorkFiles};
use rayon::prelude::*;

use crate::files::WriterLock;
use crate::load::{load_existing, LoadError};
use crate::packed::{self, PackedValues};
use crate::plan::{MaterialPlan, Plan, LEAST_CACHE_BYTES};
use crate::seed_part::{PartFile, PartSeeds};
use crate::solve::{band_checksum, bands, MaterialSolver};
use crate::store::Store;
use crate::summary::{Counts, SummaryFile};
use crate::values::{remove_values, Journal, ValuesFile, BYTES_PER_POSITION};
use crate::write::{write_tables, Writing, Written};
use crate::{GenerateError, Progress, UNITS_PER_POSITION};

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
}

/// Generates (or reuses) every table of `plan`, reporting to `progress`. Runs on the current
/// rayon thread pool.
///
/// # Errors
///
/// [`GenerateError::Busy`] when another generation writes the directory and this one or the
/// other is a whole run (a unit of work waits for another unit of the same material),
/// [`GenerateError::Io`] when a file cannot be written,
/// [`GenerateError::Check`] when a written table does not read back the same.
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
    let last_reader = last_readers(plan, &work.reads_values);
    let mut store = Store::new(LEAST_CACHE_BYTES);
    let mut summaries = Vec::with_capacity(plan.materials.len());
    for (j, m) in plan.materials.iter().enumerate() {
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
        if needed[j] {
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

/// Every seed part of `m`, if each is there and whole (every block and record checked).
fn ready_seed_parts(plan: &Plan, m: &MaterialPlan) -> Option<PartSeeds> {
    let paths = plan.layout().work_files(m.material, plan.tables);
    let parts = (1..=m.seed_parts)
        .map(|part| PartFile::open_checked(&paths.seed_part(part), &plan.part_id(m, part)).ok())
        .collect::<Option<Vec<PartFile>>>()?;
    Some(PartSeeds(parts))
}

/// Every seed part of `m`: those whose file is there and whole are taken as they are, the
/// others seeded here (a stopped run resumes at the first part it had not finished).
///
/// # Errors
///
/// As [`MaterialSolver::seed_part`].
fn seed_parts_here(
    plan: &Plan,
    m: &MaterialPlan,
    index: &PositionIndex,
    store: &Store,
    progress: &dyn Progress,
) -> Result<PartSeeds, GenerateError> {
    let paths = plan.layout().work_files(m.material, plan.tables);
    let mut parts = Vec::new();
    for part in 1..=m.seed_parts {
        let (path, id) = (paths.seed_part(part), plan.part_id(m, part));
        let file = match PartFile::open_checked(&path, &id) {
            Ok(file) => {
                progress.advance(id.len);
                file
            }
            Err(_) => {
                seeding_solver(plan, m, index, store).seed_part(&path, &id, progress)?;
                PartFile::open(&path, &id)?
            }
        };
        parts.push(file);
    }
    Ok(PartSeeds(parts))
}

/// A solver seeding parts of `m` within the plan's memory.
fn seeding_solver<'a>(
    plan: &Plan,
    m: &MaterialPlan,
    index: &'a PositionIndex,
    store: &'a Store,
) -> MaterialSolver<'a> {
    let rules = plan.tables == Tables::All;
    let release_at = plan.planned_bytes().saturating_sub(plan.least_bytes / 2);
    MaterialSolver::for_seed_part(index, store, m.limits, rules).releasing_past(release_at)
}

/// Seeds part `part` of material `j` (the unit's) into its file, unless the file is already
/// there (every block and record checked) or the material is finished.
///
/// # Errors
///
/// As [`MaterialSolver::seed_part`].
fn seed_part(
    plan: &Plan,
    j: usize,
    found: &Found,
    index: &PositionIndex,
    store: &Store,
    part: u32,
    progress: &dyn Progress,
) -> Result<MaterialSummary, GenerateError> {
    let started = Instant::now();
    let m = &plan.materials[j];
    let path = plan
        .layout()
        .work_files(m.material, plan.tables)
        .seed_part(part);
    let id = plan.part_id(m, part);
    let finished = matches!(found, Found::Complete | Found::WdlOnly);
    // Every block and record checked: a part damaged since it was written is seeded again.
    let reused = finished || PartFile::open_checked(&path, &id).is_ok();
    if !reused {
        seeding_solver(plan, m, index, store).seed_part(&path, &id, progress)?;
    }
    progress.advance(UNITS_PER_POSITION * m.positions - if reused { 0 } else { id.len });
    Ok(MaterialSummary {
        variant: plan.variant,
        material: m.material,
        positions: id.len,
        wins: 0,
        draws: 0,
        losses: 0,
        seconds: started.elapsed().as_secs_f64(),
        draw_rules_seconds: 0.0,
        longest_win: 0,
        bytes: 0,
        dtw_bytes: 0,
        draw_rules_bytes: 0,
        cursed_wins: 0,
        blessed_losses: 0,
        rules_solved: false,
        reused,
        rebuilt_because: None,
        converted: false,
        seed_part: Some((part, m.seed_parts)),
    })
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
}

impl Done {
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
        }
    }
}

fn remove(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// What a material's tables on disk look like before the run (their headers only).
#[derive(Debug, Clone)]
enum Found {
    /// All three open, the rule table with the plan's limits.
    Complete,
    /// The win/draw/loss and distance tables open; the rule table does not, for this reason.
    RulesOnly(String),
    /// With `--tables wdl`: the win/draw/loss table opens (and its counts were kept), the
    /// others do not. Solved again only if a later material reads its values.
    WdlOnly,
    /// Something else is missing or damaged (`None`: there was no table at all).
    Incomplete(Option<String>),
    /// All three tables of the previous format version, sound, the rule table of the plan's
    /// limits: converted (see [`crate::convert`]) in a whole run.
    Legacy,
}

impl Found {
    /// Looks at a material's tables, every block checksum checked.
    fn look(plan: &Plan, m: &MaterialPlan) -> Found {
        if plan.unit.is_none() && crate::convert::is_legacy(&m.path) {
            return match crate::convert::check_legacy(plan, m) {
                Ok(()) => Found::Legacy,
                Err(why) => Found::Incomplete(Some(why)),
            };
        }
        let all = Found::look_all(plan, m);
        if plan.tables == Tables::All || matches!(all, Found::Complete) || !m.path.exists() {
            return all;
        }
        if let Err(e) = check_table(plan, m, &m.path, TableKind::Wdl) {
            return Found::Incomplete(Some(e));
        }
        match SummaryFile::new(plan, m, Tables::Wdl).read() {
            Some(_) => Found::WdlOnly,
            None => Found::Incomplete(Some(format!(
                "{}: the counts kept with it are missing",
                m.path.display()
            ))),
        }
    }

    /// Looks at all three of a material's tables.
    fn look_all(plan: &Plan, m: &MaterialPlan) -> Found {
        if !m.path.exists() && !m.dtw_path.exists() {
            return Found::Incomplete(None);
        }
        let check = |path: &Path, kind| check_table(plan, m, path, kind);
        if let Err(e) =
            check(&m.path, TableKind::Wdl).and_then(|_| check(&m.dtw_path, TableKind::Dtw))
        {
            return Found::Incomplete(Some(e));
        }
        if !m.draw_rules_path.exists() {
            return Found::RulesOnly(String::new());
        }
        match Table::open(
            &m.draw_rules_path,
            TableKind::DrawRules,
            plan.variant,
            m.material,
        ) {
            Ok(t) if t.header().limits != Some(m.limits) => {
                return Found::RulesOnly(format!(
                    "{} was computed with other draw-rule limits",
                    m.draw_rules_path.display()
                ))
            }
            _ => {}
        }
        match check(&m.draw_rules_path, TableKind::DrawRules) {
            Err(e) => Found::RulesOnly(e),
            Ok(_) => Found::Complete,
        }
    }

    /// Why the tables are not reused as they are.
    fn why(&self) -> Option<String> {
        match self {
            Found::Complete | Found::WdlOnly | Found::Legacy => None,
            Found::RulesOnly(e) if e.is_empty() => None,
            Found::RulesOnly(e) => Some(e.clone()),
            Found::Incomplete(e) => e.clone(),
        }
    }
}

/// What a run does with each material of its plan.
struct WorkToDo {
    /// Solved (its tables are missing, damaged or of other limits).
    solved: Vec<bool>,
    /// Its values must be readable once it is done: a material solved after it, or one whose
    /// values are rebuilt from its tables, reads them.
    needed: Vec<bool>,
    /// Needed, not solved, and its values already packed (checked block by block) or packed
    /// from the raw work file a stopped run left complete.
    kept: Vec<bool>,
    /// Reads the values of the materials its moves reach: solved, or needed and rebuilt from
    /// its tables (which reads the materials below for the positions they leave out).
    reads_values: Vec<bool>,
    /// The counts kept with its finished tables ([`kept_counts`]).
    counts: Vec<Option<Counts>>,
}

/// Which materials are solved, and which materials' values must be readable after they are
/// done. A material with only its win/draw/loss table is solved again when its values are
/// needed. A unit of work's own values are needed. A material with finished tables reads
/// nothing if its counts are kept ([`kept_counts`]) and its values either not needed or kept
/// ([`values_kept`], asked only of those): a resumed run does not rebuild the values of the
/// materials below it. Otherwise it is read back from its tables, which reads the materials
/// below.
///
/// # Errors
///
/// The first error of [`values_kept`].
fn work_to_do(
    plan: &Plan,
    found: &[Found],
    from_parts: bool,
    progress: &dyn Progress,
) -> Result<WorkToDo, GenerateError> {
    let n = plan.materials.len();
    let mut work = WorkToDo {
        solved: vec![false; n],
        needed: vec![false; n],
        kept: vec![false; n],
        reads_values: vec![false; n],
        counts: vec![None; n],
    };
    if plan.unit.is_some() {
        // The units that read a unit run on their own: its values stay packed for them (a
        // whole run over the directory removes them once nothing is left to solve).
        work.needed[n - 1] = true;
    }
    for j in (0..n).rev() {
        let m = &plan.materials[j];
        work.solved[j] = match found[j] {
            Found::Complete | Found::Legacy => false,
            Found::WdlOnly => work.needed[j],
            Found::RulesOnly(_) | Found::Incomplete(_) => true,
        };
        let complete = matches!(found[j], Found::Complete);
        if complete {
            work.counts[j] = kept_counts(plan, m);
        }
        let counted = work.counts[j].is_some();
        if work.needed[j] && counted {
            work.kept[j] = values_kept(plan, m, progress)?;
        }
        let legacy = matches!(found[j], Found::Legacy);
        work.reads_values[j] =
            work.solved[j] || legacy || (complete && !counted) || (work.needed[j] && !work.kept[j]);
        // A unit solved from its seed parts reads their files, not the materials they read.
        let from_parts = from_parts && j + 1 == n;
        if work.reads_values[j] && !from_parts {
            for &d in &m.reads {
                work.needed[d] = true;
            }
        }
    }
    Ok(work)
}

/// For each material, the last one (by position in the plan) that reads its values, if any.
fn last_readers(plan: &Plan, reads_values: &[bool]) -> Vec<Option<usize>> {
    let mut last = vec![None; plan.materials.len()];
    for (k, m) in plan.materials.iter().enumerate() {
        if reads_values[k] {
            for &d in &m.reads {
                last[d] = Some(k);
            }
        }
    }
    last
}

/// What a reused material's values need.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Values {
    /// Nothing later reads them.
    NotNeeded,
    /// Read later, and already packed.
    Kept,
    /// Read later, and rebuilt from its tables.
    Rebuilt,
}

/// Why a material's tables are not reused.
enum NotReused {
    /// The material is solved again (why, if there is something to say).
    Solve(Option<String>),
    /// The values of a material it reads cannot be read back: the run stops.
    Failed(GenerateError),
}

/// Reuses a material's tables (their checksums checked by [`Found::look`]): the counts kept
/// with them (`counts`, read by [`kept_counts`] when the run was planned; else counted again),
/// and its packed values rebuilt if a later material reads them and they are gone or damaged
/// ([`Values::Rebuilt`]).
#[allow(clippy::too_many_arguments)]
fn reuse(
    plan: &Plan,
    m: &MaterialPlan,
    found: &Found,
    index: &PositionIndex,
    mut counts: Option<Counts>,
    values: Values,
    paths: &WorkFiles,
    store: &Store,
    progress: &dyn Progress,
) -> Result<Done, NotReused> {
    let solve = |why: String| NotReused::Solve(Some(why));
    progress.advance(m.positions);
    if matches!(found, Found::WdlOnly) {
        // Checked by `Found::look`, and not needed: nothing reads its values.
        let summary = SummaryFile::new(plan, m, Tables::Wdl);
        let written = table_sizes(m, Tables::Wdl).map_err(solve)?;
        let counts = summary.read().ok_or(NotReused::Solve(None))?;
        progress.advance((UNITS_PER_POSITION - 1) * m.positions);
        return Ok(Done {
            counts,
            written,
            reused: true,
            rebuilt_because: None,
            draw_rules_seconds: 0.0,
            rules_solved: false,
            converted: false,
        });
    }
    if matches!(found, Found::Legacy) {
        progress.converting(plan.variant, m.material, m.positions);
        let loaded = match load_existing(m, index, store, progress, true) {
            Ok(loaded) => loaded,
            Err(LoadError::Table(why)) => return Err(solve(why)),
            Err(LoadError::Work(e)) => return Err(NotReused::Failed(e)),
        };
        if let Err(why) = &loaded.rules {
            return Err(NotReused::Solve(why.clone()));
        }
        let (written, counts) =
            crate::convert::write_converted(plan, m, &loaded).map_err(NotReused::Failed)?;
        if values != Values::NotNeeded {
            loaded
                .pack(&paths.packed, &plan.packed_identity(m))
                .map_err(|e| solve(e.to_string()))?;
        }
        progress.advance((UNITS_PER_POSITION - 1) * m.positions);
        return Ok(Done {
            counts,
            written,
            reused: true,
            rebuilt_because: None,
            draw_rules_seconds: 0.0,
            rules_solved: true,
            converted: true,
        });
    }
    let written = table_sizes(m, Tables::All).map_err(solve)?;
    let summary = SummaryFile::new(plan, m, Tables::All);
    let have_values = values != Values::Rebuilt;
    // Written only when counted again: rewriting a summary that holds these counts would
    // truncate it under the units reading it beside this one.
    let counted_again = counts.is_none();
    if counted_again || !have_values {
        // Read whole: past the budget, a whole run solves it again (within the budget), a
        // unit stops (another unit may be reading or solving it).
        let needed = plan.repack_bytes(m);
        if plan.budget.is_some() && needed > plan.planned_bytes() {
            if plan.unit.is_none() {
                return Err(solve(format!(
                    "reading its values back from its tables would need {}, more than the \
                     budget",
                    crate::human_bytes(needed)
                )));
            }
            return Err(NotReused::Failed(GenerateError::ReadBackPastBudget {
                variant: plan.variant,
                material: m.material,
                needed,
                budget: plan.planned_bytes(),
            }));
        }
        let loaded = match load_existing(m, index, store, progress, false) {
            Ok(loaded) => loaded,
            Err(LoadError::Table(why)) => return Err(solve(why)),
            Err(LoadError::Work(e)) => return Err(NotReused::Failed(e)),
        };
        counts = Some(Counts::of_loaded(&loaded));
        if !have_values {
            loaded
                .pack(&paths.packed, &plan.packed_identity(m))
                .map_err(|e| solve(e.to_string()))?;
        }
    }
    let counts = counts.unwrap_or_default();
    if counted_again {
        let _ = summary.write(&counts);
    }
    progress.advance((UNITS_PER_POSITION - 1) * m.positions);
    Ok(Done {
        counts,
        written,
        reused: true,
        rebuilt_because: None,
        draw_rules_seconds: 0.0,
        rules_solved: true,
        converted: false,
    })
}

/// Whether a material's values are kept for this run: its packed work file, every block
/// checked, or the raw work file a run stopped after writing its tables left complete, packed
/// now.
///
/// # Errors
///
/// [`GenerateError::Io`] if that raw work file cannot be packed.
fn values_kept(
    plan: &Plan,
    m: &MaterialPlan,
    progress: &dyn Progress,
) -> Result<bool, GenerateError> {
    let paths = plan.layout().work_files(m.material, plan.tables);
    let identity = plan.packed_identity(m);
    // A unit does not remove a packed file it finds unusable: another unit may have just
    // put a good one in its place. Rebuilding it replaces it by a rename all the same.
    let removes = plan.unit.is_none();
    Ok(usable_packed(&paths, &identity, m.positions, removes)
        || adopt_finished(plan, m, &paths, &identity, progress)?)
}

/// Whether a packed file an earlier run left holds this run's values of the material, every
/// block checked (it was written whole, but may have been damaged since). One that does not
/// is removed if `removes`.
fn usable_packed(paths: &WorkFiles, identity: &str, positions: u64, removes: bool) -> bool {
    if !paths.packed.exists() {
        return false;
    }
    let usable = PackedValues::open(&paths.packed, identity, positions)
        .and_then(|packed| packed.check())
        .is_ok();
    if !usable && removes {
        remove(&paths.packed);
    }
    usable
}

/// A raw work file left complete by a run stopped after writing the tables: every band checked
/// against its checksum in the journal, then packed, it becomes the material's values. Returns
/// whether there was one. One that does not match is removed, with a notice: the values are
/// then read back from the tables.
///
/// # Errors
///
/// [`GenerateError::Io`] if it cannot be packed.
fn adopt_finished(
    plan: &Plan,
    m: &MaterialPlan,
    paths: &WorkFiles,
    identity: &str,
    progress: &dyn Progress,
) -> Result<bool, GenerateError> {
    if !paths.journal.exists() || !paths.partial.exists() {
        return Ok(false);
    }
    let index = PositionIndex::new(plan.variant, m.material);
    let Ok((journal, true)) = Journal::open(
        &paths.journal,
        plan.variant,
        m.material,
        m.positions,
        m.limits,
    ) else {
        return Ok(false);
    };
    let bands = bands(&index);
    if journal.bands.len() != bands.len() {
        return Ok(false);
    }
    let Ok(values) = ValuesFile::open(&paths.partial, m.positions, false) else {
        return Ok(false);
    };
    let damaged = (journal.bands.iter().zip(&bands))
        .position(|(done, band)| band_checksum(&index, &values, band) != done.checksum);
    if let Some(b) = damaged {
        progress.damaged_work_file(
            &paths.partial,
            &format!(
                "band {b} does not match its checksum in {}: its values are read back from \
                 the tables instead",
                paths.journal.display()
            ),
        );
        drop(values);
        remove(&paths.journal);
        remove(&paths.partial);
        return Ok(false);
    }
    packed::pack(&values, &paths.packed, identity)?;
    drop(values);
    // The journal first: a raw file without one is never taken for finished.
    remove(&paths.journal);
    remove(&paths.partial);
    // Its seed parts are done with (a whole run seeds the material itself, but units may
    // have left parts).
    for part in 1..=m.seed_parts {
        remove(&paths.seed_part(part));
    }
    Ok(true)
}

/// Checks one of a material's tables as the probe reads it: opened (header, block index,
/// length), then every block read as a probe reads it (checksum, decompression, the length its
/// header gives), in parallel. Checksums alone would pass a header edited with its checksum
/// made again (another width of distance, say), which the probe then refuses. Returns its size.
fn check_table(plan: &Plan, m: &MaterialPlan, path: &Path, kind: TableKind) -> Result<u64, String> {
    let table = Table::open(path, kind, plan.variant, m.material).map_err(|e| e.to_string())?;
    (0..table.header().blocks)
        .into_par_iter()
        .try_for_each(|b| table.read_block(b).map(drop))
        .map_err(|e| e.to_string())?;
    Ok(table.file_len())
}

/// The sizes of a material's tables, those of `tables`.
fn table_sizes(m: &MaterialPlan, tables: Tables) -> Result<Written, String> {
    let len = |path: &Path| {
        std::fs::metadata(path)
            .map(|md| md.len())
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    let wdl = len(&m.path)?;
    if tables == Tables::Wdl {
        return Ok(wdl_written(wdl));
    }
    Ok(Written {
        wdl,
        dtw: len(&m.dtw_path)?,
        draw_rules: len(&m.draw_rules_path)?,
    })
}

/// The counts of a material with finished tables, if they were kept with them (in its
/// summary, which records the lengths and fingerprints of the tables it counted).
fn kept_counts(plan: &Plan, m: &MaterialPlan) -> Option<Counts> {
    SummaryFile::new(plan, m, Tables::All).read()
}

/// The sizes of a win/draw/loss table written alone.
fn wdl_written(wdl: u64) -> Written {
    Written {
        wdl,
        ..Written::default()
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
    // Past this, the pages of the raw work file read are given back.
    let release_at = plan.planned_bytes().saturating_sub(plan.least_bytes / 2);
    let mut solver =
        MaterialSolver::new(index, store, values, m.limits, rules).releasing_past(release_at);
    if let Some(parts) = seed_parts {
        solver = solver.with_seed_parts(parts);
    }
    let mut checkpoint = Instant::now();
    for band in bands.iter().skip(journal.bands.len()) {
        journal.finish_band(solver.solve_band(band, progress)?);
        if checkpoint.elapsed() >= CHECKPOINT_EVERY {
            journal.checkpoint(values)?;
            store.release();
            checkpoint = Instant::now();
        }
    }
    journal.checkpoint(values)?;
    store.release();
    let longest = journal.longest();
    let writing = match (plan.tables, rules_only) {
        (Tables::Wdl, _) => Writing::WdlOnly,
        (Tables::All, true) => Writing::RulesOnly,
        (Tables::All, false) => Writing::All,
    };
    let (written, counts) = write_tables(plan, m, values, longest, writing)?;
    SummaryFile::new(plan, m, plan.tables).write(&counts)?;
    if needed {
        // Durable before the raw file goes: a stop before it is complete resumes from the raw
        // file (see `adopt_finished`).
        packed::pack(values, &paths.packed, &plan.packed_identity(m))?;
    }
    store.remove(m.material);
    // The journal first: a raw file without one is never taken for finished.
    remove(&paths.journal);
    remove(&paths.partial);
    // Its seed parts are done with (a whole run seeds the material itself, but units may
    // have left parts).
    for part in 1..=m.seed_parts {
        remove(&paths.seed_part(part));
    }
    Ok(Done {
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
        rules_solved: rules,
    })
}
