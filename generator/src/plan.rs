//! What a generation request will do, and the memory it needs.

use std::path::{Path, PathBuf};

use rafle_probe::format::TableKind;
use rafle_probe::{table_path, Limits, Material, PositionIndex, Variant};

use crate::GenerateError;

/// The most pieces rafle generates (the index handles more; memory does not).
pub const MAX_PIECES: u32 = 8;

/// One material of a plan.
#[derive(Debug, Clone)]
pub struct MaterialPlan {
    /// The material (stored orientation).
    pub material: Material,
    /// Positions, both sides to move.
    pub positions: u64,
    /// Where its win/draw/loss table goes.
    pub path: PathBuf,
    /// Where its distance-to-win table goes.
    pub dtw_path: PathBuf,
    /// Where its rule table goes.
    pub draw_rules_path: PathBuf,
    /// The draw-rule limits of its rule table.
    pub limits: Limits,
}

/// The materials of a request in the order they are solved, and the peak memory.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The board.
    pub variant: Variant,
    /// Most pieces.
    pub max_pieces: u32,
    /// The table directory.
    pub dir: PathBuf,
    /// In dependency order.
    pub materials: Vec<MaterialPlan>,
    /// Peak bytes of memory the generation needs.
    pub peak_bytes: u64,
    /// The draw-rule limits of the rule tables.
    pub limits: Limits,
}

impl Plan {
    /// Plans every material of `variant` with up to `max_pieces` pieces, tables in `dir`, with
    /// the FMJD draw-rule limits.
    ///
    /// # Errors
    ///
    /// [`GenerateError::TooManyPieces`] past [`MAX_PIECES`].
    pub fn new(variant: Variant, max_pieces: u32, dir: &Path) -> Result<Plan, GenerateError> {
        if max_pieces > MAX_PIECES {
            return Err(GenerateError::TooManyPieces {
                requested: max_pieces,
                max: MAX_PIECES,
            });
        }
        let materials: Vec<MaterialPlan> = Material::all_up_to(variant, max_pieces)
            .into_iter()
            .map(|material| MaterialPlan {
                material,
                positions: PositionIndex::count(variant, material),
                path: table_path(dir, variant, material, TableKind::Wdl),
                dtw_path: table_path(dir, variant, material, TableKind::Dtw),
                draw_rules_path: table_path(dir, variant, material, TableKind::DrawRules),
                limits: Limits::fmjd(variant),
            })
            .collect();
        // Solving one material holds per position a state byte, a count byte and a 2-byte
        // distance, then its distances (up to 2 bytes) and the packed and compressed blocks of
        // its tables while writing them (up to 2 bytes more); then the rule solver's 3 bytes a
        // position beside the distances, and the rule codes. The distances and rule values of
        // everything solved before it stay (2 bytes a position, and a byte more for the few
        // materials with wins past 254 plies, and the allocator: a quarter more is allowed for
        // them). That adds up to about 8 bytes a position of the material being solved; 11 are
        // planned, which covers what was measured: Brazilian up to 6 pieces peaked at 6.09 GiB
        // (planned 6.4 GiB), international up to 5 at 3.85 GiB (planned 4.1 GiB).
        let mut solved = 0u64;
        let mut peak = 0u64;
        for m in &materials {
            let current = 11 * m.positions;
            peak = peak.max(2 * solved + solved / 4 + current);
            solved += m.positions;
        }
        Ok(Plan {
            variant,
            max_pieces,
            dir: dir.to_path_buf(),
            materials,
            peak_bytes: peak + OVERHEAD,
            limits: Limits::fmjd(variant),
        })
    }

    /// The same plan with other draw-rule limits for the rule tables.
    pub fn with_limits(mut self, limits: Limits) -> Plan {
        self.limits = limits;
        for m in &mut self.materials {
            m.limits = limits;
        }
        self
    }

    /// Total positions of all materials.
    pub fn positions(&self) -> u64 {
        self.materials.iter().map(|m| m.positions).sum()
    }

    /// Refuses a plan that needs more memory than is available.
    ///
    /// # Errors
    ///
    /// [`GenerateError::NotEnoughMemory`].
    pub fn check_memory(&self, available: u64) -> Result<(), GenerateError> {
        if self.peak_bytes > available {
            return Err(GenerateError::NotEnoughMemory {
                variant: self.variant,
                pieces: self.max_pieces,
                needed: self.peak_bytes,
                available,
            });
        }
        Ok(())
    }
}

/// Bytes beyond the tables: thread stacks, move lists, indexes, the allocator's slack.
const OVERHEAD: u64 = 64 << 20;

/// Memory available for generation: `MemAvailable` of `/proc/meminfo` where there is one.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    info.lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))
        .and_then(|rest| rest.trim().strip_suffix("kB"))
        .and_then(|kb| kb.trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_in_dependency_order_with_memory() {
        let plan = Plan::new(Variant::Brazilian, 3, Path::new("data")).unwrap();
        assert_eq!(plan.materials.len(), 9);
        assert!(
            plan.peak_bytes
                > plan
                    .materials
                    .iter()
                    .map(|m| 2 * m.positions)
                    .max()
                    .unwrap()
        );
        assert!(plan.check_memory(1 << 40).is_ok());
        assert!(matches!(
            plan.check_memory(1 << 20),
            Err(GenerateError::NotEnoughMemory { .. })
        ));
        assert!(Plan::new(Variant::Brazilian, 9, Path::new("data")).is_err());
        assert!(plan.materials[0].path.ends_with("brazilian/KvK.wdl"));
    }
}
