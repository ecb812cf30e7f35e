//! The heap solving a material holds, measured by a counting allocator. A kings-only material
//! is a single slice, the largest state the generator keeps at once, so its heap shows
//! whether the plan counts that state right: a plan that counts too little lets a run pass
//! its memory budget.
//!
//! One test in this file, so that no other test's allocations are counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::{Material, Variant};

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(live, Relaxed);
}

// SAFETY: every call is passed on to the system allocator unchanged; the counters are only
// statistics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout contract is passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            grew(new_size);
        }
        p
    }
}

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
