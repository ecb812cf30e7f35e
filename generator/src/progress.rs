//! What generation reports while it runs.

use rafle_probe::draughts::{Material, Variant};

use crate::MaterialSummary;

/// Receives generation progress; every method has a default that ignores it.
///
/// Work is counted in [`UNITS_PER_POSITION`] units a position: one when the position is first
/// examined, one when its value is settled, one when its rule-aware value is.
pub trait Progress: Sync {
    /// A variant's generation starts: the plan of what will be done.
    fn variant_started(&self, _plan: &crate::Plan) {}
    /// `count` temporary files that a killed run left in `dir` were removed.
    fn leftovers_removed(&self, _dir: &std::path::Path, _count: usize) {}
    /// Another unit of work (process `pid`, if it says) writes `material` in `dir`: this one
    /// waits for it to finish, then checks and reuses its tables.
    fn waiting_for_unit(&self, _dir: &std::path::Path, _material: Material, _pid: Option<u32>) {}
    /// A work file of an earlier run (at `path`) does not match its checksums, as `what` says
    /// with what is done instead: nothing of it is trusted.
    fn damaged_work_file(&self, _path: &std::path::Path, _what: &str) {}
    /// A material starts: `positions` positions to solve (or to check, if a table exists).
    fn material_started(&self, _variant: Variant, _material: Material, _positions: u64) {}
    /// A material's tables of the previous format version are converted to the current one
    /// (their values read, not solved again).
    fn converting(&self, _variant: Variant, _material: Material, _positions: u64) {}
    /// `units` more units of work are done in the current material.
    fn advance(&self, _units: u64) {}
    /// A material is done.
    fn material_finished(&self, _summary: &MaterialSummary) {}
    /// A unit of work of the set of every material of `variant` up to `pieces` removed the
    /// kept values of `materials`: every material of the set that reads them is finished.
    fn values_released(&self, _variant: Variant, _pieces: u32, _materials: &[Material]) {}
    /// Whether the run should stop (asked at each checkpoint: before each material, after
    /// each band of positions solved). Once it answers `true`, the run records the work done
    /// as a stopped run would, and [`generate`](crate::generate) returns
    /// [`GenerateError::Stopped`](crate::GenerateError::Stopped); the next run resumes it.
    fn should_stop(&self) -> bool {
        false
    }
}

/// Units of work a material has per position.
pub const UNITS_PER_POSITION: u64 = 3;

/// Reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}
