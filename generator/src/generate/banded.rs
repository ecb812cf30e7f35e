//! Solving a material with men into band files ([`crate::work::values::BandedValues`]): each band
//! compressed as it finishes, its tables written from them, and the band files kept as the
//! values later materials read. A stopped run resumes at the first band whose file is missing
//! or does not match its checksum in the journal.

use std::path::Path;
use std::time::Instant;

use rafle_probe::toolkit::PositionIndex;

use crate::solve::store::Store;
use crate::solve::{bands, MaterialSolver};
use crate::work::bands::{sync_band_files, BandWriter, BandedValues};
use crate::work::values::{band_paths, remove_bands};
use crate::work::values::{Journal, Kept};
use crate::write::counts::Counts;
use crate::write::Written;
use crate::{GenerateError, Progress, UNITS_PER_POSITION};

use super::MaterialRun;

impl MaterialRun<'_> {
    /// Solves the material into band files and writes its tables (the rule table alone when
    /// `rules_only`); its band files stay, held in `store`, if a later material reads them.
    /// Returns the sizes of the tables and the material's counts.
    ///
    /// # Errors
    ///
    /// As [`MaterialRun::solve_bands_not_finished`], and what writing the tables returns.
    pub(super) fn solve_in_bands(
        &self,
        store: &mut Store,
        rules_only: bool,
    ) -> Result<(Written, Counts), GenerateError> {
        let m = self.m;
        let longest = self.solve_bands_not_finished(store)?;
        self.release_read_last(store)?;
        let values = store
            .banded_through_cache(m.material)
            .expect("held by the banded solve");
        let (written, counts) = self.write_solved(&values, longest, rules_only)?;
        if !self.needed {
            store.remove(m.material);
            remove_bands(&self.paths.partial);
        }
        Ok((written, counts))
    }

    /// Solves every band not finished yet, the finished ones held in `store` (this material's
    /// values are there when it returns). Returns the longest win.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if a band file or the journal cannot be written,
    /// [`GenerateError::Stopped`] if the run was asked to stop (the bands finished are kept),
    /// and what solving a band returns.
    fn solve_bands_not_finished(&self, store: &mut Store) -> Result<u16, GenerateError> {
        let (m, index, progress) = (self.m, &self.index, self.progress);
        let mut journal = self.open_band_journal(progress)?;
        let bands = bands(index);
        let values = self.trusted_bands(&mut journal, bands.len(), progress)?;
        let finished = journal.bands.len();
        self.check_solving_done(finished, bands.len(), &self.paths.band(finished))?;
        store.insert_banded(index.clone(), values);
        let half = index.king_placements();
        for band in bands.iter().take(journal.bands.len()) {
            progress.advance(UNITS_PER_POSITION * 2 * half * band.len() as u64);
        }
        let rules = self.plan.tables == rafle_probe::toolkit::Tables::All;
        let identity = self.plan.packed_identity(m);
        // Bands finish every few seconds in a material of many men: their files are synced
        // and the journal written at checkpoints, as a raw work file is.
        let mut unrecorded = Vec::new();
        let mut checkpoint = Instant::now();
        for (b, band) in bands.iter().enumerate().skip(journal.bands.len()) {
            let path = self.paths.band(b);
            let writer = BandWriter::create(&path, &identity, b, index, self.plan.kept())?;
            let finished = MaterialSolver::banded(index, store, &writer, m.limits, rules)
                .releasing_past(self.plan.release_mark())
                .solve_band(band, progress)?;
            writer.finish()?;
            store.banded_mut(m.material).add_band(&path, b)?;
            journal.finish_band(finished);
            unrecorded.push(path);
            let stop = progress.should_stop();
            if stop || checkpoint.elapsed() >= super::CHECKPOINT_EVERY {
                sync_band_files(&unrecorded)?;
                unrecorded.clear();
                journal.record()?;
                checkpoint = Instant::now();
            }
            if stop {
                store.release();
                return Err(GenerateError::Stopped);
            }
        }
        sync_band_files(&unrecorded)?;
        journal.record()?;
        Ok(journal.longest())
    }

    /// The material's journal, a fresh one if none can be resumed (its band files removed).
    fn open_band_journal(&self, progress: &dyn Progress) -> Result<Journal, GenerateError> {
        let (journal, resumed) = self.open_journal(progress)?;
        if !resumed || journal.bands.is_empty() {
            remove_bands(&self.paths.partial);
        }
        // A raw work file an earlier version left for this material is of no use.
        let _ = std::fs::remove_file(&self.paths.partial);
        Ok(journal)
    }

    /// The band files the journal records, each read whole and matched against its checksum
    /// there; from the first that is missing or does not match, the bands are solved again
    /// (their files removed).
    fn trusted_bands(
        &self,
        journal: &mut Journal,
        bands: usize,
        progress: &dyn Progress,
    ) -> Result<BandedValues, GenerateError> {
        let identity = self.plan.packed_identity(self.m);
        let mut values = BandedValues::new(&self.index, &identity, self.plan.kept());
        let recorded = journal.bands.len().min(bands);
        let mut kept = 0;
        for (b, path) in band_paths(&self.paths, recorded).iter().enumerate() {
            let checksum = journal.bands[b].checksum;
            if !band_matches(
                &self.index,
                &identity,
                self.plan.kept(),
                (path, b),
                checksum,
            ) {
                progress.damaged_work_file(
                    path,
                    &format!(
                        "does not match its checksum in {}: solved again from that band",
                        self.paths.journal.display()
                    ),
                );
                break;
            }
            values.add_band(path, b)?;
            kept = b + 1;
        }
        if kept < journal.bands.len() {
            if kept == band_paths(&self.paths, recorded).len() && kept < recorded {
                progress.damaged_work_file(
                    &self.paths.band(kept),
                    "missing: solved again from that band",
                );
            }
            journal.keep_first(kept)?;
        }
        // Files of bands past those kept (a band finished after the last record, or damaged).
        for b in kept..bands {
            let _ = std::fs::remove_file(self.paths.band(b));
        }
        Ok(values)
    }

    /// The band files of the material, finished, as the materials after it read them, if all
    /// of them are there and every chunk of them checks.
    pub(super) fn finished_bands(&self) -> Option<BandedValues> {
        let (plan, index) = (self.plan, &self.index);
        let identity = plan.packed_identity(self.m);
        crate::work::bands::open_finished(
            index,
            &identity,
            plan.kept(),
            &self.paths,
            || bands(index).len(),
            self.sides,
            &plan.directory(),
        )
        .filter(|values| values.check().is_ok())
    }
}

/// Whether band `b`'s file at `path` (`band`), of a material of `index` and the request
/// `identity`, its values kept as `kept`, reads whole and matches `checksum`, the one its
/// journal records.
pub(super) fn band_matches(
    index: &PositionIndex,
    identity: &str,
    kept: Kept,
    band: (&Path, usize),
    checksum: u64,
) -> bool {
    let (path, b) = band;
    let mut values = BandedValues::new(index, identity, kept);
    let sum = values
        .add_band(path, b)
        .and_then(|halves| values.checksum(&halves));
    matches!(sum, Ok(sum) if sum == checksum)
}
