//! What a directory's tables hold, variant by variant, as `rafle stats` reports it: each
//! material's counts read from the summary `rafle generate` kept of its tables, or counted
//! from the tables themselves, and the variant's total.
//!
//! ```no_run
//! use rafle_generator::stats::{checked_limits, VariantStats};
//! use rafle_probe::toolkit::stats::material_stats;
//! use rafle_probe::{draughts::Variant, Tablebase};
//!
//! let tables = Tablebase::open("data")?;
//! let variant = Variant::Brazilian;
//! let limits = checked_limits(&tables, &[variant])?[0];
//! let stats = VariantStats::read(&tables, "data".as_ref(), variant, limits);
//! stats.check_checksums(&tables)?;
//! let rows = stats.rows(|material| material_stats(&tables, variant, material, limits, &|_| {}))?;
//! let (_, total) = rows.last().unwrap();
//! println!("{} positions, {} wins", total.positions, total.wins);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Path, PathBuf};

use rafle_probe::draughts::{Limits, Material, Variant};
use rafle_probe::toolkit::format::TableKind;
use rafle_probe::toolkit::stats::MaterialStats;
use rafle_probe::toolkit::PositionIndex;
use rafle_probe::{ProbeError, Tablebase};

use crate::kept_counts;

/// The rule limits of each variant's tables, refused before any work when the tables mix
/// limits (they have no one meaning) or a material's tables store sides to move that do not
/// agree (one built with `--compact` among tables built without: the values read through it
/// would be wrong).
///
/// # Errors
///
/// The first [`ProbeError`] met.
pub fn checked_limits(
    tables: &Tablebase,
    variants: &[Variant],
) -> Result<Vec<Option<Limits>>, ProbeError> {
    let limits = variants
        .iter()
        .map(|&v| tables.limits(v))
        .collect::<Result<Vec<_>, _>>()?;
    for &variant in variants {
        for material in tables.materials(variant) {
            tables.check_halves(variant, material)?;
        }
    }
    Ok(limits)
}

/// One variant's materials, with the counts kept of them.
#[derive(Debug, Clone)]
pub struct VariantStats {
    /// The board.
    pub variant: Variant,
    /// The limits of its rule tables (`None`: no rule tables).
    pub limits: Option<Limits>,
    /// Its materials, in the listing's order.
    pub materials: Vec<Material>,
    /// The counts kept of each, where `rafle generate` kept them of the tables there now.
    kept: Vec<Option<MaterialStats>>,
    /// The tables a set up to its largest material needs and the directory lacks: counted
    /// without them, the totals would look complete.
    pub missing: Vec<(Material, PathBuf)>,
    /// Files named like tables of materials no set holds: named, not counted.
    pub stray: Vec<PathBuf>,
    /// Its most pieces.
    pub max_pieces: u32,
}

impl VariantStats {
    /// What `tables` (opened on `dir`) hold of `variant`, and the counts kept of them.
    pub fn read(
        tables: &Tablebase,
        dir: &Path,
        variant: Variant,
        limits: Option<Limits>,
    ) -> VariantStats {
        let materials = tables.materials(variant);
        let kept = materials
            .iter()
            .map(|&material| kept_stats(dir, variant, material, limits))
            .collect();
        VariantStats {
            variant,
            limits,
            kept,
            missing: tables
                .missing_tables(variant)
                .into_iter()
                .map(|(material, _, path)| (material, path))
                .collect(),
            stray: tables.stray_files(variant).to_vec(),
            max_pieces: tables.max_pieces(variant),
            materials,
        }
    }

    /// Checks every block checksum of the tables counted (the kept counts vouch for the
    /// counts, not for the blocks' bytes): a damaged or missing table ends a run before any
    /// work.
    ///
    /// # Errors
    ///
    /// The first [`ProbeError`] met.
    pub fn check_checksums(&self, tables: &Tablebase) -> Result<(), ProbeError> {
        let kinds = match self.limits {
            Some(_) => &TableKind::ALL[..],
            None => &[TableKind::Wdl, TableKind::Dtw][..],
        };
        for &material in &self.materials {
            for &kind in kinds {
                tables
                    .table_of(kind, self.variant, material)?
                    .check_checksums()?;
            }
        }
        Ok(())
    }

    /// How many materials have no counts kept and are counted from their tables.
    pub fn to_count(&self) -> usize {
        self.kept.iter().filter(|k| k.is_none()).count()
    }

    /// A row per material (its name and counts: kept, or from `count`) and a last row,
    /// `total`, their sum.
    ///
    /// # Errors
    ///
    /// The first error of `count`.
    pub fn rows(
        self,
        mut count: impl FnMut(Material) -> Result<MaterialStats, ProbeError>,
    ) -> Result<Vec<(String, MaterialStats)>, ProbeError> {
        let mut rows = Vec::with_capacity(self.materials.len() + 1);
        for (&material, kept) in self.materials.iter().zip(self.kept) {
            let stats = match kept {
                Some(stats) => stats,
                None => count(material)?,
            };
            rows.push((material.to_string(), stats));
        }
        let mut total = MaterialStats {
            classes: self.limits.map(|_| [0; 5]),
            ..MaterialStats::default()
        };
        for (_, stats) in &rows {
            total.add(stats);
        }
        rows.push(("total".to_string(), total));
        Ok(rows)
    }
}

/// A material's counts from the summary `rafle generate` kept of its tables, if it kept one
/// of the tables there now (see [`kept_counts`]) that says where the longest win is.
fn kept_stats(
    dir: &Path,
    variant: Variant,
    material: Material,
    limits: Option<Limits>,
) -> Option<MaterialStats> {
    let kept = kept_counts(dir, variant, material)?;
    let longest = match kept.longest_win_at {
        Some(at) => {
            let fen = PositionIndex::new(variant, material).unrank(at).to_fen();
            Some((kept.longest_win, fen))
        }
        None if kept.wins == 0 => None,
        // A summary of an earlier version, which does not say where.
        None => return None,
    };
    // The classes split the values without the rules: a draw stays a draw, and a win (loss)
    // is a cursed win (blessed loss) or stays one.
    let classes = [
        kept.wins - kept.cursed_wins,
        kept.cursed_wins,
        kept.draws,
        kept.blessed_losses,
        kept.losses - kept.blessed_losses,
    ];
    Some(MaterialStats {
        positions: kept.positions,
        wins: kept.wins,
        draws: kept.draws,
        losses: kept.losses,
        classes: limits.map(|_| classes),
        longest,
    })
}
