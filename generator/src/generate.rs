//! Generating the tables of a plan: each material solved in dependency order (win/draw/loss
//! with distances, then the rule-aware values), written, and kept in memory for the materials
//! after it; complete and valid tables already on disk are reused, and a rule table alone is
//! recomputed when only it is missing or has other limits.

use std::path::Path;
use std::time::Instant;

use rafle_probe::format::{Header, TableKind};
use rafle_probe::{
    resets_counter, Category, Dtw, Position, PositionIndex, RuleClass, RuleValue, Table,
};
use rayon::prelude::*;

use crate::plan::{MaterialPlan, Plan};
use crate::rules::solve_rules;
use crate::solve::{solve, CAPTURE};
use crate::store::{Distances, Solved, Store};
use crate::write::{header, pack_block, pack_dtw_block, pack_rules_block, write_table};
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
    /// The longest win, in plies (0 if there is none).
    pub longest_win: u16,
    /// Size of the win/draw/loss table file.
    pub bytes: u64,
    /// Size of the distance-to-win table file.
    pub dtw_bytes: u64,
    /// Size of the rule table file.
    pub rules_bytes: u64,
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
        let solved = match existing {
            Ok(found) => found,
            Err(()) => solve_and_write(plan, m, &index, &store, progress)?,
        };
        let mut reused = solved.reused;
        let (rules, rules_bytes) = match solved.rules {
            Some(found) => found,
            None => {
                if solved.reused {
                    reused = false;
                    rebuilt_because = solved.rules_rebuilt_because;
                }
                let rules = solve_rules(&index, &store, &solved.distances, plan.limits, progress);
                let captures = &solved.captures;
                let header = header(
                    TableKind::Rules,
                    plan.variant,
                    m.material,
                    m.positions,
                    8,
                    Some(plan.limits),
                );
                let bytes = write_table(&m.rules_path, header, |b| {
                    pack_rules_block(|i| captures.contains(i), &rules, b)
                })?;
                (rules, bytes)
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
            bytes: solved.bytes,
            dtw_bytes: solved.dtw_bytes,
            rules_bytes,
            reused,
            rebuilt_because,
        };
        progress.material_finished(&summary);
        summaries.push(summary);
    }
    Ok(summaries)
}

/// A material's win/draw/loss and distance tables, solved or read back, and its rule table if
/// one was read back valid.
struct Tables {
    distances: Distances,
    captures: Captures,
    bytes: u64,
    dtw_bytes: u64,
    reused: bool,
    rules: Option<(Vec<u8>, u64)>,
    rules_rebuilt_because: Option<String>,
}

/// Which positions' side to move must capture, a bit each.
struct Captures(Vec<u64>);

impl Captures {
    fn new(positions: usize) -> Captures {
        Captures(vec![0; positions.div_ceil(64)])
    }

    fn from_states(states: &[u8]) -> Captures {
        let mut captures = Captures::new(states.len());
        for (i, s) in states.iter().enumerate() {
            if s & CAPTURE != 0 {
                captures.0[i / 64] |= 1 << (i % 64);
            }
        }
        captures
    }

    fn contains(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 != 0
    }
}

fn solve_and_write(
    plan: &Plan,
    m: &MaterialPlan,
    index: &PositionIndex,
    store: &Store,
    progress: &dyn Progress,
) -> Result<Tables, GenerateError> {
    let solution = solve(index, store, progress);
    let states = &solution.states;
    let distances = Distances::new(states, &solution.distances);
    let wdl = header(
        TableKind::Wdl,
        plan.variant,
        m.material,
        m.positions,
        2,
        None,
    );
    let bytes = write_table(&m.path, wdl, |b| pack_block(states, b))?;
    let dtw = header(
        TableKind::Dtw,
        plan.variant,
        m.material,
        m.positions,
        distances.bits(),
        None,
    );
    let dtw_bytes = write_table(&m.dtw_path, dtw, |b| pack_dtw_block(states, &distances, b))?;
    Ok(Tables {
        captures: Captures::from_states(states),
        distances,
        bytes,
        dtw_bytes,
        reused: false,
        rules: None,
        rules_rebuilt_because: None,
    })
}

/// Checks a material's complete tables, every checksum, and reads its distances back,
/// restoring the true values of the positions that must capture (stored as "don't care") from
/// the materials below; the same for its rule table, if it is valid and has the plan's limits.
fn load_existing(
    m: &MaterialPlan,
    index: &PositionIndex,
    store: &Store,
    progress: &dyn Progress,
) -> Result<Tables, String> {
    let (variant, material) = (index.variant(), m.material);
    let wdl = Table::open(&m.path, TableKind::Wdl, variant, material).map_err(|e| e.to_string())?;
    wdl.check_all_blocks().map_err(|e| e.to_string())?;
    let dtw =
        Table::open(&m.dtw_path, TableKind::Dtw, variant, material).map_err(|e| e.to_string())?;
    let header = dtw.header();
    let bytes = read_all_blocks(&dtw).map_err(|e| e.to_string())?;
    let mut distances = if header.bits == 8 {
        Distances::Narrow(bytes)
    } else {
        Distances::Wide(
            bytes
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
                .collect(),
        )
    };
    let captures = match &mut distances {
        Distances::Narrow(v) => restore_captures(v, index, (progress, 2), |pos| {
            let value =
                Dtw::from_successors(pos.legal_moves().iter().map(|mv| store.dtw(&pos.play(mv))));
            value.plies().map_or(u8::MAX, |p| p as u8)
        }),
        Distances::Wide(v) => restore_captures(v, index, (progress, 2), |pos| {
            let value =
                Dtw::from_successors(pos.legal_moves().iter().map(|mv| store.dtw(&pos.play(mv))));
            value.plies().unwrap_or(u16::MAX)
        }),
    };
    let (rules, rules_rebuilt_because) = match load_rules(m, index, store, progress) {
        Ok(found) => (Some(found), None),
        Err(reason) => (None, reason),
    };
    Ok(Tables {
        distances,
        captures,
        bytes: wdl.file_len(),
        dtw_bytes: dtw.file_len(),
        reused: true,
        rules,
        rules_rebuilt_because,
    })
}

/// A valid rule table of the plan's limits, read back with its capture positions restored;
/// else why not (`None` when there is no file).
fn load_rules(
    m: &MaterialPlan,
    index: &PositionIndex,
    store: &Store,
    progress: &dyn Progress,
) -> Result<(Vec<u8>, u64), Option<String>> {
    if !m.rules_path.exists() {
        return Err(None);
    }
    let (variant, material) = (index.variant(), m.material);
    let table = Table::open(&m.rules_path, TableKind::Rules, variant, material)
        .map_err(|e| Some(e.to_string()))?;
    if table.header().limits != Some(m.limits) {
        return Err(Some(format!(
            "{} was computed with other draw-rule limits",
            m.rules_path.display()
        )));
    }
    let mut codes = read_all_blocks(&table).map_err(|e| Some(e.to_string()))?;
    let limit = m.limits.of(Category::of(variant, material));
    restore_captures(&mut codes, index, (progress, 1), |pos| {
        RuleValue::from_successors(
            limit,
            pos.legal_moves().iter().map(|mv| {
                let next = pos.play(mv);
                (store.rule(&next), resets_counter(pos, mv, &next))
            }),
        )
        .code()
    });
    Ok((codes, table.file_len()))
}

/// The decompressed contents of every block of a table, checksums checked.
fn read_all_blocks(table: &Table) -> Result<Vec<u8>, rafle_probe::ProbeError> {
    let header = table.header();
    let mut bytes =
        Vec::with_capacity(Header::block_len(1, header.bits) * header.positions as usize);
    for b in 0..header.blocks {
        bytes.extend_from_slice(&table.read_block(b)?);
    }
    Ok(bytes)
}

/// Gives every position that must capture the value of its best capture; returns which they
/// are.
fn restore_captures<T: Send>(
    values: &mut [T],
    index: &PositionIndex,
    (progress, units): (&dyn Progress, u64),
    value: impl Fn(&Position) -> T + Sync,
) -> Captures {
    const CHUNK: usize = 1 << 12;
    let words: Vec<Vec<u64>> = values
        .par_chunks_mut(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let mut cursor = index.cursor((c * CHUNK) as u64);
            let mut words = vec![0u64; chunk.len().div_ceil(64)];
            for (i, slot) in chunk.iter_mut().enumerate() {
                let pos = cursor.position();
                cursor.advance();
                if pos.must_capture() {
                    *slot = value(&pos);
                    words[i / 64] |= 1 << (i % 64);
                }
            }
            progress.advance(units * chunk.len() as u64);
            words
        })
        .collect();
    Captures(words.concat())
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
