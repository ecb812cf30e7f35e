//! Checking a directory's tables as `rafle verify` does: which materials a check covers (every
//! one, or those `--materials` names with the tables they read), which of them a resumed check
//! skips, the order, each material's line and the run's totals.
//!
//! The command prints what [`SetCheck::run`] reports and the last line [`CheckTotals`] gives,
//! so a library caller gets the same check, lines and verdict.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use rafle_probe::draughts::{Material, Variant};
use rafle_probe::toolkit::format::TableKind;
use rafle_probe::toolkit::layout::VERIFY_RECORD;
use rafle_probe::toolkit::{printable_path, PositionIndex};
use rafle_probe::{ProbeError, Tablebase};

use super::resume::{check_block_checksums, VerifiedRecord};
use super::{Verifier, VerifyReport};
use crate::{GenerateError, Plan, VerifyError};

/// The materials a check names (`--materials`, either orientation) in one variant, and the
/// materials whose tables checking them reads.
#[derive(Debug, Clone)]
pub struct CheckSelection {
    /// The named materials, as stored.
    named: HashSet<Material>,
    /// The named ones and every material they read.
    needed: HashSet<Material>,
}

impl CheckSelection {
    /// What `named` selects in `variant` (`None` when it is empty: every material), the
    /// materials each reads worked out as a run in `dir` would plan them.
    ///
    /// # Errors
    ///
    /// The [`GenerateError`] of planning a named material (too many pieces, not a material of
    /// the variant).
    pub fn of(
        variant: Variant,
        named: &[Material],
        dir: &Path,
    ) -> Result<Option<CheckSelection>, GenerateError> {
        if named.is_empty() {
            return Ok(None);
        }
        let mut needed = HashSet::new();
        for &material in named {
            let plan = Plan::for_material(variant, material, dir)?;
            needed.extend(plan.materials.iter().map(|m| m.material));
        }
        Ok(Some(CheckSelection {
            named: named.iter().map(|m| m.canonical()).collect(),
            needed,
        }))
    }

    fn contains(&self, material: &Material) -> bool {
        self.named.contains(material)
    }
}

/// The check of one variant's tables: the materials a `--resume` record holds with the same
/// tables (only their block checksums are checked), those to check, and the tables the check
/// needs that the directory lacks.
#[derive(Debug)]
pub struct SetCheck {
    /// The board.
    pub variant: Variant,
    /// The record the check keeps, when resumed.
    record: Option<VerifiedRecord>,
    /// The stamp of each material to check whose tables could be stamped, for the record.
    stamps: HashMap<Material, String>,
    /// Materials recorded as checked with the same tables.
    pub before: Vec<Material>,
    /// Materials to check, in order.
    pub todo: Vec<Material>,
    /// The tables the check needs and the directory lacks, with where they were looked for.
    pub missing: Vec<(Material, TableKind, PathBuf)>,
}

/// What a [`SetCheck`] reports as it goes, in order; each `Display`s as the command's line.
#[derive(Debug)]
pub enum CheckEvent {
    /// A table the check needs is not there (its material is not checked).
    Missing {
        /// The board.
        variant: Variant,
        /// The material.
        material: Material,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// A material recorded before with the same tables: its block checksums checked.
    CheckedBefore {
        /// The board.
        variant: Variant,
        /// The material.
        material: Material,
        /// The checksums' verdict.
        result: Result<(), ProbeError>,
    },
    /// A material's check starts, looking at this many positions (for a progress bar).
    Starting {
        /// The board.
        variant: Variant,
        /// The material.
        material: Material,
        /// The positions it will look at.
        positions: u64,
    },
    /// A material checked.
    Checked {
        /// The board.
        variant: Variant,
        /// The material.
        material: Material,
        /// Whether the check drew a sample.
        sampled: bool,
        /// Its report, or why it could not be checked.
        report: Result<VerifyReport, ProbeError>,
    },
}

/// The run's counts, summed over its variants: its last line and its verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckTotals {
    /// Materials checked (recorded ones included, those that could not be checked not).
    pub checked: usize,
    /// Materials checked that failed.
    pub failed: usize,
    /// Tables missing.
    pub missing: usize,
    /// Materials not checked because a material they read has tables that do not agree.
    pub unchecked: usize,
    /// Positions of the materials checked.
    pub positions: u64,
    /// Positions looked at (fewer than `positions` with a sample).
    pub looked_at: u64,
    /// Whether the check drew samples.
    pub sampled: bool,
}

impl SetCheck {
    /// The check in `variant` of `tables` (opened on `dir`), skipping the materials the
    /// record holds with the same tables when `resume`, on the materials `only` selects.
    ///
    /// # Errors
    ///
    /// [`VerifyError::Record`] when `resume` and the record cannot be opened.
    pub fn of(
        tables: &Tablebase,
        variant: Variant,
        dir: &Path,
        resume: bool,
        only: Option<&CheckSelection>,
    ) -> Result<SetCheck, VerifyError> {
        let present = tables.materials(variant);
        let chosen = |material: &Material| only.is_none_or(|o| o.contains(material));
        let mut check = SetCheck {
            variant,
            record: None,
            stamps: HashMap::new(),
            before: Vec::new(),
            todo: Vec::with_capacity(present.len()),
            // A set up to N pieces needs every material up to N: probes of a missing one fail.
            missing: match only {
                None => tables.missing_tables(variant),
                // In the order of a whole check's list.
                Some(o) => {
                    let most = o.needed.iter().map(|m| m.pieces()).max().unwrap_or(0);
                    let all = Material::all_up_to(variant, most);
                    tables.missing_tables_of(
                        variant,
                        all.into_iter().filter(|m| o.needed.contains(m)),
                    )
                }
            },
        };
        if !resume {
            check.todo = present.into_iter().filter(chosen).collect();
            return Ok(check);
        }
        let record = VerifiedRecord::open(dir, variant)?;
        // Stamped over every material present, as a whole check stamps them, so that either
        // check honours the other's records.
        let all = VerifiedRecord::stamps(tables, variant, &present);
        for (material, stamp) in present.into_iter().zip(all) {
            if !chosen(&material) {
                continue;
            }
            match stamp {
                Some(stamp) if record.holds(material, &stamp) => check.before.push(material),
                Some(stamp) => {
                    check.stamps.insert(material, stamp);
                    check.todo.push(material);
                }
                // A material whose tables cannot be stamped is checked, which reports why.
                None => check.todo.push(material),
            }
        }
        check.record = Some(record);
        Ok(check)
    }

    /// Runs the check with `verifier` (of this variant): each event to `report`, which
    /// returns `false` to stop the run (a reader gone away); `sample` is `(N, seed)` for
    /// `--sample N --seed seed`; `advance` counts positions looked at. A material that passes
    /// a resumed check is recorded as soon as it is done.
    ///
    /// # Errors
    ///
    /// [`VerifyError::Recording`] when a material's line cannot be kept in the record (the
    /// run would otherwise lose what it checks); the check stops there.
    pub fn run(
        self,
        verifier: &Verifier,
        sample: Option<(u64, u64)>,
        totals: &mut CheckTotals,
        report: &mut dyn FnMut(CheckEvent) -> bool,
        advance: &(dyn Fn(u64) + Sync),
    ) -> Result<(), VerifyError> {
        let SetCheck {
            variant,
            mut record,
            stamps,
            before,
            todo,
            missing,
        } = self;
        totals.sampled |= sample.is_some();
        if !report_left_out(verifier, missing, before, totals, report) {
            return Ok(());
        }
        let starting = |material: Material| CheckEvent::Starting {
            variant,
            material,
            positions: verifier.sample_size(material, sample.map_or(u64::MAX, |(n, _)| n)),
        };
        if let Some(&first) = todo.first() {
            if !report(starting(first)) {
                return Ok(());
            }
        }
        let mut recorded = Ok(());
        let mut count = 0;
        let mut done = |material: Material, result: Result<VerifyReport, ProbeError>| {
            totals.count(variant, material, &result);
            if let (Ok(r), Some(record), Some(stamp)) =
                (&result, &mut record, stamps.get(&material))
            {
                if r.mismatches == 0 {
                    recorded = record.record(material, stamp);
                }
            }
            count += 1;
            let go_on = report(CheckEvent::Checked {
                variant,
                material,
                sampled: sample.is_some(),
                report: result,
            });
            if !go_on || recorded.is_err() {
                return false;
            }
            match todo.get(count) {
                Some(&next) => report(starting(next)),
                None => true,
            }
        };
        match sample {
            Some((n, seed)) => {
                for &material in &todo {
                    let result = verifier.verify_sample(material, n, seed, advance);
                    if !done(material, result) {
                        break;
                    }
                }
            }
            None => verifier.verify_each(&todo, advance, &mut done),
        }
        recorded
    }
}

/// Reports the tables missing and the materials recorded before (their block checksums
/// checked), counting them; `false` when `report` stops the run.
fn report_left_out(
    verifier: &Verifier,
    missing: Vec<(Material, TableKind, PathBuf)>,
    before: Vec<Material>,
    totals: &mut CheckTotals,
    report: &mut dyn FnMut(CheckEvent) -> bool,
) -> bool {
    let variant = verifier.variant;
    for (material, _, path) in missing {
        totals.missing += 1;
        if !report(CheckEvent::Missing {
            variant,
            material,
            path,
        }) {
            return false;
        }
    }
    for material in before {
        totals.positions += PositionIndex::count(variant, material);
        totals.checked += 1;
        let result = check_block_checksums(verifier.tablebase, variant, material);
        totals.failed += usize::from(result.is_err());
        if !report(CheckEvent::CheckedBefore {
            variant,
            material,
            result,
        }) {
            return false;
        }
    }
    true
}

impl CheckTotals {
    /// Counts a material's check.
    fn count(
        &mut self,
        variant: Variant,
        material: Material,
        result: &Result<VerifyReport, ProbeError>,
    ) {
        match result {
            Ok(r) => {
                self.checked += 1;
                self.positions += r.positions;
                self.looked_at += r.checked;
                self.failed += usize::from(r.mismatches > 0);
            }
            // A material read through another whose tables store sides that do not agree
            // cannot be checked; the fault is that one's, reported on its own line. Not
            // counted among the materials checked.
            Err(ProbeError::MixedHalves {
                material: mixed, ..
            }) if *mixed != material => self.unchecked += 1,
            Err(_) => {
                self.checked += 1;
                self.positions += PositionIndex::count(variant, material);
                self.failed += 1;
            }
        }
    }

    /// What went wrong, for the command's error (`None` when all is well).
    pub fn problems(&self) -> Option<String> {
        let mut problems = Vec::new();
        if self.failed > 0 {
            problems.push(format!(
                "{} of {} materials failed verification",
                self.failed, self.checked
            ));
        }
        match self.unchecked {
            0 => {}
            1 => problems.push("1 material could not be checked".to_string()),
            n => problems.push(format!("{n} materials could not be checked")),
        }
        match self.missing {
            0 => {}
            1 => problems.push("1 table is missing".to_string()),
            n => problems.push(format!("{n} tables are missing")),
        }
        (!problems.is_empty()).then(|| problems.join("; "))
    }
}

/// The run's last line: the materials and positions checked, and whether all passed.
impl fmt::Display for CheckTotals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let positions = self.positions;
        let positions = if self.sampled {
            format!("{} of {positions} positions sampled", self.looked_at)
        } else {
            format!("{positions} positions")
        };
        let mut verdict = Vec::new();
        if self.failed > 0 {
            verdict.push(format!("{} failed", self.failed));
        }
        if self.unchecked > 0 {
            verdict.push(format!("{} not checked", self.unchecked));
        }
        match self.missing {
            0 => {}
            1 => verdict.push("1 table missing".to_string()),
            n => verdict.push(format!("{n} tables missing")),
        }
        if verdict.is_empty() {
            verdict.push("all ok".to_string());
        }
        let materials = self.checked;
        let plural = if materials == 1 { "" } else { "s" };
        write!(
            f,
            "verified {materials} material{plural}, {positions}: {}",
            verdict.join(", ")
        )
    }
}

/// A material's line (with its examples of mismatches, one line each), ending in a newline;
/// nothing for [`CheckEvent::Starting`].
impl fmt::Display for CheckEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckEvent::Missing {
                variant,
                material,
                path,
            } => writeln!(f, "{variant} {material} missing: {}", printable_path(path)),
            CheckEvent::CheckedBefore {
                variant,
                material,
                result: Ok(()),
            } => writeln!(
                f,
                "{variant} {material} {} positions ok (checked before, as {VERIFY_RECORD} records)",
                PositionIndex::count(*variant, *material),
            ),
            CheckEvent::CheckedBefore {
                variant,
                material,
                result: Err(err),
            } => writeln!(f, "{variant} {material} error: {err}"),
            CheckEvent::Starting { .. } => Ok(()),
            CheckEvent::Checked {
                variant,
                material,
                sampled,
                report,
            } => match report {
                Ok(r) => write!(f, "{variant} {material} {}", ReportLine(r, *sampled)),
                Err(ProbeError::MixedHalves {
                    material: mixed, ..
                }) if mixed != material => {
                    writeln!(
                        f,
                        "{variant} {material} not checked: it reads {mixed}, whose tables \
                         store different sides to move"
                    )
                }
                Err(err) => writeln!(f, "{variant} {material} error: {err}"),
            },
        }
    }
}

/// The rest of a material's line (`N positions ok`, or for a sample `N of M positions
/// sampled, ok`) and the examples of its mismatches, one line each.
struct ReportLine<'a>(&'a VerifyReport, bool);

impl fmt::Display for ReportLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ReportLine(r, sampled) = *self;
        let positions = if sampled {
            format!("{} of {} positions sampled,", r.checked, r.positions)
        } else {
            format!("{} positions", r.positions)
        };
        if r.mismatches == 0 {
            return writeln!(f, "{positions} ok");
        }
        let plural = if r.mismatches == 1 { "" } else { "es" };
        writeln!(f, "{positions} {} mismatch{plural}", r.mismatches)?;
        for example in &r.examples {
            writeln!(f, "  {example}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_line_names_every_problem_and_counts_materials_in_the_singular_once() {
        let mut totals = CheckTotals {
            checked: 1,
            positions: 29_760,
            ..CheckTotals::default()
        };
        assert_eq!(
            totals.to_string(),
            "verified 1 material, 29760 positions: all ok"
        );
        assert_eq!(totals.problems(), None);
        totals = CheckTotals {
            checked: 9,
            failed: 2,
            unchecked: 1,
            missing: 3,
            positions: 201_272,
            looked_at: 9_000,
            sampled: true,
        };
        assert_eq!(
            totals.to_string(),
            "verified 9 materials, 9000 of 201272 positions sampled: 2 failed, 1 not checked, \
             3 tables missing"
        );
        assert_eq!(
            totals.problems().as_deref(),
            Some(
                "2 of 9 materials failed verification; 1 material could not be checked; 3 \
                 tables are missing"
            )
        );
    }

    #[test]
    fn a_report_line_gives_its_examples_one_a_line() {
        let report = VerifyReport {
            positions: 100,
            checked: 10,
            capture_positions: 0,
            mismatches: 2,
            examples: vec!["first".into(), "second".into()],
        };
        assert_eq!(
            ReportLine(&report, true).to_string(),
            "10 of 100 positions sampled, 2 mismatches\n  first\n  second\n"
        );
        let clean = VerifyReport {
            mismatches: 0,
            examples: Vec::new(),
            ..report
        };
        assert_eq!(ReportLine(&clean, false).to_string(), "100 positions ok\n");
    }
}
