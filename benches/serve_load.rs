//! A bounded load test of `rafle serve` on the loopback: `cargo bench --bench serve_load`.
//!
//! It starts `rafle serve` on the bench tables (Brazilian up to 5 pieces, international up to
//! 4, in `RAFLE_BENCH_DATA` or `target/bench-data`, generated on the first run) on a free
//! port, warms the tables with every position once, then sends a fixed number of requests
//! from a fixed number of clients, each on its own kept-alive connection, and reports
//! requests/s and the median and 99th-percentile latency: single positions, then batches of
//! 100. Between the two it sends 1,000 malformed requests (bad FENs, bad counters, unknown
//! variants and paths, queries and bodies over the bounds, broken JSON), checks each is
//! refused with its status, and that the answers of a fixed set of positions are byte for
//! byte what they were before. It reports the server's resident memory (`VmRSS`) after the
//! warm-up and at the end, then stops the server with SIGTERM and checks it exits 0.
//!
//! `RAFLE_LOAD_REQUESTS` (default 200,000), `RAFLE_LOAD_CLIENTS` (default 32) and
//! `RAFLE_LOAD_BATCHES` (default 2,000) change the counts; the run stops after 10 minutes
//! whatever they say.

#[path = "support/mod.rs"]
mod support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use rafle_probe::{draughts::Variant, Tablebase};
use support::{random_positions, tables};

/// Past this the run stops, whatever remains to send.
const TIME_LIMIT: Duration = Duration::from_secs(600);

/// Positions per variant, each requested in turn.
const POSITIONS: usize = 4096;

/// Positions per batch request.
const BATCH: usize = 100;

fn count_from_env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let requests = count_from_env("RAFLE_LOAD_REQUESTS", 200_000);
    let clients = count_from_env("RAFLE_LOAD_CLIENTS", 32).max(1);
    let batches = count_from_env("RAFLE_LOAD_BATCHES", 2_000);
    let dir = tables();
    let tb = Tablebase::open(&dir).expect("bench tables");
    let mut fens = Vec::new();
    for variant in [Variant::Brazilian, Variant::International] {
        for pos in random_positions(&tb, variant, POSITIONS) {
            fens.push((variant, pos.to_fen()));
        }
    }
    drop(tb);
    let log = std::env::temp_dir().join(format!("rafle-serve-load-{}.log", std::process::id()));
    let (mut server, addr) = start_server(&dir, &log);
    let pid = server.pid();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let deadline = Instant::now() + TIME_LIMIT;
    runtime.block_on(async {
        let singles: Arc<Vec<String>> = Arc::new(
            fens.iter()
                .map(|(variant, fen)| format!("/api/v1/{variant}?fen={fen}"))
                .collect(),
        );
        let warm = run_load(addr, clients, &singles, Body::None, singles.len(), deadline).await;
        println!(
            "warm-up: {} positions (Brazilian up to 5 pieces, international up to 4), {:.1} s",
            warm.done, warm.seconds
        );
        let rss_before = resident_kib(pid);
        let reference = answers(addr, &singles[..64]).await;

        let single = run_load(addr, clients, &singles, Body::None, requests, deadline).await;
        single.report("single positions", clients, 1);

        let malformed = send_malformed(addr, 1000).await;
        println!("malformed requests: {malformed} sent, each refused with its status");
        assert_eq!(
            answers(addr, &singles[..64]).await,
            reference,
            "the answers changed after the malformed requests"
        );
        println!("answers of 64 positions unchanged after them");

        let bodies: Arc<Vec<String>> = Arc::new(
            fens.chunks(BATCH)
                .filter(|chunk| chunk.iter().all(|(v, _)| *v == chunk[0].0))
                .map(|chunk| {
                    let list: Vec<&str> = chunk.iter().map(|(_, fen)| fen.as_str()).collect();
                    let uri = format!("/api/v1/{}/batch", chunk[0].0);
                    let body = serde_json::json!({ "fens": list }).to_string();
                    format!("{uri}\n{body}")
                })
                .collect(),
        );
        let batch = run_load(addr, clients, &bodies, Body::Post, batches, deadline).await;
        batch.report("batches of 100 positions", clients, BATCH);
        let rss_after = resident_kib(pid);
        println!(
            "server resident memory: {} MiB after the warm-up, {} MiB at the end (cache budget \
             256 MiB)",
            rss_before / 1024,
            rss_after / 1024
        );
    });
    let status = server.stop();
    assert!(status.success(), "rafle serve exited with {status}");
    let lines = std::fs::read_to_string(&log).unwrap_or_default();
    let requests_logged = lines.lines().filter(|l| !l.starts_with("rafle")).count();
    println!("server stopped on SIGTERM with {status}; {requests_logged} request lines logged");
    let _ = std::fs::remove_file(&log);
}

/// The server under test, stopped with SIGTERM when the bench ends, even by a panic.
struct Server(Option<Child>);

impl Server {
    fn pid(&self) -> u32 {
        self.0.as_ref().map_or(0, Child::id)
    }

    /// Sends SIGTERM and waits for the exit.
    fn stop(&mut self) -> std::process::ExitStatus {
        let mut child = self.0.take().expect("a running server");
        let pid = libc::pid_t::try_from(child.id()).expect("a pid");
        // SAFETY: kill(2) on our child's pid, not yet waited for, so not reused.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        child.wait().expect("the server ends")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.0.is_some() {
            self.stop();
        }
    }
}

/// Starts `rafle serve` on a free port, its stderr to `log`; waits for it to listen.
fn start_server(dir: &Path, log: &Path) -> (Server, std::net::SocketAddr) {
    let file = std::fs::File::create(log).expect("a log file");
    let dir = dir.to_str().expect("a UTF-8 path");
    let server = Server(Some(
        Command::new(env!("CARGO_BIN_EXE_rafle"))
            .args(["serve", "--data", dir, "--bind", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("rafle serve starts"),
    ));
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("rafle serve: listening on http://") {
                let addr = rest.trim_end_matches('/').parse().expect("an address");
                return (server, addr);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!(
        "rafle serve did not start: {}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

/// `VmRSS` of a process, in KiB.
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    /// `GET` of the target.
    None,
    /// `POST`: the item is the target, a newline, then the body.
    Post,
    /// `POST` of the target declaring a 2 MiB body and `Expect: 100-continue`, as curl does
    /// for large bodies: the server refuses it from the headers, the body is never sent.
    /// (Sending it would race the server's refusal: a client still writing when the
    /// connection closes gets a broken pipe instead of the answer.)
    Oversized,
}

/// What a load phase measured.
struct Load {
    done: usize,
    seconds: f64,
    latencies: Vec<Duration>,
}

impl Load {
    fn report(&self, what: &str, clients: usize, positions_each: usize) {
        let mut sorted = self.latencies.clone();
        sorted.sort_unstable();
        let at = |q: f64| sorted[((sorted.len() as f64 * q) as usize).min(sorted.len() - 1)];
        let rate = self.done as f64 / self.seconds;
        println!(
            "{what}: {} requests from {clients} kept-alive connections in {:.2} s: {:.0} \
             requests/s ({:.0} positions/s), latency p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            self.done,
            self.seconds,
            rate,
            rate * positions_each as f64,
            at(0.50).as_secs_f64() * 1e3,
            at(0.99).as_secs_f64() * 1e3,
            sorted.last().map_or(0.0, |d| d.as_secs_f64() * 1e3),
        );
    }
}

async fn connect(addr: std::net::SocketAddr) -> SendRequest<Full<Bytes>> {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    sender
}

/// Sends one request on `sender`; its status and body.
async fn send(
    sender: &mut SendRequest<Full<Bytes>>,
    item: &str,
    kind: Body,
) -> (StatusCode, Bytes) {
    try_send(sender, item, kind).await.expect("a response")
}

/// Sends one request on `sender`; its status and body, or why the connection failed.
async fn try_send(
    sender: &mut SendRequest<Full<Bytes>>,
    item: &str,
    kind: Body,
) -> Result<(StatusCode, Bytes), hyper::Error> {
    let request = match kind {
        Body::None => Request::get(item)
            .header("host", "localhost")
            .body(Full::new(Bytes::new())),
        Body::Post | Body::Oversized => {
            let (uri, body) = item.split_once('\n').unwrap_or((item, ""));
            Request::builder()
                .method(Method::POST)
                .uri(uri)
                .header("host", "localhost")
                .header("content-type", "application/json")
                .body(Full::new(Bytes::from(body.to_string())))
        }
    }
    .expect("a request");
    sender.ready().await?;
    let response = sender.send_request(request).await?;
    let status = response.status();
    let body = response.into_body().collect().await?.to_bytes();
    Ok((status, body))
}

/// `total` requests of `items` (in turn) from `clients` connections, each sending its next
/// request when the last is answered; every answer must be 200.
async fn run_load(
    addr: std::net::SocketAddr,
    clients: usize,
    items: &Arc<Vec<String>>,
    kind: Body,
    total: usize,
    deadline: Instant,
) -> Load {
    let start = Instant::now();
    let mut tasks = Vec::new();
    for client in 0..clients {
        let items = Arc::clone(items);
        let share = total / clients + usize::from(client < total % clients);
        tasks.push(tokio::spawn(async move {
            let mut sender = connect(addr).await;
            let mut latencies = Vec::with_capacity(share);
            for n in 0..share {
                if Instant::now() > deadline {
                    break;
                }
                let item = &items[(client + n * clients) % items.len()];
                let sent = Instant::now();
                let (status, body) = send(&mut sender, item, kind).await;
                latencies.push(sent.elapsed());
                assert_eq!(status, StatusCode::OK, "{item}: {body:?}");
            }
            latencies
        }));
    }
    let mut latencies = Vec::with_capacity(total);
    for task in tasks {
        latencies.extend(task.await.expect("a client"));
    }
    Load {
        done: latencies.len(),
        seconds: start.elapsed().as_secs_f64(),
        latencies,
    }
}

/// The bodies of the answers to `targets`, one connection, in order.
async fn answers(addr: std::net::SocketAddr, targets: &[String]) -> Vec<Bytes> {
    let mut sender = connect(addr).await;
    let mut out = Vec::new();
    for target in targets {
        let (status, body) = send(&mut sender, target, Body::None).await;
        assert_eq!(status, StatusCode::OK);
        out.push(body);
    }
    out
}

/// The status of a `POST` to `target` declaring a 2 MiB body it never sends, on a
/// connection of its own.
async fn oversized(addr: std::net::SocketAddr, target: &str) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let head = format!(
        "POST {target} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n",
        2 << 20
    );
    stream
        .write_all(head.as_bytes())
        .await
        .expect("the headers");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("the answer");
    let text = String::from_utf8_lossy(&answer);
    text.split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {text}"))
}

/// `count` malformed requests on 4 connections, each refused with the status it deserves.
async fn send_malformed(addr: std::net::SocketAddr, count: usize) -> usize {
    let long = format!("/api/v1/brazilian?fen=W:WK1:BK28{}", ",".repeat(4096));
    let many = format!(
        "/api/v1/brazilian/batch\n{}",
        serde_json::json!({ "fens": vec!["W:WK1:BK28"; 1001] })
    );
    let cases: Vec<(String, Body, u16)> = vec![
        ("/api/v1/brazilian?fen=W:W31,51:B1".into(), Body::None, 400),
        (
            "/api/v1/international?fen=W:W31,,32:B20".into(),
            Body::None,
            400,
        ),
        ("/api/v1/brazilian?fen=".into(), Body::None, 400),
        (
            "/api/v1/brazilian?fen=W:WK1:BK28&counters=x".into(),
            Body::None,
            400,
        ),
        (
            "/api/v1/brazilian?fen=W:WK1:BK28&counters=1,99999".into(),
            Body::None,
            400,
        ),
        (
            "/api/v1/brazilian?fen=W:WK1%00:BK28".into(),
            Body::None,
            400,
        ),
        (
            "/api/v1/brazilian?fen=W:WK1:BK28&x=1".into(),
            Body::None,
            400,
        ),
        ("/api/v1/brazilian".into(), Body::None, 400),
        ("/api/v1/russian?fen=W:WK1:BK28".into(), Body::None, 404),
        ("/api/v9/brazilian".into(), Body::None, 404),
        (long, Body::None, 414),
        ("/api/v1/brazilian/batch".into(), Body::Oversized, 413),
        (many, Body::Post, 413),
        (
            "/api/v1/brazilian/batch\n{\"fens\":[".into(),
            Body::Post,
            400,
        ),
        ("/api/v1/brazilian/batch\n[1,2,3]".into(), Body::Post, 400),
        (
            "/api/v1/brazilian/line?fen=W:WK1,K2,K3,K4,K5:BK28".into(),
            Body::None,
            422,
        ),
    ];
    let cases = Arc::new(cases);
    let mut tasks = Vec::new();
    let connections = 4;
    for c in 0..connections {
        let cases = Arc::clone(&cases);
        tasks.push(tokio::spawn(async move {
            let mut sender = connect(addr).await;
            let mut sent = 0;
            for n in (c..count).step_by(connections) {
                let (item, kind, expected) = &cases[n % cases.len()];
                if *kind == Body::Oversized {
                    assert_eq!(oversized(addr, item).await, *expected, "{item} oversized");
                    sent += 1;
                    continue;
                }
                let (status, body) = match try_send(&mut sender, item, *kind).await {
                    Ok(answer) => answer,
                    Err(_) => {
                        // The server closes a connection whose body it refused unread:
                        // the same request on a fresh one gets the answer.
                        sender = connect(addr).await;
                        send(&mut sender, item, *kind).await
                    }
                };
                let shown = &item[..item.len().min(80)];
                assert_eq!(status.as_u16(), *expected, "{shown}: {body:?}");
                sent += 1;
            }
            sent
        }));
    }
    let mut sent = 0;
    for task in tasks {
        sent += task.await.expect("a client");
    }
    sent
}
