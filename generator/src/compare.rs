//! Two table directories compared position by position through the probing API alone, so that
//! the comparison holds whatever the files look like (a new table format against the old one,
//! say): what `rafle compare` runs.
//!
//! ```no_run
//! use rafle_generator::compare::{compare, materials_to_compare, Kinds, Outcome};
//! use rafle_probe::{Tablebase, draughts::Variant};
//!
//! let a = Tablebase::open("data")?;
//! let b = Tablebase::open("other")?;
//! for material in materials_to_compare(&a, &b, Variant::Brazilian, &[], Some(4)) {
//!     match compare(&a, &b, Variant::Brazilian, material, Kinds::ALL, &|_| {}) {
//!         Outcome::Compared(report) => assert_eq!(report.differ, 0, "{material}"),
//!         other => panic!("{material}: {other:?}"),
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::str::FromStr;

use rafle_probe::{
    draughts::{Counters, Material, Position, Variant},
    toolkit::PositionIndex,
    Dtw, ProbeError, RuleValue, Tablebase, Wdl,
};
use rayon::prelude::*;

/// Positions walked by one task, a chunk's cursor stepping through them in index order: few
/// enough that a small material still spreads over the threads.
const CHUNK: u64 = 1 << 12;

/// Examples kept per material.
pub const EXAMPLES: usize = 5;

/// The kinds of values compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kinds {
    /// Win, draw or loss.
    pub wdl: bool,
    /// The distance to win.
    pub dtw: bool,
    /// The class and count under the draw rules, with fresh counters.
    pub rules: bool,
}

impl Kinds {
    /// Every kind.
    pub const ALL: Kinds = Kinds {
        wdl: true,
        dtw: true,
        rules: true,
    };
}

impl FromStr for Kinds {
    type Err = String;

    /// A comma-separated list of `wdl`, `dtw` and `rules`.
    fn from_str(text: &str) -> Result<Kinds, String> {
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
                        rafle_probe::draughts::excerpt(other)
                    ))
                }
            }
        }
        Ok(kinds)
    }
}

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// `wdl`, `dtw` or `rules`.
    pub kind: &'static str,
    /// A's value, as it prints.
    pub a: String,
    /// B's value.
    pub b: String,
}

/// A position whose values differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// Its index in the material.
    pub index: u64,
    /// Its FEN.
    pub fen: String,
    /// Each kind that differs.
    pub differences: Vec<Difference>,
}

/// The comparison of a material, or of a part of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Positions compared.
    pub positions: u64,
    /// Positions where any value differs.
    pub differ: u64,
    /// Positions where the win/draw/loss, the distance, the rule value differ.
    pub by_kind: [u64; 3],
    /// The first positions that differ, in index order, at most [`EXAMPLES`].
    pub examples: Vec<Example>,
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
pub enum Side {
    /// The first.
    A,
    /// The second.
    B,
}

/// What became of one material.
#[derive(Debug)]
pub enum Outcome {
    /// Its positions compared.
    Compared(Report),
    /// Its tables are in one directory alone.
    Only(Side),
    /// Named to be compared, in neither directory.
    Neither,
    /// A probe failed, in A or B.
    Error(Side, ProbeError),
}

/// The materials of `variant` to look at: those of either directory, as the filters keep
/// them (`wanted`, either orientation, if not empty; at most `max_pieces`), and those `wanted`
/// names that neither has; in dependency order.
pub fn materials_to_compare(
    a: &Tablebase,
    b: &Tablebase,
    variant: Variant,
    wanted: &[Material],
    max_pieces: Option<u32>,
) -> Vec<Material> {
    let mut list = a.materials(variant);
    list.extend(b.materials(variant));
    if !wanted.is_empty() {
        let wanted: Vec<Material> = wanted.iter().map(|m| m.canonical()).collect();
        list.retain(|m| wanted.contains(m));
        list.extend(wanted);
    }
    if let Some(most) = max_pieces {
        list.retain(|m| m.pieces() <= most);
    }
    list.sort_by_key(|m| (m.pieces(), m.men(), *m));
    list.dedup();
    list
}

/// Compares `material` of `variant` in `a` and `b`: every position of its index (both sides to
/// move, captures included) in chunks on the current rayon pool's threads, calling `progress`
/// with the positions of each chunk done; or says which directory lacks it.
pub fn compare(
    a: &Tablebase,
    b: &Tablebase,
    variant: Variant,
    material: Material,
    kinds: Kinds,
    progress: &(dyn Fn(u64) + Sync),
) -> Outcome {
    let material = material.canonical();
    let in_a = a.materials(variant).contains(&material);
    let in_b = b.materials(variant).contains(&material);
    match (in_a, in_b) {
        (true, true) => match compare_material(a, b, variant, material, kinds, progress) {
            Ok(report) => Outcome::Compared(report),
            Err((side, err)) => Outcome::Error(side, err),
        },
        (true, false) => Outcome::Only(Side::A),
        (false, true) => Outcome::Only(Side::B),
        (false, false) => Outcome::Neither,
    }
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

/// The sums over every material.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Totals {
    /// Positions compared.
    pub positions: u64,
    /// Materials compared.
    pub materials: u64,
    /// Positions where a value differs.
    pub differ: u64,
    /// Materials with a position that differs.
    pub materials_differ: u64,
    /// Materials in A alone.
    pub only_a: u64,
    /// Materials in B alone.
    pub only_b: u64,
    /// Materials named that neither has.
    pub neither: u64,
    /// Materials not compared because a probe failed.
    pub errors: u64,
}

impl Totals {
    /// Counts one material's outcome.
    pub fn add(&mut self, outcome: &Outcome) {
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

    /// Whether every material counted was compared and found identical.
    pub fn identical(&self) -> bool {
        self.differ == 0
            && self.only_a == 0
            && self.only_b == 0
            && self.neither == 0
            && self.errors == 0
    }

    /// What is wrong, as a list; empty when all is identical.
    pub fn problems(&self) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_read_as_a_list() {
        let all: Kinds = "wdl,dtw,rules".parse().unwrap();
        assert_eq!(all, Kinds::ALL);
        let rules: Kinds = "rules".parse().unwrap();
        assert!(!rules.wdl && !rules.dtw && rules.rules);
        for bad in ["", "wdl,", "draw", "wdl;dtw"] {
            assert!(bad.parse::<Kinds>().is_err(), "{bad}");
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
    fn the_totals_say_what_is_wrong() {
        let mut t = Totals::default();
        t.add(&Outcome::Compared(Report {
            positions: 10,
            ..Report::default()
        }));
        assert!(t.identical());
        assert!(t.problems().is_empty());
        t.add(&Outcome::Only(Side::B));
        assert!(!t.identical());
        assert_eq!(t.problems(), ["1 material only in B"]);
    }
}
