//! Which materials a run solves, which it reuses, and whose values it keeps readable: a
//! material's finished tables are reused with the counts kept beside them, its values kept
//! packed, adopted from the raw work file of a run stopped after its tables, or read back from
//! the tables.

use rafle_probe::toolkit::{PositionIndex, Tables, WorkFiles};

use super::found::{is_compact, kept_counts, table_sizes, Found};
use super::{remove, remove_finished_work, Done, MaterialRun};
use crate::plan::{MaterialPlan, Plan};
use crate::solve::store::Store;
use crate::solve::{band_checksum, bands};
use crate::work::packed::{self, PackedValues};
use crate::work::sides::Sides;
use crate::work::values::{band_paths, Journal, Kept, ValuesFile};
use crate::write::counts::{Counts, CountsFile};
use crate::write::load::{load_existing, load_kinds, LoadError, Loaded};
use crate::write::streamed::read_back_streamed;
use crate::{GenerateError, Progress, UNITS_PER_POSITION};

/// What a run does with each material of its plan.
pub(super) struct WorkToDo {
    /// Solved (its tables are missing, damaged or of other limits).
    pub(super) solved: Vec<bool>,
    /// Its values must be readable once it is done: a material solved after it, or one whose
    /// values are rebuilt from its tables, reads them.
    pub(super) needed: Vec<bool>,
    /// Needed, not solved, and its values already packed (checked block by block) or packed
    /// from the raw work file a stopped run left complete.
    pub(super) kept: Vec<bool>,
    /// The sides to move of its values that the materials reading them read (both for a
    /// unit's own, whose readers run on their own).
    pub(super) sides: Vec<Sides>,
    /// Reads the values of the materials its moves reach: solved, or needed and rebuilt from
    /// its tables (which reads the materials below for the positions they leave out).
    pub(super) reads_values: Vec<bool>,
    /// The counts kept with its finished tables ([`kept_counts`]).
    pub(super) counts: Vec<Option<Counts>>,
    /// Solved, every band of it recorded finished by a run stopped while its tables were
    /// written ([`solving_done`]): only its tables are left to write, and it reads no other
    /// material's values (which that run may have let go).
    pub(super) solving_done: Vec<bool>,
}

impl WorkToDo {
    /// What reusing material `j` does for its values.
    pub(super) fn values(&self, j: usize) -> Values {
        match (self.needed[j], self.kept[j]) {
            (false, _) => Values::NotNeeded,
            (true, true) => Values::Kept,
            (true, false) => Values::Rebuilt,
        }
    }
}

/// Which materials are solved, and which materials' values must be readable after they are
/// done. A material with only its win/draw/loss table is solved again when its values are
/// needed and not kept. A unit of work's own values are needed. A material with finished tables reads
/// nothing if its counts are kept ([`kept_counts`]) and its values either not needed or kept
/// ([`values_kept`], asked only of those): a resumed run does not rebuild the values of the
/// materials below it. Otherwise it is read back from its tables, which reads the materials
/// below.
///
/// # Errors
///
/// The first error of [`values_kept`].
pub(super) fn work_to_do(
    plan: &Plan,
    found: &[Found],
    from_parts: bool,
    progress: &dyn Progress,
) -> Result<WorkToDo, GenerateError> {
    let n = plan.materials.len();
    let mut work = WorkToDo {
        solved: vec![false; n],
        needed: vec![false; n],
        sides: vec![Sides::NONE; n],
        kept: vec![false; n],
        reads_values: vec![false; n],
        counts: vec![None; n],
        solving_done: vec![false; n],
    };
    if plan.unit.is_some() {
        // The units that read a unit run on their own: its values stay for them (the last of
        // them to finish, or a whole run over the directory, removes them). A unit of a set
        // keeps the sides its set's unfinished materials read, none if none does; one that
        // reuses finished tables keeps both if any, as readers may be reading the files.
        let read = plan.sides_read_in_set()?;
        let sides = match found[n - 1] {
            Found::Complete if !read.is_empty() => Sides::BOTH,
            _ => read,
        };
        work.needed[n - 1] = !sides.is_empty();
        work.sides[n - 1] = sides;
    }
    for j in (0..n).rev() {
        let m = &plan.materials[j];
        let complete = matches!(found[j], Found::Complete);
        if complete {
            work.counts[j] = kept_counts(plan, m);
        }
        let counted = work.counts[j].is_some();
        let wdl_only = matches!(found[j], Found::WdlOnly);
        if work.needed[j] && (counted || wdl_only) {
            work.kept[j] = values_kept(plan, m, work.sides[j], progress)?;
        }
        work.solved[j] = match found[j] {
            Found::Complete | Found::Legacy => false,
            // Its values cannot be read back from the win/draw/loss table alone.
            Found::WdlOnly => work.needed[j] && !work.kept[j],
            Found::RulesOnly(_) | Found::Incomplete(_) => true,
        };
        let legacy = matches!(found[j], Found::Legacy);
        work.solving_done[j] = work.solved[j] && solving_done(plan, m);
        let solves = work.solved[j] && !work.solving_done[j];
        // A material solved gets its values from its solving, never from its tables.
        let rebuilt = work.needed[j] && !work.kept[j] && !work.solved[j];
        work.reads_values[j] = solves || legacy || (complete && !counted) || rebuilt;
        // A unit solved from its seed parts reads their files, not the materials they read.
        let from_parts = from_parts && j + 1 == n;
        if work.reads_values[j] && !from_parts {
            for &d in &m.reads {
                work.needed[d] = true;
                let read = Sides::read_by(m.material, plan.materials[d].material);
                work.sides[d] = work.sides[d].or(read);
            }
        }
    }
    Ok(work)
}

/// Whether material `m` is solved whole in its work files: its journal records every band
/// finished, and each band's values there still match their checksum (a run stopped while its
/// tables were written, which had let go of the values it read last,
/// [`MaterialRun::release_read_last`]). Then the resumed run writes its tables from those
/// files and reads no other material; else it solves again from the first band that does not
/// match, reading them.
fn solving_done(plan: &Plan, m: &MaterialPlan) -> bool {
    let (variant, material) = (plan.variant, m.material);
    let paths = plan.directory().work_files(material, plan.tables);
    let recorded =
        Journal::recorded_bands(&paths.journal, variant, material, m.positions, m.limits);
    if recorded.is_empty() {
        return false;
    }
    let index = PositionIndex::new(variant, material);
    let bands = bands(&index);
    if recorded.len() != bands.len() {
        return false;
    }
    if crate::work::bands::is_banded(&index) {
        let identity = plan.packed_identity(m);
        let paths = band_paths(&paths, bands.len());
        // The files there, up to the first missing.
        if paths.len() != bands.len() {
            return false;
        }
        return (paths.iter().zip(&recorded).enumerate()).all(|(b, (path, band))| {
            super::banded::band_matches(&index, &identity, plan.kept(), (path, b), band.checksum)
        });
    }
    let Ok(values) = ValuesFile::open(&paths.partial, m.positions, false, plan.kept()) else {
        return false;
    };
    (bands.iter().zip(&recorded))
        .all(|(band, b)| band_checksum(&index, &values, band) == b.checksum)
}

/// What a reused material's values need.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Values {
    /// Nothing later reads them.
    NotNeeded,
    /// Read later, and already packed.
    Kept,
    /// Read later, and rebuilt from its tables.
    Rebuilt,
}

/// Why a material's tables are not reused.
pub(super) enum NotReused {
    /// The material is solved again (why, if there is something to say).
    Solve(Option<String>),
    /// The values of a material it reads cannot be read back: the run stops.
    Failed(GenerateError),
}

impl From<LoadError> for NotReused {
    /// A material whose tables could not be read back is solved again; one whose captures
    /// reach values that cannot be read stops the run.
    fn from(e: LoadError) -> NotReused {
        match e {
            LoadError::Table(why) => NotReused::Solve(Some(why)),
            LoadError::Work(e) => NotReused::Failed(e),
        }
    }
}

impl MaterialRun<'_> {
    /// Reuses the material's tables (their checksums checked by [`Found::look`]): the counts
    /// kept with them (`counts`, read by [`kept_counts`] when the run was planned; else counted
    /// again), and its packed values rebuilt if a later material reads them and they are gone
    /// or damaged ([`Values::Rebuilt`]).
    pub(super) fn reuse(
        &self,
        counts: Option<Counts>,
        values: Values,
        store: &Store,
    ) -> Result<Done, NotReused> {
        self.progress.advance(self.m.positions);
        match self.found {
            Found::WdlOnly => self.reuse_wdl_only(),
            Found::Legacy => self.convert_legacy(values, store),
            _ => self.reuse_complete(counts, values, store),
        }
    }

    /// Reuses a win/draw/loss table alone, with the counts kept beside it.
    fn reuse_wdl_only(&self) -> Result<Done, NotReused> {
        let (plan, m) = (self.plan, self.m);
        // Checked by `Found::look`; its values, if a later material reads them, are kept
        // (`values_kept`), else it is solved again instead.
        let summary = CountsFile::new(plan, m, Tables::Wdl);
        let written = table_sizes(m, Tables::Wdl).map_err(solve_because)?;
        let counts = summary.read().ok_or(NotReused::Solve(None))?;
        self.progress
            .advance((UNITS_PER_POSITION - 1) * m.positions);
        Ok(Done::reused(
            counts,
            written,
            false,
            false,
            is_compact(plan, m),
        ))
    }

    /// Converts the tables of the previous format version, read whole, into this version's;
    /// its values packed if a later material reads them. Past the memory budget, the material
    /// is solved again within it instead.
    fn convert_legacy(&self, values: Values, store: &Store) -> Result<Done, NotReused> {
        let (plan, m, progress) = (self.plan, self.m, self.progress);
        if !plan.reads_back_whole(m) {
            return Err(solve_because(format!(
                "converting it from format version 2 would hold it whole, {}, more than the \
                 memory budget",
                crate::human_bytes(plan.whole_read_back_bytes(m))
            )));
        }
        progress.converting(plan.variant, m.material, m.positions);
        let loaded = self.read_back(store, true)?;
        if let Err(why) = loaded.rules() {
            return Err(NotReused::Solve(why));
        }
        let (written, counts) =
            crate::write::convert::write_converted(plan, m, &loaded).map_err(NotReused::Failed)?;
        if values != Values::NotNeeded {
            loaded
                .pack(&self.paths.packed, &plan.packed_identity(m), plan.kept())
                .map_err(|e| solve_because(e.to_string()))?;
        }
        progress.advance((UNITS_PER_POSITION - 1) * m.positions);
        // Written in the plan's form.
        Ok(Done::reused(counts, written, true, true, plan.compact))
    }

    /// Reuses complete tables: their counts counted again if they were not kept, and the
    /// values rebuilt from them if a later material reads them and they are not kept.
    fn reuse_complete(
        &self,
        mut counts: Option<Counts>,
        values: Values,
        store: &Store,
    ) -> Result<Done, NotReused> {
        let (plan, m, progress) = (self.plan, self.m, self.progress);
        let written = table_sizes(m, Tables::All).map_err(solve_because)?;
        let summary = CountsFile::new(plan, m, Tables::All);
        let have_values = values != Values::Rebuilt;
        // Written only when counted again: rewriting a summary that holds these counts would
        // truncate it under the units reading it beside this one.
        let counted_again = counts.is_none();
        // Counted by the read-back as it goes when it reads block by block.
        let mut advanced = false;
        if counted_again || !have_values {
            let identity = plan.packed_identity(m);
            // Counted already, the values of a run of the win/draw/loss tables alone are their
            // kinds: the win/draw/loss table alone gives them, in less memory.
            let kinds = !counted_again && plan.kept() == Kept::Kinds;
            let whole = if kinds {
                plan.reads_kinds_back_whole(m)
            } else {
                plan.reads_back_whole(m)
            };
            if whole {
                let loaded = if kinds {
                    load_kinds(m, &self.index, store, progress)?
                } else {
                    let loaded = self.read_back(store, false)?;
                    counts = Some(Counts::of_loaded(&loaded));
                    loaded
                };
                if !have_values {
                    loaded
                        .pack(&self.paths.packed, &identity, plan.kept())
                        .map_err(|e| solve_because(e.to_string()))?;
                }
            } else {
                let packed = self.paths.packed.as_path();
                let pack = (!have_values).then_some((packed, identity.as_str(), plan.kept()));
                let advance = |n| progress.advance((UNITS_PER_POSITION - 1) * n);
                let index = &self.index;
                let read = read_back_streamed(&plan.dir, m, index, store, pack, &advance);
                counts = Some(read?);
                advanced = true;
            }
        }
        let counts = counts.unwrap_or_default();
        if counted_again {
            let _ = summary.write(&counts);
        }
        if !advanced {
            progress.advance((UNITS_PER_POSITION - 1) * m.positions);
        }
        Ok(Done::reused(
            counts,
            written,
            true,
            false,
            is_compact(plan, m),
        ))
    }

    /// The material's values read back from its tables (of the previous format if `legacy`):
    /// one damaged is solved again; one whose captures reach values that cannot be read stops
    /// the run.
    fn read_back(&self, store: &Store, legacy: bool) -> Result<Loaded, NotReused> {
        Ok(load_existing(
            self.m,
            &self.index,
            store,
            self.progress,
            legacy,
        )?)
    }
}

/// Why a material's tables are not reused: it is solved again, for this reason.
fn solve_because(why: String) -> NotReused {
    NotReused::Solve(Some(why))
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
    needs: Sides,
    progress: &dyn Progress,
) -> Result<bool, GenerateError> {
    let paths = plan.directory().work_files(m.material, plan.tables);
    let identity = plan.packed_identity(m);
    // A unit does not remove a packed file it finds unusable: another unit may have just
    // put a good one in its place. Rebuilding it replaces it by a rename all the same.
    let removes = plan.unit.is_none();
    let index = rafle_probe::toolkit::PositionIndex::new(plan.variant, m.material);
    Ok(crate::work::bands::open_finished(
        &index,
        &identity,
        plan.kept(),
        &paths,
        || crate::solve::bands(&index).len(),
        needs,
        &plan.directory(),
    )
    .is_some_and(|values| values.check().is_ok())
        || usable_packed(plan, &paths, &identity, m.positions, needs, removes)
        || adopt_finished(plan, m, &paths, &identity, progress)?)
}

/// Whether a packed file an earlier run left holds this run's values of the material, of the
/// sides to move `needs` at least, every block checked (it was written whole, but may have
/// been damaged since). One that does not is removed if `removes`.
fn usable_packed(
    plan: &Plan,
    paths: &WorkFiles,
    identity: &str,
    positions: u64,
    needs: Sides,
    removes: bool,
) -> bool {
    if !paths.packed.exists() {
        return false;
    }
    let usable = PackedValues::open(&paths.packed, identity, positions, plan.kept())
        .and_then(|packed| packed.check().map(|()| packed.held().contains(needs)))
        .unwrap_or(false);
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
    let Ok(values) = ValuesFile::open(&paths.partial, m.positions, false, plan.kept()) else {
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
    packed::pack(&values, &paths.packed, identity, plan.kept())?;
    drop(values);
    remove_finished_work(paths, m);
    Ok(true)
}
