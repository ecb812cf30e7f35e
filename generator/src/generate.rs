//! Generating the tables of a plan: each material solved in dependency order, written, and kept
//! in memory for the materials after it; complete and valid tables already on disk are reused.

use std::path::Path;
use std::time::Instant;

use rafle_probe::format::{Header, TableKind};
use rafle_probe::{Dtw, PositionIndex, Table};
use rayon::prelude::*;

use crate::plan::{MaterialPlan, Plan};
use crate::solve::solve;
use crate::store::{Distances, Solved, Store};
use crate::write::{header, pack_block, pack_dtw_block, write_table};
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
        let existing = if m.path.exists() || m.dtw_path.exists() {
            Some(load_existing(m, &index, &store, progress))
        } else {
            None
        };
        let (distances, bytes, dtw_bytes, reused, rebuilt_because) = match existing {
            Some(Ok((distances, bytes, dtw_bytes))) => (distances, bytes, dtw_bytes, true, None),
            other => {
                let because = match other {
                    Some(Err(reason)) => Some(reason),
                    _ => None,
                };
                let solution = solve(&index, &store, progress);
                let states = &solution.states;
                let distances = Distances::new(states, &solution.distances);
                let wdl = header(TableKind::Wdl, plan.variant, m.material, m.positions, 2);
                let bytes = write_table(&m.path, wdl, |b| pack_block(states, b))?;
                let dtw = header(
                    TableKind::Dtw,
                    plan.variant,
                    m.material,
                    m.positions,
                    distances.bits(),
                );
                let dtw_bytes =
                    write_table(&m.dtw_path, dtw, |b| pack_dtw_block(states, &distances, b))?;
                (distances, bytes, dtw_bytes, false, because)
            }
        };
        let counts = count_values(&distances);
        store.insert(Solved { index, distances });
        let summary = MaterialSummary {
            variant: plan.variant,
            material: m.material,
            positions: m.positions,
            wins: counts.wins,
            draws: counts.draws,
            losses: counts.losses,
            longest_win: counts.longest_win,
            seconds: started.elapsed().as_secs_f64(),
            bytes,
            dtw_bytes,
            reused,
            rebuilt_because,
        };
        progress.material_finished(&summary);
        summaries.push(summary);
    }
    Ok(summaries)
}

/// Checks a material's complete tables, every checksum, and reads its distances back,
/// restoring the true values of the positions that must capture (stored as "don't care") from
/// the materials below.
fn load_existing(
    m: &MaterialPlan,
    index: &PositionIndex,
    store: &Store,
    progress: &dyn Progress,
) -> Result<(Distances, u64, u64), String> {
    let (variant, material) = (index.variant(), m.material);
    let wdl = Table::open(&m.path, TableKind::Wdl, variant, material).map_err(|e| e.to_string())?;
    wdl.check_all_blocks().map_err(|e| e.to_string())?;
    let dtw =
        Table::open(&m.dtw_path, TableKind::Dtw, variant, material).map_err(|e| e.to_string())?;
    let header = dtw.header();
    let mut bytes = Vec::with_capacity(Header::block_len(1, header.bits) * m.positions as usize);
    for b in 0..header.blocks {
        bytes.extend_from_slice(&dtw.read_block(b).map_err(|e| e.to_string())?);
    }
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
    match &mut distances {
        Distances::Narrow(v) => restore_captures(v, index, store, progress, |d| {
            d.plies().map_or(u8::MAX, |p| p as u8)
        }),
        Distances::Wide(v) => {
            restore_captures(v, index, store, progress, |d| d.plies().unwrap_or(u16::MAX))
        }
    }
    Ok((distances, wdl.file_len(), dtw.file_len()))
}

/// Gives every position that must capture the value of its best capture.
fn restore_captures<T: Send>(
    values: &mut [T],
    index: &PositionIndex,
    store: &Store,
    progress: &dyn Progress,
    encode: impl Fn(Dtw) -> T + Sync,
) {
    const CHUNK: usize = 1 << 14;
    values
        .par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            let mut cursor = index.cursor((c * CHUNK) as u64);
            for value in chunk.iter_mut() {
                let pos = cursor.position();
                cursor.advance();
                if pos.must_capture() {
                    *value = encode(Dtw::from_successors(
                        pos.legal_moves().iter().map(|mv| store.dtw(&pos.play(mv))),
                    ));
                }
            }
            progress.advance(2 * chunk.len() as u64);
        });
}

/// Counts of a solved material.
struct Counts {
    wins: u64,
    draws: u64,
    losses: u64,
    longest_win: u16,
}

fn count_values(distances: &Distances) -> Counts {
    let mut counts = Counts {
        wins: 0,
        draws: 0,
        losses: 0,
        longest_win: 0,
    };
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
