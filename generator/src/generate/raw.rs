//! Solving a material into its raw work file ([`ValuesFile`], three bytes a position) band by
//! band, each band recorded in the journal with its checksum: a stopped run resumes at the
//! first band not recorded, or whose values no longer match their checksum. Once its tables
//! are written, its values are packed if a later material reads them.

use std::time::Instant;

use rafle_probe::toolkit::Tables;

use super::{remove, MaterialRun};
use crate::solve::store::Store;
use crate::solve::{band_checksum, bands, MaterialSolver};
use crate::work::packed;
use crate::work::seed_part::PartSeeds;
use crate::work::values::{Journal, ValuesFile};
use crate::write::counts::Counts;
use crate::write::Written;
use crate::{GenerateError, UNITS_PER_POSITION};

use super::CHECKPOINT_EVERY;

impl MaterialRun<'_> {
    /// Solves the material into its raw work file, resuming where a stopped run left it, and
    /// writes its tables (the rule table alone when `rules_only`); a kings-only material
    /// seeded in parts is solved from `seed_parts`, or from parts seeded here. Packs its
    /// values if a later material reads them; the raw file stays for the caller to remove.
    /// Returns the sizes of the tables and the material's counts.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if a work file cannot be written, [`GenerateError::Stopped`] if
    /// the run was asked to stop (the bands finished are recorded), and what solving a band
    /// or writing the tables returns.
    pub(super) fn solve_in_work_file(
        &self,
        store: &mut Store,
        rules_only: bool,
        seed_parts: Option<PartSeeds>,
    ) -> Result<(Written, Counts), GenerateError> {
        let (plan, m, paths) = (self.plan, self.m, &self.paths);
        let mut journal = self.open_raw_journal()?;
        store.insert_raw(
            self.index.clone(),
            ValuesFile::open(&paths.partial, m.positions, true, plan.kept())?,
        );
        let bands = bands(&self.index);
        let values = store.values(m.material).expect("inserted above");
        self.keep_intact_bands(&mut journal, &bands, values)?;
        self.check_solving_done(journal.bands.len(), bands.len(), &paths.partial)?;
        let unfinished = journal.bands.len() < bands.len();
        let seed_parts = self.seed_parts_to_solve_from(seed_parts, unfinished, store)?;
        let kings = self.index.king_placements();
        for band in bands.iter().take(journal.bands.len()) {
            self.progress
                .advance(UNITS_PER_POSITION * 2 * kings * band.len() as u64);
        }
        let rules = plan.tables == Tables::All;
        let mut solver = MaterialSolver::new(&self.index, store, values, m.limits, rules)
            .releasing_past(plan.release_mark());
        if let Some(parts) = seed_parts {
            solver = solver.with_seed_parts(parts);
        }
        self.solve_remaining_bands(&solver, &mut journal, &bands, values, store)?;
        let longest = journal.longest();
        self.release_read_last(store)?;
        let values = store.values(m.material).expect("inserted above");
        let (written, counts) = self.write_solved(values, longest, rules_only)?;
        if self.needed {
            // Durable before the raw file goes: a stop before it is complete resumes from the raw
            // file (see `adopt_finished`).
            packed::pack(values, &paths.packed, &plan.packed_identity(m), plan.kept())?;
        }
        store.remove(m.material);
        Ok((written, counts))
    }

    /// The material's journal, with what the run resumes from: none of it (the raw file
    /// removed) if it was not resumed or records no band, and no band if the raw file is not
    /// the size of the material's values.
    fn open_raw_journal(&self) -> Result<Journal, GenerateError> {
        let (m, paths, progress) = (self.m, &self.paths, self.progress);
        let (mut journal, resumed) = self.open_journal(progress)?;
        let expected_len = m.positions * self.plan.kept().raw_bytes_per_position();
        let partial_len = std::fs::symlink_metadata(&paths.partial).map(|md| md.len());
        if resumed && partial_len.as_ref().is_ok_and(|&len| len != expected_len) {
            progress.damaged_work_file(
                &paths.partial,
                &format!(
                    "not the size of its values ({expected_len} bytes): solved again from the \
                     start"
                ),
            );
            journal.keep_first(0)?;
        }
        if !resumed || journal.bands.is_empty() {
            remove(&paths.partial);
        }
        Ok(journal)
    }

    /// Keeps the bands the journal records up to the first whose values in the raw file do not
    /// match its checksum: nothing of the raw file is trusted before every band it holds
    /// matches.
    fn keep_intact_bands(
        &self,
        journal: &mut Journal,
        bands: &[Vec<u64>],
        values: &ValuesFile,
    ) -> Result<(), GenerateError> {
        let index = &self.index;
        let checksum = |b: usize| bands.get(b).map(|band| band_checksum(index, values, band));
        if let Some(b) = journal.keep_intact(checksum)? {
            self.progress.damaged_work_file(
                &self.paths.partial,
                &format!(
                    "band {b} does not match its checksum in {}: solved again from that band",
                    self.paths.journal.display()
                ),
            );
        }
        Ok(())
    }

    /// The seed parts a kings-only material seeded in parts is solved from: `ready` (found
    /// whole by a unit), else seeded here if they are not all there; none once it is finished
    /// (`unfinished` false).
    ///
    /// # Errors
    ///
    /// As [`MaterialRun::seed_parts_here`].
    fn seed_parts_to_solve_from(
        &self,
        ready: Option<PartSeeds>,
        unfinished: bool,
        store: &Store,
    ) -> Result<Option<PartSeeds>, GenerateError> {
        Ok(match ready {
            Some(parts) if unfinished => {
                self.progress.advance(self.m.positions);
                Some(parts)
            }
            None if self.m.seed_parts > 0 && unfinished => Some(self.seed_parts_here(store)?),
            _ => None,
        })
    }

    /// Solves the bands the journal does not record yet, recording them at every checkpoint,
    /// and at the end.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Stopped`] if the run was asked to stop (the bands finished recorded),
    /// [`GenerateError::Io`] if the journal or the raw file cannot be written, and what solving
    /// a band returns.
    fn solve_remaining_bands(
        &self,
        solver: &MaterialSolver<'_>,
        journal: &mut Journal,
        bands: &[Vec<u64>],
        values: &ValuesFile,
        store: &Store,
    ) -> Result<(), GenerateError> {
        let mut checkpoint = Instant::now();
        for band in bands.iter().skip(journal.bands.len()) {
            journal.finish_band(solver.solve_band(band, self.progress)?);
            if self.progress.should_stop() {
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
        Ok(())
    }
}
