//! Perft speed: the whole move generator (captures, kings, make-move) on one thread.
//!
//! `cargo bench --bench perft`; docs/performance.md quotes the medians.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use rafle_probe::draughts::{perft, Position, Variant};

fn start_positions(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    let international = Position::start(Variant::International);
    group.bench_function("international start depth 9", |b| {
        b.iter(|| assert_eq!(perft(black_box(&international), 9), 41_022_423));
    });
    let brazilian = Position::start(Variant::Brazilian);
    group.bench_function("brazilian start depth 10", |b| {
        b.iter(|| assert_eq!(perft(black_box(&brazilian), 10), 21_560_022));
    });
    let random178 = Position::from_fen(
        Variant::International,
        "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46",
    )
    .expect("reference FEN");
    group.bench_function("international random178 depth 6", |b| {
        b.iter(|| assert_eq!(perft(black_box(&random178), 6), 629_010));
    });
    group.finish();
}

criterion_group!(benches, start_positions);
criterion_main!(benches);
