//! Generation throughput, on all cores:
//! - a set small enough to repeat: every Brazilian material up to 4 pieces (about 7.4 million
//!   positions), solved and written from scratch;
//! - one large 6-piece Brazilian material as a unit of work (`Plan::for_material`): KKKMvKK
//!   (95 million positions, slices with one man) and KKKvKKK (36 million, kings only: one
//!   slice over every core), each solved and written from its finished dependencies, which are
//!   made once in `RAFLE_BENCH_DATA` (default `target/bench-data`) and read back from their
//!   tables at each run, as a unit of work on a cluster does.
//!
//! `cargo bench --bench generate` (about 15 minutes on two cores). The full-size figures in docs/performance.md (Brazilian up to 6
//! pieces, international up to 5) come from `rafle generate` runs timed with `/usr/bin/time -v`.

use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::draughts::{Material, Variant};

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

fn one_large_material(c: &mut Criterion) {
    let variant = Variant::Brazilian;
    let dir = std::env::var_os("RAFLE_BENCH_DATA")
        .map_or_else(|| PathBuf::from("target/bench-data"), PathBuf::from)
        .join("units");
    let mut group = c.benchmark_group("generate one material");
    for (name, seconds) in [("KKKMvKK", 400), ("KKKvKKK", 160)] {
        let material: Material = name.parse().expect("material name");
        let plan = Plan::for_material(variant, material, &dir).expect("plan");
        // The dependencies, each a unit of its own, in the plan's (dependency) order.
        for m in &plan.materials[..plan.materials.len() - 1] {
            let dep = Plan::for_material(variant, m.material, &dir).expect("plan");
            generate(&dep, &NoProgress).expect("dependency generation");
        }
        let target = plan.materials.last().expect("the unit");
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(seconds))
            .throughput(Throughput::Elements(target.positions));
        group.bench_function(format!("{variant} {material}"), |b| {
            b.iter_batched(
                || {
                    for path in [&target.path, &target.dtw_path, &target.draw_rules_path] {
                        let _ = std::fs::remove_file(path);
                    }
                },
                |()| {
                    let summaries = generate(&plan, &NoProgress).expect("generation");
                    assert!(summaries.last().is_some_and(|s| !s.reused));
                },
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, brazilian_up_to_four, one_large_material);
criterion_main!(benches);
