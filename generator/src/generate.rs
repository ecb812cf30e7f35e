//! Generating the tables of a plan: each material solved in dependency order (win/draw/loss
//! with distances, then the rule-aware values), written, and kept in memory for the materials
//! after it; complete and valid tables already on disk are reused, and a rule table alone is
//! recomputed when only it is missing or has other limits.

use std::path::Path;
use std::time::Instant;

use rafle_probe::codec::{Codec, DrawRulesCodec, DtwCodec, WdlCodec};
use rafle_probe::format::TableKind;
use rafle_probe::walk::Captures;
use rafle_probe::{Dtw, PositionIndex, RuleClass, RuleValue};

use crate::draw_rules::solve_draw_rules;
use crate::load::{load_existing, Loaded};
use crate::plan::{MaterialPlan, Plan};
use crate::solve::solve;
use crate::store::{Distances, Solved, Store};
use crate::write::{entry, header, pack_block, write_table};
use crate::{GenerateError, Progress};

/// What was done for one material.
#[derive(Debug, Clone)]
pub struct MaterialSummary {
    /// The board.
    pub variant: rafle_probe::Variant,
    /// The material (stored orientation).
    pub material: rafle_probe::Material,
    /// Positions, both sides to move.
    pub positions: u64,
    /// Positions won for the side to move (capture positions included).
    pub wins: u64,
    /// Positions drawn.
    pub draws: u64,
    /// Positions lost.
    pub losses: u64,
    /// Wall-clock seconds spent on the material.
    pub seconds: f64,
    /// Of which solving the rule-aware values took (0 if they were read back).
    pub draw_rules_seconds: f64,
    /// The longest win, in plies (0 if there is none).
    pub longest_win: u16,
    /// Size of the win/draw/loss table file.
    pub bytes: u64,
    /// Size of the distance-to-win table file.
    pub dtw_bytes: u64,
    /// Size of the rule table file.
    pub draw_rules_bytes: u64,
    /// Positions won ignoring the draw rules but drawn under them (capture positions included).
    pub cursed_wins: u64,
    /// Positions lost ignoring the draw rules but drawn under them.
    pub blessed_losses: u64,
    /// Whether an existing valid table was reused instead of generated.
    pub reused: bool,
    /// Why an existing file was not reused, if there was one.
    pub rebuilt_because: Option<String>,
}

/// Generates (or reuses) every table of `plan`, reporting to `progress`. Runs on the current
/// rayon thread pool.
///
/// # Errors
///
/// [`GenerateError::Io`] when a file cannot be written, [`GenerateError::Check`] when a written
/// table does not read back the same.
pub fn generate(
    plan: &Plan,
    progress: &dyn Progress,
) -> Result<Vec<MaterialSummary>, GenerateError> {
    progress.variant_started(plan);
    let mut store = Store::new();
    let mut summaries = Vec::with_capacity(plan.materials.len());
    for m in &plan.materials {
        progress.material_started(plan.variant, m.material, m.positions);
        let started = Instant::now();
        let index = PositionIndex::new(plan.variant, m.material);
        let mut rebuilt_because = None;
        let existing = if m.path.exists() || m.dtw_path.exists() {
            load_existing(m, &index, &store, progress).map_err(|r| rebuilt_because = Some(r))
        } else {
            Err(())
        };
        let (solved, reused_tables) = match existing {
            Ok(found) => (found, true),
            Err(()) => (solve_and_write(plan, m, &index, &store, progress)?, false),
        };
        let mut reused = reused_tables;
        let mut draw_rules_seconds = 0.0;
        let (rules, draw_rules_bytes) = match solved.rules {
            Ok(found) => found,
            Err(because) => {
                if reused_tables {
                    reused = false;
                    rebuilt_because = because;
                }
                let draw_rules_started = Instant::now();
                let found = solve_and_write_draw_rules(
                    plan,
                    m,
                    (&index, &store),
                    (&solved.captures, &solved.distances),
                    progress,
                )?;
                draw_rules_seconds = draw_rules_started.elapsed().as_secs_f64();
                found
            }
        };
        let counts = count_values(&solved.distances, &rules);
        store.insert(Solved {
            index,
            distances: solved.distances,
            rules,
        });
        let summary = MaterialSummary {
            variant: plan.variant,
            material: m.material,
            positions: m.positions,
            wins: counts.wins,
            draws: counts.draws,
            losses: counts.losses,
            cursed_wins: counts.cursed_wins,
            blessed_losses: counts.blessed_losses,
            longest_win: counts.longest_win,
            seconds: started.elapsed().as_secs_f64(),
            draw_rules_seconds,
            bytes: solved.bytes,
            dtw_bytes: solved.dtw_bytes,
            draw_rules_bytes,
            reused,
            rebuilt_because,
        };
        progress.material_finished(&summary);
        summaries.push(summary);
    }
    Ok(summaries)
}

/// Solves a material's rule-aware values and writes its rule table; returns the codes and the
/// file's size.
fn solve_and_write_draw_rules(
    plan: &Plan,
    m: &MaterialPlan,
    (index, store): (&PositionIndex, &Store),
    (captures, distances): (&Captures, &Distances),
    progress: &dyn Progress,
) -> Result<(Vec<u8>, u64), GenerateError> {
    let rules = solve_draw_rules(index, store, distances, plan.limits, progress);
    let header = header(
        TableKind::DrawRules,
        plan.variant,
        m.material,
        m.positions,
        8,
        Some(plan.limits),
    );
    let n = rules.len();
    let bytes = write_table(&m.draw_rules_path, header, |b| {
        pack_block::<DrawRulesCodec>(
            n,
            b,
            8,
            |i| entry(captures, distances, i),
            |i| rule_value(rules[i]),
        )
    })?;
    Ok((rules, bytes))
}

fn solve_and_write(
    plan: &Plan,
    m: &MaterialPlan,
    index: &PositionIndex,
    store: &Store,
    progress: &dyn Progress,
) -> Result<Loaded, GenerateError> {
    let solution = solve(index, store, progress);
    let (wdl, captures, distances) = (solution.wdl, solution.captures, solution.distances);
    let n = wdl.len();
    let at = |i| entry(&captures, &distances, i);
    let header_of = |kind, bits| header(kind, plan.variant, m.material, m.positions, bits, None);
    let bytes = write_table(&m.path, header_of(TableKind::Wdl, 2), |b| {
        pack_block::<WdlCodec>(n, b, 2, at, |i| wdl[i])
    })?;
    drop(wdl);
    let bits = distances.bits();
    let dtw_bytes = write_table(&m.dtw_path, header_of(TableKind::Dtw, bits), |b| {
        pack_block::<DtwCodec>(n, b, bits, at, |i| distances.get(i))
    })?;
    Ok(Loaded {
        captures,
        distances,
        bytes,
        dtw_bytes,
        rules: Err(None),
    })
}

/// The value of a rule code of the store: written by the solver, or read back and checked by
/// [`load_existing`].
fn rule_value(code: u8) -> RuleValue {
    DrawRulesCodec::decode(u16::from(code), 8).expect("the solver writes valid codes")
}

/// Counts of a solved material.
struct Counts {
    wins: u64,
    draws: u64,
    losses: u64,
    cursed_wins: u64,
    blessed_losses: u64,
    longest_win: u16,
}

fn count_values(distances: &Distances, rules: &[u8]) -> Counts {
    let mut counts = Counts {
        wins: 0,
        draws: 0,
        losses: 0,
        cursed_wins: 0,
        blessed_losses: 0,
        longest_win: 0,
    };
    for &code in rules {
        match RuleValue::from_code(code).map(RuleValue::class) {
            Some(RuleClass::CursedWin) => counts.cursed_wins += 1,
            Some(RuleClass::BlessedLoss) => counts.blessed_losses += 1,
            _ => {}
        }
    }
    for i in 0..distances.len() {
        match distances.get(i) {
            Dtw::Win(d) => {
                counts.wins += 1;
                counts.longest_win = counts.longest_win.max(d);
            }
            Dtw::Draw => counts.draws += 1,
            Dtw::Loss(_) => counts.losses += 1,
        }
    }
    counts
}

/// Removes temporary files a previous, interrupted run left in `dir`.
///
/// # Errors
///
/// [`GenerateError::Io`] if the directory cannot be read.
pub fn remove_leftovers(dir: &Path) -> Result<usize, GenerateError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(0);
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry.map_err(|source| GenerateError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "tmp") {
            std::fs::remove_file(&path).map_err(|source| GenerateError::Io {
                path: path.clone(),
                source,
            })?;
            removed += 1;
        }
    }
    Ok(removed)
}
