//! `rafle serve` as a process: it listens on a free port, answers plain HTTP requests on
//! kept-alive connections, logs one line per request, and exits 0 on SIGTERM.
#![cfg(unix)]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use common::{data, generate};
use serde_json::Value;

/// `rafle serve` on tables of `dir`, with its stderr lines arriving on a channel.
fn serve(dir: &str, bind: &str) -> (Child, Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rafle"))
        .args(["serve", "--data", dir, "--bind", bind, "--cache", "16M"])
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
            "rafle: no tables in {}: generate them with 'rafle generate'\n",
            data(&empty)
        )
    );
    let out = common::rafle(&["serve", "--bind", "localhost"]);
    assert_eq!(out.status.code(), Some(2));
}
