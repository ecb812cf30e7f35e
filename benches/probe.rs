//! Probe latency: a random position of any material, with its table in the page cache and its
//! block already decompressed (warm, for win/draw/loss and for the distance to win), and the
//! first probe of a freshly opened tablebase (cold).
//!
//! Tables come from `RAFLE_BENCH_DATA` (default `target/bench-data`), generated there on the
//! first run (Brazilian up to 5 pieces, international up to 4) and reused afterwards.
//! `cargo bench --bench probe`; docs/performance.md quotes the medians.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rafle_probe::{draughts::Variant, Tablebase};

#[path = "support/mod.rs"]
mod support;
use support::{random_positions, tables};

fn probes(c: &mut Criterion) {
    let dir = tables();
    let mut group = c.benchmark_group("probe_wdl");
    for variant in Variant::ALL {
        let tb = Tablebase::open(&dir).expect("tables open");
        let positions = random_positions(&tb, variant, 1 << 16);
        for p in &positions {
            tb.probe_wdl(p).expect("warm-up probe");
        }
        let mut i = 0;
        group.bench_function(format!("{variant} warm"), |b| {
            b.iter(|| {
                i = (i + 1) % positions.len();
                black_box(tb.probe_wdl(black_box(&positions[i])).expect("probe"))
            });
        });
        for p in &positions {
            tb.probe_dtw(p).expect("warm-up probe");
        }
        let mut k = 0;
        group.bench_function(format!("{variant} dtw warm"), |b| {
            b.iter(|| {
                k = (k + 1) % positions.len();
                black_box(tb.probe_dtw(black_box(&positions[k])).expect("probe"))
            });
        });
        let mut j = 0;
        group.bench_function(format!("{variant} cold"), |b| {
            b.iter_batched(
                || {
                    j = (j + 1) % positions.len();
                    (Tablebase::open(&dir).expect("tables open"), positions[j])
                },
                |(tb, p)| black_box(tb.probe_wdl(&p).expect("probe")),
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, probes);
criterion_main!(benches);
