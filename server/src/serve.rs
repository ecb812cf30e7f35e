//! The process around the router: it binds, serves the connections within their bounds
//! ([`crate::connections`]), logs one line per request on stderr, and stops cleanly on Ctrl-C
//! or SIGTERM. A stderr that fails (a full disk) loses log lines, never stops the server.

use std::fmt;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::Response;
use tokio::sync::watch;

use crate::connections;
use crate::state::AppState;

pub use crate::connections::{connection_limit, ACCEPT_RETRY, RESERVED_DESCRIPTORS};

/// How long the server waits, once told to stop, for the requests under way to finish.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Bytes of log lines waiting for the writer; past this they are dropped (and counted) rather
/// than slowing requests.
const LOG_BACKLOG_BYTES: usize = 4 << 20;

/// How often the waiting log lines are written.
const LOG_INTERVAL: Duration = Duration::from_millis(50);

/// Why the server could not run.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// The async runtime could not start.
    Runtime(io::Error),
    /// The address could not be bound (in use, not ours, no permission).
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The cause.
        source: io::Error,
    },
    /// The listening socket failed (its address could not be read back). Accepting never
    /// fails the server: a failed accept is retried.
    Serve(io::Error),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Runtime(e) => write!(f, "cannot start the server's runtime: {e}"),
            ServeError::Bind { addr, source } => write!(f, "cannot listen on {addr}: {source}"),
            ServeError::Serve(e) => write!(f, "the server failed: {e}"),
        }
    }
}

impl std::error::Error for ServeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServeError::Runtime(e) | ServeError::Serve(e) => Some(e),
            ServeError::Bind { source, .. } => Some(source),
        }
    }
}

/// Serves [`crate::router`] on `addr` until Ctrl-C or SIGTERM, then waits up to
/// [`SHUTDOWN_GRACE`] for the requests under way and returns. Connections are bounded as the
/// state's [`crate::Bounds`] say: the time to send a request's head (idle keep-alive time
/// included) and their number ([`connection_limit`]). Writes on stderr a line when
/// it listens (`rafle serve: listening on http://127.0.0.1:8080/`), one per request
/// (`GET /api/v1/brazilian 200 0.084 ms`: method, path, status, time to the response) and one
/// when it stops.
///
/// # Errors
///
/// [`ServeError`] if the runtime cannot start, the address cannot be bound or accepting
/// fails.
pub fn run(addr: SocketAddr, state: AppState) -> Result<(), ServeError> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores)
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(serve(addr, state))
}

async fn serve(addr: SocketAddr, state: AppState) -> Result<(), ServeError> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    let local = listener.local_addr().map_err(ServeError::Serve)?;
    let logger = Logger::start();
    let bounds = state.bounds();
    let app = crate::router(state).layer(middleware::from_fn_with_state(
        Arc::clone(&logger.shared),
        log_request,
    ));
    say(format_args!("rafle serve: listening on http://{local}/"));
    let (stop_tx, mut stop_rx) = watch::channel(false);
    let server = connections::serve(listener, app, bounds, stop_rx.clone());
    let signal = async move {
        stop_signal().await;
        say(format_args!("rafle serve: stopping"));
        let _ = stop_tx.send(true);
        // Holds the sender, so that the receivers never see it dropped.
        std::future::pending::<()>().await;
    };
    let deadline = async move {
        // Resolves only once the signal came and the grace period ran out.
        while !*stop_rx.borrow_and_update() {
            if stop_rx.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    tokio::select! {
        () = server => {}
        () = signal => {}
        () = deadline => {
            say(format_args!(
                "rafle serve: requests still under way after {} s are dropped",
                SHUTDOWN_GRACE.as_secs()
            ));
        }
    }
    logger.finish();
    say(format_args!("rafle serve: stopped"));
    Ok(())
}

/// Writes one line on stderr, ignoring a failing stderr: `eprintln!` would panic, and a
/// server whose log disk is full must go on serving (and stop cleanly).
fn say(line: fmt::Arguments<'_>) {
    let mut stderr = io::stderr().lock();
    let _ = stderr
        .write_fmt(line)
        .and_then(|()| stderr.write_all(b"\n"));
}

/// Ctrl-C, or SIGTERM on Unix.
async fn stop_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            // Without a handler Ctrl-C kills the process, as it would anyway.
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}

/// Writes the request lines on stderr from its own thread, so that a slow reader of stderr
/// never holds a request up. Requests append their line to a shared buffer, which the thread
/// writes out every [`LOG_INTERVAL`]: no request wakes a thread, which at 20,000 requests a
/// second cost more than the requests themselves.
struct Logger {
    shared: Arc<LogShared>,
    thread: JoinHandle<()>,
}

#[derive(Default)]
struct LogShared {
    state: Mutex<LogBuffer>,
    stopped: Condvar,
}

#[derive(Default)]
struct LogBuffer {
    text: String,
    /// Lines dropped since the last write because the buffer was full.
    dropped: u64,
    stop: bool,
}

impl LogShared {
    fn lock(&self) -> MutexGuard<'_, LogBuffer> {
        // A request that panicked while holding the lock left whole lines only.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(&self, line: &str) {
        let mut buffer = self.lock();
        if buffer.text.len() + line.len() > LOG_BACKLOG_BYTES {
            buffer.dropped += 1;
        } else {
            buffer.text.push_str(line);
        }
    }
}

impl Logger {
    fn start() -> Logger {
        let shared = Arc::new(LogShared::default());
        let writer = Arc::clone(&shared);
        let thread = std::thread::spawn(move || write_log(&writer));
        Logger { shared, thread }
    }

    /// Writes what is waiting and stops the thread.
    fn finish(self) {
        self.shared.lock().stop = true;
        self.shared.stopped.notify_one();
        let _ = self.thread.join();
    }
}

fn write_log(shared: &LogShared) {
    let mut stderr = io::stderr();
    loop {
        let mut buffer = shared.lock();
        if !buffer.stop {
            buffer = shared
                .stopped
                .wait_timeout(buffer, LOG_INTERVAL)
                .map_or_else(|e| e.into_inner().0, |(guard, _)| guard);
        }
        let text = std::mem::take(&mut buffer.text);
        let dropped = std::mem::take(&mut buffer.dropped);
        let stop = buffer.stop;
        drop(buffer);
        let _ = stderr.write_all(text.as_bytes());
        if dropped > 0 {
            let _ = writeln!(
                stderr,
                "rafle serve: {dropped} request lines dropped (stderr is read too slowly)"
            );
        }
        if stop {
            break;
        }
    }
}

async fn log_request(State(log): State<Arc<LogShared>>, request: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = request.method().clone();
    let path = rafle_probe::draughts::excerpt(request.uri().path());
    let response = next.run(request).await;
    let millis = start.elapsed().as_secs_f64() * 1e3;
    let line = format!(
        "{method} {path} {} {millis:.3} ms\n",
        response.status().as_u16()
    );
    log.push(&line);
    response
}
