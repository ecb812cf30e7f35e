//! `rafle compare`: two table directories checked to hold the same values on every position of
//! every material they share, through the probing API alone, so that the comparison holds
//! whatever the files look like (a new table format against the old one, say).

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::anyhow;
use clap::Args;
use rafle_generator::compare::{compare, materials_to_compare, Kinds, Outcome, Side, Totals};
use rafle_generator::parse_memory;
use rafle_probe::{
    draughts::{Material, Variant},
    toolkit::{printable_path, PositionIndex},
    Tablebase, DEFAULT_CACHE_BYTES,
};
use serde::Serialize;

use super::{parse_variant_choice, VariantChoice};
use crate::output::{other, stderr_line, Failure};

/// The long help of `rafle compare`.
pub const LONG_ABOUT: &str = "\
Check that two table directories hold the same values on every position. For each material
with tables in both A and B (of each variant with tables in both, or of the one --variant
names), every position of its index (both sides to move, captures included) is probed in
both, through the probing API alone, so that the comparison does not depend on how the
tables are stored: the win/draw/loss, the distance to win, and the class and count under the
draw rules with fresh counters (--kinds picks among them). A line per material gives its
positions and whether they are identical, or how many differ with up to five examples (the
FEN, then A's value vs B's); a material with tables in one directory alone is named
(`only in A`), and a probe that fails (a damaged or missing table) is reported with its
error, which names the file. A total line ends the output. The exit code is 0 when every
material compared is identical, 1 otherwise.

JSON output (--json), one object per material: {\"variant\",\"material\",\"status\"
(identical, differ, only_in_a, only_in_b, in_neither, error),\"positions\",\"differ\",
\"differ_by_kind\":{\"wdl\",\"dtw\",\"rules\"} (null for a kind not compared),\"examples\":
[{\"fen\",\"kind\",\"a\",\"b\"}],\"error\"}; then one total object {\"variant\":null,
\"material\":\"total\",\"status\" (identical or differ),\"positions\",\"materials\",
\"differ\",\"only_in_a\",\"only_in_b\",\"in_neither\",\"errors\"}.";

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The first table directory, holding A/<variant>/<material>.wdl.
    #[arg(value_name = "A")]
    a: PathBuf,
    /// The second table directory.
    #[arg(value_name = "B")]
    b: PathBuf,
    /// Which tables: international, brazilian or all (each variant with tables in both
    /// directories).
    #[arg(long, short = 'v', default_value = "all", value_parser = parse_variant_choice)]
    variant: VariantChoice,
    /// Only the materials of at most N pieces.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..))]
    max_pieces: Option<u32>,
    /// Only these materials, like KKvK,KMvK (either orientation).
    #[arg(long, value_name = "M,...", value_delimiter = ',')]
    materials: Vec<Material>,
    /// The values compared: any of wdl, dtw and rules, comma-separated.
    #[arg(long, value_name = "KINDS", default_value = "wdl,dtw,rules")]
    kinds: Kinds,
    /// Worker threads [default: one per core].
    #[arg(long, short = 't', value_name = "T", value_parser = super::request::parse_threads)]
    threads: Option<u32>,
    /// Budget of each directory's cache of decompressed blocks, like 256M or 1G [default:
    /// 256M].
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    cache: Option<u64>,
    /// One JSON object per line instead of text.
    #[arg(long)]
    json: bool,
}

/// The variants to compare: with `all`, each with tables in both (a note names one that only
/// one directory has); a variant named is compared even if only one directory has it (each of
/// its materials is then `only in`).
fn variants_of(args: &CompareArgs, a: &Tablebase, b: &Tablebase) -> Result<Vec<Variant>, Failure> {
    let mut chosen = Vec::new();
    for variant in args.variant.variants() {
        let in_a = !a.materials(variant).is_empty();
        let in_b = !b.materials(variant).is_empty();
        match (args.variant, in_a, in_b) {
            (_, true, true) | (VariantChoice::One(_), true, false) => chosen.push(variant),
            (VariantChoice::One(_), false, true) => chosen.push(variant),
            (VariantChoice::One(_), false, false) => {
                return Err(super::no_tables(&args.a, Some(variant)))
            }
            (VariantChoice::All, true, false) | (VariantChoice::All, false, true) => {
                let (side, dir) = if in_a { ("A", &args.a) } else { ("B", &args.b) };
                stderr_line!(
                    "rafle: note: {variant} tables only in {side} ({}): not compared",
                    printable_path(dir)
                );
            }
            (VariantChoice::All, false, false) => {}
        }
    }
    if chosen.is_empty() {
        return Err(other(format!(
            "no variant has tables in both {} and {}",
            printable_path(&args.a),
            printable_path(&args.b)
        )));
    }
    Ok(chosen)
}

/// A and B opened, each with the cache `--cache` gives.
fn open_both(args: &CompareArgs) -> Result<(Tablebase, Tablebase), Failure> {
    let cache = args.cache.map_or(DEFAULT_CACHE_BYTES, |bytes| {
        usize::try_from(bytes).unwrap_or(usize::MAX)
    });
    // The shared hint of a missing directory points at --data, which this command has not.
    for (side, dir) in [("A", &args.a), ("B", &args.b)] {
        if !dir.exists() {
            return Err(other(format!(
                "no table directory {} ({side})",
                printable_path(dir)
            )));
        }
    }
    Ok((
        super::open_table_dir(&args.a, cache)?,
        super::open_table_dir(&args.b, cache)?,
    ))
}

/// A note for each variant whose rule tables have other limits in A than in B: their rule
/// values then differ by design.
fn note_other_limits(a: &Tablebase, b: &Tablebase, variants: &[Variant]) {
    for &variant in variants {
        if let (Ok(Some(la)), Ok(Some(lb))) = (a.limits(variant), b.limits(variant)) {
            if la != lb {
                stderr_line!(
                    "rafle: note: the {variant} rule tables have limits {la} in A, {lb} in B"
                );
            }
        }
    }
}

pub fn run(args: &CompareArgs) -> Result<(), Failure> {
    let (a, b) = open_both(args)?;
    let variants = variants_of(args, &a, &b)?;
    if args.kinds.rules {
        note_other_limits(&a, &b, &variants);
    }
    // 0 lets rayon pick one thread per core (or RAYON_NUM_THREADS).
    let threads = args.threads.map_or(0, |t| t as usize);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(other)?;
    // Drawn on stderr only when it is a terminal; the results go to stdout.
    let bar = crate::output::positions_bar();
    let mut out = io::stdout().lock();
    let mut totals = Totals::default();
    for &variant in &variants {
        for material in materials_to_compare(&a, &b, variant, &args.materials, args.max_pieces) {
            bar.reset();
            bar.set_length(PositionIndex::count(variant, material));
            bar.set_prefix(format!("{variant} {material}"));
            let advance = |n| bar.inc(n);
            let outcome = pool.install(|| compare(&a, &b, variant, material, args.kinds, &advance));
            totals.add(&outcome);
            let text = if args.json {
                json_line(variant, material, &outcome, args.kinds)?
            } else {
                text_lines(variant, material, &outcome)
            };
            bar.suspend(|| out.write_all(text.as_bytes()).and_then(|()| out.flush()))?;
        }
    }
    bar.finish_and_clear();
    if args.json {
        let total = json_total(&totals);
        serde_json::to_writer(&mut out, &total).map_err(io::Error::from)?;
        writeln!(out)?;
    } else {
        writeln!(out, "{}", total_line(&totals))?;
    }
    out.flush()?;
    if totals.identical() {
        Ok(())
    } else {
        Err(Failure::Other(anyhow!(
            "the directories differ: {}",
            totals.problems().join("; ")
        )))
    }
}

/// A material's line, and its examples' lines.
fn text_lines(variant: Variant, material: Material, outcome: &Outcome) -> String {
    match outcome {
        Outcome::Compared(r) if r.differ == 0 => {
            format!(
                "{variant} {material}: {} positions, identical\n",
                r.positions
            )
        }
        Outcome::Compared(r) => {
            let kinds: Vec<String> = ["wdl", "dtw", "rules"]
                .into_iter()
                .zip(r.by_kind)
                .filter(|&(_, n)| n > 0)
                .map(|(kind, n)| format!("{kind} {n}"))
                .collect();
            let mut text = format!(
                "{variant} {material}: {} positions, {} differ ({})\n",
                r.positions,
                r.differ,
                kinds.join(", ")
            );
            for example in &r.examples {
                let each: Vec<String> = example
                    .differences
                    .iter()
                    .map(|d| format!("{} {} vs {}", d.kind, d.a, d.b))
                    .collect();
                text += &format!("  {}: {}\n", example.fen, each.join(", "));
            }
            text
        }
        Outcome::Only(side) => format!("{variant} {material}: only in {side:?}\n"),
        Outcome::Neither => format!("{variant} {material}: in neither A nor B\n"),
        Outcome::Error(side, err) => format!("{variant} {material}: error in {side:?}: {err}\n"),
    }
}

/// The total line.
fn total_line(t: &Totals) -> String {
    let materials = if t.materials == 1 {
        "material"
    } else {
        "materials"
    };
    let mut line = format!(
        "total: {} positions in {} {materials}",
        t.positions, t.materials
    );
    if t.identical() {
        line += ", identical";
    } else {
        line += &format!(", {}", t.problems().join(", "));
    }
    line
}

#[derive(Serialize)]
struct JsonMaterial<'a> {
    variant: &'static str,
    material: String,
    status: &'static str,
    positions: Option<u64>,
    differ: Option<u64>,
    differ_by_kind: Option<JsonKinds>,
    examples: Vec<JsonExample<'a>>,
    error: Option<String>,
}

#[derive(Serialize)]
struct JsonKinds {
    wdl: Option<u64>,
    dtw: Option<u64>,
    rules: Option<u64>,
}

#[derive(Serialize)]
struct JsonExample<'a> {
    fen: &'a str,
    kind: &'static str,
    a: &'a str,
    b: &'a str,
}

#[derive(Serialize)]
struct JsonTotal {
    variant: Option<&'static str>,
    material: &'static str,
    status: &'static str,
    positions: u64,
    materials: u64,
    differ: u64,
    only_in_a: u64,
    only_in_b: u64,
    in_neither: u64,
    errors: u64,
}

/// A material's JSON object, on a line.
fn json_line(
    variant: Variant,
    material: Material,
    outcome: &Outcome,
    kinds: Kinds,
) -> Result<String, Failure> {
    let mut json = JsonMaterial {
        variant: variant.name(),
        material: material.to_string(),
        status: "",
        positions: None,
        differ: None,
        differ_by_kind: None,
        examples: Vec::new(),
        error: None,
    };
    match outcome {
        Outcome::Compared(r) => {
            json.status = if r.differ == 0 { "identical" } else { "differ" };
            json.positions = Some(r.positions);
            json.differ = Some(r.differ);
            json.differ_by_kind = Some(JsonKinds {
                wdl: kinds.wdl.then_some(r.by_kind[0]),
                dtw: kinds.dtw.then_some(r.by_kind[1]),
                rules: kinds.rules.then_some(r.by_kind[2]),
            });
            for example in &r.examples {
                for d in &example.differences {
                    json.examples.push(JsonExample {
                        fen: &example.fen,
                        kind: d.kind,
                        a: &d.a,
                        b: &d.b,
                    });
                }
            }
        }
        Outcome::Only(Side::A) => json.status = "only_in_a",
        Outcome::Only(Side::B) => json.status = "only_in_b",
        Outcome::Neither => json.status = "in_neither",
        Outcome::Error(side, err) => {
            json.status = "error";
            json.error = Some(format!("in {side:?}: {err}"));
        }
    }
    let mut line = serde_json::to_string(&json).map_err(other)?;
    line.push('\n');
    Ok(line)
}

fn json_total(t: &Totals) -> JsonTotal {
    JsonTotal {
        variant: None,
        material: "total",
        status: if t.identical() { "identical" } else { "differ" },
        positions: t.positions,
        materials: t.materials,
        differ: t.differ,
        only_in_a: t.only_a,
        only_in_b: t.only_b,
        in_neither: t.neither,
        errors: t.errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rafle_generator::compare::Report;

    #[test]
    fn the_total_line_says_what_is_wrong() {
        let mut t = Totals::default();
        t.add(&Outcome::Compared(Report {
            positions: 10,
            ..Report::default()
        }));
        assert_eq!(
            total_line(&t),
            "total: 10 positions in 1 material, identical"
        );
        t.add(&Outcome::Only(Side::B));
        assert_eq!(
            total_line(&t),
            "total: 10 positions in 1 material, 1 material only in B"
        );
    }
}
