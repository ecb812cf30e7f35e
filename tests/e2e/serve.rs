//! `rafle serve` as a process: it listens on a free port, answers plain HTTP requests on
//! kept-alive connections, logs one line per request, and exits 0 on SIGTERM.
#![cfg(unix)]

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use common::{data, generate};
use serde_json::Value;

/// `rafle serve` on tables of `dir`, with its stderr lines arriving on a channel.
fn serve(dir: &str, bind: &str) -> (Child, Receiver<String>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rafle"));
    command.args(["serve", "--data", dir, "--bind", bind, "--cache", "16M"]);
    spawn_serve(command)
}

/// `rafle serve` on tables of `dir` on a free port, within a limit of `descriptors` open
/// files (the shell's `ulimit -n`), with its stderr lines arriving on a channel.
fn serve_with_descriptors(dir: &str, descriptors: u32) -> (Child, Receiver<String>) {
    let mut command = Command::new("sh");
    command.args([
        "-c",
        &format!("ulimit -n {descriptors} && exec \"$0\" \"$@\""),
        env!("CARGO_BIN_EXE_rafle"),
        "serve",
        "--data",
        dir,
        "--bind",
        "127.0.0.1:0",
        "--cache",
        "16M",
    ]);
    spawn_serve(command)
}

fn spawn_serve(mut command: Command) -> (Child, Receiver<String>) {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rafle serve starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let (lines, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    (child, receiver)
}

/// The next stderr line, within a minute.
fn next_line(lines: &Receiver<String>) -> Option<String> {
    lines.recv_timeout(Duration::from_secs(60)).ok()
}

/// One request on `stream`; the status and the body of the response (by its length).
fn request(stream: &mut TcpStream, method: &str, target: &str, body: &str) -> (u16, String) {
    let head = format!(
        "{method} {target} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status = status_line.split(' ').nth(1).unwrap().parse().unwrap();
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap();
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    (status, String::from_utf8(body).unwrap())
}

/// Waits up to `limit` for the process to end; its exit code.
fn wait(child: &mut Child, limit: Duration) -> Option<i32> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    None
}

#[test]
fn serve_answers_http_and_stops_cleanly_on_sigterm() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let (mut child, lines) = serve(data(&dir), "127.0.0.1:0");
    let mut addr = None;
    let mut startup = Vec::new();
    while let Some(line) = next_line(&lines) {
        startup.push(line.clone());
        if let Some(rest) = line.strip_prefix("rafle serve: listening on http://") {
            addr = Some(rest.trim_end_matches('/').parse::<SocketAddr>().unwrap());
            break;
        }
    }
    let addr = addr.unwrap_or_else(|| panic!("no listening line: {startup:?}"));
    assert_ne!(addr.port(), 0);
    assert!(
        startup[0].starts_with("rafle serve: brazilian: 9 materials up to 3 pieces, rules 6.2=50"),
        "{startup:?}"
    );

    // Three requests on one kept-alive connection.
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let (status, body) = request(
        &mut stream,
        "GET",
        "/api/v1/brazilian?fen=W:WK1,K2:BK28",
        "",
    );
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (&answer["wdl"], &answer["dtw"], &answer["count"]),
        (&"win".into(), &7.into(), &7.into())
    );
    assert_eq!(answer["moves"][0]["move"], "2-9");
    let (status, body) = request(
        &mut stream,
        "POST",
        "/api/v1/brazilian/batch",
        r#"{"fens":["B:W29:B25,22","W:W31,,32:B20"]}"#,
    );
    assert_eq!(status, 200, "{body}");
    let batch: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(batch["results"][0]["wdl"], "win");
    assert!(batch["results"][1]["error"].is_string());
    let (status, body) = request(&mut stream, "GET", "/api/v1/russian?fen=x", "");
    assert_eq!(status, 404, "{body}");
    let (status, _) = request(&mut stream, "GET", "/", "");
    assert_eq!(status, 200);

    // The connection stays open, idle: the server must not wait for it to stop.
    let sent = Instant::now();
    // SAFETY: kill(2) on the child's pid, which is ours until waited for.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let code = wait(&mut child, Duration::from_secs(30));
    assert_eq!(code, Some(0), "rafle serve exits 0 on SIGTERM");
    assert!(
        sent.elapsed() < Duration::from_secs(5),
        "{:?}",
        sent.elapsed()
    );
    let log: Vec<String> = lines.iter().collect();
    let requests: Vec<&String> = log
        .iter()
        .filter(|l| !l.starts_with("rafle serve:"))
        .collect();
    assert_eq!(requests.len(), 4, "{log:?}");
    for (line, (start, status)) in requests.iter().zip([
        ("GET /api/v1/brazilian ", 200),
        ("POST /api/v1/brazilian/batch ", 200),
        ("GET /api/v1/russian ", 404),
        ("GET / ", 200),
    ]) {
        let rest = line.strip_prefix(start).unwrap_or_else(|| panic!("{line}"));
        let (code, time) = rest.split_once(' ').unwrap();
        assert_eq!(code, status.to_string(), "{line}");
        let millis: f64 = time.strip_suffix(" ms").unwrap().parse().unwrap();
        assert!(millis >= 0.0, "{line}");
    }
    assert_eq!(
        log.last().map(String::as_str),
        Some("rafle serve: stopped"),
        "{log:?}"
    );
}

#[test]
fn serve_refuses_a_busy_port_and_a_directory_without_tables() {
    let (dir, _, _) = generate("brazilian", 2, &[]);
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let bind = taken.local_addr().unwrap().to_string();
    let (mut child, lines) = serve(data(&dir), &bind);
    assert_eq!(wait(&mut child, Duration::from_secs(60)), Some(1));
    let log: Vec<String> = lines.iter().collect();
    let last = log.last().unwrap();
    assert!(
        last.starts_with(&format!("rafle: cannot listen on {bind}: ")),
        "{log:?}"
    );
    let empty = tempfile::tempdir().unwrap();
    let out = common::rafle(&["serve", "--data", data(&empty), "--bind", "127.0.0.1:0"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        common::text(&out.stderr),
        format!(
            "rafle: no tables in {}: build them with 'rafle generate' (or point --data or \
             RAFLE_DATA at a table directory)\n",
            data(&empty)
        )
    );
    let out = common::rafle(&["serve", "--bind", "localhost"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The address of the `listening on` line, reading the lines before it.
fn listening_address(lines: &Receiver<String>) -> SocketAddr {
    let mut startup = Vec::new();
    while let Some(line) = next_line(lines) {
        if let Some(rest) = line.strip_prefix("rafle serve: listening on http://") {
            return rest.trim_end_matches('/').parse().unwrap();
        }
        startup.push(line);
    }
    panic!("no listening line: {startup:?}");
}

/// `GET target` on a new connection, answered within `limit`: its status and how long it
/// took, or why not.
fn get_within(addr: SocketAddr, target: &str, limit: Duration) -> Result<(u16, Duration), String> {
    let start = Instant::now();
    let mut stream =
        TcpStream::connect_timeout(&addr, limit).map_err(|e| format!("connect: {e}"))?;
    stream.set_read_timeout(Some(limit)).unwrap();
    let head = format!("GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    stream
        .write_all(head.as_bytes())
        .map_err(|e| format!("write: {e}"))?;
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .map_err(|e| format!("no answer after {:?}: {e}", start.elapsed()))?;
    let text = String::from_utf8_lossy(&answer);
    let status = text
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| format!("not an HTTP answer: {text:?}"))?;
    Ok((status, start.elapsed()))
}

/// One batch of `fens` on a new connection; its status, or none if the connection failed.
fn post_batch(addr: SocketAddr, fens: &[&str]) -> Option<u16> {
    let body = serde_json::json!({ "fens": fens }).to_string();
    let mut stream = TcpStream::connect(addr).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let head = format!(
        "POST /api/v1/brazilian/batch HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body.as_bytes()).ok()?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).ok()?;
    String::from_utf8_lossy(&answer)
        .get(9..12)
        .and_then(|code| code.parse().ok())
}

/// Idle connections, slowloris ones (a head sent a byte a second) and batches running, past
/// what a limit of 128 descriptors allows: a new client is still answered within a second,
/// every time. The server used to stop accepting once its descriptors ran out, until the
/// idle clients chose to close.
#[test]
fn idle_and_slow_clients_and_batches_do_not_lock_others_out() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;

    let (dir, _, _) = generate("brazilian", 3, &[]);
    let (mut child, lines) = serve_with_descriptors(data(&dir), 128);
    let addr = listening_address(&lines);
    let stop = Arc::new(AtomicBool::new(false));
    let batches_ok = Arc::new(AtomicUsize::new(0));
    let batchers: Vec<_> = (0..2)
        .map(|_| {
            let (stop, batches_ok) = (Arc::clone(&stop), Arc::clone(&batches_ok));
            std::thread::spawn(move || {
                let fens: Vec<&str> = ["W:WK1,K2:BK28", "B:W29:B25,22", "W:W31:BK4,K5"]
                    .into_iter()
                    .cycle()
                    .take(1000)
                    .collect();
                for _ in 0..200 {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    if post_batch(addr, &fens) == Some(200) {
                        batches_ok.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    // 150 connections that send nothing, 50 that send a head a byte a second: more than the
    // server's descriptors.
    let idle: Vec<TcpStream> = (0..150)
        .map(|_| TcpStream::connect(addr).unwrap())
        .collect();
    let slow: Vec<TcpStream> = (0..50).map(|_| TcpStream::connect(addr).unwrap()).collect();
    let slowloris = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let head = b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ";
            let mut slow = slow;
            for second in 0..10 {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let byte = head.get(second).copied().unwrap_or(b'a');
                for stream in &mut slow {
                    // A connection the server closed fails to write: so be it.
                    let _ = stream.write_all(&[byte]);
                }
                std::thread::sleep(Duration::from_secs(1));
            }
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    let limit = Duration::from_secs(1);
    let mut failures = Vec::new();
    for round in 0..5 {
        for target in ["/", "/api/v1/brazilian?fen=W:WK1,K2:BK28"] {
            match get_within(addr, target, limit) {
                Ok((200, _)) => {}
                Ok((status, took)) => {
                    failures.push(format!("round {round}, {target}: {status} in {took:?}"))
                }
                Err(why) => failures.push(format!("round {round}, {target}: {why}")),
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    // Everything is stopped before the verdict, so that a failure leaves no server running.
    stop.store(true, Ordering::Relaxed);
    slowloris.join().unwrap();
    for batcher in batchers {
        batcher.join().unwrap();
    }
    drop(idle);
    // SAFETY: kill(2) on the child's pid, which is ours until waited for.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let code = wait(&mut child, Duration::from_secs(30));
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(
        batches_ok.load(Ordering::Relaxed) > 0,
        "no batch was answered"
    );
    assert_eq!(code, Some(0));
}

/// A stderr that fails (a full log disk) loses the log, not the server: it starts, answers,
/// and exits 0 on SIGTERM. It used to abort at its first line.
#[cfg(target_os = "linux")]
#[test]
fn serve_runs_and_stops_with_a_full_stderr() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    // A free port, known before the server starts since its stderr says nothing.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rafle"))
        .args(["serve", "--data", data(&dir), "--bind", &addr.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(full)
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut answered = None;
    while start.elapsed() < Duration::from_secs(30) {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if let Ok(answer) = get_within(
            addr,
            "/api/v1/brazilian?fen=W:WK1,K2:BK28",
            Duration::from_secs(5),
        ) {
            answered = Some(answer.0);
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: kill(2) on the child's pid, which is ours until waited for.
    let signalled = unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let code = wait(&mut child, Duration::from_secs(30));
    assert_eq!(answered, Some(200));
    assert_eq!(signalled, 0);
    assert_eq!(code, Some(0));
}
