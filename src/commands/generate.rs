//! `rafle generate`: build the win/draw/loss tables of one or both variants, with progress bars
//! on a terminal and a summary table at the end.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use clap::Args;
use indicatif::{MultiProgress, ProgressBar, ProgressState, ProgressStyle};
use rafle_generator::{
    generate, human_bytes, parse_memory, peak_resident_memory, MaterialSummary, Plan, PlanRequest,
    Progress, Scope, Tables, UnitName, UNITS_PER_POSITION,
};
use rafle_probe::draughts::{Limits, Material, Variant};

use super::request::{default_budget, default_pieces, failure, limits_of, parse_tables};
use super::{parse_variant_choice, VariantChoice};
use crate::output::{input, other, Failure};

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Which tables: international, brazilian or all.
    #[arg(long, short = 'v', default_value = "all", value_parser = parse_variant_choice)]
    variant: VariantChoice,
    /// Most pieces on the board, for every chosen variant [default: 5 for brazilian, 4 for
    /// international].
    #[arg(long, short = 'p', value_name = "N", value_parser = super::request::parse_pieces)]
    pieces: Option<u32>,
    /// One unit of work: this material alone (like KKMvK), from the finished tables of the
    /// materials its moves reach, which must be in DIR. Needs --variant international or
    /// brazilian.
    #[arg(long, value_name = "MATERIAL", conflicts_with = "pieces")]
    material: Option<Material>,
    /// One unit of work by its name in 'rafle plan', <variant>/<material> (like
    /// brazilian/KKMvK): the same as --variant and --material; or
    /// <variant>/<material>/seed-<part>, one seed part of a large kings-only material, which
    /// its material's unit then reads. A finished unit is checked and reused; any failure
    /// exits non-zero, so a scheduler can retry it.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["pieces", "material", "variant"])]
    unit: Option<UnitName>,
    /// With --unit or --material: the unit is one of the set of every material up to N pieces
    /// (as 'rafle slurm submit' runs it). It keeps of its own values only the sides to move
    /// that the set's unfinished materials read, and once done it removes the kept values of
    /// each material of the set whose readers in the set are all finished, so that units keep
    /// a material's values only while a unit still to finish reads them.
    #[arg(long, value_name = "N", value_parser = super::request::parse_pieces)]
    set: Option<u32>,
    /// Table directory; tables go to DIR/<variant>/<material>.wdl.
    #[arg(long, value_name = "DIR", env = super::DATA_ENV, hide_env_values = true, default_value = "data")]
    data: PathBuf,
    /// Worker threads [default: one per core].
    #[arg(long, short = 't', value_name = "T", value_parser = super::request::parse_threads)]
    threads: Option<u32>,
    /// Draw-rule limits in plies for the rule tables, like 6.2=50,6.3=32,6.4=10; rules left
    /// out keep the FMJD limit of each variant (6.2=50, 6.3=32 international or 40 Brazilian,
    /// 6.4=10).
    #[arg(long, value_name = "LIMITS")]
    limits: Option<String>,
    /// Memory budget, like 8G or 512M [default: the memory free, less a tenth (at least
    /// 512 MiB)]. Generation keeps to it; a budget below what the largest slice needs (with
    /// the least cache of decompressed blocks, 64 MiB) is refused.
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    memory: Option<u64>,
    /// Which tables: all (win/draw/loss, distance to win, draw rules) or wdl (win/draw/loss
    /// alone, about 1.7 times as fast).
    #[arg(long, value_name = "KINDS", default_value = "all", value_parser = parse_tables)]
    tables: Tables,
    /// Write compact tables: each of a material's three tables stores one side to move, the
    /// one that compresses smaller (win/draw/loss about 2.6 times smaller, distance and rules
    /// about a third), but a probe of the other side searches its moves (several times slower
    /// on average). Tables already valid on disk are kept as they are.
    #[arg(long)]
    compact: bool,
    /// Set by 'rafle slurm submit': the token its stamp in DIR holds, so that a job on a node
    /// where DIR is not the shared directory stops before writing anything.
    #[arg(long, value_name = "TOKEN", hide = true)]
    cluster_stamp: Option<String>,
}

pub fn run(args: &GenerateArgs) -> Result<(), Failure> {
    if let Some(token) = &args.cluster_stamp {
        super::cluster_stamp::check_stamp(&args.data, token)?;
    }
    let plans = plans(args)?;
    if built_unoptimized() {
        note(UNOPTIMIZED);
    }
    for plan in &plans {
        note(&plan.headline());
        let peak = plan.disk_estimate().peak_bytes;
        if let Some(free) = free_disk(&plan.dir).filter(|&free| free < peak) {
            note(&format!(
                "rafle: warning: {} has {} free, and this run may fill about {} at its peak \
                 (estimated as if every material were solved; see 'rafle plan')",
                rafle_probe::toolkit::printable_path(&plan.dir),
                human_bytes(free),
                human_bytes(peak)
            ));
        }
    }
    // 0 lets rayon pick one thread per core (or RAYON_NUM_THREADS).
    let threads = args.threads.map_or(0, |t| t as usize);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(other)?;
    let mut out = io::stdout().lock();
    for (i, plan) in plans.iter().enumerate() {
        let summaries = {
            let bars = Bars::new(plan);
            pool.install(|| generate(plan, &bars))
        }
        .map_err(failure)?;
        if i > 0 {
            writeln!(out)?;
        }
        write_summary(&mut out, &summaries, plan.compact)?;
        out.flush()?;
        if let Some(line) = other_form_note(&summaries, plan.compact) {
            note(&line);
        }
    }
    Ok(())
}

/// The plan of each variant the arguments choose, checked before any work (variants are
/// generated one after the other, so each must fit on its own).
fn plans(args: &GenerateArgs) -> Result<Vec<Plan>, Failure> {
    let (choice, material) = match args.unit {
        Some(unit) => (VariantChoice::One(unit.variant), Some(unit.material)),
        None => (args.variant, args.material),
    };
    let part = args.unit.and_then(|unit| unit.part);
    // The limits are read first: a typo in them is reported before anything else is done.
    let limits = choice
        .variants()
        .into_iter()
        .map(|v| limits_of(v, args.limits.as_deref()))
        .collect::<Result<Vec<Limits>, Failure>>()?;
    if args.set.is_some() && material.is_none() {
        return Err(input(anyhow::anyhow!(
            "--set names the set a unit of work belongs to: it needs --unit or --material"
        )));
    }
    if material.is_some() && choice == VariantChoice::All {
        return Err(input(anyhow::anyhow!(
            "--material needs --variant international or --variant brazilian"
        )));
    }
    choice
        .variants()
        .into_iter()
        .zip(limits)
        .map(|(variant, limits)| {
            let scope = match (material, part) {
                (Some(material), Some(part)) => Scope::SeedPart(material, part),
                (Some(material), None) => Scope::Material(material),
                (None, _) => Scope::UpTo(args.pieces.unwrap_or_else(|| default_pieces(variant))),
            };
            let request = PlanRequest {
                variant,
                scope,
                limits: Some(limits),
                tables: args.tables,
                compact: args.compact,
                budget: args.memory.or_else(default_budget),
            };
            let plan = request.checked_plan(&args.data).map_err(failure)?;
            match args.set {
                Some(pieces) => plan.with_set(pieces).map_err(failure),
                None => Ok(plan),
            }
        })
        .collect()
}

/// What `generate` says when the binary was built without optimizations.
const UNOPTIMIZED: &str = "rafle: warning: this rafle is built without optimizations and \
     generates about 10 times slower; build it with 'cargo build --release' or install it with \
     'cargo install --locked --path .'";

/// Whether this binary was built without optimizations (`cargo build` or `cargo run` without
/// `--release`), as the build script tells.
fn built_unoptimized() -> bool {
    env!("RAFLE_OPT_LEVEL") == "0"
}

/// Bytes an unprivileged writer has free on the filesystem of `dir`, or of its nearest
/// ancestor that exists (the run creates the rest); `None` if it cannot be told.
fn free_disk(dir: &std::path::Path) -> Option<u64> {
    let at = dir
        .ancestors()
        .map(|a| {
            if a.as_os_str().is_empty() {
                std::path::Path::new(".")
            } else {
                a
            }
        })
        .find(|a| a.exists())?;
    let stat = rustix::fs::statvfs(at).ok()?;
    Some(stat.f_bavail.saturating_mul(stat.f_frsize))
}

/// A line on stderr for the person watching; a closed stderr is no reason to stop generating.
fn note(line: &str) {
    let _ = writeln!(io::stderr(), "{line}");
}

/// The progress bars of one variant: the whole plan, and the material being solved. Both are
/// drawn on stderr, and only when it is a terminal.
struct Bars {
    multi: MultiProgress,
    overall: ProgressBar,
    material: ProgressBar,
    /// Units of the materials already finished, to resynchronise the overall bar at each
    /// material's end whatever the generator reported along the way.
    finished_units: AtomicU64,
    /// Whether the conversion of tables of the previous format version was announced.
    converting: std::sync::atomic::AtomicBool,
    /// Whether the run asked for compact tables.
    compact: bool,
}

impl Bars {
    fn new(plan: &Plan) -> Bars {
        let multi = MultiProgress::new();
        let overall = multi.add(
            ProgressBar::new(UNITS_PER_POSITION * plan.positions())
                .with_style(style(
                    "{prefix:>13} [{bar:40}] {percent:>3}%  {positions_per_sec}  ETA {eta}",
                ))
                .with_prefix(plan.variant.name()),
        );
        let material = multi.add(ProgressBar::new(0).with_style(style(
            "{prefix:>13} [{bar:40}] {human_pos}/{human_len} units  {positions_per_sec}  ETA {eta}",
        )));
        Bars {
            multi,
            overall,
            material,
            finished_units: AtomicU64::new(0),
            converting: std::sync::atomic::AtomicBool::new(false),
            compact: plan.compact,
        }
    }
}

/// A bar style from a template of this file, with the `positions_per_sec` key: work units
/// come [`UNITS_PER_POSITION`] a position.
fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ")
        .with_key(
            "positions_per_sec",
            |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(
                    w,
                    "{:.0} positions/s",
                    state.per_sec() / UNITS_PER_POSITION as f64
                );
            },
        )
}

impl Progress for Bars {
    fn leftovers_removed(&self, dir: &std::path::Path, count: usize) {
        let files = if count == 1 { "file" } else { "files" };
        self.multi.suspend(|| {
            note(&format!(
                "removed {count} temporary {files} left in {} by an interrupted run",
                rafle_probe::toolkit::printable_path(dir)
            ))
        });
    }

    fn waiting_for_unit(&self, dir: &std::path::Path, material: Material, pid: Option<u32>) {
        let who = pid.map_or_else(String::new, |pid| format!(" (pid {pid})"));
        self.multi.suspend(|| {
            note(&format!(
                "another rafle generate{who} is writing {material} in {}: waiting for it, \
                 then checking its tables",
                rafle_probe::toolkit::printable_path(dir)
            ))
        });
    }

    fn values_released(&self, variant: Variant, pieces: u32, materials: &[Material]) {
        let names: Vec<String> = materials.iter().map(Material::to_string).collect();
        self.multi.suspend(|| {
            note(&format!(
                "{variant}: removed the kept values of {}: every material up to {pieces} \
                 pieces that reads them is finished",
                names.join(", ")
            ))
        });
    }

    fn converting(&self, variant: Variant, material: Material, positions: u64) {
        if !self.converting.swap(true, Ordering::Relaxed) {
            self.multi.suspend(|| {
                note(&format!(
                    "converting the {variant} tables of format version 2 to version 3 \
                     (their values are read, not solved again)"
                ))
            });
        }
        self.material.reset();
        self.material.set_length(positions);
        self.material.set_prefix(format!("{material} (converting)"));
    }

    fn damaged_work_file(&self, path: &std::path::Path, what: &str) {
        self.multi.suspend(|| {
            note(&format!(
                "{} is damaged: {what}",
                rafle_probe::toolkit::printable_path(path)
            ))
        });
    }

    fn material_started(&self, _variant: Variant, material: Material, positions: u64) {
        self.material.reset();
        self.material.set_length(UNITS_PER_POSITION * positions);
        self.material.set_prefix(material.to_string());
    }

    fn advance(&self, units: u64) {
        self.material.inc(units);
        self.overall.inc(units);
    }

    fn material_finished(&self, summary: &MaterialSummary) {
        let units = UNITS_PER_POSITION * summary.positions;
        let done = self.finished_units.fetch_add(units, Ordering::Relaxed) + units;
        self.overall.set_position(done);
        // Without bars (a log file, CI), a line per material shows the run is alive.
        if self.overall.is_hidden() {
            let how = if summary.converted {
                "converted".to_string()
            } else if summary.reused {
                reused(summary, self.compact).to_string()
            } else {
                format!(
                    "{:.1} s, {:.2} M positions/s",
                    summary.seconds,
                    summary.positions as f64 / summary.seconds.max(1e-9) / 1e6
                )
            };
            let peak = peak_resident_memory().map_or(String::new(), |b| {
                format!(", peak memory so far {}", human_bytes(b))
            });
            let solved = |n: u64| solved_or_dash(summary, n);
            note(&format!(
                "{} {}: {} positions, {how}{peak}; bytes wdl {} dtw {} rules {}; longest win {}, \
                 cursed wins {}, blessed losses {}",
                summary.variant,
                summary.material,
                summary.positions,
                summary.bytes,
                summary.dtw_bytes,
                summary.draw_rules_bytes,
                solved(u64::from(summary.longest_win)),
                solved(summary.cursed_wins),
                solved(summary.blessed_losses)
            ));
        }
    }
}

impl Drop for Bars {
    /// Clears the bars, also when generation failed, so that the summary or the error line
    /// is not mixed with them.
    fn drop(&mut self) {
        self.material.finish_and_clear();
        self.overall.finish_and_clear();
        let _ = self.multi.clear();
    }
}

/// Which columns are numbers, aligned right.
const RIGHT_ALIGNED: [bool; COLUMNS] = [
    false, false, true, true, true, true, true, true, true, true, true, true, true, false,
];
const COLUMNS: usize = 14;

/// Writes one row per material and a total row, in aligned columns.
fn write_summary(
    out: &mut impl Write,
    summaries: &[MaterialSummary],
    compact: bool,
) -> io::Result<()> {
    let mut rows: Vec<[String; COLUMNS]> = vec![[
        "variant",
        "material",
        "positions",
        "wins",
        "draws",
        "losses",
        "cursed",
        "blessed",
        "longest",
        "seconds",
        "bytes",
        "dtw bytes",
        "rules bytes",
        "note",
    ]
    .map(String::from)];
    rows.extend(summaries.iter().map(|s| summary_row(s, compact)));
    rows.push(total_row(summaries));
    write_table(out, &rows, &RIGHT_ALIGNED)
}

/// The row of one material, in a run that asked for compact tables or not.
fn summary_row(s: &MaterialSummary, compact: bool) -> [String; COLUMNS] {
    let note = if let Some((part, parts)) = s.seed_part {
        let done = if s.reused { "already seeded" } else { "seeded" };
        format!("seed part {part} of {parts} {done}")
    } else if s.converted {
        "converted from format version 2".to_string()
    } else if s.reused {
        reused(s, compact).to_string()
    } else if let Some(reason) = &s.rebuilt_because {
        format!("rebuilt: {reason}")
    } else {
        String::new()
    };
    [
        s.variant.to_string(),
        s.material.to_string(),
        s.positions.to_string(),
        s.wins.to_string(),
        s.draws.to_string(),
        s.losses.to_string(),
        solved_or_dash(s, s.cursed_wins),
        solved_or_dash(s, s.blessed_losses),
        solved_or_dash(s, u64::from(s.longest_win)),
        format!("{:.3}", s.seconds),
        s.bytes.to_string(),
        s.dtw_bytes.to_string(),
        s.draw_rules_bytes.to_string(),
        note,
    ]
}

/// How a reused material is noted: with the form its tables keep when it is not the one the
/// run asked for (`compact`), since tables already valid are not written again.
fn reused(s: &MaterialSummary, compact: bool) -> &'static str {
    match (s.compact, compact) {
        (true, false) => "reused (compact)",
        (false, true) => "reused (not compact)",
        _ => "reused",
    }
}

/// The line that tells how many materials kept tables of the other form than the run asked
/// for (`compact`), and how to change them; `None` if none did.
fn other_form_note(summaries: &[MaterialSummary], compact: bool) -> Option<String> {
    let kept = summaries
        .iter()
        .filter(|s| s.seed_part.is_none() && s.reused && !s.converted && s.compact != compact)
        .count();
    if kept == 0 {
        return None;
    }
    let (materials, their) = if kept == 1 {
        ("material", "its")
    } else {
        ("materials", "their")
    };
    Some(if compact {
        format!(
            "rafle: --compact was asked, but {kept} {materials} kept {their} tables of both sides \
             to move (valid tables are not written again); to make them compact, remove \
             {their} .wdl, .dtw and .rules files and run generate again"
        )
    } else {
        format!(
            "rafle: {kept} {materials} kept {their} compact tables (valid tables are not written \
             again; without --compact new ones are made for probing fast); to change them, \
             remove {their} .wdl, .dtw and .rules files and run generate again"
        )
    })
}

/// A count that only the distances and the draw rules give, or `-` when a material was solved
/// for win/draw/loss alone.
fn solved_or_dash(s: &MaterialSummary, n: u64) -> String {
    if s.rules_solved {
        n.to_string()
    } else {
        "-".to_string()
    }
}

/// The total row of a variant's materials, with the sizes in bits a position.
fn total_row(summaries: &[MaterialSummary]) -> [String; COLUMNS] {
    let sum = |field: fn(&MaterialSummary) -> u64| summaries.iter().map(field).sum::<u64>();
    let (positions, bytes, dtw_bytes, draw_rules_bytes) = (
        sum(|s| s.positions),
        sum(|s| s.bytes),
        sum(|s| s.dtw_bytes),
        sum(|s| s.draw_rules_bytes),
    );
    // With --tables wdl the longest win, the rule counts and the other tables' sizes mean
    // nothing.
    let all_solved = summaries.iter().all(|s| s.rules_solved);
    let rules_solved_or_dash = |n: u64| {
        if all_solved {
            n.to_string()
        } else {
            "-".to_string()
        }
    };
    let bits = |bytes: u64| {
        if positions == 0 {
            0.0
        } else {
            bytes as f64 * 8.0 / positions as f64
        }
    };
    [
        summaries
            .first()
            .map(|s| s.variant.to_string())
            .unwrap_or_default(),
        "total".to_string(),
        positions.to_string(),
        sum(|s| s.wins).to_string(),
        sum(|s| s.draws).to_string(),
        sum(|s| s.losses).to_string(),
        rules_solved_or_dash(sum(|s| s.cursed_wins)),
        rules_solved_or_dash(sum(|s| s.blessed_losses)),
        rules_solved_or_dash(
            summaries
                .iter()
                .map(|s| u64::from(s.longest_win))
                .max()
                .unwrap_or(0),
        ),
        format!("{:.3}", summaries.iter().map(|s| s.seconds).sum::<f64>()),
        bytes.to_string(),
        dtw_bytes.to_string(),
        draw_rules_bytes.to_string(),
        if all_solved {
            format!(
                "{:.3} bits/position, dtw {:.3}, rules {:.3}",
                bits(bytes),
                bits(dtw_bytes),
                bits(draw_rules_bytes)
            )
        } else {
            format!("{:.3} bits/position", bits(bytes))
        },
    ]
}

/// Writes rows in columns as wide as their widest cell, two spaces apart, numbers aligned
/// right, trailing spaces trimmed.
pub fn write_table<const N: usize>(
    out: &mut impl Write,
    rows: &[[String; N]],
    right_aligned: &[bool; N],
) -> io::Result<()> {
    let mut widths = [0usize; N];
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            let pad = " ".repeat(widths[c] - cell.chars().count());
            if right_aligned[c] {
                line.push_str(&pad);
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&pad);
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_disk_is_read_where_the_directory_will_be() {
        let dir = tempfile::tempdir().unwrap();
        let here = free_disk(dir.path()).unwrap();
        assert!(here > 0);
        // A directory the run has yet to create: the filesystem of its nearest ancestor.
        let later = free_disk(&dir.path().join("data/international")).unwrap();
        let ratio = later as f64 / here as f64;
        assert!((0.9..1.1).contains(&ratio), "{here} then {later}");
        // A relative path: the working directory's filesystem.
        assert!(free_disk(std::path::Path::new("no-such-dir/data")).is_some());
    }
}
