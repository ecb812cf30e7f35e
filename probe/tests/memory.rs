//! Memory under load, measured by a counting allocator: the heap a tablebase holds stays under
//! its cache budget however many probes run (two threads, a budget far smaller than the
//! tables), and probes whose blocks are cached allocate nothing.
//!
//! One test in this file, so that no other test's allocations are counted.

#[path = "../../generator/tests/support/counting.rs"]
mod counting;

use std::hint::black_box;
use std::sync::atomic::Ordering::Relaxed;

use counting::{Counting, CALLS, LIVE, PEAK};
use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::toolkit::format::TableKind;
use rafle_probe::{
    draughts::{Counters, Position, Variant},
    toolkit::PositionIndex,
    Tablebase,
};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Random positions of every material the tables have, a fixed sequence.
fn positions(tables: &Tablebase, count: usize) -> Vec<Position> {
    let indexes: Vec<PositionIndex> = Variant::ALL
        .into_iter()
        .flat_map(|v| tables.materials(v).into_iter().map(move |m| (v, m)))
        .map(|(v, m)| PositionIndex::new(v, m))
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

/// Opens every table of the directory, so that what opening allocates is counted before.
fn open_all(tables: &Tablebase) -> usize {
    let mut decompressed = 0;
    for variant in Variant::ALL {
        for kind in [TableKind::Wdl, TableKind::Dtw, TableKind::DrawRules] {
            for m in tables.materials_of(kind, variant) {
                let table = tables.table_of(kind, variant, m).expect("the table opens");
                let h = table.header();
                decompressed += (h.positions * u64::from(h.bits)).div_ceil(8) as usize;
            }
        }
    }
    decompressed
}

fn probe_all(tables: &Tablebase, positions: &[Position]) {
    for pos in positions {
        black_box(tables.probe_wdl(pos).expect("wdl"));
        black_box(tables.probe_dtw(pos).expect("dtw"));
        black_box(
            tables
                .probe_draw_rules(pos, Counters::FRESH)
                .expect("rules"),
        );
    }
}

#[test]
fn memory_stays_under_the_cache_budget_and_cached_probes_allocate_nothing() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for variant in Variant::ALL {
        let plan = Plan::new(variant, 3, dir.path()).expect("plan");
        generate(&plan, &NoProgress).expect("tables generate");
    }

    // A budget far below the tables' decompressed size: blocks come and go all the time.
    let budget = 256 << 10;
    let tables = Tablebase::open_with_cache(dir.path(), budget).expect("tables open");
    let decompressed = open_all(&tables);
    assert!(
        decompressed > 8 * budget,
        "{decompressed} bytes of tables: too few to test a {budget}-byte budget"
    );
    let batch = positions(&tables, 10_000);
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    std::thread::scope(|scope| {
        for half in batch.chunks(batch.len() / 2) {
            let tables = &tables;
            scope.spawn(move || {
                for _ in 0..2 {
                    probe_all(tables, half);
                    assert!(tables.cache_bytes() <= budget);
                }
            });
        }
    });
    let peak = PEAK.load(Relaxed) - base;
    // On top of the budget: each thread's block being decompressed (at most 64 KiB for these
    // tables, of one byte a position) and the threads' own small allocations.
    let slack = 2 * (64 << 10) + (32 << 10);
    assert!(
        peak <= budget + slack,
        "the heap grew by {peak} bytes under load, budget {budget} + {slack}"
    );
    assert!(tables.cache_bytes() <= budget);
    drop(tables);

    // With every block cached, the probes allocate nothing, captures resolved included.
    let tables = Tablebase::open_with_cache(dir.path(), 64 << 20).expect("tables open");
    probe_all(&tables, &batch);
    let calls = CALLS.load(Relaxed);
    probe_all(&tables, &batch);
    for pos in &batch {
        black_box(tables.probe_wdl_cached(pos).expect("cached"));
        black_box(
            tables
                .probe_draw_rules_cached(pos, Counters::FRESH)
                .expect("cached"),
        );
    }
    assert_eq!(CALLS.load(Relaxed), calls, "allocations on the cached path");
}
