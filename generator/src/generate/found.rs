//! What a material's tables on disk are worth before a run: complete, missing the rule table,
//! of the previous format, or to solve again; each table checked as the probe reads it.

use std::path::Path;

use rafle_probe::toolkit::format::{StoredHalf, TableKind};
use rafle_probe::toolkit::{Table, Tables};
use rayon::prelude::*;

use crate::plan::{MaterialPlan, Plan};
use crate::write::counts::{Counts, CountsFile};
use crate::write::Written;

/// What a material's tables on disk look like before the run (their headers only).
#[derive(Debug, Clone)]
pub(super) enum Found {
    /// All three open, the rule table with the plan's limits.
    Complete,
    /// The win/draw/loss and distance tables open; the rule table does not, for this reason.
    RulesOnly(String),
    /// With `--tables wdl`: the win/draw/loss table opens (and its counts were kept), the
    /// others do not. Solved again only if a later material reads its values.
    WdlOnly,
    /// Something else is missing or damaged (`None`: there was no table at all).
    Incomplete(Option<String>),
    /// All three tables of the previous format version, sound, the rule table of the plan's
    /// limits: converted (see [`crate::write::convert`]) in a whole run.
    Legacy,
}

impl Found {
    /// Looks at a material's tables, every block checksum checked.
    pub(super) fn look(plan: &Plan, m: &MaterialPlan) -> Found {
        if plan.unit.is_none() && crate::write::convert::is_legacy(&m.path) {
            return match crate::write::convert::check_legacy(plan, m) {
                Ok(()) => Found::Legacy,
                Err(why) => Found::Incomplete(Some(why)),
            };
        }
        let all = Found::look_all(plan, m);
        if plan.tables == Tables::All || matches!(all, Found::Complete) || !m.path.exists() {
            return all;
        }
        if let Err(e) = check_table(plan, m, &m.path, TableKind::Wdl) {
            return Found::Incomplete(Some(e));
        }
        match CountsFile::new(plan, m, Tables::Wdl).read() {
            Some(_) => Found::WdlOnly,
            None => Found::Incomplete(Some(format!(
                "{}: the counts kept with it are missing",
                m.path.display()
            ))),
        }
    }

    /// Looks at all three of a material's tables.
    fn look_all(plan: &Plan, m: &MaterialPlan) -> Found {
        if !m.path.exists() && !m.dtw_path.exists() {
            return Found::Incomplete(None);
        }
        let check = |path: &Path, kind| check_table(plan, m, path, kind);
        if let Err(e) =
            check(&m.path, TableKind::Wdl).and_then(|_| check(&m.dtw_path, TableKind::Dtw))
        {
            return Found::Incomplete(Some(e));
        }
        if !m.draw_rules_path.exists() {
            return Found::RulesOnly(String::new());
        }
        match Table::open(
            &m.draw_rules_path,
            TableKind::DrawRules,
            plan.variant,
            m.material,
        ) {
            Ok(t) if t.header().limits != Some(m.limits) => {
                return Found::RulesOnly(format!(
                    "{} was computed with other draw-rule limits",
                    m.draw_rules_path.display()
                ))
            }
            _ => {}
        }
        match check(&m.draw_rules_path, TableKind::DrawRules) {
            Err(e) => Found::RulesOnly(e),
            Ok(_) => Found::Complete,
        }
    }

    /// Why the tables are not reused as they are.
    pub(super) fn why(&self) -> Option<String> {
        match self {
            Found::Complete | Found::WdlOnly | Found::Legacy => None,
            Found::RulesOnly(e) if e.is_empty() => None,
            Found::RulesOnly(e) => Some(e.clone()),
            Found::Incomplete(e) => e.clone(),
        }
    }
}

/// Checks one of a material's tables as the probe reads it: opened (header, block index,
/// length), then every block read as a probe reads it (checksum, decompression, the length its
/// header gives), in parallel. Checksums alone would pass a header edited with its checksum
/// made again (another width of distance, say), which the probe then refuses. Returns its size.
pub(super) fn check_table(
    plan: &Plan,
    m: &MaterialPlan,
    path: &Path,
    kind: TableKind,
) -> Result<u64, String> {
    let table = Table::open(path, kind, plan.variant, m.material).map_err(|e| e.to_string())?;
    (0..table.header().blocks)
        .into_par_iter()
        .try_for_each(|b| table.read_block(b).map(drop))
        .map_err(|e| e.to_string())?;
    Ok(table.file_len())
}

/// Whether a material's win/draw/loss table on disk stores one side to move (written with
/// `--compact`) rather than both: asked of tables kept rather than written, whose header was
/// checked when the run was planned; the plan's choice if it cannot be read.
pub(super) fn is_compact(plan: &Plan, m: &MaterialPlan) -> bool {
    Table::open(&m.path, TableKind::Wdl, plan.variant, m.material)
        .map_or(plan.compact, |t| t.header().stored != StoredHalf::Both)
}

/// The sizes of a material's tables, those of `tables`.
pub(super) fn table_sizes(m: &MaterialPlan, tables: Tables) -> Result<Written, String> {
    let len = |path: &Path| {
        std::fs::metadata(path)
            .map(|md| md.len())
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    let wdl = len(&m.path)?;
    if tables == Tables::Wdl {
        return Ok(wdl_written(wdl));
    }
    Ok(Written {
        wdl,
        dtw: len(&m.dtw_path)?,
        draw_rules: len(&m.draw_rules_path)?,
    })
}

/// The counts of a material with finished tables, if they were kept with them (in its
/// summary, which records the lengths and fingerprints of the tables it counted).
pub(super) fn kept_counts(plan: &Plan, m: &MaterialPlan) -> Option<Counts> {
    CountsFile::new(plan, m, Tables::All).read()
}

/// The sizes of a win/draw/loss table written alone.
fn wdl_written(wdl: u64) -> Written {
    Written {
        wdl,
        ..Written::default()
    }
}
