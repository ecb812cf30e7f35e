//! Converting tables of the previous format version ([`LEGACY_VERSION`]) to the current one,
//! reading their values rather than solving again. A whole run (not a unit of work, which other
//! units may read beside) takes a material whose three tables are of that version and sound as
//! it takes finished tables: in dependency order, its values read back whole (every checksum
//! checked, the positions they leave out completed by the [material walk](rafle_probe::toolkit::walk)
//! from the values of the materials below, as a reused material's are), then written as a new
//! solve writes them, by temporary name, read back and renamed over the old files. The tables
//! are then byte for byte those a fresh run writes.

use std::path::Path;

use rafle_probe::toolkit::format::{TableKind, LEGACY_VERSION};
use rafle_probe::toolkit::Table;

use crate::plan::{MaterialPlan, Plan};
use crate::write::counts::{Counts, CountsFile};
use crate::write::load::Loaded;
use crate::write::{write_tables, Writing, Written};
use crate::GenerateError;

/// Whether the file at `path` says it is a table of the previous format version (whether the
/// rest of it is sound is [`check_legacy`]'s question).
pub(crate) fn is_legacy(path: &Path) -> bool {
    Table::file_version(path) == Some(LEGACY_VERSION)
}

/// Whether a material's three tables are sound tables of the previous format version, every
/// block read as a probe reads it, the rule table of the plan's limits; if not, why (it is then
/// solved again).
pub(crate) fn check_legacy(plan: &Plan, m: &MaterialPlan) -> Result<(), String> {
    for (path, kind) in [
        (&m.path, TableKind::Wdl),
        (&m.dtw_path, TableKind::Dtw),
        (&m.draw_rules_path, TableKind::DrawRules),
    ] {
        let table =
            Table::open_legacy(path, kind, plan.variant, m.material).map_err(|e| e.to_string())?;
        if kind == TableKind::DrawRules && table.header().limits != Some(m.limits) {
            return Err(format!(
                "{} was computed with other draw-rule limits",
                path.display()
            ));
        }
        table.check_all_blocks().map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Writes the values of a material read back from its tables of the previous format version
/// as tables of the current one, and the summary of their counts; returns their sizes and
/// the counts.
///
/// # Errors
///
/// As [`write_tables`], and [`GenerateError::Io`] writing the summary.
pub(crate) fn write_converted(
    plan: &Plan,
    m: &MaterialPlan,
    loaded: &Loaded,
) -> Result<(Written, Counts), GenerateError> {
    let counts = Counts::of_loaded(loaded);
    let (written, _) = write_tables(plan, m, loaded, counts.longest_win, Writing::All)?;
    CountsFile::new(plan, m, rafle_probe::toolkit::Tables::All).write(&counts)?;
    Ok((written, counts))
}
