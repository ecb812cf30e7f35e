//! The process around the router: it binds, logs one line per request on stderr, and stops
//! cleanly on Ctrl-C or SIGTERM.

use std::fmt;
use std::future::IntoFuture;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError, TrySendError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::Response;
use tokio::sync::watch;

use crate::state::AppState;

/// How long the server waits, once told to stop, for the requests under way to finish.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Log lines waiting for the writer; past this they are dropped rather than slowing requests.
const LOG_BACKLOG: usize = 16_384;

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
    /// Accepting connections failed.
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
/// [`SHUTDOWN_GRACE`] for the requests under way and returns. Writes on stderr a line when
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
        // The probe permits bound the blocking tasks; one more thread for anything else.
        .max_blocking_threads(state.bounds().max_probes.max(1) + 1)
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
    let app = crate::router(state).layer(middleware::from_fn_with_state(
        logger.sender.clone(),
        log_request,
    ));
    eprintln!("rafle serve: listening on http://{local}/");
    let (stop_tx, mut stop_rx) = watch::channel(false);
    let server = axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            stop_signal().await;
            eprintln!("rafle serve: stopping");
            let _ = stop_tx.send(true);
        })
        .into_future();
    let deadline = async move {
        // Resolves only once the signal came and the grace period ran out.
        while !*stop_rx.borrow_and_update() {
            if stop_rx.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    let result = tokio::select! {
        result = server => result.map_err(ServeError::Serve),
        () = deadline => {
            eprintln!(
                "rafle serve: requests still under way after {} s are dropped",
                SHUTDOWN_GRACE.as_secs()
            );
            Ok(())
        }
    };
    logger.finish();
    eprintln!("rafle serve: stopped");
    result
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

enum LogMessage {
    Line(String),
    Stop,
}

/// Writes the request lines on stderr from its own thread, so that a slow reader of stderr
/// never holds a request up; lines are written in batches while requests come fast.
struct Logger {
    sender: SyncSender<LogMessage>,
    thread: JoinHandle<()>,
}

impl Logger {
    fn start() -> Logger {
        let (sender, receiver) = mpsc::sync_channel(LOG_BACKLOG);
        let thread = std::thread::spawn(move || write_log(&receiver));
        Logger { sender, thread }
    }

    /// Writes what is waiting and stops the thread.
    fn finish(self) {
        if self.sender.send(LogMessage::Stop).is_ok() {
            let _ = self.thread.join();
        }
    }
}

fn write_log(receiver: &Receiver<LogMessage>) {
    let mut out = io::BufWriter::new(io::stderr());
    loop {
        let message = match receiver.try_recv() {
            Ok(message) => message,
            Err(TryRecvError::Empty) => {
                // Nothing more for now: what was gathered goes out before waiting.
                let _ = out.flush();
                match receiver.recv() {
                    Ok(message) => message,
                    Err(_) => break,
                }
            }
            Err(TryRecvError::Disconnected) => break,
        };
        match message {
            LogMessage::Line(line) => {
                let _ = out.write_all(line.as_bytes());
            }
            LogMessage::Stop => break,
        }
    }
    let _ = out.flush();
}

async fn log_request(
    State(log): State<SyncSender<LogMessage>>,
    request: Request,
    next: Next,
) -> Response {
    let start = Instant::now();
    let method = request.method().clone();
    let path = rafle_probe::printable(request.uri().path());
    let response = next.run(request).await;
    let millis = start.elapsed().as_secs_f64() * 1e3;
    let line = format!(
        "{method} {path} {} {millis:.3} ms\n",
        response.status().as_u16()
    );
    if let Err(TrySendError::Full(_)) = log.try_send(LogMessage::Line(line)) {
        // Dropped: the writer is behind by a whole backlog.
    }
    response
}
