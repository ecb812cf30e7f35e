//! `GET /api/v1/tables`: what the directory holds, per variant.

use rafle_probe::toolkit::format::TableKind;
use rafle_probe::{draughts::Variant, toolkit::table_path, Tablebase};
use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::error::ApiError;
use rafle_probe::answer::max_pieces;
use rafle_probe::AnswerError;

/// Every variant, in [`Variant::ALL`] order, each with what its tables hold.
pub(crate) struct Listing(Vec<(Variant, VariantTables)>);

/// One variant's tables.
#[derive(serde::Serialize)]
pub(crate) struct VariantTables {
    /// The most pieces a position may have to be answered (0: no tables).
    max_pieces: u32,
    /// The draw-rule limits of the rule tables, `null` without rule tables.
    limits: Option<String>,
    /// Each material with a win/draw/loss table, in dependency order.
    materials: Vec<MaterialTables>,
}

/// The sizes of one material's tables in bytes, `null` for a table that is not there.
#[derive(serde::Serialize)]
struct MaterialTables {
    material: String,
    pieces: u32,
    wdl: Option<u64>,
    dtw: Option<u64>,
    rules: Option<u64>,
}

impl Serialize for Listing {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (variant, tables) in &self.0 {
            map.serialize_entry(variant.name(), tables)?;
        }
        map.end()
    }
}

/// What `tables` holds; 500 if a variant's rule tables mix limits or are misplaced.
pub(crate) fn listing(tables: &Tablebase) -> Result<Listing, ApiError> {
    let mut variants = Vec::new();
    for variant in Variant::ALL {
        let limits = tables
            .limits(variant)
            .map_err(|e| ApiError::from_answer(&AnswerError::Probe(e)))?;
        let size = |m, kind| {
            std::fs::metadata(table_path(tables.dir(), variant, m, kind))
                .ok()
                .map(|meta| meta.len())
        };
        let materials = tables
            .materials(variant)
            .into_iter()
            .map(|m| MaterialTables {
                material: m.to_string(),
                pieces: m.pieces(),
                wdl: size(m, TableKind::Wdl),
                dtw: size(m, TableKind::Dtw),
                rules: size(m, TableKind::DrawRules),
            })
            .collect();
        variants.push((
            variant,
            VariantTables {
                max_pieces: max_pieces(tables, variant),
                limits: limits.map(|l| l.to_string()),
                materials,
            },
        ));
    }
    Ok(Listing(variants))
}
