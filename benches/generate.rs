//! Generation throughput on a set small enough to repeat: every Brazilian material up to 4
//! pieces (about 7.4 million positions), solved and written from scratch on all cores.
//!
//! `cargo bench --bench generate`. The full-size figures in the README (Brazilian up to 6
//! pieces, international up to 5) come from `rafle generate` runs timed with `/usr/bin/time -v`.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::Variant;

fn brazilian_up_to_four(c: &mut Criterion) {
    let probe_plan = Plan::new(Variant::Brazilian, 4, "unused".as_ref()).expect("plan");
    let mut group = c.benchmark_group("generate");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(40))
        .throughput(Throughput::Elements(probe_plan.positions()));
    group.bench_function("brazilian up to 4 pieces", |b| {
        b.iter_batched(
            || tempfile::tempdir().expect("temporary directory"),
            |dir| {
                let plan = Plan::new(Variant::Brazilian, 4, dir.path()).expect("plan");
                generate(&plan, &NoProgress).expect("generation");
                dir
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

criterion_group!(benches, brazilian_up_to_four);
criterion_main!(benches);
