//! The processes of the browser test (the server, chromedriver), and plain HTTP to them.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

// ---- processes -------------------------------------------------------------------------------

/// The processes the test started, stopped by their process group when it ends, passed or
/// failed: the browser session first (closing Chromium), then chromedriver and the server.
pub(crate) struct Processes {
    pub(crate) children: Vec<(&'static str, Child)>,
    /// chromedriver's port and the browser session on it.
    pub(crate) session: Option<(u16, String)>,
    /// What the server wrote on stderr, to show when the test fails.
    pub(crate) server_log: Arc<Mutex<String>>,
}

impl Processes {
    pub(crate) fn new() -> Processes {
        Processes {
            children: Vec::new(),
            session: None,
            server_log: Arc::new(Mutex::new(String::new())),
        }
    }

    /// Starts `command` in a process group of its own, so that stopping it stops what it
    /// started too (chromedriver's Chromium).
    pub(crate) fn spawn(&mut self, name: &'static str, command: &mut Command) -> &mut Child {
        let child = command
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        self.children.push((name, child));
        &mut self.children.last_mut().expect("just pushed").1
    }
}

impl Drop for Processes {
    fn drop(&mut self) {
        if let Some((port, session)) = self.session.take() {
            // Closes the browser; chromedriver would leave it running if killed first.
            let _ = http(port, "DELETE", &format!("/session/{session}"), None);
        }
        for (name, child) in self.children.iter_mut().rev() {
            let group = format!("-{}", child.id());
            let _ = Command::new("kill")
                .args(["-TERM", "--", &group])
                .stderr(Stdio::null())
                .status();
            let deadline = Instant::now() + Duration::from_secs(15);
            loop {
                match child.try_wait() {
                    Ok(Some(_)) => break,
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(50))
                    }
                    _ => {
                        eprintln!("{name} did not stop on SIGTERM: killed");
                        let _ = Command::new("kill")
                            .args(["-KILL", "--", &group])
                            .stderr(Stdio::null())
                            .status();
                        let _ = child.kill();
                        let _ = child.wait();
                        break;
                    }
                }
            }
        }
        if std::thread::panicking() {
            let log = self
                .server_log
                .lock()
                .map(|l| l.clone())
                .unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(40).collect();
            eprintln!("--- the server's last lines ---");
            for line in tail.iter().rev() {
                eprintln!("{line}");
            }
        }
    }
}

/// A port free now (the kernel's pick), for chromedriver.
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// The first of `names` found on PATH.
pub(crate) fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// Starts `rafle serve` on a port of its choosing; returns the port.
pub(crate) fn start_server(processes: &mut Processes, data: &Path) -> u16 {
    let child = processes.spawn(
        "rafle serve",
        Command::new(env!("CARGO_BIN_EXE_rafle"))
            .args(["serve", "--data"])
            .arg(data)
            .args(["--bind", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped()),
    );
    let stderr = child.stderr.take().expect("stderr is piped");
    let log = Arc::clone(&processes.server_log);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        // Kept reading to the end so that the server never blocks on a full pipe.
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("listening on http://").nth(1) {
                let _ = tx.send(rest.trim_end_matches('/').to_string());
            }
            if let Ok(mut log) = log.lock() {
                log.push_str(&line);
                log.push('\n');
            }
        }
    });
    let addr = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("rafle serve says where it listens");
    addr.rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("a port in {addr}"))
}

/// Starts chromedriver; returns its port once it answers.
pub(crate) fn start_chromedriver(processes: &mut Processes, driver: &Path) -> u16 {
    let port = free_port();
    processes.spawn(
        "chromedriver",
        Command::new(driver)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok((200, _)) = http(port, "GET", "/status", None) {
            return port;
        }
        assert!(Instant::now() < deadline, "chromedriver did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
}

// ---- plain HTTP ------------------------------------------------------------------------------

/// One HTTP/1.1 request to 127.0.0.1:`port`; the status and the body. The body is read to
/// its length (chromedriver keeps the connection open), or to its last chunk, or to the end.
pub(crate) fn http(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> std::io::Result<(u16, String)> {
    let stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let body = body.unwrap_or("");
    write!(
        &stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )?;
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line)?;
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no status in {status_line:?}")))?;
    let mut length = None;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse::<usize>().ok();
        }
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        }
    }
    let mut raw = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let size = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16)
                .map_err(|_| std::io::Error::other("bad chunk size"))?;
            if size == 0 {
                break;
            }
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk)?;
            raw.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(length) = length {
        raw.resize(length, 0);
        reader.read_exact(&mut raw)?;
    } else {
        reader.read_to_end(&mut raw)?;
    }
    Ok((status, String::from_utf8_lossy(&raw).into_owned()))
}

/// `text` percent-encoded for a query.
pub(crate) fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The API's answer for a position: status and JSON.
pub(crate) fn api(port: u16, variant: &str, fen: &str) -> (u16, Value) {
    let (status, body) = http(
        port,
        "GET",
        &format!("/api/v1/{variant}?fen={}", encode(fen)),
        None,
    )
    .expect("the API answers");
    (
        status,
        serde_json::from_str(&body).expect("the API sends JSON"),
    )
}

/// The API's answer for a position it accepts.
pub(crate) fn probe(port: u16, variant: &str, fen: &str) -> Value {
    let (status, json) = api(port, variant, fen);
    assert_eq!(status, 200, "{variant} {fen}: {json}");
    json
}
