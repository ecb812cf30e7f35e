//! What an engine sees: probes of random positions of every material (up to the generated
//! piece count, capture positions included) with a warm cache, through the Rust API and
//! through the C interface, one probe at a time (latency) and on 1 and 2 threads
//! (throughput).
//!
//! - `latency/<api> <probe>`: the median time of one probe whose blocks are all cached.
//! - `throughput/<api> wdl <n> threads`: `n` threads probing at once, time per probe of the
//!   whole group (probes per second = 1 / that time).
//!
//! The C functions are called through function pointers hidden from the optimiser, so every
//! call pays what a C caller pays: the C calling convention, the position's checks and
//! conversion, the panic guard.
//!
//! Tables come from `RAFLE_BENCH_DATA` (default `target/bench-data`), generated there on the
//! first run (Brazilian up to 5 pieces, international up to 4) and reused afterwards.
//! `cargo bench --bench engine`; docs/c.md quotes the medians.

use std::ffi::{c_int, CString};
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use rafle::{
    rafle_close, rafle_open, rafle_probe_dtw, rafle_probe_rules, rafle_probe_wdl,
    rafle_probe_wdl_cached, RafleCounters, RaflePosition, RafleRules, RafleTablebase, RAFLE_OK,
};
use rafle_probe::{Counters, Tablebase, Variant};

#[path = "support/mod.rs"]
mod support;
use support::{random_positions, tables};

/// A C handle usable from the benchmark's threads, as the header allows.
struct Handle(*mut RafleTablebase);

// SAFETY: rafle.h documents a handle as usable from any number of threads at once; it is
// closed only in `Drop`, after every thread is done.
unsafe impl Send for Handle {}
// SAFETY: as above.
unsafe impl Sync for Handle {}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: opened by rafle_open, closed once.
        unsafe { rafle_close(self.0) }
    }
}

type WdlFn = unsafe extern "C" fn(*const RafleTablebase, *const RaflePosition, *mut c_int) -> c_int;
type DtwFn = unsafe extern "C" fn(
    *const RafleTablebase,
    *const RaflePosition,
    *mut c_int,
    *mut c_int,
) -> c_int;
type RulesFn = unsafe extern "C" fn(
    *const RafleTablebase,
    *const RaflePosition,
    *const RafleCounters,
    *mut RafleRules,
) -> c_int;

/// Runs `iters` probes spread over `threads` threads, each going round its own part of the
/// positions; returns the wall-clock time of the whole.
fn spread<T: Sync>(threads: usize, iters: u64, items: &[T], probe: impl Fn(&T) + Sync) -> Duration {
    let per_thread = iters.div_ceil(threads as u64);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for part in items.chunks(items.len().div_ceil(threads)) {
            let probe = &probe;
            scope.spawn(move || {
                for i in 0..per_thread {
                    probe(&part[i as usize % part.len()]);
                }
            });
        }
    });
    start.elapsed()
}

fn engine(c: &mut Criterion) {
    let dir = tables();
    let path = CString::new(dir.to_str().expect("a UTF-8 path")).expect("no NUL");
    for variant in Variant::ALL {
        let tb = Tablebase::open(&dir).expect("tables open");
        // SAFETY: a valid NUL-terminated path; 0 selects the default cache, as for `tb`.
        let handle = Handle(unsafe { rafle_open(path.as_ptr(), 0) });
        assert!(!handle.0.is_null(), "the C interface opens the tables");
        let positions = random_positions(&tb, variant, 1 << 16);
        let c_positions: Vec<RaflePosition> =
            positions.iter().map(RaflePosition::from_position).collect();
        let fresh = RafleCounters::default();
        // Warm both caches with every probe measured below.
        for (p, cp) in positions.iter().zip(&c_positions) {
            tb.probe_wdl(p).expect("probe");
            tb.probe_dtw(p).expect("probe");
            tb.probe_draw_rules(p, Counters::FRESH).expect("probe");
            let (mut wdl, mut plies, mut rules) = (0, 0, RafleRules::default());
            // SAFETY: a live handle, valid positions and outputs.
            unsafe {
                assert_eq!(rafle_probe_wdl(handle.0, cp, &mut wdl), RAFLE_OK);
                assert_eq!(
                    rafle_probe_dtw(handle.0, cp, &mut wdl, &mut plies),
                    RAFLE_OK
                );
                assert_eq!(
                    rafle_probe_rules(handle.0, cp, &fresh, &mut rules),
                    RAFLE_OK
                );
            }
        }

        let mut group = c.benchmark_group("latency");
        let n = positions.len();
        let mut i = 0;
        let mut next = move || {
            i = (i + 1) % n;
            i
        };
        group.bench_function(format!("rust {variant} wdl"), |b| {
            b.iter(|| black_box(tb.probe_wdl(black_box(&positions[next()])).expect("probe")));
        });
        group.bench_function(format!("rust {variant} wdl cached-only"), |b| {
            b.iter(|| black_box(tb.probe_wdl_cached(black_box(&positions[next()]))));
        });
        group.bench_function(format!("rust {variant} dtw"), |b| {
            b.iter(|| black_box(tb.probe_dtw(black_box(&positions[next()])).expect("probe")));
        });
        group.bench_function(format!("rust {variant} rules"), |b| {
            b.iter(|| {
                let pos = black_box(&positions[next()]);
                black_box(tb.probe_draw_rules(pos, Counters::FRESH).expect("probe"))
            });
        });
        for (name, f) in [
            ("wdl", rafle_probe_wdl as WdlFn),
            ("wdl cached-only", rafle_probe_wdl_cached as WdlFn),
        ] {
            let f = black_box(f);
            group.bench_function(format!("c {variant} {name}"), |b| {
                b.iter(|| {
                    let mut wdl = 0;
                    // SAFETY: a live handle, valid positions and outputs.
                    let status = unsafe { f(handle.0, &c_positions[next()], &mut wdl) };
                    black_box((status, wdl))
                });
            });
        }
        let dtw = black_box(rafle_probe_dtw as DtwFn);
        group.bench_function(format!("c {variant} dtw"), |b| {
            b.iter(|| {
                let (mut wdl, mut plies) = (0, 0);
                // SAFETY: as above.
                let status = unsafe { dtw(handle.0, &c_positions[next()], &mut wdl, &mut plies) };
                black_box((status, wdl, plies))
            });
        });
        let rules = black_box(rafle_probe_rules as RulesFn);
        group.bench_function(format!("c {variant} rules"), |b| {
            b.iter(|| {
                let mut out = RafleRules::default();
                // SAFETY: as above.
                let status = unsafe { rules(handle.0, &c_positions[next()], &fresh, &mut out) };
                black_box((status, out))
            });
        });
        group.finish();

        let mut group = c.benchmark_group("throughput");
        let probe_c = black_box(rafle_probe_wdl as WdlFn);
        for threads in [1, 2] {
            group.bench_function(format!("rust {variant} wdl {threads} threads"), |b| {
                b.iter_custom(|iters| {
                    spread(threads, iters, &positions, |p| {
                        black_box(tb.probe_wdl(p).expect("probe"));
                    })
                });
            });
            let handle = &handle;
            group.bench_function(format!("c {variant} wdl {threads} threads"), |b| {
                b.iter_custom(|iters| {
                    spread(threads, iters, &c_positions, |p| {
                        let mut wdl = 0;
                        // SAFETY: a live handle shared as documented, valid position and output.
                        black_box(unsafe { probe_c(handle.0, p, &mut wdl) });
                    })
                });
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3));
    targets = engine
}
criterion_main!(benches);
