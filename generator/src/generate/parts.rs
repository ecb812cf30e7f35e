//! The seed parts of a kings-only material split for memory (see [`crate::seed_part`]): found
//! whole on disk, seeded here by a whole run, or seeded one by one by their own units.

use std::time::Instant;

use rafle_probe::{PositionIndex, Tables};

use super::found::Found;
use super::MaterialSummary;
use crate::plan::{MaterialPlan, Plan};
use crate::seed_part::{PartFile, PartSeeds};
use crate::solve::MaterialSolver;
use crate::store::Store;
use crate::{GenerateError, Progress, UNITS_PER_POSITION};

/// Every seed part of `m`, if each is there and whole (every block and record checked).
pub(super) fn ready_seed_parts(plan: &Plan, m: &MaterialPlan) -> Option<PartSeeds> {
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
pub(super) fn seed_parts_here(
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
    MaterialSolver::for_seed_part(index, store, m.limits, rules).releasing_past(plan.release_mark())
}

/// Seeds part `part` of material `j` (the unit's) into its file, unless the file is already
/// there (every block and record checked) or the material is finished.
///
/// # Errors
///
/// As [`MaterialSolver::seed_part`].
pub(super) fn seed_part(
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
        compact: false,
    })
}
