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
    /// Most probes running at once (a batch is one); the others wait for a turn. Probes run
    /// on the server's worker threads, one per core, so more than that never run at once.
    pub max_probes: usize,
    /// How long a request waits for its turn to probe before it is refused with 503.
    pub queue_timeout: Duration,
}

impl Default for Bounds {
    /// 2 KiB queries, 1 MiB bodies, 1000 positions a batch, one probe per core, and 10
    /// seconds' wait.
    fn default() -> Bounds {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Bounds {
            max_query_bytes: 2048,
            max_body_bytes: 1 << 20,
            max_batch: 1000,
            max_probes: cores,
            queue_timeout: Duration::from_secs(10),
        }
    }
}

/// The server's shared state: cheap to clone (one `Arc`).
#[derive(Debug, Clone)]
pub struct AppState(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    tables: Tablebase,
    bounds: Bounds,
    permits: Semaphore,
}

impl AppState {
    /// The state of a server probing `tables` within `bounds`.
    pub fn new(tables: Tablebase, bounds: Bounds) -> AppState {
        AppState(Arc::new(Inner {
            tables,
            bounds,
            // A semaphore of no permits would make every probe wait for ever.
            permits: Semaphore::new(bounds.max_probes.max(1)),
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

    /// Runs `work` once a probe permit is free, and hands back its result.
    ///
    /// The work runs on the worker thread that serves the request, not on a blocking pool:
    /// a probe of memory-mapped tables takes microseconds, and handing it to another thread
    /// and back cost more than the probe itself (the load test measured a quarter of the
    /// server's time in thread wake-ups). A probe that panics answers 500.
    pub(crate) async fn probe<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        F: FnOnce(&Tablebase) -> Result<T, ApiError>,
    {
        let wait = tokio::time::timeout(self.0.bounds.queue_timeout, self.0.permits.acquire());
        let _permit = match wait.await {
            Ok(Ok(permit)) => permit,
            // The semaphore is never closed; either way the server is too busy to answer.
            Ok(Err(_)) | Err(_) => return Err(ApiError::busy()),
        };
        let tables = &self.0.tables;
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(tables)))
            .unwrap_or_else(|_| Err(ApiError::internal("a probe stopped unexpectedly")))
    }
}
