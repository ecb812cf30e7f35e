//! The server's connections: accepted however many clients hold one, given a bounded time to
//! send each request's head, limited in number, and closed when the server stops.
//!
//! `axum::serve` accepts every connection and keeps it as long as the client wants: a client
//! that opens a thousand connections and sends nothing, or sends its headers a byte a second
//! (slowloris), holds every descriptor of the process, and the server then sleeps a second
//! on each failed accept while everyone else waits. Here:
//!
//! - hyper closes a connection whose client takes longer than [`Bounds::header_timeout`] to
//!   send a request's head, on a new connection and between requests of a kept-alive one;
//! - at most [`connection_limit`] connections are open: one more closes the connection idle
//!   the longest (waiting for a request, not being answered), as nginx reuses its idle
//!   keep-alive connections; with none idle the new one is closed at once;
//! - running out of descriptors closes the connection idle the longest too, and otherwise
//!   waits [`ACCEPT_RETRY`] rather than spinning or giving up.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};
use tokio::task::JoinSet;
use tower::ServiceExt;

use crate::state::Bounds;

/// Descriptors of the process's limit kept back from connections: the listener, the runtime's
/// own (epoll, its wake-up), standard streams, and the table files a probe opens (each is
/// memory-mapped and closed at once, so one per probe running). Without them a flood of
/// connections would make the probes fail to open their tables.
pub const RESERVED_DESCRIPTORS: u64 = 64;

/// How long accepting waits before trying again after a failure that closing an idle
/// connection cannot cure (no descriptor left with every connection busy, no memory for a
/// socket): long enough not to spin on the failure, short enough that a client is accepted
/// soon after a descriptor frees.
pub const ACCEPT_RETRY: Duration = Duration::from_millis(50);

/// How long accepting waits after closing an idle connection to free a descriptor: its task
/// must run to close the socket.
const CLOSE_WAIT: Duration = Duration::from_millis(1);

/// The most connections open at once: [`Bounds::max_connections`], lowered to what the
/// process's descriptor limit leaves after [`RESERVED_DESCRIPTORS`]; at least one.
pub fn connection_limit(bounds: &Bounds) -> usize {
    let by_descriptors = descriptor_limit().map_or(usize::MAX, |n| {
        usize::try_from(n.saturating_sub(RESERVED_DESCRIPTORS)).unwrap_or(usize::MAX)
    });
    bounds.max_connections.min(by_descriptors).max(1)
}

/// The process's soft limit on open descriptors, if it has one.
#[cfg(unix)]
fn descriptor_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit(2) only writes the struct passed, which lives across the call.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    // `rlim_t` is u64 on Linux, not on every Unix.
    #[allow(clippy::useless_conversion)]
    let current = u64::from(limit.rlim_cur);
    (read && limit.rlim_cur != libc::RLIM_INFINITY).then_some(current)
}

#[cfg(not(unix))]
fn descriptor_limit() -> Option<u64> {
    None
}

/// Whether accepting failed because the process or the system has no descriptor left.
fn out_of_descriptors(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// Whether accepting failed for one client's fault (it went away before being accepted):
/// the next one is accepted at once.
fn client_went_away(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
    )
}

/// One open connection, as the accept loop sees it.
struct Connection {
    /// Its requests being answered (hyper answers one at a time; a response body still being
    /// written does not count, so a client that does not read is idle).
    busy: AtomicUsize,
    /// When it last started waiting for a request (opened, or a request answered), in
    /// microseconds since the registry's start.
    idle_since: AtomicU64,
    /// Told to close (the accept loop needs its descriptor or its place).
    close: Notify,
}

/// A request being answered on a connection, until dropped.
struct Busy<'a> {
    connection: &'a Connection,
    registry: &'a Registry,
}

impl<'a> Busy<'a> {
    fn start(connection: &'a Connection, registry: &'a Registry) -> Busy<'a> {
        connection.busy.fetch_add(1, Ordering::AcqRel);
        Busy {
            connection,
            registry,
        }
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.connection
            .idle_since
            .store(self.registry.now(), Ordering::Release);
        self.connection.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The open connections.
struct Registry {
    start: Instant,
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    next_id: u64,
    by_id: HashMap<u64, Arc<Connection>>,
}

impl Registry {
    fn new() -> Registry {
        Registry {
            start: Instant::now(),
            open: Mutex::new(Open::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Open> {
        // The map is changed in single calls that do not panic halfway.
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Microseconds since the registry's start.
    fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    fn len(&self) -> usize {
        self.lock().by_id.len()
    }

    fn add(&self) -> (u64, Arc<Connection>) {
        let connection = Arc::new(Connection {
            busy: AtomicUsize::new(0),
            idle_since: AtomicU64::new(self.now()),
            close: Notify::new(),
        });
        let mut open = self.lock();
        let id = open.next_id;
        open.next_id += 1;
        open.by_id.insert(id, Arc::clone(&connection));
        (id, connection)
    }

    fn remove(&self, id: u64) {
        self.lock().by_id.remove(&id);
    }

    /// Tells the connection idle the longest to close, and forgets it; false if every
    /// connection is answering a request.
    fn close_idlest(&self) -> bool {
        let mut open = self.lock();
        let idlest = open
            .by_id
            .iter()
            .filter(|(_, c)| c.busy.load(Ordering::Acquire) == 0)
            // Ids break ties: of two idle since the same microsecond, the older.
            .min_by_key(|&(&id, c)| (c.idle_since.load(Ordering::Acquire), id))
            .map(|(&id, _)| id);
        match idlest.and_then(|id| open.by_id.remove(&id)) {
            Some(connection) => {
                connection.close.notify_one();
                true
            }
            None => false,
        }
    }
}

/// Serves `app` on the connections of `listener` within `bounds` until `stop` turns true,
/// then stops accepting, lets each connection finish the request it is answering, and
/// returns once every connection is closed (the caller bounds that wait).
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    bounds: Bounds,
    mut stop: watch::Receiver<bool>,
) {
    let registry = Arc::new(Registry::new());
    let limit = connection_limit(&bounds);
    let mut tasks = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            // Finished connections are reaped as they end, so the set stays small.
            Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
            changed = stop.changed() => {
                if changed.is_err() || *stop.borrow_and_update() {
                    break;
                }
                continue;
            }
        };
        match accepted {
            Ok((stream, _)) => {
                if registry.len() >= limit && !registry.close_idlest() {
                    // Every connection is answering a request: this client is refused rather
                    // than made to wait for a place it may never get.
                    drop(stream);
                    continue;
                }
                let _ = stream.set_nodelay(true);
                let (id, connection) = registry.add();
                tasks.spawn(serve_connection(
                    stream,
                    app.clone(),
                    bounds.header_timeout,
                    Arc::clone(&registry),
                    (id, connection),
                    stop.clone(),
                ));
            }
            Err(e) if client_went_away(&e) => {}
            Err(e) if out_of_descriptors(&e) && registry.close_idlest() => {
                tokio::time::sleep(CLOSE_WAIT).await;
            }
            Err(_) => tokio::time::sleep(ACCEPT_RETRY).await,
        }
    }
    // No new connection from here on: the port is closed.
    drop(listener);
    while tasks.join_next().await.is_some() {}
}

/// Serves one connection until the client closes it, hyper closes it (a head too slow, an
/// error), the accept loop needs its place while it is idle, or the server stops.
async fn serve_connection(
    stream: TcpStream,
    app: Router,
    header_timeout: Duration,
    registry: Arc<Registry>,
    (id, connection): (u64, Arc<Connection>),
    mut stop: watch::Receiver<bool>,
) {
    let service = {
        let registry = Arc::clone(&registry);
        let connection = Arc::clone(&connection);
        hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let app = app.clone();
            let registry = Arc::clone(&registry);
            let connection = Arc::clone(&connection);
            async move {
                let _busy = Busy::start(&connection, &registry);
                app.oneshot(request.map(Body::new)).await
            }
        })
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let served = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(served);
    let mut stopping = false;
    loop {
        tokio::select! {
            _ = served.as_mut() => break,
            () = connection.close.notified() => {
                if connection.busy.load(Ordering::Acquire) == 0 {
                    break;
                }
                // A request came in since it was chosen: answered, then closed.
                served.as_mut().graceful_shutdown();
            }
            changed = stop.changed(), if !stopping => {
                if changed.is_err() || *stop.borrow_and_update() {
                    stopping = true;
                    served.as_mut().graceful_shutdown();
                }
            }
        }
    }
    registry.remove(id);
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::io::{Read, Write};
    use std::net::SocketAddr;

    use axum::routing::get;

    /// A server of one route on a free port of 127.0.0.1, with these bounds; stopped by
    /// sending `true`.
    async fn start(bounds: Bounds) -> (SocketAddr, watch::Sender<bool>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = Router::new().route("/", get(|| async { "ok" }));
        let (stop_tx, stop_rx) = watch::channel(false);
        tokio::spawn(serve(listener, app, bounds, stop_rx));
        (addr, stop_tx)
    }

    /// Whether the server closed `stream` (a read returns end of file or a reset) within
    /// `limit`.
    fn closed_within(stream: &mut std::net::TcpStream, limit: Duration) -> bool {
        stream.set_read_timeout(Some(limit)).unwrap();
        let mut buffer = [0u8; 256];
        loop {
            match stream.read(&mut buffer) {
                Ok(0) => return true,
                Ok(_) => continue,
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return true,
                Err(_) => return false,
            }
        }
    }

    /// `GET /` on a new connection; whether it was answered 200 within `limit`.
    fn answered_within(addr: SocketAddr, limit: Duration) -> bool {
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(limit)).unwrap();
        stream
            .write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        answer.starts_with(b"HTTP/1.1 200")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn slow_heads_and_idle_keep_alive_are_closed_after_the_header_timeout() {
        let bounds = Bounds {
            header_timeout: Duration::from_millis(300),
            ..Bounds::default()
        };
        let (addr, _stop) = start(bounds).await;
        tokio::task::spawn_blocking(move || {
            // Half a head, then nothing.
            let mut slow = std::net::TcpStream::connect(addr).unwrap();
            slow.write_all(b"GET / HTTP/1.1\r\nHo").unwrap();
            // One request answered, then idle on a kept-alive connection.
            let mut idle = std::net::TcpStream::connect(addr).unwrap();
            idle.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                .unwrap();
            let mut answer = [0u8; 512];
            let n = idle.read(&mut answer).unwrap();
            assert!(answer[..n].starts_with(b"HTTP/1.1 200"));
            // Nothing at all.
            let mut silent = std::net::TcpStream::connect(addr).unwrap();
            for stream in [&mut slow, &mut idle, &mut silent] {
                assert!(closed_within(stream, Duration::from_secs(3)));
            }
        })
        .await
        .unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn past_the_limit_the_connection_idle_the_longest_is_closed() {
        let bounds = Bounds {
            max_connections: 4,
            ..Bounds::default()
        };
        let (addr, _stop) = start(bounds).await;
        tokio::task::spawn_blocking(move || {
            let mut idle: Vec<std::net::TcpStream> = (0..12)
                .map(|_| {
                    let mut s = std::net::TcpStream::connect(addr).unwrap();
                    s.write_all(b"GET / HTTP/1.1\r\n").unwrap();
                    s
                })
                .collect();
            // A new client is served at once, although every place was taken.
            for _ in 0..3 {
                assert!(answered_within(addr, Duration::from_secs(1)));
            }
            // The first ones were closed to make room; the last few may still be open.
            for stream in &mut idle[..8] {
                assert!(closed_within(stream, Duration::from_secs(1)));
            }
        })
        .await
        .unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn stopping_closes_idle_connections_and_the_port() {
        let (addr, stop) = start(Bounds::default()).await;
        let mut idle = std::net::TcpStream::connect(addr).unwrap();
        // Accepted before the stop.
        tokio::time::sleep(Duration::from_millis(100)).await;
        stop.send(true).unwrap();
        tokio::task::spawn_blocking(move || {
            assert!(closed_within(&mut idle, Duration::from_secs(3)));
            std::thread::sleep(Duration::from_millis(100));
            assert!(std::net::TcpStream::connect(addr).is_err());
        })
        .await
        .unwrap();
    }
}
