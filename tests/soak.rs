//! Probing while the tables are damaged and rebuilt under the readers: threads probe one
//! directory through the Rust API (sharing a tablebase) and through the C interface (a handle
//! of its own) while a writer keeps damaging tables (a byte flipped, a file cut short or
//! lengthened, each time a damaged copy renamed over the table, as rafle replaces tables) and
//! rebuilding them with `generate`. Every answer is the undamaged tables' or an error; a
//! reader that meets an error opens the directory again. Once the writer is done, every
//! reader, on a fresh tablebase, answers every position right.
//!
//! A few seconds in the normal suite; longer with, for instance:
//!
//! ```text
//! RAFLE_SOAK_SECONDS=600 cargo test --release --test soak
//! ```

use std::ffi::{c_int, CStr};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rafle::*;
use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::toolkit::format::HEADER_LEN;
use rafle_probe::{
    draughts::{Counters, Position, SquareStyle, Variant},
    Tablebase,
};

#[path = "../capi/tests/bridge/mod.rs"]
mod bridge;
mod damaged;
use bridge::{last_error, rules_of, wdl_code, Handle};
use damaged::{check, generate_tables, replace, table_files, Answer, Reference, Xorshift};

/// How long the writer goes on by default.
const SECONDS: f64 = 3.0;

/// Positions sampled per material.
const PER_MATERIAL: usize = 40;

/// Readers through the Rust API, sharing one tablebase.
const RUST_READERS: usize = 2;

/// How long the writer waits after damaging tables for a reader to meet the damage.
const SHOWN_FOR: Duration = Duration::from_millis(300);

/// A reader opens the directory again after this many positions even without an error, so
/// that it meets the tables the writer damaged since.
const REOPEN_EVERY: u32 = 64;

fn soak_time() -> Duration {
    let seconds = std::env::var("RAFLE_SOAK_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SECONDS);
    Duration::from_secs_f64(seconds)
}

/// What the threads share.
struct Shared<'a> {
    dir: &'a Path,
    reference: &'a Reference,
    /// Set by the writer once the tables are undamaged for good (or if it fails).
    done: AtomicBool,
    /// Set by a reader that fails, so that the writer stops early.
    failed: AtomicBool,
    /// Probes that failed with an error, by all readers.
    errors: AtomicU64,
    /// Positions checked, by all readers.
    checked: AtomicU64,
}

/// Sets `done` when dropped, also when the writer panics, so that the readers stop.
struct Finish<'a>(&'a AtomicBool);

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Sets `failed` if the reader holding it panics.
struct Failing<'a>(&'a AtomicBool);

impl Drop for Failing<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

/// Damages one table: a byte of a block or of the header and index flipped, the file cut
/// short or lengthened; the damaged copy is renamed over the table.
fn damage(path: &Path, rng: &mut Xorshift) {
    let mut bytes = std::fs::read(path).expect("the table reads");
    let len = bytes.len() as u64;
    match rng.below(4) {
        0 => {
            let at = HEADER_LEN as u64 + rng.below(len - HEADER_LEN as u64);
            bytes[at as usize] ^= 1 << rng.below(8);
        }
        1 => {
            let at = rng.below(len.min(HEADER_LEN as u64 + 64));
            bytes[at as usize] ^= 1 << rng.below(8);
        }
        2 => bytes.truncate(rng.below(len) as usize),
        _ => bytes.extend_from_slice(&rng.next().to_le_bytes()[..1 + rng.below(8) as usize]),
    }
    replace(path, &bytes);
}

/// Damages tables and rebuilds them until the time is up; returns the rebuilds.
fn writer(shared: &Shared<'_>, until: Instant) -> u32 {
    let _finish = Finish(&shared.done);
    let files = table_files(shared.dir);
    let originals: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(&f.path).expect("the table reads"))
        .collect();
    let plan = Plan::new(Variant::Brazilian, 3, shared.dir).expect("a plan");
    let mut rng = Xorshift(0x9e37_79b9_7f4a_7c15);
    let mut rebuilds = 0;
    while Instant::now() < until && !shared.failed.load(Ordering::SeqCst) {
        let errors = shared.errors.load(Ordering::SeqCst);
        let mut damaged = Vec::new();
        for _ in 0..1 + rng.below(3) {
            let f = rng.below(files.len() as u64) as usize;
            damage(&files[f].path, &mut rng);
            damaged.push(files[f].material);
        }
        let shown = Instant::now();
        while shared.errors.load(Ordering::SeqCst) == errors && shown.elapsed() < SHOWN_FOR {
            std::thread::sleep(Duration::from_millis(2));
        }
        let summaries = generate(&plan, &NoProgress).expect("the tables are rebuilt");
        for s in summaries.iter().filter(|s| damaged.contains(&s.material)) {
            assert!(!s.reused, "{} was reused damaged", s.material);
        }
        for (f, original) in files.iter().zip(&originals) {
            let now = std::fs::read(&f.path).expect("the table reads");
            assert!(&now == original, "{} rebuilt differently", f.path.display());
        }
        rebuilds += 1;
    }
    rebuilds
}

/// Probes random positions through a tablebase shared by the Rust readers, opening a new one
/// for all after an error or every [`REOPEN_EVERY`] positions; once the writer is done,
/// checks every position on a fresh tablebase.
fn rust_reader(shared: &Shared<'_>, current: &Mutex<Arc<Tablebase>>, seed: u64) {
    let _failing = Failing(&shared.failed);
    let reference = shared.reference;
    let mut rng = Xorshift(seed);
    let mut since_open = 0;
    while !shared.done.load(Ordering::SeqCst) {
        let tables = Arc::clone(&current.lock().expect("not poisoned"));
        let i = rng.below(reference.positions.len() as u64) as usize;
        let (pos, counters) = &reference.positions[i];
        let tally = check(&tables, pos, *counters, &reference.answers[i], false);
        shared.checked.fetch_add(1, Ordering::Relaxed);
        since_open += 1;
        if tally.errors > 0 || since_open >= REOPEN_EVERY {
            shared
                .errors
                .fetch_add(u64::from(tally.errors), Ordering::SeqCst);
            let fresh = Tablebase::open_with_cache(shared.dir, 256 << 10).expect("the directory");
            let mut slot = current.lock().expect("not poisoned");
            // Another reader may have opened a fresh one already.
            if Arc::ptr_eq(&slot, &tables) {
                *slot = Arc::new(fresh);
            }
            since_open = 0;
        }
    }
    let tables = Tablebase::open(shared.dir).expect("the directory opens");
    for ((pos, counters), want) in reference.positions.iter().zip(&reference.answers) {
        check(&tables, pos, *counters, want, true);
    }
}

/// Every C probe of a position, each the reference answer or `RAFLE_ERR_BAD_TABLE` (any
/// other status panics, naming the probe); returns the number of errors. With `exact`, an
/// error panics too.
fn c_check(tb: &Handle, pos: &Position, counters: Counters, want: &Answer, exact: bool) -> u64 {
    let c = RaflePosition::from_position(pos);
    let live = RafleCounters {
        king_plies: u32::from(counters.king_plies),
        category_plies: u32::from(counters.category_plies),
    };
    let mut errors = 0;
    let mut judge = |what: &str, status: c_int, right: bool| {
        if right {
            return;
        }
        assert!(
            status == RAFLE_ERR_BAD_TABLE && !exact,
            "{what} of {pos:?}: status {status}, right {right}, {}",
            last_error()
        );
        errors += 1;
    };
    // SAFETY (every call below): a live handle used by this thread only, arguments and
    // outputs on the stack.
    let mut wdl = 7;
    let status = unsafe { rafle_probe_wdl(tb.0, &c, &mut wdl) };
    judge(
        "wdl",
        status,
        status == RAFLE_OK && wdl == wdl_code(want.wdl),
    );
    let (mut wdl, mut plies) = (7, 7);
    let status = unsafe { rafle_probe_dtw(tb.0, &c, &mut wdl, &mut plies) };
    let dtw = (
        wdl_code(want.dtw.wdl()),
        want.dtw.plies().map_or(-1, c_int::from),
    );
    judge("dtw", status, status == RAFLE_OK && (wdl, plies) == dtw);
    let mut rules = RafleRules::default();
    let status = unsafe { rafle_probe_rules(tb.0, &c, &live, &mut rules) };
    judge(
        "rules",
        status,
        status == RAFLE_OK && rules == rules_of(&want.rules),
    );
    let mut best = RafleMove::default();
    let status = unsafe { rafle_best_move(tb.0, &c, &mut best) };
    match &want.best {
        Some((mv, value)) => {
            // SAFETY: the text is NUL-terminated.
            let text = unsafe { CStr::from_ptr(best.text.as_ptr()) };
            let right = status == RAFLE_OK
                && text.to_str() == Ok(pos.move_text(mv, SquareStyle::Numeric).as_str())
                && best.wdl == wdl_code(value.wdl())
                && best.plies == value.plies().map_or(-1, c_int::from);
            judge("best move", status, right);
        }
        None => judge("best move", status, status == RAFLE_NO_MOVE),
    }
    errors
}

/// As [`rust_reader`], through the C interface, with a handle of its own.
fn c_reader(shared: &Shared<'_>, seed: u64) {
    let _failing = Failing(&shared.failed);
    let reference = shared.reference;
    let mut rng = Xorshift(seed);
    let mut tb = Handle::open(shared.dir, 256 << 10);
    let mut since_open = 0;
    while !shared.done.load(Ordering::SeqCst) {
        let i = rng.below(reference.positions.len() as u64) as usize;
        let (pos, counters) = &reference.positions[i];
        let errors = c_check(&tb, pos, *counters, &reference.answers[i], false);
        shared.checked.fetch_add(1, Ordering::Relaxed);
        since_open += 1;
        if errors > 0 || since_open >= REOPEN_EVERY {
            shared.errors.fetch_add(errors, Ordering::SeqCst);
            tb = Handle::open(shared.dir, 256 << 10);
            since_open = 0;
        }
    }
    let tb = Handle::open(shared.dir, 256 << 10);
    for ((pos, counters), want) in reference.positions.iter().zip(&reference.answers) {
        c_check(&tb, pos, *counters, want, true);
    }
}

#[test]
fn probes_stay_right_while_tables_are_damaged_and_rebuilt() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    generate_tables(dir.path(), Variant::Brazilian, 3);
    // The reference comes from a copy the writer never touches.
    let clean = tempfile::tempdir().expect("a temporary directory");
    for f in table_files(dir.path()) {
        let to = clean
            .path()
            .join(f.path.strip_prefix(dir.path()).expect("inside"));
        std::fs::create_dir_all(to.parent().expect("a parent")).expect("a directory");
        std::fs::copy(&f.path, &to).expect("the table is copied");
    }
    let reference = Reference::sample(
        &Tablebase::open(clean.path()).expect("tables open"),
        PER_MATERIAL,
        0x5851_f42d_4c95_7f2d,
    );
    let shared = Shared {
        dir: dir.path(),
        reference: &reference,
        done: AtomicBool::new(false),
        failed: AtomicBool::new(false),
        errors: AtomicU64::new(0),
        checked: AtomicU64::new(0),
    };
    let until = Instant::now() + soak_time();
    let current = Mutex::new(Arc::new(
        Tablebase::open(dir.path()).expect("the directory opens"),
    ));
    let rebuilds = std::thread::scope(|scope| {
        let writer = scope.spawn(|| writer(&shared, until));
        for r in 0..RUST_READERS as u64 {
            let (shared, current) = (&shared, &current);
            scope.spawn(move || rust_reader(shared, current, 0x1234_5678 + r));
        }
        scope.spawn(|| c_reader(&shared, 0x8765_4321));
        writer.join().expect("the writer does not panic")
    });
    assert!(rebuilds >= 2, "{rebuilds} rebuilds");
    assert!(
        shared.errors.load(Ordering::SeqCst) > 0,
        "no damage was met"
    );
    let checked = shared.checked.load(Ordering::SeqCst);
    assert!(checked > 100, "{checked} positions checked");
}
