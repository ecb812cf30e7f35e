//! `rafle compare`: two table directories checked to hold the same values on every position of
//! every material they share, through the probing API alone, so that the comparison holds
//! whatever the files look like (a new table format against the old one, say).

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::anyhow;
use clap::Args;
use rafle_generator::parse_memory;
use rafle_probe::{
    printable_path, Counters, Dtw, Material, Position, PositionIndex, ProbeError, RuleValue,
    Tablebase, Variant, Wdl, DEFAULT_CACHE_BYTES,
};
use rayon::prelude::*;
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
    #[arg(long, value_name = "KINDS", default_value = "wdl,dtw,rules", value_parser = parse_kinds)]
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

/// The kinds of values compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kinds {
    wdl: bool,
    dtw: bool,
    rules: bool,
}

/// Reads `--kinds`: a comma-separated list of `wdl`, `dtw` and `rules`.
fn parse_kinds(text: &str) -> Result<Kinds, String> {
    let mut kinds = Kinds {
        wdl: false,
        dtw: false,
        rules: false,
    };
    for item in text.split(',') {
        match item.trim() {
            "wdl" => kinds.wdl = true,
            "dtw" => kinds.dtw = true,
            "rules" => kinds.rules = true,
            other => {
                return Err(format!(
                    "unknown kind {:?} (expected wdl, dtw or rules, comma-separated)",
                    rafle_draughts::excerpt(other)
                ))
            }
        }
    }
    Ok(kinds)
}

/// Positions walked by one task, a chunk's cursor stepping through them in index order: few
/// enough that a small material still spreads over the threads.
const CHUNK: u64 = 1 << 12;

/// Examples kept per material.
const EXAMPLES: usize = 5;

/// The values of one position in one directory, `None` for a kind not compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Values {
    wdl: Option<Wdl>,
    dtw: Option<Dtw>,
    rules: Option<RuleValue>,
}

impl Values {
    /// The values of `pos` in `tables`.
    fn probe(tables: &Tablebase, pos: &Position, kinds: Kinds) -> Result<Values, ProbeError> {
        Ok(Values {
            wdl: kinds.wdl.then(|| tables.probe_wdl(pos)).transpose()?,
            dtw: kinds.dtw.then(|| tables.probe_dtw(pos)).transpose()?,
            rules: kinds
                .rules
                .then(|| {
                    tables
                        .probe_draw_rules(pos, Counters::FRESH)
                        .map(|o| o.value)
                })
                .transpose()?,
        })
    }

    /// The kinds whose values differ, with A's and B's.
    fn differences(&self, b: &Values) -> Vec<Difference> {
        fn one<T: PartialEq + ToString>(
            kind: &'static str,
            a: Option<T>,
            b: Option<T>,
        ) -> Option<Difference> {
            match (a, b) {
                (Some(a), Some(b)) if a != b => Some(Difference {
                    kind,
                    a: a.to_string(),
                    b: b.to_string(),
                }),
                _ => None,
            }
        }
        [
            one("wdl", self.wdl, b.wdl),
            one("dtw", self.dtw, b.dtw),
            one("rules", self.rules, b.rules),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// One kind of value that differs at a position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct Difference {
    kind: &'static str,
    a: String,
    b: String,
}

/// A position whose values differ.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Example {
    index: u64,
    fen: String,
    differences: Vec<Difference>,
}

/// The comparison of a material, or of a part of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Report {
    positions: u64,
    /// Positions where any value differs.
    differ: u64,
    /// Positions where the win/draw/loss, the distance, the rule value differ.
    by_kind: [u64; 3],
    /// The first positions that differ, in index order, at most [`EXAMPLES`].
    examples: Vec<Example>,
}

impl Report {
    /// The sum of two parts; the examples are the first of both.
    fn merge(mut self, other: Report) -> Report {
        self.positions += other.positions;
        self.differ += other.differ;
        for (mine, theirs) in self.by_kind.iter_mut().zip(other.by_kind) {
            *mine += theirs;
        }
        self.examples.extend(other.examples);
        self.examples.sort_by_key(|e| e.index);
        self.examples.truncate(EXAMPLES);
        self
    }

    /// Counts a position whose values differ.
    fn record(&mut self, index: u64, pos: &Position, differences: Vec<Difference>) {
        self.differ += 1;
        for d in &differences {
            let slot = match d.kind {
                "wdl" => 0,
                "dtw" => 1,
                _ => 2,
            };
            self.by_kind[slot] += 1;
        }
        if self.examples.len() < EXAMPLES {
            self.examples.push(Example {
                index,
                fen: pos.to_fen(),
                differences,
            });
        }
    }
}

/// Which directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    A,
    B,
}

/// What became of one material.
#[derive(Debug)]
enum Outcome {
    Compared(Report),
    Only(Side),
    /// Named with `--materials`, in neither directory.
    Neither,
    /// A probe failed, in A or B.
    Error(Side, ProbeError),
}

/// Compares every position of `material` in `a` and `b`, in chunks on the pool's threads.
fn compare_material(
    a: &Tablebase,
    b: &Tablebase,
    variant: Variant,
    material: Material,
    kinds: Kinds,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Report, (Side, ProbeError)> {
    let index = PositionIndex::new(variant, material);
    let size = index.size();
    (0..size.div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let start = chunk * CHUNK;
            let end = (start + CHUNK).min(size);
            let mut report = Report {
                positions: end - start,
                ..Report::default()
            };
            let mut cursor = index.cursor(start);
            for at in start..end {
                let pos = cursor.position();
                cursor.advance();
                let va = Values::probe(a, &pos, kinds).map_err(|e| (Side::A, e))?;
                let vb = Values::probe(b, &pos, kinds).map_err(|e| (Side::B, e))?;
                if va != vb {
                    report.record(at, &pos, va.differences(&vb));
                }
            }
            progress(end - start);
            Ok(report)
        })
        .try_reduce(Report::default, |x, y| Ok(x.merge(y)))
}

/// The materials of `variant` to look at: those of either directory, as the filters keep
/// them, and those `--materials` names that neither has; in dependency order.
fn materials_of(
    args: &CompareArgs,
    a: &Tablebase,
    b: &Tablebase,
    variant: Variant,
) -> Vec<Material> {
    let mut list = a.materials(variant);
    list.extend(b.materials(variant));
    if !args.materials.is_empty() {
        let wanted: Vec<Material> = args.materials.iter().map(|m| m.canonical()).collect();
        list.retain(|m| wanted.contains(m));
        list.extend(wanted);
    }
    if let Some(most) = args.max_pieces {
        list.retain(|m| m.pieces() <= most);
    }
    list.sort_by_key(|m| (m.pieces(), m.men(), *m));
    list.dedup();
    list
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

/// The sums over every material.
#[derive(Debug, Default)]
struct Totals {
    positions: u64,
    materials: u64,
    differ: u64,
    materials_differ: u64,
    only_a: u64,
    only_b: u64,
    neither: u64,
    errors: u64,
}

impl Totals {
    fn add(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Compared(r) => {
                self.positions += r.positions;
                self.materials += 1;
                self.differ += r.differ;
                self.materials_differ += u64::from(r.differ > 0);
            }
            Outcome::Only(Side::A) => self.only_a += 1,
            Outcome::Only(Side::B) => self.only_b += 1,
            Outcome::Neither => self.neither += 1,
            Outcome::Error(..) => self.errors += 1,
        }
    }

    fn identical(&self) -> bool {
        self.differ == 0
            && self.only_a == 0
            && self.only_b == 0
            && self.neither == 0
            && self.errors == 0
    }

    /// What is wrong, as a list; empty when all is identical.
    fn problems(&self) -> Vec<String> {
        let materials = |n: u64| {
            if n == 1 {
                "1 material".to_string()
            } else {
                format!("{n} materials")
            }
        };
        let mut problems = Vec::new();
        if self.differ > 0 {
            problems.push(format!(
                "{} positions differ in {}",
                self.differ,
                materials(self.materials_differ)
            ));
        }
        if self.only_a > 0 {
            problems.push(format!("{} only in A", materials(self.only_a)));
        }
        if self.only_b > 0 {
            problems.push(format!("{} only in B", materials(self.only_b)));
        }
        if self.neither > 0 {
            problems.push(format!("{} in neither", materials(self.neither)));
        }
        if self.errors > 0 {
            problems.push(format!(
                "{} not compared (probe errors)",
                materials(self.errors)
            ));
        }
        problems
    }
}

pub fn run(args: &CompareArgs) -> Result<(), Failure> {
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
    let a = super::open_table_dir(&args.a, cache)?;
    let b = super::open_table_dir(&args.b, cache)?;
    let variants = variants_of(args, &a, &b)?;
    if args.kinds.rules {
        for &variant in &variants {
            if let (Ok(Some(la)), Ok(Some(lb))) = (a.limits(variant), b.limits(variant)) {
                if la != lb {
                    stderr_line!(
                        "rafle: note: the {variant} rule tables have limits {la} in A, {lb} in B"
                    );
                }
            }
        }
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
        let present_a = a.materials(variant);
        let present_b = b.materials(variant);
        for material in materials_of(args, &a, &b, variant) {
            let outcome = match (present_a.contains(&material), present_b.contains(&material)) {
                (true, true) => {
                    bar.reset();
                    bar.set_length(PositionIndex::count(variant, material));
                    bar.set_prefix(format!("{variant} {material}"));
                    let advance = |n| bar.inc(n);
                    let compared = pool.install(|| {
                        compare_material(&a, &b, variant, material, args.kinds, &advance)
                    });
                    match compared {
                        Ok(report) => Outcome::Compared(report),
                        Err((side, err)) => Outcome::Error(side, err),
                    }
                }
                (true, false) => Outcome::Only(Side::A),
                (false, true) => Outcome::Only(Side::B),
                (false, false) => Outcome::Neither,
            };
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

    #[test]
    fn kinds_read_as_a_list() {
        let all = parse_kinds("wdl,dtw,rules").unwrap();
        assert!(all.wdl && all.dtw && all.rules);
        let rules = parse_kinds("rules").unwrap();
        assert!(!rules.wdl && !rules.dtw && rules.rules);
        for bad in ["", "wdl,", "draw", "wdl;dtw"] {
            assert!(parse_kinds(bad).is_err(), "{bad}");
        }
    }

    fn example(index: u64) -> Example {
        Example {
            index,
            fen: format!("W:W{index}:B1"),
            differences: vec![Difference {
                kind: "wdl",
                a: "win".into(),
                b: "draw".into(),
            }],
        }
    }

    #[test]
    fn merged_reports_keep_the_first_examples_in_index_order() {
        let part = |first: u64, n: u64| Report {
            positions: 100,
            differ: n,
            by_kind: [n, 0, 0],
            examples: (first..first + n.min(5)).map(example).collect(),
        };
        // Parts merged in any order: rayon's reduction is not in index order.
        let merged = part(50, 4).merge(part(10, 3)).merge(part(90, 2));
        assert_eq!(merged.positions, 300);
        assert_eq!(merged.differ, 9);
        assert_eq!(merged.by_kind, [9, 0, 0]);
        let indices: Vec<u64> = merged.examples.iter().map(|e| e.index).collect();
        assert_eq!(indices, [10, 11, 12, 50, 51]);
    }

    #[test]
    fn a_difference_names_each_kind_that_differs() {
        let a = Values {
            wdl: Some(Wdl::Win),
            dtw: Some(Dtw::Win(3)),
            rules: None,
        };
        let b = Values {
            wdl: Some(Wdl::Win),
            dtw: Some(Dtw::Win(5)),
            rules: None,
        };
        let d = a.differences(&b);
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].kind, d[0].a.as_str(), d[0].b.as_str()),
            ("dtw", "win in 3 plies", "win in 5 plies")
        );
        assert!(a.differences(&a).is_empty());
    }

    #[test]
    fn the_total_says_what_is_wrong() {
        let mut t = Totals::default();
        t.add(&Outcome::Compared(Report {
            positions: 10,
            ..Report::default()
        }));
        assert!(t.identical());
        assert_eq!(
            total_line(&t),
            "total: 10 positions in 1 material, identical"
        );
        t.add(&Outcome::Only(Side::B));
        assert!(!t.identical());
        assert_eq!(
            total_line(&t),
            "total: 10 positions in 1 material, 1 material only in B"
        );
    }
}
