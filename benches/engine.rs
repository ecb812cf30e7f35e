//! What an engine sees: probes of random positions of every material (up to the generated
//! piece count, capture positions included) with a warm cache, through the Rust API and
//! through the C interface, one probe at a time (latency) and on 1 and 2 threads
//! (throughput).
//!
//! - `latency/<api> <probe>`: the median time of one probe whose blocks are all cached.
//! - `throughput/<api> wdl <n> threads`: `n` threads probing at once, time per probe of the
//!   whole group (probes per second = 1 / that time).
//! - `block_miss/<variant> <probe>`: the time of one Rust probe whose block is not in the
//!   decompressed-block cache while its file is in the OS page cache: the block's checksum,
//!   its decompression, its insertion in the cache (evicting the block before it) and the
//!   probe itself. Each tablebase has a cache of room for one block of the kind measured (and
//!   one win/draw/loss block), and the probes go round positions whose blocks of that kind
//!   are all distinct, so every measured probe misses (checked before measuring). Positions
//!   come only from full blocks of tables of at least 4 full blocks, and none has a capture
//!   to make, so each probe reads exactly one block of its kind:
//!   - `wdl`: one position in each full block of every such `.wdl` table, in a shuffled
//!     order: one `.wdl` block decompressed. `wdl read_block` times the same blocks'
//!     checksum and decompression alone (`Table::read_block`), the part a miss spends in the
//!     file.
//!   - `dtw`, `rules`: positions of the largest symmetric material, Black to move (the
//!     distance and rule tables store them as their mirror image, White to move), none drawn,
//!     all in one `.wdl` block but each in a different `.dtw` (`.rules`) block. The probe
//!     first reads the win/draw/loss value (to rule out a draw): a cache hit, as that block
//!     stays cached; then one `.dtw` (`.rules`) block is decompressed. So: wdl hit + dtw
//!     (rules) miss.
//!
//! The C functions are called through function pointers hidden from the optimiser, so every
//! call pays what a C caller pays: the C calling convention, the position's checks and
//! conversion, the panic guard.
//!
//! Tables come from `RAFLE_BENCH_DATA` (default `target/bench-data`), generated there on the
//! first run (Brazilian up to 5 pieces, international up to 4) and reused afterwards.
//! `cargo bench --bench engine`; docs/c.md quotes the medians, docs/performance.md (Block miss)
//! those of `block_miss` (`cargo bench --bench engine -- block_miss`).

use std::ffi::{c_int, CString};
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use rafle::{
    rafle_close, rafle_open, rafle_probe_dtw, rafle_probe_rules, rafle_probe_wdl,
    rafle_probe_wdl_cached, RafleCounters, RaflePosition, RafleRules, RafleTablebase, RAFLE_OK,
};
use rafle_probe::toolkit::format::{Header, TableKind};
use rafle_probe::{
    draughts::{Counters, Position, Variant},
    toolkit::Table,
    Tablebase, Wdl,
};

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

/// The full blocks of a table (all but a shorter last one).
fn full_blocks(header: &Header) -> Vec<u32> {
    (0..header.blocks)
        .filter(|&b| header.positions_in_block(b) == header.positions_per_block)
        .collect()
}

/// The size of a full decompressed block of a table.
fn block_len(table: &Table) -> usize {
    let header = table.header();
    Header::block_len(header.positions_per_block, header.bits)
}

/// The block of `table` holding `pos` (in the table's orientation).
fn block_of(table: &Table, pos: &Position) -> u64 {
    table.index().rank(pos) / u64::from(table.header().positions_per_block)
}

/// A position whose probe reads its table and nothing else: no capture to make, not over.
fn read_from_table(pos: &Position) -> bool {
    !pos.must_capture() && pos.game_over().is_none()
}

/// Reads a file once, so that it is in the OS page cache.
fn warm_page_cache(table: &Table) {
    let bytes = std::fs::read(table.path()).expect("table file reads");
    black_box(bytes.len());
}

/// One position in each full block of every `.wdl` table of `variant` with at least 4 full
/// blocks, in a fixed shuffled order (no two consecutive ones in the same block), with the
/// number of tables.
fn wdl_miss_positions(tb: &Tablebase, variant: Variant) -> (Vec<Position>, usize) {
    let mut positions = Vec::new();
    let mut tables = 0;
    for material in tb.materials_of(TableKind::Wdl, variant) {
        let table = tb
            .table_of(TableKind::Wdl, variant, material)
            .expect("table opens");
        let header = table.header();
        let full = full_blocks(header);
        if full.len() < 4 {
            continue;
        }
        tables += 1;
        warm_page_cache(table);
        let per_block = u64::from(header.positions_per_block);
        for block in full {
            // From the middle of the block on, the first position without a capture.
            let start = u64::from(block) * per_block;
            // A block of the half the tables do not store is empty: none is found there.
            let found = (start + per_block / 2..start + per_block)
                .map(|i| table.index().unrank(i))
                .find(|p| {
                    read_from_table(p) && tb.stores_side_to_move(TableKind::Wdl, p).expect("probe")
                });
            positions.extend(found);
        }
    }
    // Fisher-Yates with a fixed xorshift: the blocks in no file order, the same every run.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for i in (1..positions.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        positions.swap(i, (state % (i as u64 + 1)) as usize);
    }
    (positions, tables)
}

fn block_miss(c: &mut Criterion) {
    let dir = tables();
    let mut group = c.benchmark_group("block_miss");
    for variant in Variant::ALL {
        let setup = Tablebase::open(&dir).expect("tables open");

        let (positions, tables) = wdl_miss_positions(&setup, variant);
        assert!(positions.len() >= 2, "{variant}: too few blocks");
        let wdl_len = positions
            .iter()
            .map(|p| {
                let (_, material) = p.canonical();
                block_len(
                    setup
                        .table_of(TableKind::Wdl, variant, material)
                        .expect("table"),
                )
            })
            .max()
            .expect("positions");
        // Room for one block, not two.
        let tb = Tablebase::open_with_cache(&dir, wdl_len + wdl_len / 2).expect("tables open");
        eprintln!(
            "block_miss {variant} wdl: {} positions, each in a block of its own ({} blocks of \
             {tables} .wdl tables), cache of {} bytes",
            positions.len(),
            positions.len(),
            tb.cache_budget()
        );
        // Twice round, checking each probe misses: this also maps the files' pages.
        for _ in 0..2 {
            for p in &positions {
                assert_eq!(tb.probe_wdl_cached(p), None, "{variant}: a wdl probe hit");
                tb.probe_wdl(p).expect("probe");
            }
        }
        let n = positions.len();
        let mut i = 0;
        group.bench_function(format!("{variant} wdl"), |b| {
            b.iter(|| {
                i = (i + 1) % n;
                black_box(tb.probe_wdl(black_box(&positions[i])).expect("probe"))
            });
        });
        drop(tb);
        // The part of that miss spent in the file: the same blocks' checksums and
        // decompression alone, through `Table::read_block`.
        let blocks: Vec<(&Table, u32)> = positions
            .iter()
            .map(|p| {
                let (_, material) = p.canonical();
                let table = setup
                    .table_of(TableKind::Wdl, variant, material)
                    .expect("table");
                (table, block_of(table, p) as u32)
            })
            .collect();
        group.bench_function(format!("{variant} wdl read_block"), |b| {
            b.iter(|| {
                i = (i + 1) % n;
                let (table, block) = blocks[i];
                black_box(table.read_block(black_box(block)).expect("block reads"))
            });
        });

        // A distance or rule probe reads the position's .wdl block first (to rule out a draw),
        // then its block of the kind measured, the same block number: both miss.
        let decided: Vec<Position> = positions
            .iter()
            .filter(|p| setup.probe_wdl(p).expect("probe") != Wdl::Draw)
            .copied()
            .collect();
        for kind in [TableKind::Dtw, TableKind::DrawRules] {
            let name = if kind == TableKind::Dtw {
                "dtw"
            } else {
                "rules"
            };
            let len = decided
                .iter()
                .map(|p| {
                    let (_, material) = p.canonical();
                    block_len(setup.table_of(kind, variant, material).expect("table"))
                })
                .max()
                .expect("positions");
            // Room for one .wdl block and one block of `kind`, not two of either.
            let tb = Tablebase::open_with_cache(&dir, wdl_len + len + wdl_len.min(len) / 2)
                .expect("tables open");
            eprintln!(
                "block_miss {variant} {name}: {} positions, each in a .wdl and a .{} block of \
                 its own (both miss), cache of {} bytes",
                decided.len(),
                kind.extension(),
                tb.cache_budget()
            );
            let probe = |p: &Position| {
                if kind == TableKind::Dtw {
                    black_box(tb.probe_dtw(p).expect("probe"));
                } else {
                    black_box(tb.probe_draw_rules(p, Counters::FRESH).expect("probe"));
                }
            };
            for _ in 0..2 {
                for p in &decided {
                    assert!(tb.probe_wdl_cached(p).is_none(), "{variant}: a wdl hit");
                    probe(p);
                }
            }
            let n = decided.len();
            let mut i = 0;
            group.bench_function(format!("{variant} {name}"), |b| {
                b.iter(|| {
                    i = (i + 1) % n;
                    probe(black_box(&decided[i]));
                });
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3));
    targets = engine, block_miss
}
criterion_main!(benches);
