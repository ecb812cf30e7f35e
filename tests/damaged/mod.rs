//! What the tests of damaged tables share: small table sets generated once, the answers the
//! undamaged tables give for a sample of positions, the check that a probe gives that answer
//! or an error, and damaged copies of table files put in place by rename, as rafle itself
//! replaces tables.

// Each test file uses its own part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::toolkit::format::TableKind;
use rafle_probe::{
    draughts::{Counters, Material, Move, Position, Variant},
    toolkit::PositionIndex,
    Dtw, ProbeError, RuleOutcome, Tablebase, Wdl,
};

/// Generates every table of `variant` up to `pieces` pieces into `dir`.
pub fn generate_tables(dir: &Path, variant: Variant, pieces: u32) {
    let plan = Plan::new(variant, pieces, dir).expect("a plan");
    generate(&plan, &NoProgress).expect("tables generate");
}

/// A table file of a directory.
#[derive(Debug, Clone)]
pub struct TableFile {
    pub kind: TableKind,
    pub variant: Variant,
    pub material: Material,
    pub path: PathBuf,
}

/// Every table file of `dir`, in a fixed order.
pub fn table_files(dir: &Path) -> Vec<TableFile> {
    let tables = Tablebase::open(dir).expect("tables open");
    let mut files = Vec::new();
    for variant in Variant::ALL {
        for kind in TableKind::ALL {
            for material in tables.materials_of(kind, variant) {
                let path = rafle_probe::toolkit::table_path(dir, variant, material, kind);
                files.push(TableFile {
                    kind,
                    variant,
                    material,
                    path,
                });
            }
        }
    }
    files
}

/// Writes `bytes` to a temporary file beside `path` and renames it over `path`: a reader that
/// has the old file mapped keeps reading the old file.
pub fn replace(path: &Path, bytes: &[u8]) {
    let mut name = path.file_name().expect("a file name").to_os_string();
    name.push(".damaged");
    let tmp = path.with_file_name(name);
    std::fs::write(&tmp, bytes).expect("the damaged copy is written");
    std::fs::rename(&tmp, path).expect("the damaged copy replaces the table");
}

/// Everything a probe says about a position, from undamaged tables.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub wdl: Wdl,
    pub dtw: Dtw,
    pub rules: RuleOutcome,
    pub best: Option<(Move, Dtw)>,
}

impl Answer {
    /// The answers of `tables`, which must all succeed.
    pub fn of(tables: &Tablebase, pos: &Position, counters: Counters) -> Answer {
        let context = |what: &str, e: ProbeError| format!("{what} of {pos:?}: {e}");
        Answer {
            wdl: tables
                .probe_wdl(pos)
                .unwrap_or_else(|e| panic!("{}", context("wdl", e))),
            dtw: tables
                .probe_dtw(pos)
                .unwrap_or_else(|e| panic!("{}", context("dtw", e))),
            rules: tables
                .probe_draw_rules(pos, counters)
                .unwrap_or_else(|e| panic!("{}", context("rules", e))),
            best: tables
                .best_move(pos)
                .unwrap_or_else(|e| panic!("{}", context("best move", e))),
        }
    }
}

/// A small xorshift generator: the samples are the same from run to run.
pub struct Xorshift(pub u64);

impl Xorshift {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (not 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A sample of positions with live counters and the answers of the undamaged tables.
#[derive(Debug)]
pub struct Reference {
    pub positions: Vec<(Position, Counters)>,
    pub answers: Vec<Answer>,
}

impl Reference {
    /// `per_material` random positions of every material of `tables`, with random counters.
    pub fn sample(tables: &Tablebase, per_material: usize, seed: u64) -> Reference {
        let mut rng = Xorshift(seed | 1);
        let mut positions = Vec::new();
        for variant in Variant::ALL {
            for material in tables.materials(variant) {
                let index = PositionIndex::new(variant, material);
                for _ in 0..per_material {
                    let pos = index.unrank(rng.below(index.size()));
                    // Either side to move, in either colour orientation.
                    let pos = if rng.below(2) == 0 {
                        pos
                    } else {
                        pos.mirrored()
                    };
                    let counters = Counters {
                        king_plies: rng.below(60) as u16,
                        category_plies: rng.below(40) as u16,
                    };
                    positions.push((pos, counters));
                }
            }
        }
        let answers = positions
            .iter()
            .map(|(pos, counters)| Answer::of(tables, pos, *counters))
            .collect();
        Reference { positions, answers }
    }
}

/// Whether an error is one damaged table files may give: the table is corrupted, truncated,
/// or says it holds another table; forged headers (their checksum made again) may also
/// disagree on the rule limits, or name the previous format version, which is refused as such.
pub fn is_damage(e: &ProbeError) -> bool {
    matches!(
        e,
        ProbeError::Corrupted { .. }
            | ProbeError::Truncated { .. }
            | ProbeError::WrongTable { .. }
            | ProbeError::MixedLimits { .. }
            | ProbeError::OldFormat { .. }
    )
}

/// How the probes of one position went.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Probes that gave the reference value.
    pub right: u32,
    /// Probes that failed with an error damage explains.
    pub errors: u32,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, other: Tally) {
        self.right += other.right;
        self.errors += other.errors;
    }
}

/// Probes a position every way and checks each answer against `want`: it must be the
/// reference value or an error damage explains. With `exact`, an error is wrong too. A
/// wrong answer panics, naming the probe and the position.
pub fn check(
    tables: &Tablebase,
    pos: &Position,
    counters: Counters,
    want: &Answer,
    exact: bool,
) -> Tally {
    let mut tally = Tally::default();
    let mut judge = |what: &str, got: Result<bool, ProbeError>| match got {
        Ok(true) => tally.right += 1,
        Ok(false) => panic!("{what} of {pos:?} {counters:?}: a wrong value, not {want:?}"),
        Err(e) if exact => panic!("{what} of {pos:?}: {e}, expected {want:?}"),
        Err(e) if is_damage(&e) => tally.errors += 1,
        Err(e) => panic!("{what} of {pos:?}: an error damage does not explain: {e:?}"),
    };
    judge("wdl", tables.probe_wdl(pos).map(|v| v == want.wdl));
    judge("dtw", tables.probe_dtw(pos).map(|v| v == want.dtw));
    judge(
        "rules",
        tables
            .probe_draw_rules(pos, counters)
            .map(|v| v == want.rules),
    );
    judge("best move", tables.best_move(pos).map(|v| v == want.best));
    // The cache-only probes answer from blocks already checked, or not at all.
    if let Some(v) = tables.probe_wdl_cached(pos) {
        assert_eq!(v, want.wdl, "cached wdl of {pos:?}");
    }
    if let Some(v) = tables.probe_draw_rules_cached(pos, counters) {
        assert_eq!(v, want.rules, "cached rules of {pos:?} {counters:?}");
    }
    tally
}
