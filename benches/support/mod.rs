//! What the probing benchmarks share: the tables they read and the positions they probe.

use std::path::PathBuf;

use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::toolkit::format::TableKind;
use rafle_probe::{
    draughts::{Material, Position, Variant},
    toolkit::PositionIndex,
    Tablebase,
};

/// The table directory, `RAFLE_BENCH_DATA` (default `target/bench-data`), with Brazilian up to
/// 5 pieces and international up to 4, generated there on the first run.
pub fn tables() -> PathBuf {
    let dir = std::env::var_os("RAFLE_BENCH_DATA")
        .map_or_else(|| PathBuf::from("target/bench-data"), PathBuf::from);
    for (variant, pieces) in [(Variant::Brazilian, 5), (Variant::International, 4)] {
        // `generate` would check every existing table block by block; a run only needs them
        // there and readable, so it generates only if some table is missing or outdated.
        let there = Tablebase::open(&dir).is_ok_and(|tb| {
            Material::all_up_to(variant, pieces).into_iter().all(|m| {
                [TableKind::Wdl, TableKind::Dtw, TableKind::DrawRules]
                    .into_iter()
                    .all(|kind| tb.table_of(kind, variant, m).is_ok())
            })
        });
        if !there {
            let plan = Plan::new(variant, pieces, &dir).expect("plan");
            generate(&plan, &NoProgress).expect("bench tables generate");
        }
    }
    dir
}

/// Random positions of every material of the variant, a fixed sequence.
pub fn random_positions(tb: &Tablebase, variant: Variant, count: usize) -> Vec<Position> {
    let indexes: Vec<PositionIndex> = tb
        .materials(variant)
        .iter()
        .map(|&m| PositionIndex::new(variant, m))
        .collect();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            let index = &indexes[(next() % indexes.len() as u64) as usize];
            index.unrank(next() % index.size())
        })
        .collect()
}
