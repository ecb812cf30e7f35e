//! A request for tables as every entry point states it (`rafle generate`, `rafle plan`,
//! `rafle slurm submit`, the Python package's `generate`), and the plan it makes: the same
//! settings applied in the same order, and the same checks before any work.

use std::path::Path;

use rafle_probe::draughts::{Limits, Material, Variant};

use super::Plan;
use crate::{human_bytes, GenerateError, Tables};

/// What a run covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every material up to this many pieces.
    UpTo(u32),
    /// One material alone, from its finished dependencies (a unit of work).
    Material(Material),
    /// One seed part (from 1) of a large kings-only material.
    SeedPart(Material, u32),
}

/// A request for tables: the variant, what it covers and the settings of its tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanRequest {
    /// The board.
    pub variant: Variant,
    /// The materials.
    pub scope: Scope,
    /// The limits of the rule tables (`None`: the FMJD rules').
    pub limits: Option<Limits>,
    /// The tables written.
    pub tables: Tables,
    /// Compact tables ([`Plan::with_compact`]).
    pub compact: bool,
    /// The memory budget in bytes (`None`: none, only the generator's own allocation
    /// failure stops a run that does not fit).
    pub budget: Option<u64>,
}

impl PlanRequest {
    /// A request for every material of `variant` up to `pieces`, with the FMJD limits, all
    /// three tables, not compact, no budget.
    pub fn up_to(variant: Variant, pieces: u32) -> PlanRequest {
        PlanRequest {
            variant,
            scope: Scope::UpTo(pieces),
            limits: None,
            tables: Tables::default(),
            compact: false,
            budget: None,
        }
    }

    /// The plan of the request over the table directory `dir`, as `rafle plan` lists it
    /// (a plan past its budget is listed, with which units pass it).
    ///
    /// # Errors
    ///
    /// The [`GenerateError`] of [`Plan::new`], [`Plan::for_material`] or
    /// [`Plan::for_seed_part`].
    pub fn plan(&self, dir: &Path) -> Result<Plan, GenerateError> {
        let plan = match self.scope {
            Scope::UpTo(pieces) => Plan::new(self.variant, pieces, dir)?,
            Scope::Material(material) => Plan::for_material(self.variant, material, dir)?,
            Scope::SeedPart(material, part) => {
                Plan::for_seed_part(self.variant, material, part, dir)?
            }
        };
        let plan = match self.limits {
            Some(limits) => plan.with_limits(limits),
            None => plan,
        };
        let plan = plan
            .with_tables(self.tables)
            .with_compact(self.compact)
            .solving_peaks_early();
        Ok(match self.budget {
            Some(budget) => plan.with_budget(budget),
            None => plan,
        })
    }

    /// The plan of the request, checked as a run checks it before any work: its largest
    /// slice fits the budget, and it leaves no rule tables of other limits beside its own.
    ///
    /// # Errors
    ///
    /// Those of [`PlanRequest::plan`], [`GenerateError::NotEnoughMemory`] and
    /// [`GenerateError::LimitsWouldMix`].
    pub fn checked_plan(&self, dir: &Path) -> Result<Plan, GenerateError> {
        let plan = self.plan(dir)?;
        if let Some(budget) = plan.budget {
            plan.check_memory(budget)?;
        }
        plan.check_limits_agree()?;
        Ok(plan)
    }
}

impl Plan {
    /// The line a run starts with: what it solves, its memory and disk, its rules, like
    /// `brazilian: 9 materials up to 3 pieces, 201272 positions, peak memory 320.4 MiB
    /// (budget 20.6 GiB), disk about 232.3 KiB, rules 6.2=50,6.3=40,6.4=10`.
    pub fn headline(&self) -> String {
        let what = match (self.unit, self.materials.last()) {
            (Some(unit), Some(m)) if self.part.is_some() => format!(
                "{unit}, seed part {} of {} (from {} finished materials), {} positions",
                self.part.unwrap_or_default(),
                m.seed_parts,
                self.materials.len() - 1,
                self.seed_part_positions(m, self.part.unwrap_or(1)).1
            ),
            (Some(unit), Some(m)) => format!(
                "{unit} alone (from {} finished materials), {} positions",
                self.materials.len() - 1,
                m.positions
            ),
            _ => format!(
                "{} materials up to {} pieces, {} positions",
                self.materials.len(),
                self.max_pieces,
                self.positions()
            ),
        };
        format!(
            "{}: {what}, peak memory {}{}, disk about {}, rules {}",
            self.variant,
            human_bytes(self.planned_bytes()),
            self.budget
                .map_or(String::new(), |b| format!(" (budget {})", human_bytes(b))),
            human_bytes(self.disk_estimate().peak_bytes),
            self.limits
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_sets_what_it_asks_and_a_checked_one_refuses_a_budget_too_small() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits::parse(Variant::Brazilian, "6.2=40").unwrap();
        let request = PlanRequest {
            limits: Some(limits),
            tables: Tables::Wdl,
            compact: true,
            budget: Some(1 << 30),
            ..PlanRequest::up_to(Variant::Brazilian, 4)
        };
        let plan = request.checked_plan(dir.path()).unwrap();
        assert_eq!(
            (
                plan.max_pieces,
                plan.limits,
                plan.tables,
                plan.compact,
                plan.budget
            ),
            (4, limits, Tables::Wdl, true, Some(1 << 30))
        );
        assert!(plan.materials.iter().all(|m| m.limits == limits));
        let unit = PlanRequest {
            scope: Scope::Material("KKvK".parse().unwrap()),
            ..request
        };
        let unit = unit.plan(dir.path()).unwrap();
        assert_eq!(unit.materials.last().unwrap().material.to_string(), "KKvK");
        let small = PlanRequest {
            budget: Some(1 << 10),
            ..request
        };
        assert!(small.plan(dir.path()).is_ok(), "listed, not refused");
        assert!(matches!(
            small.checked_plan(dir.path()),
            Err(GenerateError::NotEnoughMemory { .. })
        ));
    }
}
