//! `rafle._native.generate`: tables built from Python with the generator `rafle generate`
//! runs ([`rafle_generator::Plan`], [`rafle_generator::generate`]), reporting progress to a
//! Python callable.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use rafle_generator::{
    GenerateError, MaterialSummary, Plan, PlanRequest, Progress, Tables, PIECES, UNITS_PER_POSITION,
};
use rafle_probe::draughts::{IntRange, Material, Variant};

use crate::{detached, errors, int_in, variant};

/// One finished material: material, positions, wins, draws, losses, longest win in plies,
/// seconds, the bytes of its `.wdl`, `.dtw` and `.rules` tables, whether existing tables were
/// reused, whether its tables store one side to move (compact).
pub type SummaryTuple = (
    String,
    u64,
    u64,
    u64,
    u64,
    u16,
    f64,
    u64,
    u64,
    u64,
    bool,
    bool,
);

/// What the callback receives: the event (`"started"`, `"material_started"`, `"advance"`,
/// `"material_finished"`), the material (none for `"started"`), its positions, the units of
/// work done in the whole plan and their total.
type EventTuple = (&'static str, Option<String>, Option<u64>, u64, u64);

/// How often the thread that called `generate` looks for a signal (Ctrl-C) while the
/// generator works: Python runs signal handlers in that thread alone.
const SIGNALS_EVERY: Duration = Duration::from_millis(50);

/// Less often than this, `advance` reports are not passed on: the generator reports many
/// times a second from every thread, and each report takes the GIL.
const ADVANCE_EVERY: Duration = Duration::from_millis(200);

/// Passes the generator's reports to a Python callable, from whichever thread makes them.
struct Reporter {
    callback: Option<Py<PyAny>>,
    total: u64,
    /// Units done in the materials finished so far.
    finished: AtomicU64,
    /// Units done in the current material.
    current: AtomicU64,
    last_advance: Mutex<Instant>,
    /// The first exception the callback raised, or that a signal handler raised
    /// (`KeyboardInterrupt`): the generation stops at its next checkpoint and raises it, and
    /// no further call is made.
    failure: Mutex<Option<PyErr>>,
    /// Whether `failure` holds an exception: the generator asks at each checkpoint.
    stopping: AtomicBool,
}

impl Reporter {
    /// Keeps `e` (unless an exception is kept already) and asks the generation to stop.
    fn stop(&self, failure: &mut Option<PyErr>, e: PyErr) {
        if failure.is_none() {
            *failure = Some(e);
        }
        self.stopping.store(true, Ordering::SeqCst);
    }

    fn report(&self, event: EventTuple) {
        let Some(callback) = &self.callback else {
            return;
        };
        let mut failure = self.failure.lock().unwrap_or_else(PoisonError::into_inner);
        if failure.is_some() {
            return;
        }
        // The lock is held while Python runs: the callback is never called twice at once.
        if let Err(e) = Python::attach(|py| callback.call1(py, (event,)).map(drop)) {
            self.stop(&mut failure, e);
        }
    }

    fn done(&self) -> u64 {
        self.finished.load(Ordering::Relaxed) + self.current.load(Ordering::Relaxed)
    }
}

impl Progress for Reporter {
    fn variant_started(&self, plan: &Plan) {
        self.report(("started", None, Some(plan.positions()), 0, self.total));
    }

    fn material_started(&self, _variant: Variant, material: Material, positions: u64) {
        self.current.store(0, Ordering::Relaxed);
        self.report((
            "material_started",
            Some(material.to_string()),
            Some(positions),
            self.done(),
            self.total,
        ));
    }

    fn advance(&self, units: u64) {
        self.current.fetch_add(units, Ordering::Relaxed);
        // Skipped when another thread is reporting or reported a moment ago.
        let Ok(mut last) = self.last_advance.try_lock() else {
            return;
        };
        if last.elapsed() < ADVANCE_EVERY {
            return;
        }
        *last = Instant::now();
        drop(last);
        self.report(("advance", None, None, self.done(), self.total));
    }

    fn material_finished(&self, summary: &MaterialSummary) {
        // Resynchronised on what the material is worth, whatever was reported along the way.
        self.current.store(0, Ordering::Relaxed);
        self.finished
            .fetch_add(UNITS_PER_POSITION * summary.positions, Ordering::Relaxed);
        self.report((
            "material_finished",
            Some(summary.material.to_string()),
            Some(summary.positions),
            self.done(),
            self.total,
        ));
    }

    fn should_stop(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }
}

fn summary_tuple(s: &MaterialSummary) -> SummaryTuple {
    (
        s.material.to_string(),
        s.positions,
        s.wins,
        s.draws,
        s.losses,
        s.longest_win,
        s.seconds,
        s.bytes,
        s.dtw_bytes,
        s.draw_rules_bytes,
        s.reused,
        s.compact,
    )
}

/// Generates every material of `variant` up to `pieces` pieces into `directory`, as
/// `rafle generate --variant V --pieces N --data DIR` does: tables already valid there are
/// reused. `memory` is the budget in bytes (default: the memory free, less a tenth),
/// `threads` the worker threads (default: one per core), `progress` a callable given an
/// event tuple, `tables` `"all"` or `"wdl"` (`--tables`), `compact` as `--compact`. Counts
/// are taken in the ranges every entry point takes (`ValueError` out of them, whatever their
/// size). Ctrl-C, or an exception of `progress`, stops the run at its next checkpoint and is
/// raised: the work done stays, and the next run resumes it.
#[pyfunction]
#[pyo3(signature = (
    directory, variant_name, pieces, memory=None, threads=None, progress=None, tables="all",
    compact=false
))]
#[allow(clippy::too_many_arguments)]
pub fn generate(
    py: Python<'_>,
    directory: PathBuf,
    variant_name: &str,
    pieces: &Bound<'_, PyAny>,
    memory: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
    progress: Option<Py<PyAny>>,
    tables: &str,
    compact: bool,
) -> PyResult<Vec<SummaryTuple>> {
    let variant = variant(py, variant_name)?;
    let pieces = u32::try_from(int_in(pieces, PIECES)?).expect("the range of pieces is u32");
    let memory = memory.map(|m| int_in(m, IntRange::MEMORY)).transpose()?;
    let threads = threads
        .map(|t| int_in(t, IntRange::THREADS))
        .transpose()?
        .map(|t| usize::try_from(t).expect("the range of threads is within usize"));
    let tables = Tables::from_name(tables).ok_or_else(|| {
        errors::value_error(format!(
            "tables must be \"all\" or \"wdl\", not \"{}\"",
            rafle_probe::draughts::excerpt(tables)
        ))
    })?;
    let plan = plan(&directory, variant, pieces, memory, tables, compact).map_err(|e| match e {
        GenerateError::OutOfRange(_) | GenerateError::EmptyDirectory => {
            errors::value_error(e.to_string())
        }
        e => errors::generate_error(py, &e),
    })?;
    let pool = rayon::ThreadPoolBuilder::new()
        // 0 lets rayon pick one thread per core (or RAYON_NUM_THREADS).
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| errors::value_error(format!("cannot start the worker threads: {e}")))?;
    let reporter = Reporter {
        callback: progress,
        total: UNITS_PER_POSITION * plan.positions(),
        finished: AtomicU64::new(0),
        current: AtomicU64::new(0),
        // So that the first `advance` is passed on.
        last_advance: Mutex::new(
            Instant::now()
                .checked_sub(ADVANCE_EVERY)
                .unwrap_or_else(Instant::now),
        ),
        failure: Mutex::new(None),
        stopping: AtomicBool::new(false),
    };
    let result = detached(py, || {
        std::thread::scope(|scope| {
            let worker =
                scope.spawn(|| pool.install(|| rafle_generator::generate(&plan, &reporter)));
            // This thread stays Python's: it runs the signal handlers (Ctrl-C raises
            // KeyboardInterrupt here), and a raised one stops the run at its next checkpoint.
            while !worker.is_finished() {
                std::thread::sleep(SIGNALS_EVERY);
                if let Err(e) = Python::attach(|py| py.check_signals()) {
                    let mut failure = reporter
                        .failure
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner);
                    reporter.stop(&mut failure, e);
                }
            }
            // A panic of the generator goes on to `detached`, which raises it as RafleError.
            worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    })?;
    if let Some(e) = reporter
        .failure
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        return Err(e);
    }
    let summaries = result.map_err(|e| errors::generate_error(py, &e))?;
    Ok(summaries.iter().map(summary_tuple).collect())
}

/// The plan of the request, checked as `rafle generate` checks it before it starts.
fn plan(
    dir: &Path,
    variant: Variant,
    pieces: u32,
    memory: Option<u64>,
    tables: Tables,
    compact: bool,
) -> Result<Plan, rafle_generator::GenerateError> {
    let request = PlanRequest {
        tables,
        compact,
        budget: memory.or_else(rafle_generator::default_budget),
        ..PlanRequest::up_to(variant, pieces)
    };
    request.checked_plan(dir)
}
