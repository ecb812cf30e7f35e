//! Generating the tables of a plan: each material solved slice by slice in dependency order
//! (see [`crate::solve`]) from the work files of the materials its moves reach, then its three
//! tables written from its own work file. Complete and valid tables already on disk are reused,
//! a rule table alone is recomputed when only it is missing or has other limits, and a stopped
//! run starts again at the first band of slices it had not finished.
//!
//! [`generate()`] takes the directory, looks at what each material has on disk ([`found`]),
//! decides what to solve and whose values to keep ([`reuse::work_to_do`]), then takes up the
//! materials one by one, each as a [`MaterialRun`]: reused ([`reuse`]), solved into a raw work
//! file ([`raw`]) or into band files ([`banded`]), or seeded in parts ([`parts`]).

mod banded;
mod found;
mod parts;
mod raw;
mod reuse;

use std::path::Path;
use std::time::Instant;

use rafle_probe::{
    draughts::Material,
    toolkit::{PositionIndex, Tables, WorkFiles},
};

use crate::files::WriterLock;
use crate::plan::{LastReaders, MaterialPlan, Plan, LEAST_CACHE_BYTES};
use crate::solve::store::Store;
use crate::work::packed::PackedValues;
use crate::work::seed_part::PartSeeds;
use crate::work::sides::Sides;
use crate::work::values::{remove_values, Kept};
use crate::write::counts::{Counts, CountsFile};
use crate::write::{write_tables, Source, Writing, Written};
use crate::{GenerateError, Progress};

use found::Found;
use parts::ready_seed_parts;
use reuse::{work_to_do, NotReused, Values};

/// How often a material being solved records its progress (and, for a raw work file, gives
/// back the pages it read): a stopped run loses at most this much work, plus the band under
/// way.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// What was done for one material.
#[derive(Debug, Clone)]
pub struct MaterialSummary {
    /// The board.
    pub variant: rafle_probe::draughts::Variant,
    /// The material (stored orientation).
    pub material: rafle_probe::draughts::Material,
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
    let lock = lock_directory(plan, progress)?;
    plan.check_limits_agree()?;
    let removed = lock.remove_leftovers()?;
    if removed > 0 {
        progress.leftovers_removed(plan.directory().path(), removed);
    }
    progress.variant_started(plan);
    let found: Vec<Found> = plan
        .materials
        .iter()
        .map(|m| Found::look(plan, m))
        .collect();
    check_unit_reads_finished_tables(plan, &found)?;
    let mut ready_parts = unit_seed_parts(plan, &found);
    let work = work_to_do(plan, &found, ready_parts.is_some(), progress)?;
    plan.check_slices(|j| work.solved[j])?;
    let last_reader = plan.last_readers(|k| work.reads_values[k]);
    let mut store = Store::new(LEAST_CACHE_BYTES);
    let mut summaries = Vec::with_capacity(plan.materials.len());
    let last = plan.materials.len().saturating_sub(1);
    for (j, m) in plan.materials.iter().enumerate() {
        if progress.should_stop() {
            return Err(GenerateError::Stopped);
        }
        progress.material_started(plan.variant, m.material, m.positions);
        let started = Instant::now();
        let index = PositionIndex::new(plan.variant, m.material);
        store.set_cache_budget(plan.cache_bytes(&index));
        let run = MaterialRun {
            plan,
            m,
            index,
            paths: plan.directory().work_files(m.material, plan.tables),
            found: &found[j],
            needed: work.needed[j],
            sides: work.sides[j],
            read_last: ReadLast {
                j,
                last_reader: &last_reader,
            },
            solving_done: work.solving_done[j],
            progress,
        };
        if let (Some(part), true) = (plan.part, j == last) {
            let summary = run.seed_part(&store, part)?;
            progress.material_finished(&summary);
            summaries.push(summary);
            break;
        }
        let reuse = (!work.solved[j]).then(|| (work.counts[j], work.values(j)));
        let parts = if j == last { ready_parts.take() } else { None };
        let done = run.reuse_or_solve(&mut store, reuse, parts)?;
        run.keep_values(&mut store)?;
        if done.reused {
            // A material solved let them go before writing its tables.
            release_read_last(plan, j, &last_reader, &mut store)?;
        }
        let summary = done.summary(plan, m, started.elapsed().as_secs_f64());
        progress.material_finished(&summary);
        summaries.push(summary);
    }
    if let (Some(pieces), Some(_), None) = (plan.set, plan.unit, plan.part) {
        let released = release_for_set(plan, pieces)?;
        if !released.is_empty() {
            progress.values_released(plan.variant, pieces, &released);
        }
    }
    Ok(summaries)
}

/// Takes the directory for this run: the whole of it, or a unit's material (or seed part),
/// waiting for another unit of the same.
///
/// # Errors
///
/// [`GenerateError::Busy`] when another generation writes the directory and this one or the
/// other is a whole run.
fn lock_directory(plan: &Plan, progress: &dyn Progress) -> Result<WriterLock, GenerateError> {
    let layout = plan.directory();
    let dir = layout.path();
    Ok(match (plan.unit, plan.part) {
        (Some(material), Some(part)) => {
            WriterLock::unit_at(&layout, &layout.seed_part_lock(material, part), &|pid| {
                progress.waiting_for_unit(dir, material, pid);
            })?
        }
        (Some(material), None) => WriterLock::unit(&layout, material, &|pid| {
            progress.waiting_for_unit(dir, material, pid);
        })?,
        (None, _) => WriterLock::whole(&layout)?,
    })
}

/// Checks that every material a unit of work reads has its tables finished: a unit solves its
/// own material only.
///
/// # Errors
///
/// [`GenerateError::MissingTables`], with each material missing and why.
fn check_unit_reads_finished_tables(plan: &Plan, found: &[Found]) -> Result<(), GenerateError> {
    let Some(unit) = plan.unit else {
        return Ok(());
    };
    let missing: Vec<(Material, String)> = plan
        .materials
        .iter()
        .zip(found)
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
    if missing.is_empty() {
        return Ok(());
    }
    Err(GenerateError::MissingTables {
        variant: plan.variant,
        material: unit,
        missing,
    })
}

/// The seed parts a unit reads instead of the materials below it: those of its material when
/// it is seeded in parts, not finished, and every part is there (checked whole).
fn unit_seed_parts(plan: &Plan, found: &[Found]) -> Option<PartSeeds> {
    let m = plan.materials.last()?;
    let finished = matches!(found.last(), Some(Found::Complete));
    if plan.unit.is_none() || plan.part.is_some() || m.seed_parts == 0 || finished {
        return None;
    }
    ready_seed_parts(plan, m)
}

/// Drops the values of the materials that material `j` was the last to read, and the side
/// to move of those it was the last to read one side of (a whole run's: see below).
///
/// A unit leaves the work files of the materials below it alone here: units running beside it
/// may be about to open them (it checked they were there, then opens them when it reaches
/// their material). A unit of a set removes those no unfinished unit reads once it is done
/// ([`release_for_set`]); the set's whole run, which no unit runs beside, removes the rest.
///
/// # Errors
///
/// What rewriting the files of a side let go returns ([`Store::keep_sides`]).
fn release_read_last(
    plan: &Plan,
    j: usize,
    last_reader: &[LastReaders],
    store: &mut Store,
) -> Result<(), GenerateError> {
    for &d in &plan.materials[j].reads {
        let dep = plan.materials[d].material;
        let still_read = last_reader[d].after(j);
        let read_last = !last_reader[d].last_read_by(j).is_empty();
        if read_last && still_read.is_empty() {
            store.remove(dep);
            if plan.unit.is_none() {
                remove_values(&plan.directory().work_files(dep, plan.tables));
            }
        } else if plan.unit.is_none() {
            if read_last {
                let identity = plan.packed_identity(&plan.materials[d]);
                store.keep_sides(dep, &identity, still_read)?;
            }
            // Once this reader is done, the others may all read a side through a crowning.
            keep_crowned_alone(plan, (d, still_read), j, store)?;
        }
    }
    Ok(())
}

/// Keeps of the sides `still_read` of the material at `d` in the plan that the materials
/// after the one at `done` read only through a crowning the positions such a crowning
/// reaches alone ([`Plan::read_only_crowned`], [`Store::keep_crowned_alone`]).
///
/// # Errors
///
/// What rewriting its band files returns.
fn keep_crowned_alone(
    plan: &Plan,
    (d, still_read): (usize, Sides),
    done: usize,
    store: &mut Store,
) -> Result<(), GenerateError> {
    let crowned = plan.read_only_crowned(d, still_read, done);
    let dep = plan.materials[d].material;
    for side in [Sides::WHITE, Sides::BLACK] {
        if crowned.contains(side) {
            store.keep_crowned_alone(dep, side)?;
        }
    }
    Ok(())
}

/// Once a unit of work of the set of every material up to `pieces` is done, removes the
/// work files of each material of the set that is finished and that no unfinished material of
/// the set reads ([`Plan::with_set`]); the materials whose values went.
///
/// Units of a cluster run beside each other, so none knows which is the last to read a
/// material: each looks, once its tables are on disk, at which readers have their tables.
/// Two readers finishing at once may each see the other unfinished and leave the values to
/// the set's whole run, never the other way: a reader is unfinished until its tables are
/// renamed into place, and it reads nothing of the materials below after that. A material
/// whose own unit holds its lock (packing its values, or run again) is left alone.
///
/// # Errors
///
/// Those of [`Plan::new`] for the set, and [`GenerateError::Io`] if a lock file cannot be
/// made.
fn release_for_set(plan: &Plan, pieces: u32) -> Result<Vec<Material>, GenerateError> {
    let set = plan.set_plan(pieces)?;
    let layout = plan.directory();
    let mut released = Vec::new();
    for material in set.read_by_none_to_come() {
        // This unit holds its own material's lock.
        let lock = if plan.unit == Some(material) {
            None
        } else {
            match crate::files::try_lock_material(&layout, material)? {
                Some(lock) => Some(lock),
                None => continue,
            }
        };
        if remove_values(&layout.work_files(material, plan.tables)) {
            released.push(material);
        }
        drop(lock);
    }
    Ok(released)
}

/// One material of a plan as the run takes it up: where it stands in the plan, its index and
/// work files, what was found of its tables, and whether a later material reads its values.
/// Reusing ([`reuse`]), solving ([`raw`], [`banded`]) and seeding ([`parts`]) it are its
/// methods.
struct MaterialRun<'p> {
    plan: &'p Plan,
    m: &'p MaterialPlan,
    index: PositionIndex,
    paths: WorkFiles,
    /// Its tables on disk before the run.
    found: &'p Found,
    /// Whether its values must be readable once it is done ([`reuse::WorkToDo::needed`]).
    needed: bool,
    /// The sides to move of its values that are read once it is done
    /// ([`reuse::WorkToDo::sides`]).
    sides: Sides,
    /// What lets go of the values it is the last to read.
    read_last: ReadLast<'p>,
    /// Whether an earlier run solved it whole and stopped while its tables were written
    /// ([`reuse::WorkToDo::solving_done`]): the values it reads are not held.
    solving_done: bool,
    progress: &'p dyn Progress,
}

/// A material's place in the plan (`j`) and the last readers of every material: which values
/// it is the last to read ([`release_read_last`]).
#[derive(Clone, Copy)]
struct ReadLast<'p> {
    j: usize,
    last_reader: &'p [LastReaders],
}

impl MaterialRun<'_> {
    /// The material's journal and whether it resumes an earlier run's, a damaged one noted
    /// (its bands from the damage on are solved again).
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if it cannot be read or written.
    fn open_journal(
        &self,
        progress: &dyn Progress,
    ) -> Result<(crate::work::values::Journal, bool), GenerateError> {
        let (plan, m) = (self.plan, self.m);
        let (journal, resumed) = crate::work::values::Journal::open(
            &self.paths.journal,
            plan.variant,
            m.material,
            m.positions,
            m.limits,
        )?;
        if let Some(damage) = &journal.damage {
            progress.damaged_work_file(
                &self.paths.journal,
                &format!("{damage}: the bands from there are solved again"),
            );
        }
        Ok((journal, resumed))
    }

    /// Reuses the material's tables (`reuse`: the counts kept with them and what its values
    /// need), or solves it when `reuse` is `None` or the tables turn out unusable; `seed_parts`
    /// are the parts a unit solves its kings-only material from.
    ///
    /// # Errors
    ///
    /// What reusing ([`NotReused::Failed`]) or solving returns.
    fn reuse_or_solve(
        &self,
        store: &mut Store,
        reuse: Option<(Option<Counts>, Values)>,
        seed_parts: Option<PartSeeds>,
    ) -> Result<Done, GenerateError> {
        let reused = match reuse {
            None => Err(NotReused::Solve(None)),
            Some((counts, values)) => self.reuse(counts, values, store),
        };
        match reused {
            Ok(done) => Ok(done),
            Err(NotReused::Failed(e)) => Err(e),
            Err(NotReused::Solve(because)) => {
                // A reused table that turns out damaged rebuilds all three kinds.
                let found = self.found;
                let because = because.or_else(|| found.why());
                let rules_only = matches!(found, Found::RulesOnly(_)) && because == found.why();
                let mut done = self.solve(store, rules_only, seed_parts)?;
                done.rebuilt_because = because;
                Ok(done)
            }
        }
    }

    /// An error unless every band is finished (`finished` of `bands`) where the values the
    /// material reads are not held ([`MaterialRun::solving_done`]). The run found every band
    /// matching when it started, so only a file changed since gets here: its band (`path`,
    /// the first not kept) is solved by the next run, which reads those values again.
    ///
    /// # Errors
    ///
    /// [`GenerateError::DamagedWorkFile`] then.
    fn check_solving_done(
        &self,
        finished: usize,
        bands: usize,
        path: &Path,
    ) -> Result<(), GenerateError> {
        if !self.solving_done || finished >= bands {
            return Ok(());
        }
        Err(GenerateError::DamagedWorkFile {
            path: path.to_path_buf(),
            reason: format!(
                "band {finished} does not check, and the values the material reads were let go \
                 once it was solved: run again to solve it from that band"
            ),
        })
    }

    /// Lets go of the values the material is the last to read ([`release_read_last`]), once
    /// it is solved: writing its tables reads none of them, and the disk they free is there
    /// for its tables. A run stopped before the tables are written finds the material solved
    /// whole when it resumes, and reads none of them ([`reuse::WorkToDo::solving_done`]).
    ///
    /// # Errors
    ///
    /// As [`release_read_last`].
    fn release_read_last(&self, store: &mut Store) -> Result<(), GenerateError> {
        let ReadLast { j, last_reader } = self.read_last;
        release_read_last(self.plan, j, last_reader, store)
    }

    /// Leaves the values of a material done readable in `store` if a later material reads
    /// them (its band files, or its packed file), else removes its work files (a whole run's).
    /// In a run that writes the win/draw/loss tables alone, band files are packed first.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if its packed file cannot be written or opened.
    fn keep_values(self, store: &mut Store) -> Result<(), GenerateError> {
        let (plan, m, paths) = (self.plan, self.m, &self.paths);
        let packs =
            plan.kept() == Kept::Kinds || crate::work::bands::packs_bands(plan.variant, m.material);
        if self.needed && packs {
            self.pack_bands(store)?;
        }
        if self.needed && store.banded(m.material).is_some() {
            // Solved into band files just now: they stay, read as they are.
        } else if let Some(bands) = self.needed.then(|| self.finished_bands()).flatten() {
            store.insert_banded(self.index, bands);
        } else if self.needed {
            let (identity, kept) = (plan.packed_identity(m), plan.kept());
            let packed = PackedValues::open(&paths.packed, &identity, m.positions, kept)?;
            store.insert_packed(self.index, packed);
            // Nothing reads a raw file an older version left: the packed one replaces it.
            remove(&paths.legacy);
        } else if plan.decides_kept_values(m.material) {
            remove_values(paths);
        }
        // A whole run keeps the sides to move that a later material reads, and so does a
        // unit of a set of its own material (the others' readers run on their own: a unit
        // keeps both).
        if self.needed && plan.decides_kept_values(m.material) {
            let identity = plan.packed_identity(m);
            if self.sides != Sides::BOTH {
                store.keep_sides(m.material, &identity, self.sides)?;
            }
            // Its tables are written and checked by now: what they store of a side read
            // later is read from them, and its band files keep that side's captures alone.
            if plan.reads_stored_side_from_tables(m.material) {
                store.read_stored_side_from_tables(m.material, &identity, &plan.directory())?;
            }
            let j = self.read_last.j;
            keep_crowned_alone(plan, (j, self.sides), j, store)?;
        }
        Ok(())
    }

    /// Packs the material's band files (held in `store`, or left finished by an earlier run)
    /// into its packed file (of [`Kept::Kinds`] about a third of their size; of
    /// [`Kept::Full`] without the capture marks and the directory's line a half), and removes
    /// them; nothing if it has none.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if the packed file cannot be written, and what reading a band
    /// file returns.
    fn pack_bands(&self, store: &mut Store) -> Result<(), GenerateError> {
        let (m, paths) = (self.m, &self.paths);
        if store.banded(m.material).is_none() {
            match self.finished_bands() {
                Some(bands) => store.insert_banded(self.index.clone(), bands),
                None => return Ok(()),
            }
        }
        let bands = store
            .banded_through_cache(m.material)
            .expect("held just now");
        let identity = self.plan.packed_identity(m);
        crate::work::packed::write(
            &paths.packed,
            &identity,
            m.positions,
            self.plan.kept(),
            |at, n| bands.read_range(at, n),
        )?;
        store.remove(m.material);
        crate::work::values::remove_bands(&paths.partial);
        Ok(())
    }

    /// Solves the material (resuming its work files where a stopped run left them) and writes
    /// its tables: all three, or the rule table alone when `rules_only`; its values are left
    /// readable if a later material reads them (`needed`), in band files or packed.
    ///
    /// # Errors
    ///
    /// As [`MaterialRun::solve_in_bands`] and [`MaterialRun::solve_in_work_file`], and
    /// [`GenerateError::Io`] if its counts cannot be written.
    fn solve(
        &self,
        store: &mut Store,
        rules_only: bool,
        seed_parts: Option<PartSeeds>,
    ) -> Result<Done, GenerateError> {
        let started = Instant::now();
        let (written, counts) = if crate::work::bands::is_banded(&self.index) {
            self.solve_in_bands(store, rules_only)?
        } else {
            self.solve_in_work_file(store, rules_only, seed_parts)?
        };
        remove_finished_work(&self.paths, self.m);
        let (plan, m) = (self.plan, self.m);
        Ok(Done::solved(plan, m, counts, written, rules_only, started))
    }

    /// Writes the tables of the material solved, its values `values` and its longest win
    /// `longest`, and the counts kept beside them.
    ///
    /// # Errors
    ///
    /// As [`write_tables`], and [`GenerateError::Io`] if the counts cannot be written.
    fn write_solved(
        &self,
        values: &dyn Source,
        longest: u16,
        rules_only: bool,
    ) -> Result<(Written, Counts), GenerateError> {
        let (plan, m) = (self.plan, self.m);
        let (written, counts) = write_tables(plan, m, values, longest, writing(plan, rules_only))?;
        CountsFile::new(plan, m, plan.tables).write(&counts)?;
        Ok((written, counts))
    }
}

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

    /// The summary of material `m` of `plan`, done in `seconds`.
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

/// Removes a file if it is there: a work file gone already is what removing it wants.
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

/// Which tables a solve writes.
fn writing(plan: &Plan, rules_only: bool) -> Writing {
    match (plan.tables, rules_only) {
        (Tables::Wdl, _) => Writing::WdlOnly,
        (Tables::All, true) => Writing::RulesOnly,
        (Tables::All, false) => Writing::All,
    }
}
