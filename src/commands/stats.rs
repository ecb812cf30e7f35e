//! `rafle stats`: what the tables hold, material by material, read from the tables themselves:
//! wins, draws and losses, the classes under the draw rules, and the longest win with a
//! position that reaches it.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use rafle_probe::stats::{material_stats, MaterialStats};
use rafle_probe::{printable_path, Limits, PositionIndex, Variant};
use serde::Serialize;

use super::generate::write_table;
use super::{parse_variant_choice, VariantChoice};
use crate::output::{other, Failure};

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
    #[arg(long, value_name = "DIR", default_value = "data")]
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
    // Refused before any work: tables of mixed limits have no one meaning.
    let limits = chosen
        .iter()
        .map(|&v| tables.limits(v).map_err(other))
        .collect::<Result<Vec<Option<Limits>>, Failure>>()?;
    // And a material whose tables store sides to move that do not agree (one built with
    // --compact among tables built without): the values read through it would be wrong.
    for &variant in &chosen {
        for material in tables.materials(variant) {
            tables.check_halves(variant, material).map_err(other)?;
        }
    }
    // Drawn on stderr only when it is a terminal; the results go to stdout.
    let bar = crate::output::positions_bar();
    let mut out = io::stdout().lock();
    let mut missing = 0;
    for (i, (&variant, limits)) in chosen.iter().zip(limits).enumerate() {
        // Counted without them, the totals would look complete: each is named, and the run
        // fails at the end.
        for (material, _, path) in tables.missing_tables(variant) {
            let _ = writeln!(
                io::stderr(),
                "{variant} {material} missing: {}",
                printable_path(&path)
            );
            missing += 1;
        }
        // Named, not counted: a file named like a table no set can hold is no table, and
        // leaves the totals whole.
        for path in tables.stray_files(variant) {
            let _ = writeln!(
                io::stderr(),
                "{variant} stray file left out (no table of a set rafle builds has its \
                 material): {}",
                printable_path(path)
            );
        }
        let materials = tables.materials(variant);
        let mut rows = Vec::with_capacity(materials.len());
        for &material in &materials {
            bar.reset();
            bar.set_length(PositionIndex::count(variant, material));
            bar.set_prefix(format!("{variant} {material}"));
            let stats = material_stats(&tables, variant, material, limits, &|n| bar.inc(n))
                .map_err(other)?;
            rows.push((material.to_string(), stats));
        }
        bar.finish_and_clear();
        let mut total = MaterialStats {
            classes: limits.map(|_| [0; 5]),
            ..MaterialStats::default()
        };
        for (_, stats) in &rows {
            total.add(stats);
        }
        rows.push(("total".to_string(), total));
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
                "{variant}: {} materials up to {} pieces, {rules}",
                materials.len(),
                tables.max_pieces(variant)
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
