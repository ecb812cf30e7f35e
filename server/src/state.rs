//! What every request shares: the tables, the bounds on what a request may cost, and the
//! permits that bound the probes running at once.

use std::sync::Arc;
use std::time::Duration;

use rafle_probe::Tablebase;
use tokio::sync::Semaphore;

use crate::error::ApiError;

/// The bounds on what a request may cost; past them it is refused (414, 413 or 503).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Longest query string (`?fen=...`), in bytes: 414 past it.
    pub max_query_bytes: usize,
    /// Largest request body (a batch), in bytes: 413 past it.
    pub max_body_bytes: usize,
    /// Most positions in a batch: 413 past it.
    pub max_batch: usize,
    /// Most probing tasks running at once (a batch is one); the others wait for a turn.
    pub max_probes: usize,
    /// How long a request waits for its turn to probe before it is refused with 503.
    pub queue_timeout: Duration,
}

impl Default for Bounds {
    /// 2 KiB queries, 1 MiB bodies, 1000 positions a batch, two probing tasks per core, and
    /// 10 seconds' wait.
    fn default() -> Bounds {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Bounds {
            max_query_bytes: 2048,
            max_body_bytes: 1 << 20,
            max_batch: 1000,
            max_probes: 2 * cores,
            queue_timeout: Duration::from_secs(10),
        }
    }
}

/// The server's shared state: cheap to clone (one `Arc`).
#[derive(Debug, Clone)]
pub struct AppState(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    tables: Arc<Tablebase>,
    bounds: Bounds,
    permits: Arc<Semaphore>,
}

impl AppState {
    /// The state of a server probing `tables` within `bounds`.
    pub fn new(tables: Tablebase, bounds: Bounds) -> AppState {
        AppState(Arc::new(Inner {
            tables: Arc::new(tables),
            bounds,
            // A semaphore of no permits would make every probe wait for ever.
            permits: Arc::new(Semaphore::new(bounds.max_probes.max(1))),
        }))
    }

    /// The tables.
    pub fn tables(&self) -> &Tablebase {
        &self.0.tables
    }

    /// The bounds on requests.
    pub fn bounds(&self) -> Bounds {
        self.0.bounds
    }

    /// Runs `work` (blocking: it probes, maybe reading files) on the blocking pool once a
    /// probe permit is free, and hands back its result.
    pub(crate) async fn probe<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        F: FnOnce(&Tablebase) -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        let wait = tokio::time::timeout(
            self.0.bounds.queue_timeout,
            self.0.permits.clone().acquire_owned(),
        );
        let permit = match wait.await {
            Ok(Ok(permit)) => permit,
            // The semaphore is never closed; either way the server is too busy to answer.
            Ok(Err(_)) | Err(_) => return Err(ApiError::busy()),
        };
        let tables = Arc::clone(&self.0.tables);
        let task = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            work(&tables)
        });
        match task.await {
            Ok(result) => result,
            Err(_) => Err(ApiError::internal("a probe stopped unexpectedly")),
        }
    }
}
