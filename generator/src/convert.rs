//! Converting a directory's tables of the previous format version
//! ([`rafle_probe::format::LEGACY_VERSION`]) to the current one, reading their values rather
//! than solving again: each material in dependency order, its tables read back whole (every
//! checksum checked) and completed by the [material walk](rafle_probe::walk), the positions of
//! other materials probed in the tables converted before it; then written as a new solve writes
//! them, by temporary name, read back and renamed over the old files.

use std::path::Path;

use rafle_probe::codec::{Codec, DtwCodec};
use rafle_probe::format::{TableKind, LEGACY_VERSION};
use rafle_probe::walk::{unpack, Walk};
use rafle_probe::{Dtw, Position, PositionIndex, ProbeError, Table, Tablebase, Tables, Wdl};

use crate::plan::{MaterialPlan, Plan};
use crate::summary::{Counts, SummaryFile};
use crate::values::{distance_code, CAPTURE};
use crate::write::{write_tables, Source, Writing};
use crate::{GenerateError, Progress};

/// Whether the table at `path` is a table of the previous format version (its header says so;
/// whether the rest of it is sound is checked when it is converted).
pub(crate) fn is_legacy(path: &Path) -> bool {
    use std::io::Read;
    let Ok(file) = rafle_probe::open_regular(path) else {
        return false;
    };
    let mut head = [0u8; 10];
    file.take(10).read_exact(&mut head).is_ok()
        && head[..8] == rafle_probe::format::MAGIC
        && u16::from_le_bytes([head[8], head[9]]) == LEGACY_VERSION
}

/// Converts every material of `plan` whose win/draw/loss table is of the previous format
/// version, in plan order; returns how many were converted. A material whose old tables turn
/// out damaged is left as it is: the run then solves it again, as for any damaged table.
///
/// # Errors
///
/// [`GenerateError::Io`] or [`GenerateError::Check`] writing a converted table.
pub(crate) fn convert_legacy(plan: &Plan, progress: &dyn Progress) -> Result<usize, GenerateError> {
    let mut converted = 0;
    for m in &plan.materials {
        if !is_legacy(&m.path) {
            continue;
        }
        progress.converting(plan.variant, m.material, m.positions);
        // Opened anew for each material: the tables converted so far are the ones it probes.
        let tables = match Tablebase::open_with_cache(&plan.dir, 64 << 20) {
            Ok(tables) => tables,
            Err(_) => continue,
        };
        match convert_material(plan, m, &tables) {
            Ok(()) => converted += 1,
            Err(ConvertError::Damaged(why)) => progress.damaged_work_file(&m.path, &why),
            Err(ConvertError::Write(e)) => return Err(e),
        }
    }
    Ok(converted)
}

/// Why a material was not converted.
enum ConvertError {
    /// Its old tables, or those of a material its moves reach, do not read (as this says).
    Damaged(String),
    /// A new table could not be written.
    Write(GenerateError),
}

impl From<ProbeError> for ConvertError {
    fn from(e: ProbeError) -> ConvertError {
        ConvertError::Damaged(e.to_string())
    }
}

/// A material's values read back from its old tables, complete: what [`write_tables`] reads.
struct Converted {
    /// Distance codes with their capture marks, as a work file holds them.
    distances: Vec<u16>,
    /// Rule codes (all zero when converting a win/draw/loss table alone).
    rules: Vec<u8>,
}

impl Source for Converted {
    fn read_range(&self, start: u64, len: usize) -> Result<(Vec<u16>, Vec<u8>), GenerateError> {
        let range = start as usize..start as usize + len;
        Ok((
            self.distances[range.clone()].to_vec(),
            self.rules[range].to_vec(),
        ))
    }
}

/// Converts one material's tables: all three, or the win/draw/loss table alone when the
/// others are missing (a set built with `--tables wdl`).
fn convert_material(plan: &Plan, m: &MaterialPlan, tables: &Tablebase) -> Result<(), ConvertError> {
    let (variant, material) = (plan.variant, m.material);
    let open = |path: &Path, kind| Table::open_legacy(path, kind, variant, material);
    let index = PositionIndex::new(variant, material);
    let wdl_table = open(&m.path, TableKind::Wdl)?;
    let outside_wdl = |p: &Position| tables.probe_wdl(p);
    let wdl = Walk::complete_wdl_with(&index, &wdl_table, &outside_wdl, &|_| {})?;
    let n = index.size() as usize;
    let all_three = is_legacy(&m.dtw_path) && is_legacy(&m.draw_rules_path);
    let (converted, longest, limits) = if all_three {
        let dtw_table = open(&m.dtw_path, TableKind::Dtw)?;
        let rules_table = open(&m.draw_rules_path, TableKind::DrawRules)?;
        let limits = rules_table.header().limits;
        let walk = Walk::new(
            &index,
            &wdl,
            limits,
            rules_table.path(),
            dtw_table.header().stored,
        );
        let (pairs, captures) =
            walk.distances_rules_and_captures(tables, &dtw_table, &rules_table, &|_| {})?;
        let bits = dtw_table.header().bits;
        let mut longest = 0;
        let mut distances = Vec::with_capacity(n);
        let mut rules = Vec::with_capacity(n);
        for (i, &(code, rule)) in pairs.iter().enumerate() {
            let distance = DtwCodec::decode(code, bits).unwrap_or(Dtw::Draw);
            if let Dtw::Win(plies) = distance {
                longest = longest.max(plies);
            }
            let capture = if captures.contains(i) { CAPTURE } else { 0 };
            distances.push(distance_code(distance) | capture);
            rules.push(rule);
        }
        (Converted { distances, rules }, longest, limits)
    } else {
        let codes: Vec<u8> = unpack(&wdl, 2, n);
        let distances = codes
            .iter()
            .enumerate()
            .map(|(i, &code)| {
                // Only the win/draw/loss is written: any distance of the right sign does.
                let distance = match Wdl::from_code(code) {
                    Some(Wdl::Win) => Dtw::Win(1),
                    Some(Wdl::Loss) => Dtw::Loss(0),
                    _ => Dtw::Draw,
                };
                let capture = if index.unrank(i as u64).must_capture() {
                    CAPTURE
                } else {
                    0
                };
                distance_code(distance) | capture
            })
            .collect();
        (
            Converted {
                distances,
                rules: vec![0; n],
            },
            0,
            None,
        )
    };
    let m = MaterialPlan {
        limits: limits.unwrap_or(m.limits),
        ..m.clone()
    };
    let writing = if all_three {
        Writing::All
    } else {
        Writing::WdlOnly
    };
    let (_, counts) =
        write_tables(plan, &m, &converted, longest, writing).map_err(ConvertError::Write)?;
    let kept = if all_three { Tables::All } else { Tables::Wdl };
    let counts = Counts {
        longest_win: longest,
        ..counts
    };
    SummaryFile::new(plan, &m, kept)
        .write(&counts)
        .map_err(ConvertError::Write)?;
    Ok(())
}
