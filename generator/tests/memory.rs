//! The heap solving a material holds, measured by a counting allocator. A kings-only material
//! is a single slice, the largest state the generator keeps at once, so its heap shows
//! whether the plan counts that state right: a plan that counts too little lets a run pass
//! its memory budget.
//!
//! One test in this file, so that no other test's allocations are counted.

#[path = "support/counting.rs"]
mod counting;

use std::sync::atomic::Ordering::Relaxed;

use counting::{Counting, LIVE, PEAK};
use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::draughts::{Material, Variant};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn plan(material: &str, dir: &std::path::Path) -> Plan {
    let material: Material = material.parse().expect("a material");
    Plan::for_material(Variant::Brazilian, material, dir).expect("a plan")
}

#[test]
fn a_kings_only_material_solves_within_the_memory_planned_for_its_slice() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Its dependencies, each a unit of work from the ones before.
    for material in ["KvK", "KKvK", "KKvKK", "KKKvK"] {
        generate(&plan(material, dir.path()), &NoProgress).expect("a dependency generates");
    }
    let plan = plan("KKKvKK", dir.path());
    let target = plan.materials.last().expect("the unit");
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    generate(&plan, &NoProgress).expect("the unit generates");
    let peak = PEAK.load(Relaxed) - base;
    // Beside the slice's state: every value it reads, decompressed (3 bytes a position at
    // most), and the table writer's buffers and compression contexts.
    let read: u64 = plan
        .materials
        .iter()
        .rev()
        .skip(1)
        .map(|m| 3 * m.positions)
        .sum();
    let writer = 8 << 20;
    let allowed = target.slices_bytes + read + writer;
    assert!(
        peak as u64 <= allowed,
        "solving {} ({} positions) took {peak} bytes of heap, {allowed} allowed (slices {})",
        target.material,
        target.positions,
        target.slices_bytes
    );
}
