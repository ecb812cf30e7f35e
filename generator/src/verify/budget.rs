//! How a full check spends its memory budget: the probe's block cache, the decoded pages kept
//! between steps, and the mark past which the mapped table files' pages are given back; and
//! whether the budget holds the largest working set of the materials to check.

use rafle_probe::{
    draughts::{Material, Variant},
    toolkit::PositionIndex,
    Tablebase, DEFAULT_CACHE_BYTES,
};

use super::kings;
use super::pages;
use crate::{human_bytes, Verifier, VerifyError};

/// Memory a full check holds besides its decoded pages and the probe's block cache: the
/// program, the tables' headers and block indices, and the pages of the table files read
/// between two times they are given back.
const REST: u64 = 128 << 20;

/// Memory each thread holds of positions resolved through the probe (about 3 MiB).
const PER_THREAD: u64 = 4 << 20;

/// How a full check spends its memory budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifyBudget {
    /// The whole budget, if there is one (without, the free memory is unknown).
    pub budget: Option<u64>,
    /// The probe's block cache ([`Tablebase::open_with_cache`]), for the successors no page
    /// holds (a promotion whose material's pages are gone).
    pub probe_cache: u64,
    /// What the process holds besides the pages and the probe's cache.
    pub rest: u64,
    /// The most bytes of decoded pages kept between steps ([`Verifier::with_memory`]).
    pub pages: u64,
    /// Resident memory past which the mapped table files' pages are given back
    /// ([`Verifier::releasing_past`]).
    pub release_at: u64,
}

impl VerifyBudget {
    /// The spending of `budget` (none: the default page budget) with `threads` threads.
    pub fn of(budget: Option<u64>, threads: usize) -> VerifyBudget {
        let rest = REST + threads as u64 * PER_THREAD;
        let Some(budget) = budget else {
            return VerifyBudget {
                budget,
                probe_cache: DEFAULT_CACHE_BYTES as u64,
                rest,
                pages: Verifier::DEFAULT_MEMORY as u64,
                release_at: u64::MAX,
            };
        };
        // The probe's cache serves few positions: a sixteenth of the budget is plenty.
        let probe_cache = (budget / 16).min(DEFAULT_CACHE_BYTES as u64);
        VerifyBudget {
            budget: Some(budget),
            probe_cache,
            rest,
            pages: budget.saturating_sub(probe_cache + rest),
            // The rest is left for what a step reads and decodes between two looks at the
            // process's memory (every 100 ms): half of it was not enough for the international
            // up to 6 check, which went 96 MiB past that mark within one.
            release_at: budget.saturating_sub(rest),
        }
    }

    /// The line saying how the budget is spent on checking `materials` of the `variant`
    /// tables of `tables` (none if there are none to check), or why it is too small: a check
    /// holds at least the largest working set of its materials (a material of kings alone is
    /// held whole, whatever the budget: decoded, or a byte or so a position when that is less),
    /// with the rest. `before` materials were checked
    /// before (`--resume`) and are not checked again.
    ///
    /// # Errors
    ///
    /// [`VerifyError::NotEnoughMemory`], naming the material with the largest working set.
    pub fn check(
        &self,
        tables: &Tablebase,
        variant: Variant,
        materials: &[Material],
        before: usize,
    ) -> Result<Option<String>, VerifyError> {
        let verifier = Verifier::new(tables, variant);
        // The largest, the first of equals: materials with men all count a window's.
        let Some((largest, material)) = materials
            .iter()
            .map(|&m| (verifier.least_memory(m) as u64, m))
            .reduce(|a, b| if b.0 > a.0 { b } else { a })
        else {
            return Ok((before > 0).then(|| {
                format!(
                    "{variant}: all {before} materials checked before, as {} records",
                    rafle_probe::toolkit::layout::VERIFY_RECORD
                )
            }));
        };
        let (working_bytes, working_set) = self.working_set(&verifier, material, largest);
        let to_check = materials_to_check(variant, materials, before);
        let Some(budget) = self.budget else {
            return Ok(Some(format!(
                "{to_check}, {} of decoded tables kept (the free memory is unknown)",
                human_bytes(self.pages),
            )));
        };
        let least = largest + self.probe_cache + self.rest;
        if budget < least {
            return Err(VerifyError::NotEnoughMemory {
                variant,
                material,
                needed: least,
                budget,
            });
        }
        Ok(Some(format!(
            "{to_check}, memory budget {} ({} of decoded tables; the largest working set {}, \
             {working_set})",
            human_bytes(budget),
            human_bytes(self.pages),
            human_bytes(working_bytes)
        )))
    }

    /// The bytes the check of `material`, the one with the largest working set (`largest`),
    /// holds with these pages, and how it holds them, as `Verifier::check` chooses: with men,
    /// a window's (`largest`); of kings alone, decoded whole if that fits, else a byte or so a
    /// position, in one pass if the pages' budget holds every value (the least it needs,
    /// counted in `largest`, is two passes).
    fn working_set(&self, verifier: &Verifier, material: Material, largest: u64) -> (u64, String) {
        if material.men() != 0 {
            return (largest, "a window's".to_string());
        }
        let whole = verifier.decoded_whole(material) as u64;
        let budget = (pages::budget_pages(self.pages as usize) * pages::PAGE_BYTES) as u64;
        let compact = (whole > self.pages)
            .then(|| kings::planned(verifier.tablebase, verifier.variant, material, budget))
            .flatten();
        match compact {
            Some((bytes, passes)) => {
                let passes = if passes == 1 {
                    "one pass"
                } else {
                    "two passes"
                };
                let held = format!("{material} held a byte or so a position, in {passes}");
                (bytes, held)
            }
            None => (whole, format!("{material} decoded whole")),
        }
    }
}

/// The start of the budget's line: the `variant` materials to check and their positions, and
/// how many were checked `before`.
fn materials_to_check(variant: Variant, materials: &[Material], before: usize) -> String {
    let positions: u64 = materials
        .iter()
        .map(|&m| PositionIndex::count(variant, m))
        .sum();
    let count = match materials.len() {
        1 => "1 material".to_string(),
        n => format!("{n} materials"),
    };
    match before {
        0 => format!("{variant}: {count}, {positions} positions"),
        _ => {
            format!("{variant}: {count} to check, {positions} positions ({before} checked before)")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_is_shared_out_and_none_keeps_the_defaults() {
        let unbudgeted = VerifyBudget::of(None, 2);
        assert_eq!(unbudgeted.pages, Verifier::DEFAULT_MEMORY as u64);
        assert_eq!(unbudgeted.probe_cache, DEFAULT_CACHE_BYTES as u64);
        assert_eq!(unbudgeted.release_at, u64::MAX);
        let budget = 1 << 30;
        let spent = VerifyBudget::of(Some(budget), 2);
        assert_eq!(spent.rest, REST + 2 * PER_THREAD);
        assert_eq!(spent.probe_cache, budget / 16);
        assert_eq!(spent.pages + spent.probe_cache + spent.rest, budget);
        assert_eq!(spent.release_at, budget - spent.rest);
        // The probe's cache never grows past its default, and a tiny budget leaves no pages.
        assert_eq!(
            VerifyBudget::of(Some(64 << 30), 1).probe_cache,
            DEFAULT_CACHE_BYTES as u64
        );
        assert_eq!(VerifyBudget::of(Some(1 << 20), 1).pages, 0);
    }
}
