//! Verification throughput: every position of one Brazilian material checked against its
//! successors (`verify_table`, the smaller materials its captures reach made along the way),
//! in positions per second on all cores.
//!
//! Tables come from `RAFLE_BENCH_DATA` (default `target/bench-data`), generated there on the
//! first run (Brazilian up to 5 pieces, international up to 4) and reused afterwards.
//! `cargo bench --bench verify`. The full-set figures in docs/performance.md come from `rafle verify` runs
//! timed with `/usr/bin/time -v`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rafle_generator::verify_table;
use rafle_probe::{
    draughts::{Material, Variant},
    toolkit::PositionIndex,
    Tablebase,
};

// Only the tables are needed here, not the random positions.
#[allow(dead_code)]
#[path = "support/mod.rs"]
mod support;
use support::tables;

fn verify(c: &mut Criterion) {
    let dir = tables();
    let variant = Variant::Brazilian;
    let mut group = c.benchmark_group("verify");
    // A 4-piece material with men and kings on both sides, and a 5-piece one of kings only.
    for (name, seconds) in [("KMvKM", 20), ("KKKvKK", 60)] {
        let material: Material = name.parse().expect("material name");
        let positions = PositionIndex::count(variant, material);
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(seconds))
            .throughput(Throughput::Elements(positions));
        group.bench_function(format!("{variant} {material}"), |b| {
            b.iter(|| {
                // A fresh tablebase each time: nothing decompressed is carried over.
                let tb = Tablebase::open(&dir).expect("tables open");
                let report = verify_table(&tb, variant, material, &|_| {}).expect("verify");
                assert_eq!(report.mismatches, 0, "{material}: {:?}", report.examples);
                black_box(report)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, verify);
criterion_main!(benches);
