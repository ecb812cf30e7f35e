//! `rafle plan`: the units of work of a generation in dependency order, for people and for
//! schedulers (`rafle slurm submit` reads the same plan).

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use rafle_generator::{human_bytes, parse_memory, DiskParts, Plan};
use rafle_probe::draughts::Material;
use serde::Serialize;

use super::request::{default_pieces, failure, limits_of, parse_tables, seed_part_name, unit_name};
use super::{parse_variant_choice, VariantChoice};
use crate::output::Failure;
use rafle_generator::{Tables, UnitState};

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
}

/// One unit of work of a plan, as listed and as submitted.
#[derive(Debug, Clone, Serialize)]
pub struct Unit {
    /// `<variant>/<material>`.
    pub name: String,
    /// Its material.
    #[serde(serialize_with = "as_text")]
    pub material: Material,
    /// Indexes (in the plan) of the units it needs.
    #[serde(skip)]
    pub needs_index: Vec<usize>,
    /// Names of the units it needs.
    pub needs: Vec<String>,
    /// Dependency level: 0 needs nothing, otherwise one more than its deepest need.
    pub level: usize,
    /// Positions.
    pub positions: u64,
    /// Bytes of memory it holds.
    pub memory_bytes: u64,
    /// The table files it writes.
    pub files: Vec<PathBuf>,
    /// Whether nothing is left to do for it.
    pub finished: bool,
    /// `finished`, `to do` (it is solved) or `repack` (its tables are finished, but a unit
    /// still to run reads its values and their packed work file is gone).
    pub status: &'static str,
}

fn as_text<S: serde::Serializer>(material: &Material, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(material)
}

/// A variant's plan as `--json` prints it.
#[derive(Debug, Serialize)]
struct JsonPlan<'a> {
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
    units: &'a [Unit],
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
            let limits = limits_of(variant, args.limits.as_deref())?;
            let pieces = args.pieces.unwrap_or_else(|| default_pieces(variant));
            let plan = Plan::new(variant, pieces, &args.data)
                .map_err(failure)?
                .with_limits(limits)
                .with_tables(args.tables)
                .with_compact(args.compact);
            Ok(match args.memory {
                Some(bytes) => plan.with_budget(bytes),
                None => plan,
            })
        })
        .collect()
}

/// The units of `plan`, in its order (dependencies first): one per material, and before a
/// material seeded in parts, a unit per part.
pub fn units(plan: &Plan) -> Vec<Unit> {
    let kinds = plan.tables.kinds();
    let states = plan.unit_states();
    let mut units: Vec<Unit> = Vec::with_capacity(plan.materials.len());
    // The unit of each material, by its position in the plan.
    let mut unit_of = Vec::with_capacity(plan.materials.len());
    let status = |state| match state {
        UnitState::Finished => "finished",
        UnitState::Repack => "repack",
        UnitState::ToDo => "to do",
    };
    for (j, m) in plan.materials.iter().enumerate() {
        let reads: Vec<usize> = m.reads.iter().map(|&d| unit_of[d]).collect();
        let level = |needs: &[usize], units: &[Unit]| {
            needs.iter().map(|&d| units[d].level + 1).max().unwrap_or(0)
        };
        let mut needs = reads.clone();
        if m.seed_parts > 0 {
            let part_states = plan.seed_part_states(j, &states);
            for (part, state) in (1..=m.seed_parts).zip(part_states) {
                needs.push(units.len());
                units.push(Unit {
                    name: seed_part_name(plan.variant, m.material, part),
                    material: m.material,
                    needs: reads.iter().map(|&d| units[d].name.clone()).collect(),
                    level: level(&reads, &units),
                    needs_index: reads.clone(),
                    positions: plan.seed_part_positions(m, part).1,
                    memory_bytes: plan.unit_bytes_in(j, &states, true),
                    files: Vec::new(),
                    finished: state == UnitState::Finished,
                    status: status(state),
                });
            }
        }
        unit_of.push(units.len());
        units.push(Unit {
            name: unit_name(plan.variant, m.material),
            material: m.material,
            needs: needs.iter().map(|&d| units[d].name.clone()).collect(),
            level: level(&needs, &units),
            needs_index: needs,
            positions: m.positions,
            memory_bytes: plan.unit_bytes_in(j, &states, false),
            files: kinds
                .iter()
                .map(|&kind| plan.directory().table(m.material, kind))
                .collect(),
            finished: states[j] == UnitState::Finished,
            status: status(states[j]),
        });
    }
    units
}

pub fn run(args: &PlanCommand) -> Result<(), Failure> {
    let plans = plans(&args.plan)?;
    let mut out = io::stdout().lock();
    for (i, plan) in plans.iter().enumerate() {
        let units = units(plan);
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
                units: &units,
            };
            serde_json::to_writer(&mut out, &json).map_err(io::Error::from)?;
            writeln!(out)?;
            continue;
        }
        if i > 0 {
            writeln!(out)?;
        }
        write_text(&mut out, plan, &units)?;
    }
    Ok(())
}

fn write_text(out: &mut impl Write, plan: &Plan, units: &[Unit]) -> io::Result<()> {
    // Units to repack have finished tables too: a set built up to fewer pieces than the plan
    // is finished as far as it goes, though its packed values are gone.
    let finished = units.iter().filter(|u| u.status != "to do").count();
    let repack = units.iter().filter(|u| u.status == "repack").count();
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
    let width = units.iter().map(|u| u.name.len()).max().unwrap_or(4).max(4);
    writeln!(
        out,
        "{:<width$}  level  {:>14}  {:>10}  status    needs",
        "unit", "positions", "memory"
    )?;
    for u in units {
        let needs = if u.needs.is_empty() {
            "-".to_string()
        } else {
            u.needs
                .iter()
                .map(|n| n.split_once('/').map_or(n.as_str(), |(_, m)| m))
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
            u.status,
        )?;
    }
    let disk = plan.disk_estimate();
    writeln!(
        out,
        "disk: a whole run fills about {} at its peak{}; about {} of tables at the end; units \
         on a cluster keep the compressed values of every material read (docs/cluster.md)",
        human_bytes(disk.peak_bytes),
        disk.peak_at.map_or(String::new(), |m| format!(
            ", solving {m} ({})",
            disk_parts(plan, &disk.at_peak)
        )),
        human_bytes(disk.tables_bytes)
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
            past_budget(&plan, &units(&plan))
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
            past_budget(&plan, &units(&plan)),
            None,
            "no budget, no note"
        );
    }

    #[test]
    fn levels_follow_the_needs() {
        let dir = tempfile::tempdir().unwrap();
        let plan = Plan::new(Variant::Brazilian, 4, dir.path()).unwrap();
        let units = units(&plan);
        assert_eq!(units.len(), plan.materials.len());
        for u in &units {
            // Above every need, and right above the highest.
            assert!(
                u.needs_index.iter().all(|&d| units[d].level < u.level),
                "{}",
                u.name
            );
            assert_eq!(
                u.needs_index.is_empty(),
                u.level == 0,
                "{}: level {}",
                u.name,
                u.level
            );
            assert!(
                u.level == 0 || u.needs_index.iter().any(|&d| units[d].level + 1 == u.level),
                "{}",
                u.name
            );
            assert!(!u.finished);
            assert_eq!(u.files.len(), 3);
        }
        let kvk = units.iter().find(|u| u.name == "brazilian/KvK").unwrap();
        assert_eq!(kvk.level, 0);
        assert!(kvk.needs.is_empty());
        // A man that promotes needs the material with a king in its place.
        let mvk = units.iter().find(|u| u.name == "brazilian/KvM").unwrap();
        assert!(mvk.needs.contains(&"brazilian/KvK".to_string()), "{mvk:?}");
        let level = |name: &str| units.iter().find(|u| u.name == name).unwrap().level;
        // A man promotes into the material with a king in its place: KvK, KvM, MvM, then
        // MMvM by way of KMvM (a promotion) and MMvK.
        assert_eq!(
            [
                level("brazilian/KvM"),
                level("brazilian/MvM"),
                level("brazilian/KMvM"),
                level("brazilian/MMvM"),
                level("brazilian/MMvMM"),
            ],
            [1, 2, 3, 4, 6]
        );
    }
}
