//! Several threads probing one tablebase give the answers one thread gives: win/draw/loss,
//! distance, rule outcome with counters, best move and the cache-only probe, with tables
//! opened by whichever thread comes first and, with a small cache, blocks evicted and
//! decompressed again all the time, the cache never passing its budget, and the pages of the
//! mapped table files given back to the system all the while.

use std::sync::Barrier;

use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::{
    draughts::{Counters, Position, Variant},
    toolkit::PositionIndex,
    Tablebase,
};
use tempfile::TempDir;

const THREADS: usize = 4;

/// A cache that keeps every block of the tables once read.
const ROOMY: usize = 64 << 20;

fn tables() -> TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for variant in Variant::ALL {
        let plan = Plan::new(variant, 3, dir.path()).expect("plan");
        generate(&plan, &NoProgress).expect("tables generate");
    }
    dir
}

/// Random positions of every material with random live counters, a fixed sequence, and a few
/// that fail (more pieces than the tables have).
fn batch(tables: &Tablebase) -> Vec<(Position, Counters)> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut list = Vec::new();
    for variant in Variant::ALL {
        for material in tables.materials(variant) {
            let index = PositionIndex::new(variant, material);
            for _ in 0..60 {
                let counters = Counters {
                    king_plies: (next() % 55) as u16,
                    category_plies: (next() % 12) as u16,
                };
                list.push((index.unrank(next() % index.size()), counters));
            }
        }
        let four = Position::from_fen(variant, "W:WK22,K23:BK10,K11").expect("FEN");
        list.push((four, Counters::FRESH));
    }
    list
}

/// Every answer for one position, written out so that two runs compare as text. The
/// cache-only probes must agree with the full ones, and answer whenever the cache is `roomy`
/// (nothing is evicted between the two).
fn answers(tables: &Tablebase, pos: &Position, counters: Counters, roomy: bool) -> String {
    let wdl = tables.probe_wdl(pos).map_err(|e| e.to_string());
    if let Ok(wdl) = &wdl {
        match tables.probe_wdl_cached(pos) {
            Some(cached) => assert_eq!(*wdl, cached, "{pos:?}"),
            None => assert!(!roomy, "{pos:?} not cached"),
        }
    }
    let dtw = tables.probe_dtw(pos).map_err(|e| e.to_string());
    let rules = tables
        .probe_draw_rules(pos, counters)
        .map_err(|e| e.to_string());
    if let Ok(rules) = &rules {
        match tables.probe_draw_rules_cached(pos, counters) {
            Some(cached) => assert_eq!(*rules, cached, "{pos:?}"),
            None => assert!(!roomy, "{pos:?} not cached"),
        }
    }
    let best = tables.best_move(pos).map_err(|e| e.to_string());
    format!("{wdl:?} {dtw:?} {rules:?} {best:?}")
}

/// The answers of `THREADS` threads on one fresh tablebase, each going through the whole
/// batch from its own starting point; a watcher checks the cache's size meanwhile, and gives
/// the pages of the mapped files back (they are read again from the files).
fn threaded(dir: &TempDir, cache: usize, list: &[(Position, Counters)]) -> Vec<Vec<String>> {
    let tables = Tablebase::open_with_cache(dir.path(), cache).expect("tables open");
    let start = Barrier::new(THREADS);
    let done = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let (tables, start, done) = (&tables, &start, &done);
                scope.spawn(move || {
                    // All threads start together, so that they race to open the same tables.
                    start.wait();
                    let offset = t * list.len() / THREADS;
                    let mut out = vec![String::new(); list.len()];
                    for i in (0..list.len()).map(|i| (i + offset) % list.len()) {
                        let (pos, counters) = &list[i];
                        out[i] = answers(tables, pos, *counters, cache == ROOMY);
                    }
                    done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    out
                })
            })
            .collect();
        while done.load(std::sync::atomic::Ordering::SeqCst) < THREADS {
            assert!(tables.cache_bytes() <= cache);
            tables.release_mapped_pages();
            std::thread::sleep(std::time::Duration::from_micros(100));
        }
        workers
            .into_iter()
            .map(|w| w.join().expect("no thread panics"))
            .collect()
    })
}

#[test]
fn threads_give_the_answers_of_one_thread() {
    let dir = tables();
    let one = Tablebase::open(dir.path()).expect("tables open");
    let list = batch(&one);
    let expected: Vec<String> = list
        .iter()
        .map(|(pos, counters)| answers(&one, pos, *counters, true))
        .collect();
    assert!(expected
        .iter()
        .any(|a| a.contains("TooManyPieces") || a.contains("at most")));
    // A roomy cache (every block kept once read), then one far smaller than the tables.
    for cache in [ROOMY, 128 << 10] {
        for (t, got) in threaded(&dir, cache, &list).into_iter().enumerate() {
            for (i, (answer, want)) in got.iter().zip(&expected).enumerate() {
                assert_eq!(answer, want, "thread {t}, cache {cache}, {:?}", list[i]);
            }
        }
    }
}
