//! Generating the tables of a plan: each material solved in dependency order, written, and kept
//! in memory for the materials after it; complete and valid tables already on disk are reused.

use std::path::Path;
use std::time::Instant;

use rafle_probe::format::{packed_code, Header, TableKind};
use rafle_probe::{PositionIndex, Table, Wdl};
use rayon::prelude::*;

use crate::plan::{MaterialPlan, Plan};
use crate::solve::solve;
use crate::store::{Solved, Store};
use crate::write::write_table;
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
    /// Size of the table file.
    pub bytes: u64,
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
        let existing = if m.path.exists() {
            Some(load_existing(m, &index, &store, progress))
        } else {
            None
        };
        let (solved, bytes, reused, rebuilt_because) = match existing {
            Some(Ok((solved, bytes))) => (solved, bytes, true, None),
            other => {
                let because = match other {
                    Some(Err(reason)) => Some(reason),
                    _ => None,
                };
                let solution = solve(&index, &store, progress);
                let bytes = write_table(&m.path, plan.variant, m.material, &solution.states)?;
                let packed = pack_values(&solution.states);
                (Solved { index, packed }, bytes, false, because)
            }
        };
        let (wins, draws, losses) = count_values(&solved.packed, m.positions);
        store.insert(solved);
        let summary = MaterialSummary {
            variant: plan.variant,
            material: m.material,
            positions: m.positions,
            wins,
            draws,
            losses,
            seconds: started.elapsed().as_secs_f64(),
            bytes,
            reused,
            rebuilt_because,
        };
        progress.material_finished(&summary);
        summaries.push(summary);
    }
    Ok(summaries)
}

/// Reads a complete table back, every checksum checked, and restores the true values of the
/// positions that must capture (stored as "don't care") from the materials below.
fn load_existing(
    m: &MaterialPlan,
    index: &PositionIndex,
    store: &Store,
    progress: &dyn Progress,
) -> Result<(Solved, u64), String> {
    let table = Table::open(&m.path, TableKind::Wdl, index.variant(), m.material)
        .map_err(|e| e.to_string())?;
    let header = table.header();
    let mut packed = Vec::with_capacity(m.positions.div_ceil(4) as usize);
    for b in 0..header.blocks {
        packed.extend_from_slice(&table.read_block(b).map_err(|e| e.to_string())?);
    }
    let block_bytes = Header::packed_len(header.positions_per_block);
    packed
        .par_chunks_mut(block_bytes)
        .enumerate()
        .for_each(|(b, chunk)| {
            let first = (b * block_bytes * 4) as u64;
            let count = ((chunk.len() * 4) as u64).min(m.positions - first);
            let mut cursor = index.cursor(first);
            for k in 0..count {
                let pos = cursor.position();
                cursor.advance();
                if !pos.must_capture() {
                    continue;
                }
                let best = pos
                    .legal_moves()
                    .iter()
                    .map(|mv| -store.wdl(&pos.play(mv)))
                    .max()
                    .unwrap_or(Wdl::Loss);
                let k = k as usize;
                chunk[k / 4] =
                    (chunk[k / 4] & !(3 << (2 * (k % 4)))) | best.code() << (2 * (k % 4));
            }
            progress.advance(2 * count);
        });
    Ok((
        Solved {
            index: index.clone(),
            packed,
        },
        table.file_len(),
    ))
}

/// The true values of solved states, packed 2 bits a position.
fn pack_values(states: &[u8]) -> Vec<u8> {
    let mut packed = vec![0u8; states.len().div_ceil(4)];
    packed
        .par_chunks_mut(1 << 14)
        .enumerate()
        .for_each(|(c, chunk)| {
            let first = c * (1 << 16);
            for (k, byte) in chunk.iter_mut().enumerate() {
                for j in 0..4 {
                    if let Some(&s) = states.get(first + 4 * k + j) {
                        *byte |= (s & 3) << (2 * j);
                    }
                }
            }
        });
    packed
}

fn count_values(packed: &[u8], positions: u64) -> (u64, u64, u64) {
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for i in 0..positions as usize {
        match Wdl::from_code(packed_code(packed, i)) {
            Some(Wdl::Win) => wins += 1,
            Some(Wdl::Loss) => losses += 1,
            _ => draws += 1,
        }
    }
    (wins, draws, losses)
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
