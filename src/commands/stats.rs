//! `rafle stats`: what the tables hold, material by material: wins, draws and losses, the
//! classes under the draw rules, and the longest win with a position that reaches it; from the
//! summaries `generate` keeps of the tables there, or counted from the tables themselves.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::ProgressBar;
use rafle_generator::stats::{checked_limits, VariantStats};
use rafle_probe::draughts::{Limits, Material, Variant};
use rafle_probe::toolkit::stats::{material_stats, MaterialStats};
use rafle_probe::toolkit::{printable_path, PositionIndex};
use rafle_probe::{ProbeError, Tablebase};
use serde::Serialize;

use super::generate::write_table;
use super::{parse_variant_choice, VariantChoice};
use crate::output::{other, stderr_line, Failure};

/// The long help of `rafle stats`.
pub const LONG_ABOUT: &str = "\
Count what the tables hold, material by material: the positions (both sides to move), the
wins, draws and losses for the side to move with the draw rules ignored, the positions of
each class under the draw rules 6.2-6.4 with fresh counters (win, cursed win, draw, blessed
loss, loss), and the longest win in plies with the FEN of a position that reaches it (the
first in the table's order); then a total row per variant. The counts are exact: the
positions the tables leave out (those whose side to move must capture, and in the distance
and rule tables the draws and the positions with Black to move) are resolved as the probe
resolves them, so the totals are those of the 'rafle generate' summary.

The counts of a material that 'rafle generate' built are read from the summary it keeps
beside the tables (DIR/<variant>/.rafle-work/<material>.summary): whole, of that material and
of the very tables there now (their lengths and fingerprints), and adding up; every block
checksum of the tables is still checked. A material without such a summary (tables copied
without it, a damaged or edited one) is counted from its tables, with a bar on stderr or,
when stderr is not a terminal, a line there per material counted (and a line a minute within
a long one): counting takes minutes on the default set, its summaries a fraction of a second.

A line before each variant's table gives its materials and the limits of its rule tables.
Without rule tables the class columns show \"-\" (JSON null).

JSON output (--json), one object per material and one per variant total (material
\"total\"): {\"variant\",\"material\",\"positions\",\"wins\",\"draws\",\"losses\",
\"classes\":{\"win\",\"cursed_win\",\"draw\",\"blessed_loss\",\"loss\"},\"longest_win\",
\"longest_win_fen\",\"limits\"}.";

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Which tables: international, brazilian or all.
    #[arg(long, short = 'v', default_value = "all", value_parser = parse_variant_choice)]
    variant: VariantChoice,
    /// Table directory, holding DIR/<variant>/<material>.wdl.
    #[arg(long, value_name = "DIR", env = super::DATA_ENV, hide_env_values = true, default_value = "data")]
    data: PathBuf,
    /// One JSON object per line instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct JsonStats<'a> {
    variant: &'static str,
    material: &'a str,
    positions: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    classes: Option<JsonClasses>,
    longest_win: u16,
    longest_win_fen: Option<&'a str>,
    limits: Option<String>,
}

#[derive(Serialize)]
struct JsonClasses {
    win: u64,
    cursed_win: u64,
    draw: u64,
    blessed_loss: u64,
    loss: u64,
}

pub fn run(args: &StatsArgs) -> Result<(), Failure> {
    let (tables, chosen) = super::open_tables(&args.data, args.variant)?;
    let limits = checked_limits(&tables, &chosen).map_err(other)?;
    // Drawn on stderr only when it is a terminal; the results go to stdout.
    let bar = crate::output::positions_bar();
    let mut out = io::stdout().lock();
    let mut missing = 0;
    for (i, (&variant, limits)) in chosen.iter().zip(limits).enumerate() {
        let stats = VariantStats::read(&tables, &args.data, variant, limits);
        missing += name_left_out(&stats);
        stats.check_checksums(&tables).map_err(other)?;
        let to_count = stats.to_count();
        if to_count > 0 && bar.is_hidden() {
            stderr_line!(
                "{variant}: counting {to_count} of {} materials from their tables (no summary \
                 of them from 'rafle generate' that matches the tables)",
                stats.materials.len()
            );
        }
        let (materials, max_pieces) = (stats.materials.len(), stats.max_pieces);
        let rows = stats
            .rows(|material| count(&tables, variant, material, limits, &bar))
            .map_err(other)?;
        bar.finish_and_clear();
        if args.json {
            for (material, stats) in &rows {
                let json = json_stats(variant, material, stats, limits);
                serde_json::to_writer(&mut out, &json).map_err(io::Error::from)?;
                writeln!(out)?;
            }
        } else {
            if i > 0 {
                writeln!(out)?;
            }
            let rules = limits.map_or("no rule tables".to_string(), |l| format!("rules {l}"));
            writeln!(
                out,
                "{variant}: {materials} materials up to {max_pieces} pieces, {rules}"
            )?;
            write_stats(&mut out, variant, &rows)?;
        }
        out.flush()?;
    }
    match missing {
        0 => Ok(()),
        1 => Err(other("1 table is missing; the totals leave it out")),
        n => Err(other(format!(
            "{n} tables are missing; the totals leave them out"
        ))),
    }
}

/// Names on stderr the tables missing (the run fails at the end) and the stray files (named,
/// not counted) of a variant, and gives how many tables are missing.
fn name_left_out(stats: &VariantStats) -> usize {
    let variant = stats.variant;
    for (material, path) in &stats.missing {
        let _ = writeln!(
            io::stderr(),
            "{variant} {material} missing: {}",
            printable_path(path)
        );
    }
    for path in &stats.stray {
        let _ = writeln!(
            io::stderr(),
            "{variant} stray file left out (no table of a set rafle builds has its \
             material): {}",
            printable_path(path)
        );
    }
    stats.missing.len()
}

/// A material's counts from its tables, every position resolved: with the bar on stderr when
/// it is a terminal, else with a line there when done.
fn count(
    tables: &Tablebase,
    variant: Variant,
    material: Material,
    limits: Option<Limits>,
    bar: &ProgressBar,
) -> Result<MaterialStats, ProbeError> {
    let positions = PositionIndex::count(variant, material);
    bar.reset();
    bar.set_length(positions);
    bar.set_prefix(format!("{variant} {material}"));
    let started = Instant::now();
    // Without the bar, a line a minute says how far a long material is.
    let done = AtomicU64::new(0);
    let said = Mutex::new(started);
    let advance = |n: u64| {
        bar.inc(n);
        let done = done.fetch_add(n, Ordering::Relaxed) + n;
        if !bar.is_hidden() {
            return;
        }
        let Ok(mut said) = said.try_lock() else {
            return;
        };
        if said.elapsed() >= PROGRESS_EVERY {
            *said = Instant::now();
            stderr_line!(
                "{variant} {material}: {done} of {positions} positions counted, {:.0} s",
                started.elapsed().as_secs_f64()
            );
        }
    };
    let stats = material_stats(tables, variant, material, limits, &advance)?;
    if bar.is_hidden() {
        stderr_line!(
            "{variant} {material}: {positions} positions counted in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    Ok(stats)
}

/// How often a material counted without the bar says how far it is.
const PROGRESS_EVERY: Duration = Duration::from_secs(60);

/// Which columns are numbers, aligned right.
const RIGHT_ALIGNED: [bool; COLUMNS] = [
    false, false, true, true, true, true, true, true, true, true, true, true, false,
];
const COLUMNS: usize = 13;

/// Writes one row per material and the total row, in aligned columns.
fn write_stats(
    out: &mut impl Write,
    variant: Variant,
    rows: &[(String, MaterialStats)],
) -> io::Result<()> {
    let mut table: Vec<[String; COLUMNS]> = vec![[
        "variant",
        "material",
        "positions",
        "wins",
        "draws",
        "losses",
        "rule wins",
        "cursed",
        "rule draws",
        "blessed",
        "rule losses",
        "longest",
        "longest win at",
    ]
    .map(String::from)];
    for (material, stats) in rows {
        let class = |slot: usize| {
            stats
                .classes
                .map_or("-".to_string(), |classes| classes[slot].to_string())
        };
        let (plies, fen) = match &stats.longest {
            Some((plies, fen)) => (*plies, fen.as_str()),
            None => (0, "-"),
        };
        table.push([
            variant.to_string(),
            material.clone(),
            stats.positions.to_string(),
            stats.wins.to_string(),
            stats.draws.to_string(),
            stats.losses.to_string(),
            class(0),
            class(1),
            class(2),
            class(3),
            class(4),
            plies.to_string(),
            fen.to_string(),
        ]);
    }
    write_table(out, &table, &RIGHT_ALIGNED)
}

fn json_stats<'a>(
    variant: Variant,
    material: &'a str,
    stats: &'a MaterialStats,
    limits: Option<Limits>,
) -> JsonStats<'a> {
    JsonStats {
        variant: variant.name(),
        material,
        positions: stats.positions,
        wins: stats.wins,
        draws: stats.draws,
        losses: stats.losses,
        classes: stats.classes.map(|c| JsonClasses {
            win: c[0],
            cursed_win: c[1],
            draw: c[2],
            blessed_loss: c[3],
            loss: c[4],
        }),
        longest_win: stats.longest.as_ref().map_or(0, |(plies, _)| *plies),
        longest_win_fen: stats.longest.as_ref().map(|(_, fen)| fen.as_str()),
        limits: limits.map(|l| l.to_string()),
    }
}
