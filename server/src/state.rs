//! What every request shares: the tables, the bounds on what a request may cost, and the
//! permits that bound the probes running at once.

use std::sync::Arc;
use std::time::Duration;

use rafle_probe::Tablebase;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;

/// The bounds on what a request, and a connection, may cost; past them a request is refused
/// (414, 413, 408 or 503) and a connection closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Longest query string (`?fen=...`), in bytes: 414 past it.
    pub max_query_bytes: usize,
    /// Largest request body (a batch), in bytes: 413 past it.
    pub max_body_bytes: usize,
    /// Most positions in a batch: 413 past it.
    pub max_batch: usize,
    /// Most probes running at once (a batch is one); the others wait for a turn. Probes of
    /// one position run on the server's worker threads, one per core, long ones (batches,
    /// lines) on the blocking pool, at most one fewer than this at once.
    pub max_probes: usize,
    /// How long a request waits for its turn to probe before it is refused with 503.
    pub queue_timeout: Duration,
    /// Most connections open at once (lowered at start to what the process's descriptor
    /// limit allows). A connection past it closes the one idle the longest, one waiting for
    /// a request rather than being answered; with none idle the new one is closed.
    pub max_connections: usize,
    /// How long a client has to send a request's head (request line and headers) once the
    /// server waits for one: on a new connection, and between requests on a kept-alive one,
    /// so that it bounds idle keep-alive time too. Past it the connection is closed.
    pub header_timeout: Duration,
    /// How long a client has to send a request's body (a batch) once its head is read: 408
    /// past it.
    pub body_timeout: Duration,
}

impl Default for Bounds {
    /// 2 KiB queries, 1 MiB bodies, 1000 positions a batch, one probe per core, 10 seconds'
    /// wait, 1024 connections, 10 seconds to send a head and 10 to send a body.
    fn default() -> Bounds {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Bounds {
            max_query_bytes: 2048,
            max_body_bytes: 1 << 20,
            max_batch: 1000,
            max_probes: cores,
            queue_timeout: Duration::from_secs(10),
            // Each connection holds a descriptor and a few KiB of buffers; past a thousand
            // clients at once the machine is better served refusing than thrashing.
            max_connections: 1024,
            // A browser or client sends its head in one packet; 10 s is generous for a slow
            // link and short enough that a slowloris client ties up a slot for no longer.
            header_timeout: Duration::from_secs(10),
            // A 1 MiB body at 1 Mbit/s takes 8 s.
            body_timeout: Duration::from_secs(10),
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
    permits: Arc<Semaphore>,
    /// Permits of the long probes (batches, lines, the listing), fewer than
    /// [`Bounds::max_probes`] when there are two or more, so that a probe of one position
    /// always finds a turn while long ones run.
    long_permits: Arc<Semaphore>,
}

impl AppState {
    /// The state of a server probing `tables` within `bounds`.
    pub fn new(tables: Tablebase, bounds: Bounds) -> AppState {
        AppState(Arc::new(Inner {
            tables,
            bounds,
            // A semaphore of no permits would make every probe wait for ever.
            permits: Arc::new(Semaphore::new(bounds.max_probes.max(1))),
            long_permits: Arc::new(Semaphore::new(bounds.max_probes.saturating_sub(1).max(1))),
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
    /// server's time in thread wake-ups). Work that may take milliseconds goes to
    /// [`AppState::probe_long`]. A probe that panics answers 500.
    pub(crate) async fn probe<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        F: FnOnce(&Tablebase) -> Result<T, ApiError>,
    {
        let _permit = self.permit(&self.0.permits, self.deadline()).await?;
        let tables = &self.0.tables;
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(tables)))
            .unwrap_or_else(|_| Err(ApiError::internal("a probe stopped unexpectedly")))
    }

    /// Runs `work` (a batch, a line, the listing: up to seconds of probing) on the blocking
    /// pool once a long-probe permit and a probe permit are free, and hands back its result.
    /// On the async workers it would hold up every other request of those workers, the
    /// explorer page's included, until it finished. The permits go with the work, so a
    /// client that goes away does not free them before the work ends. A probe that panics
    /// answers 500.
    pub(crate) async fn probe_long<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&Tablebase) -> Result<T, ApiError> + Send + 'static,
    {
        let deadline = self.deadline();
        let long_permit = self.permit(&self.0.long_permits, deadline).await?;
        let permit = self.permit(&self.0.permits, deadline).await?;
        let state = self.clone();
        let running = tokio::task::spawn_blocking(move || {
            let _permits = (long_permit, permit);
            let tables = &state.0.tables;
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(tables)))
                .unwrap_or_else(|_| Err(ApiError::internal("a probe stopped unexpectedly")))
        });
        running
            .await
            .unwrap_or_else(|_| Err(ApiError::internal("a probe stopped unexpectedly")))
    }

    /// When a request arriving now stops waiting for its turn.
    fn deadline(&self) -> tokio::time::Instant {
        tokio::time::Instant::now() + self.0.bounds.queue_timeout
    }

    /// A permit of `permits` by `deadline`, or 503.
    async fn permit(
        &self,
        permits: &Arc<Semaphore>,
        deadline: tokio::time::Instant,
    ) -> Result<OwnedSemaphorePermit, ApiError> {
        let wait = tokio::time::timeout_at(deadline, Arc::clone(permits).acquire_owned());
        match wait.await {
            Ok(Ok(permit)) => Ok(permit),
            // The semaphore is never closed; either way the server is too busy to answer.
            Ok(Err(_)) | Err(_) => Err(ApiError::busy()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::time::Instant;

    fn state(max_probes: usize) -> (tempfile::TempDir, AppState) {
        let dir = tempfile::tempdir().unwrap();
        let tables = Tablebase::open(dir.path()).unwrap();
        let bounds = Bounds {
            max_probes,
            ..Bounds::default()
        };
        (dir, AppState::new(tables, bounds))
    }

    /// On a runtime of one thread, a long probe that takes half a second leaves the thread
    /// free: a probe of one position and a timer go on meanwhile.
    #[tokio::test(flavor = "current_thread")]
    async fn long_probes_run_off_the_async_workers() {
        let (_dir, state) = state(2);
        let long = tokio::spawn({
            let state = state.clone();
            async move {
                state
                    .probe_long(|_| {
                        std::thread::sleep(Duration::from_millis(500));
                        Ok(std::thread::current().id())
                    })
                    .await
            }
        });
        let start = Instant::now();
        tokio::time::sleep(Duration::from_millis(20)).await;
        let here = state.probe(|_| Ok(std::thread::current().id())).await;
        assert!(
            start.elapsed() < Duration::from_millis(300),
            "{:?}",
            start.elapsed()
        );
        let there = long.await.unwrap();
        assert_ne!(here.unwrap(), there.unwrap());
    }

    /// With two probe permits, one long probe leaves one for the probes of one position,
    /// and a second long one waits for its turn (503 past the queue timeout).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn long_probes_leave_a_permit_for_short_ones() {
        let dir = tempfile::tempdir().unwrap();
        let bounds = Bounds {
            max_probes: 2,
            queue_timeout: Duration::from_millis(200),
            ..Bounds::default()
        };
        let state = AppState::new(Tablebase::open(dir.path()).unwrap(), bounds);
        let started = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let long = tokio::spawn({
            let (state, started) = (state.clone(), Arc::clone(&started));
            async move {
                state
                    .probe_long(move |_| {
                        started.store(true, std::sync::atomic::Ordering::Release);
                        std::thread::sleep(Duration::from_millis(600));
                        Ok(())
                    })
                    .await
            }
        });
        // Once it holds its permits.
        for _ in 0..500 {
            if started.load(std::sync::atomic::Ordering::Acquire) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        assert!(state.probe(|_| Ok(())).await.is_ok());
        let second = state.probe_long(|_| Ok(())).await;
        assert_eq!(
            second.unwrap_err().status,
            axum::http::StatusCode::SERVICE_UNAVAILABLE
        );
        assert!(long.await.unwrap().is_ok());
    }
}
