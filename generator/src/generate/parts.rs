//! The seed parts of a kings-only material split for memory (see [`crate::work::seed_part`]): found
//! whole on disk, seeded here by a whole run, or seeded one by one by their own units.

use std::time::Instant;

use rafle_probe::toolkit::Tables;

use super::found::Found;
use super::{MaterialRun, MaterialSummary};
use crate::plan::{MaterialPlan, Plan};
use crate::solve::store::Store;
use crate::solve::MaterialSolver;
use crate::work::seed_part::{PartFile, PartSeeds};
use crate::{GenerateError, UNITS_PER_POSITION};

/// Every seed part of `m`, if each is there and whole (every block and record checked).
pub(super) fn ready_seed_parts(plan: &Plan, m: &MaterialPlan) -> Option<PartSeeds> {
    let paths = plan.directory().work_files(m.material, plan.tables);
    let parts = (1..=m.seed_parts)
        .map(|part| PartFile::open_checked(&paths.seed_part(part), &plan.part_id(m, part)).ok())
        .collect::<Option<Vec<PartFile>>>()?;
    Some(PartSeeds(parts))
}

impl MaterialRun<'_> {
    /// Every seed part of the material: those whose file is there and whole are taken as they
    /// are, the others seeded here (a stopped run resumes at the first part it had not
    /// finished).
    ///
    /// # Errors
    ///
    /// As [`MaterialSolver::seed_part`].
    pub(super) fn seed_parts_here(&self, store: &Store) -> Result<PartSeeds, GenerateError> {
        let (plan, m) = (self.plan, self.m);
        let mut parts = Vec::new();
        for part in 1..=m.seed_parts {
            let (path, id) = (self.paths.seed_part(part), plan.part_id(m, part));
            let file = match PartFile::open_checked(&path, &id) {
                Ok(file) => {
                    self.progress.advance(id.len);
                    file
                }
                Err(_) => {
                    self.seeding_solver(store)
                        .seed_part(&path, &id, self.progress)?;
                    PartFile::open(&path, &id)?
                }
            };
            parts.push(file);
        }
        Ok(PartSeeds(parts))
    }

    /// A solver seeding parts of the material within the plan's memory.
    fn seeding_solver<'a>(&'a self, store: &'a Store) -> MaterialSolver<'a> {
        let rules = self.plan.tables == Tables::All;
        MaterialSolver::for_seed_part(&self.index, store, self.m.limits, rules)
            .releasing_past(self.plan.release_mark())
    }

    /// Seeds part `part` of the material (the unit's) into its file, unless the file is
    /// already there (every block and record checked) or the material is finished.
    ///
    /// # Errors
    ///
    /// As [`MaterialSolver::seed_part`].
    pub(super) fn seed_part(
        &self,
        store: &Store,
        part: u32,
    ) -> Result<MaterialSummary, GenerateError> {
        let started = Instant::now();
        let (plan, m) = (self.plan, self.m);
        let path = self.paths.seed_part(part);
        let id = plan.part_id(m, part);
        let finished = matches!(self.found, Found::Complete | Found::WdlOnly);
        // Every block and record checked: a part damaged since it was written is seeded again.
        let reused = finished || PartFile::open_checked(&path, &id).is_ok();
        if !reused {
            self.seeding_solver(store)
                .seed_part(&path, &id, self.progress)?;
        }
        self.progress
            .advance(UNITS_PER_POSITION * m.positions - if reused { 0 } else { id.len });
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
            compact: false,
        })
    }
}
