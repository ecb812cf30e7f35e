//! `rafle plan`: the units of work of a generation in dependency order, for people and for
//! schedulers (`rafle slurm submit` reads the same plan).

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use rafle_generator::{human_bytes, parse_memory, DiskParts, Plan, PlanRequest};
use serde::Serialize;

use super::request::{default_pieces, failure, limits_of, parse_tables};
use super::{parse_variant_choice, VariantChoice};
use crate::output::Failure;
use rafle_generator::{Tables, Unit, UnitState};

/// The long help of `rafle plan`.
pub const LONG_ABOUT: &str = "\
List the units of work of a generation in dependency order: one unit per material, named
<variant>/<material> (like brazilian/KKMvK), built alone by 'rafle generate --unit NAME'
once the units it needs are finished. For each: the units it needs (whose tables its
captures and promotions read), its positions, the memory it holds (its peak, or --memory if
smaller, never below what its largest slice needs), the table files it writes, its
dependency level (units of one level can run at once) and whether it is finished in --data:
its tables open with the right limits and, if a unit still to run reads it, the packed values
a unit keeps for its readers are there ('generate' checks every block before reusing them).
'repack' marks finished tables whose packed values a whole run removed while a unit still to
run reads them: their unit reads them back from the tables and packs them, without solving.
A kings-only material of more than 2^30 positions (international KKKKvKKK, KKKKKvKK,
KKKKKKvK; Brazilian KKKKvKKKK, KKKKKvKKK) is also split: its units
<variant>/<material>/seed-1, seed-2, ... each seed 2^30 of its positions (the part of its
work that reads other materials) into a file of the work directory, on any node, and its
material's unit, which needs them all, solves it from those files.";

#[derive(Debug, Clone, Args)]
pub struct PlanArgs {
    /// Which variant: international, brazilian or all.
    #[arg(long, short = 'v', default_value = "all", value_parser = parse_variant_choice)]
    pub variant: VariantChoice,
    /// Most pieces on the board [default: 5 for brazilian, 4 for international].
    #[arg(long, short = 'p', value_name = "N", value_parser = super::request::parse_pieces)]
    pub pieces: Option<u32>,
    /// Table directory, where finished units are looked for.
    #[arg(long, value_name = "DIR", env = super::DATA_ENV, hide_env_values = true, default_value = "data")]
    pub data: PathBuf,
    /// Memory budget of each unit, like 8G [default: none, each unit's peak].
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    pub memory: Option<u64>,
    /// Draw-rule limits of the rule tables, like 6.2=50,6.3=32,6.4=10 [default: FMJD].
    #[arg(long, value_name = "LIMITS")]
    pub limits: Option<String>,
    /// Which tables: all or wdl.
    #[arg(long, value_name = "KINDS", default_value = "all", value_parser = parse_tables)]
    pub tables: Tables,
    /// Compact tables, one side to move each (see 'rafle generate --compact').
    #[arg(long)]
    pub compact: bool,
}

#[derive(Debug, Args)]
pub struct PlanCommand {
    #[command(flatten)]
    plan: PlanArgs,
    /// One JSON object per variant, one line each.
    #[arg(long)]
    json: bool,
    /// Units a cluster runs at once, for the scratch they hold (see docs/cluster.md, Disk).
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    units_at_once: u32,
}

/// A unit as `--json` prints it.
#[derive(Debug, Serialize)]
struct JsonUnit {
    /// `<variant>/<material>`, or `<variant>/<material>/seed-<part>`.
    name: String,
    material: String,
    /// Names of the units it needs.
    needs: Vec<String>,
    level: usize,
    positions: u64,
    memory_bytes: u64,
    files: Vec<PathBuf>,
    finished: bool,
    /// `finished`, `to do` (it is solved) or `repack` (its tables are finished, but a unit
    /// still to run reads its values and their packed work file is gone).
    status: &'static str,
}

impl JsonUnit {
    fn of(unit: &Unit, units: &[Unit]) -> JsonUnit {
        JsonUnit {
            name: unit.name.to_string(),
            material: unit.name.material.to_string(),
            needs: unit
                .needs
                .iter()
                .map(|&d| units[d].name.to_string())
                .collect(),
            level: unit.level,
            positions: unit.positions,
            memory_bytes: unit.memory_bytes,
            files: unit.files.clone(),
            finished: unit.state == UnitState::Finished,
            status: unit.state.name(),
        }
    }
}

/// A variant's plan as `--json` prints it.
#[derive(Debug, Serialize)]
struct JsonPlan {
    variant: &'static str,
    max_pieces: u32,
    limits: String,
    tables: &'static str,
    positions: u64,
    /// The disk a whole run fills at its peak, estimated ([`Plan::disk_estimate`]).
    disk_peak_bytes: u64,
    /// The material under way at that peak (none when the finished tables are the peak).
    disk_peak_at: Option<String>,
    /// What fills the disk at that peak.
    disk_at_peak: JsonDiskParts,
    /// The tables' bytes, estimated.
    tables_bytes: u64,
    /// Units run at once on a cluster, as `--units-at-once` says.
    units_at_once: u32,
    /// The scratch those units hold at most, estimated ([`Plan::units_scratch_estimate`]).
    units_scratch_bytes: u64,
    units: Vec<JsonUnit>,
}

/// [`DiskParts`] as `--json` prints it.
#[derive(Debug, Serialize)]
struct JsonDiskParts {
    raw_bytes: u64,
    scratch_bytes: u64,
    packed_bytes: u64,
    tables_bytes: u64,
}

impl From<DiskParts> for JsonDiskParts {
    fn from(p: DiskParts) -> JsonDiskParts {
        JsonDiskParts {
            raw_bytes: p.raw_bytes,
            scratch_bytes: p.scratch_bytes,
            packed_bytes: p.packed_bytes,
            tables_bytes: p.tables_bytes,
        }
    }
}

/// The plans of the chosen variants, as `plan` and `slurm submit` make them.
pub fn plans(args: &PlanArgs) -> Result<Vec<Plan>, Failure> {
    args.variant
        .variants()
        .into_iter()
        .map(|variant| {
            let pieces = args.pieces.unwrap_or_else(|| default_pieces(variant));
            let request = PlanRequest {
                limits: Some(limits_of(variant, args.limits.as_deref())?),
                tables: args.tables,
                compact: args.compact,
                budget: args.memory,
                ..PlanRequest::up_to(variant, pieces)
            };
            request.plan(&args.data).map_err(failure)
        })
        .collect()
}

pub fn run(args: &PlanCommand) -> Result<(), Failure> {
    let plans = plans(&args.plan)?;
    let mut out = io::stdout().lock();
    for (i, plan) in plans.iter().enumerate() {
        let units = plan.units();
        if args.json {
            let disk = plan.disk_estimate();
            let json = JsonPlan {
                variant: plan.variant.name(),
                max_pieces: plan.max_pieces,
                limits: plan.limits.to_string(),
                tables: plan.tables.name(),
                positions: plan.positions(),
                disk_peak_bytes: disk.peak_bytes,
                disk_peak_at: disk.peak_at.map(|m| m.to_string()),
                disk_at_peak: disk.at_peak.into(),
                tables_bytes: disk.tables_bytes,
                units_at_once: args.units_at_once,
                units_scratch_bytes: plan.units_scratch_estimate(args.units_at_once as usize),
                units: units.iter().map(|u| JsonUnit::of(u, &units)).collect(),
            };
            serde_json::to_writer(&mut out, &json).map_err(io::Error::from)?;
            writeln!(out)?;
            continue;
        }
        if i > 0 {
            writeln!(out)?;
        }
        write_text(&mut out, plan, &units, args.units_at_once)?;
    }
    Ok(())
}

fn write_text(out: &mut impl Write, plan: &Plan, units: &[Unit], at_once: u32) -> io::Result<()> {
    // Units to repack have finished tables too: a set built up to fewer pieces than the plan
    // is finished as far as it goes, though its packed values are gone.
    let finished = units.iter().filter(|u| u.state != UnitState::ToDo).count();
    let repack = units
        .iter()
        .filter(|u| u.state == UnitState::Repack)
        .count();
    let repack = if repack > 0 {
        format!(" ({repack} to repack)")
    } else {
        String::new()
    };
    let levels = units.iter().map(|u| u.level + 1).max().unwrap_or(0);
    let largest = units.iter().map(|u| u.memory_bytes).max().unwrap_or(0);
    writeln!(
        out,
        "{}: {} units up to {} pieces in {levels} levels, {} positions, largest unit {}, \
         {finished} finished{repack} in {}",
        plan.variant,
        units.len(),
        plan.max_pieces,
        plan.positions(),
        human_bytes(largest),
        rafle_probe::toolkit::printable_path(&plan.dir)
    )?;
    let width = units
        .iter()
        .map(|u| u.name.to_string().len())
        .max()
        .unwrap_or(4)
        .max(4);
    writeln!(
        out,
        "{:<width$}  level  {:>14}  {:>10}  status    needs",
        "unit", "positions", "memory"
    )?;
    for u in units {
        let needs = if u.needs.is_empty() {
            "-".to_string()
        } else {
            // Without the variant every unit of the list shares.
            u.needs
                .iter()
                .map(|&d| {
                    let n = units[d].name;
                    match n.part {
                        Some(part) => format!("{}/seed-{part}", n.material),
                        None => n.material.to_string(),
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        writeln!(
            out,
            "{:<width$}  {:>5}  {:>14}  {:>10}  {:<8}  {needs}",
            u.name,
            u.level,
            u.positions,
            human_bytes(u.memory_bytes),
            u.state.name(),
        )?;
    }
    let disk = plan.disk_estimate();
    writeln!(
        out,
        "disk: a whole run fills about {} at its peak{}; about {} of tables at the end; units \
         on a cluster, {at_once} at a time, hold about {} of work files at most beside the tables \
         (docs/cluster.md)",
        human_bytes(disk.peak_bytes),
        disk.peak_at.map_or(String::new(), |m| format!(
            ", solving {m} ({})",
            disk_parts(plan, &disk.at_peak)
        )),
        human_bytes(disk.tables_bytes),
        human_bytes(plan.units_scratch_estimate(at_once as usize))
    )?;
    if let Some(note) = past_budget(plan, units) {
        writeln!(out, "{note}")?;
    }
    Ok(())
}

/// What fills the disk at a point of the run, the parts there are.
fn disk_parts(plan: &Plan, parts: &DiskParts) -> String {
    let mut said = Vec::new();
    if parts.raw_bytes > 0 {
        said.push(format!(
            "its raw work file {}, {} bytes a position",
            human_bytes(parts.raw_bytes),
            plan.raw_bytes_per_position()
        ));
    }
    if parts.scratch_bytes > 0 {
        said.push(format!("its seeds {}", human_bytes(parts.scratch_bytes)));
    }
    said.push(format!(
        "values compressed, its own and those still to be read, {}",
        human_bytes(parts.packed_bytes)
    ));
    said.push(format!("tables so far {}", human_bytes(parts.tables_bytes)));
    said.join(", ")
}

/// The line saying which units need more than `--memory` (the largest slice of their material
/// does not fit in it, so no budget brings them lower), if any: such a unit needs a node with
/// the memory listed, and `rafle generate` refuses it within the budget.
fn past_budget(plan: &Plan, units: &[Unit]) -> Option<String> {
    let budget = plan.budget?;
    let mut past: Vec<&Unit> = units.iter().filter(|u| u.memory_bytes > budget).collect();
    if past.is_empty() {
        return None;
    }
    past.sort_by_key(|u| std::cmp::Reverse(u.memory_bytes));
    const LISTED: usize = 4;
    let listed: Vec<String> = past
        .iter()
        .take(LISTED)
        .map(|u| format!("{} {}", u.name, human_bytes(u.memory_bytes)))
        .collect();
    let more = match past.len().saturating_sub(LISTED) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Some(format!(
        "{} units need more than --memory {} whatever the budget (one slice of theirs needs \
         it alone): {}{more}; run them on nodes with that much memory",
        past.len(),
        human_bytes(budget),
        listed.join(", "),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rafle_probe::draughts::Variant;

    /// International up to 8 within 8 GiB: the units whose largest slice passes the budget
    /// are named, largest first; up to 7 pieces every unit fits, and nothing is said.
    #[test]
    fn units_past_the_budget_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let within = |pieces| {
            let plan = Plan::new(Variant::International, pieces, dir.path())
                .unwrap()
                .with_budget(8 << 30);
            past_budget(&plan, &plan.units())
        };
        assert_eq!(within(7), None);
        let note = within(8).unwrap();
        assert!(
            note.contains("need more than --memory 8.0 GiB")
                && note.contains(": international/KKKKvKKKM 62.6 GiB, "),
            "{note}"
        );
        let plan = Plan::new(Variant::International, 8, dir.path()).unwrap();
        assert_eq!(
            past_budget(&plan, &plan.units()),
            None,
            "no budget, no note"
        );
    }
}
