//! The explorer page of `rafle serve` in a real browser: headless Chromium driven over
//! WebDriver (chromedriver), against a server on small generated tables. Every value and
//! move the page shows is checked against the API's JSON, fetched here directly.
//!
//! Ignored by default (it needs Chromium and chromedriver); `scripts/browser-test.sh`
//! installs them when missing and runs it. Screenshots of both variants at a desktop and a
//! phone size land in `target/screenshots/`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::{Color, Position, Role, Square, Variant};
use serde_json::{json, Value};
use tempfile::TempDir;

/// How long the page may take to show what was asked.
const WAIT: Duration = Duration::from_secs(20);

// ---- processes -------------------------------------------------------------------------------

/// The processes the test started, stopped by their process group when it ends, passed or
/// failed: the browser session first (closing Chromium), then chromedriver and the server.
struct Processes {
    children: Vec<(&'static str, Child)>,
    /// chromedriver's port and the browser session on it.
    session: Option<(u16, String)>,
    /// What the server wrote on stderr, to show when the test fails.
    server_log: Arc<Mutex<String>>,
}

impl Processes {
    fn new() -> Processes {
        Processes {
            children: Vec::new(),
            session: None,
            server_log: Arc::new(Mutex::new(String::new())),
        }
    }

    /// Starts `command` in a process group of its own, so that stopping it stops what it
    /// started too (chromedriver's Chromium).
    fn spawn(&mut self, name: &'static str, command: &mut Command) -> &mut Child {
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
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// The first of `names` found on PATH.
fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// Starts `rafle serve` on a port of its choosing; returns the port.
fn start_server(processes: &mut Processes, data: &Path) -> u16 {
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
fn start_chromedriver(processes: &mut Processes, driver: &Path) -> u16 {
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
fn http(port: u16, method: &str, path: &str, body: Option<&str>) -> std::io::Result<(u16, String)> {
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
fn encode(text: &str) -> String {
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
fn api(port: u16, variant: &str, fen: &str) -> (u16, Value) {
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
fn probe(port: u16, variant: &str, fen: &str) -> Value {
    let (status, json) = api(port, variant, fen);
    assert_eq!(status, 200, "{variant} {fen}: {json}");
    json
}

// ---- the page ------------------------------------------------------------------------------

/// Everything the page shows, read in one script.
const READ_PAGE: &str = r#"
const $ = (id) => document.getElementById(id);
const value = $('value');
const error = $('error');
const squares = {};
for (const g of document.querySelectorAll('#board [data-square]')) {
  squares[g.dataset.square] = { piece: g.dataset.piece, classes: g.getAttribute('class') };
}
return {
  variant: document.querySelector('[data-variant][aria-pressed="true"]').dataset.variant,
  fen: $('fen').value,
  busy: document.body.classList.contains('busy'),
  url: location.href,
  turn: $('turn').textContent,
  setup: !$('setup').hidden,
  category: value.dataset.category,
  gameOver: value.dataset.gameOver,
  dtw: value.dataset.dtw,
  class: value.dataset.class,
  count: value.dataset.count,
  title: $('value-title').textContent,
  detail: $('value-detail').textContent,
  rules: $('value-rules').textContent,
  moves: [...document.querySelectorAll('#moves > li')].map((li) => ({
    move: li.dataset.move,
    category: li.dataset.category,
    mover: li.dataset.mover,
    text: li.textContent,
    isButton: li.firstElementChild.tagName === 'BUTTON',
  })),
  squares,
  pieces: document.querySelectorAll('#board use.piece').length,
  error: error.hidden ? null : error.textContent,
  errorTop: error.hidden ? null : error.getBoundingClientRect().top,
  boardTop: $('board').getBoundingClientRect().top,
  innerHeight: window.innerHeight,
  answerVariant: value.dataset.variant,
  variantLabel: $('value-variant').textContent,
  noMoves: $('no-moves').hidden ? null : $('no-moves').textContent,
  line: $('line-box').hidden ? null : [...document.querySelectorAll('#line > li')].map((li) => li.textContent),
  lineEnd: $('line-end').textContent,
  back: !$('back').disabled,
  forward: !$('forward').disabled,
  scrollWidth: document.documentElement.scrollWidth,
  innerWidth: window.innerWidth,
};
"#;

struct Page {
    client: Client,
    base: String,
    port: u16,
}

impl Page {
    async fn read(&self) -> Value {
        self.client
            .execute(READ_PAGE, vec![])
            .await
            .expect("the page reads")
    }

    /// Polls the page until `ready` holds of what it shows; returns that.
    async fn until(&self, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let page = self.read().await;
            if ready(&page) {
                return page;
            }
            assert!(
                Instant::now() < deadline,
                "the page did not show {what} within {WAIT:?}: {page:#}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits until the page shows `fen` (as the server writes it), answered.
    async fn settled(&self, fen: &str) -> Value {
        self.until(&format!("the position {fen}"), |p| {
            p["fen"] == fen && p["busy"] == false && p["category"] != ""
        })
        .await
    }

    async fn click(&self, css: &str) {
        self.client
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no {css} on the page: {e}"))
            .click()
            .await
            .unwrap_or_else(|e| panic!("{css} cannot be clicked: {e}"));
    }

    async fn click_square(&self, square: u8) {
        self.click(&format!("#board [data-square=\"{square}\"]"))
            .await;
    }

    /// Types `text` into the FEN box in place of what it holds, then Enter.
    async fn enter_fen(&self, text: &str) {
        let input = self
            .client
            .find(Locator::Id("fen"))
            .await
            .expect("the FEN box");
        input.clear().await.expect("the FEN box clears");
        input
            .send_keys(&format!("{text}\u{E007}"))
            .await
            .expect("the FEN box takes keys");
    }

    async fn goto(&self, variant: &str, fen: &str) {
        let url = format!("{}/?variant={variant}&fen={}", self.base, encode(fen));
        self.client.goto(&url).await.expect("the page loads");
    }

    /// Sets the size of the page's viewport (not the window's).
    async fn viewport(&self, width: i64, height: i64) {
        for _ in 0..3 {
            let inner = self
                .client
                .execute("return [window.innerWidth, window.innerHeight];", vec![])
                .await
                .expect("the viewport size");
            let (w, h) = (inner[0].as_i64().unwrap(), inner[1].as_i64().unwrap());
            if (w, h) == (width, height) {
                return;
            }
            let (ww, wh) = self.client.get_window_size().await.expect("window size");
            let ww = ww as i64 + width - w;
            let wh = wh as i64 + height - h;
            self.client
                .set_window_size(ww as u32, wh as u32)
                .await
                .expect("the window resizes");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the viewport did not become {width}x{height}");
    }

    async fn screenshot(&self, name: &str) -> PathBuf {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
        std::fs::create_dir_all(&dir).expect("the screenshot directory");
        let png = self.client.screenshot().await.expect("a screenshot");
        assert!(png.starts_with(b"\x89PNG"), "the screenshot is a PNG");
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png).expect("the screenshot is saved");
        path
    }
}

/// The category for the other side: what a move's value means to the side playing it.
fn for_mover(category: &str) -> &'static str {
    match category {
        "win" => "loss",
        "cursed-win" => "blessed-loss",
        "draw" => "draw",
        "blessed-loss" => "cursed-win",
        "loss" => "win",
        _ => "unknown",
    }
}

fn plies_text(plies: u64) -> String {
    let moves = plies.div_ceil(2);
    format!(
        "{plies} {} ({moves} {})",
        if plies == 1 { "ply" } else { "plies" },
        if moves == 1 { "move" } else { "moves" }
    )
}

fn text_of(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Checks what the page shows against the API's answer `json` for the same position.
fn check_position(page: &Value, json: &Value) {
    let fen = json["fen"].as_str().expect("a FEN");
    let context = format!("page showing {fen}");
    assert_eq!(page["fen"], json["fen"], "{context}: FEN box");
    assert_eq!(page["variant"], json["variant"], "{context}: variant");
    assert_eq!(
        page["answerVariant"], json["variant"],
        "{context}: the answer's variant"
    );
    let label = if json["variant"] == "brazilian" {
        "Brazilian draughts (8×8)"
    } else {
        "International draughts (10×10)"
    };
    assert_eq!(
        page["variantLabel"], label,
        "{context}: the variant in view"
    );
    assert_eq!(page["error"], Value::Null, "{context}: no error");
    assert!(
        page["url"]
            .as_str()
            .unwrap()
            .contains(&format!("fen={}", encode(fen))),
        "{context}: the URL holds the FEN: {}",
        page["url"]
    );
    let turn = if json["turn"] == "white" {
        "White to move"
    } else {
        "Black to move"
    };
    assert_eq!(page["turn"], turn, "{context}: side to move");

    // The value.
    assert_eq!(page["category"], json["category"], "{context}: category");
    assert_eq!(page["dtw"], text_of(&json["dtw"]), "{context}: dtw");
    assert_eq!(page["class"], text_of(&json["class"]), "{context}: class");
    assert_eq!(page["count"], text_of(&json["count"]), "{context}: count");
    let game_over = json["game_over"] == true;
    assert_eq!(
        page["gameOver"],
        if game_over { "true" } else { "false" },
        "{context}"
    );
    let title = page["title"].as_str().unwrap();
    let detail = page["detail"].as_str().unwrap();
    let rules = page["rules"].as_str().unwrap();
    let category = json["category"].as_str().unwrap();
    if game_over {
        assert!(title.starts_with("Game over"), "{context}: {title}");
    } else if category == "unknown" {
        assert!(title.contains("past the tables"), "{context}: {title}");
        assert!(
            detail.contains(&format!("up to {}", json["max_pieces"])),
            "{context}: {detail}"
        );
    } else {
        match category {
            "win" | "loss" | "cursed-win" | "blessed-loss" => {
                let plies = json["dtw"].as_u64().expect("a distance");
                assert!(
                    detail.contains(&plies_text(plies)),
                    "{context}: {detail} gives {}",
                    plies_text(plies)
                );
            }
            _ => assert!(title.contains("Draw"), "{context}: {title}"),
        }
        assert!(
            rules.contains(&format!("Rule {}", json["rule"].as_str().unwrap())),
            "{context}: {rules}"
        );
        if let Some(limits) = json["limits"].as_str() {
            assert!(rules.contains(limits), "{context}: {rules}");
        }
        if let Some(count) = json["count"].as_u64() {
            assert!(
                rules.contains(&format!("count {count}")),
                "{context}: {rules}"
            );
        }
    }

    // The moves, best first as the API gives them, each a button.
    let moves = json["moves"].as_array().expect("moves");
    let shown = page["moves"].as_array().expect("the move list");
    let listed: Vec<&Value> = shown.iter().map(|m| &m["move"]).collect();
    let expected: Vec<&Value> = moves.iter().map(|m| &m["move"]).collect();
    assert_eq!(listed, expected, "{context}: the moves in order");
    for (m, s) in moves.iter().zip(shown) {
        let category = m["category"].as_str().unwrap();
        assert_eq!(s["category"], category, "{context}: {}", m["move"]);
        assert_eq!(s["mover"], for_mover(category), "{context}: {}", m["move"]);
        assert_eq!(s["isButton"], true, "{context}: {} is a button", m["move"]);
        let text = s["text"].as_str().unwrap();
        if let (Some(dtw), "win" | "loss") = (m["dtw"].as_u64(), for_mover(category)) {
            assert!(
                text.contains(&plies_text(dtw + 1)),
                "{context}: {text} gives {}",
                plies_text(dtw + 1)
            );
        }
        match for_mover(category) {
            "cursed-win" => assert!(text.contains("cursed"), "{context}: {text}"),
            "blessed-loss" => assert!(text.contains("blessed"), "{context}: {text}"),
            _ => {}
        }
    }

    // The board: every square as the rules' own FEN reader sees it.
    let variant = match json["variant"].as_str().unwrap() {
        "brazilian" => Variant::Brazilian,
        _ => Variant::International,
    };
    let pos = Position::from_fen(variant, fen).expect("the API's FEN reads");
    let squares = page["squares"].as_object().expect("squares");
    let count = if variant == Variant::Brazilian {
        32
    } else {
        50
    };
    assert_eq!(squares.len(), count, "{context}: dark squares drawn");
    for n in 1..=count as u8 {
        let piece = pos
            .piece_at(Square::new(variant, n).unwrap())
            .map(|p| match (p.color, p.role) {
                (Color::White, Role::Man) => "wm",
                (Color::White, Role::King) => "wk",
                (Color::Black, Role::Man) => "bm",
                (Color::Black, Role::King) => "bk",
            })
            .unwrap_or("");
        assert_eq!(
            squares[&n.to_string()]["piece"],
            piece,
            "{context}: square {n}"
        );
    }
    assert_eq!(page["pieces"], json["pieces"], "{context}: pieces drawn");
}

// ---- the test --------------------------------------------------------------------------------

#[test]
#[ignore = "needs Chromium and chromedriver: run scripts/browser-test.sh"]
fn explorer_in_a_browser() {
    let started = Instant::now();
    let driver = on_path(&["chromedriver"]).expect("chromedriver on PATH");
    let browser =
        on_path(&["chromium", "chromium-browser", "google-chrome"]).expect("chromium on PATH");

    let data = TempDir::new().expect("a temporary directory");
    for variant in [Variant::Brazilian, Variant::International] {
        let plan = Plan::new(variant, 3, data.path()).expect("a plan");
        generate(&plan, &NoProgress).expect("tables generate");
    }
    let profile = TempDir::new().expect("a browser profile directory");

    let mut processes = Processes::new();
    let port = start_server(&mut processes, data.path());
    let driver_port = start_chromedriver(&mut processes, &driver);

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("browserName".into(), json!("chrome"));
        capabilities.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": browser,
                "args": [
                    "--headless=new",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-dev-shm-usage",
                    "--no-first-run",
                    "--window-size=1280,900",
                    format!("--user-data-dir={}", profile.path().display()),
                ],
            }),
        );
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{driver_port}"))
            .await
            .expect("a browser session");
        if let Ok(Some(id)) = client.session_id().await {
            processes.session = Some((driver_port, id));
        }
        let page = Page {
            client,
            base: format!("http://127.0.0.1:{port}"),
            port,
        };
        explore(&page).await;
        let Page { client, .. } = page;
        client.close().await.expect("the browser closes");
    });
    processes.session = None;
    drop(processes);
    eprintln!(
        "browser test: {:.1} s; screenshots in target/screenshots/",
        started.elapsed().as_secs_f64()
    );
}

async fn explore(page: &Page) {
    let port = page.port;
    page.viewport(1280, 900).await;

    // The page alone: the international example position.
    page.client
        .goto(&format!("{}/", page.base))
        .await
        .expect("the page loads");
    let first = page
        .until("a first position", |p| {
            p["category"] != "" && p["busy"] == false
        })
        .await;
    assert_eq!(first["variant"], "international");
    let fen = first["fen"].as_str().unwrap().to_string();
    check_position(&first, &probe(port, "international", &fen));
    assert_eq!(first["back"], false, "nothing to go back to");

    // The variant switch, then a position typed into the FEN box.
    page.click("#variant-brazilian").await;
    page.until("the Brazilian board", |p| {
        p["variant"] == "brazilian"
            && p["busy"] == false
            && p["squares"].as_object().unwrap().len() == 32
    })
    .await;
    let won = probe(port, "brazilian", "W:WK1,K2:BK28");
    let won_fen = won["fen"].as_str().unwrap().to_string();
    page.enter_fen("W:WK1,K2:BK28").await;
    let shown = page.settled(&won_fen).await;
    check_position(&shown, &won);
    assert_eq!(won["category"], "win", "the test's position is a win");
    assert_eq!(shown["back"], true);

    // A bad FEN shows the server's error and keeps the position.
    let (status, bad) = api(port, "brazilian", "W:W33:B1");
    assert_eq!(status, 400, "{bad}");
    page.enter_fen("W:W33:B1").await;
    let shown = page
        .until("the error", |p| {
            p["error"] != Value::Null && p["busy"] == false
        })
        .await;
    assert_eq!(shown["error"], bad["error"], "the server's message");
    assert!(shown["url"].as_str().unwrap().contains(&encode(&won_fen)));
    assert_eq!(shown["category"], "win", "the position shown stays");

    // Set-up mode: a position by clicks.
    page.click("#setup-toggle").await;
    page.click("#clear").await;
    page.until("an empty board", |p| p["setup"] == true && p["pieces"] == 0)
        .await;
    let piece_at = |square: u8, piece: &'static str| {
        move |p: &Value| p["squares"][square.to_string()]["piece"] == piece && p["busy"] == false
    };
    page.click("[data-tool=\"wm\"]").await;
    // Clicking the same piece again cycles: white man, white king, black man, black king,
    // empty.
    for piece in ["wm", "wk", "bm", "bk", "", "wm"] {
        page.click_square(22).await;
        page.until(&format!("{piece:?} on 22"), piece_at(22, piece))
            .await;
    }
    page.click("[data-tool=\"wk\"]").await;
    page.click_square(10).await;
    page.until("a white king on 10", piece_at(10, "wk")).await;
    page.click("[data-tool=\"bk\"]").await;
    page.click_square(30).await;
    page.until("a black king on 30", piece_at(30, "bk")).await;
    page.click("#side-toggle").await;
    let set_up = probe(port, "brazilian", "B:W22,K10:BK30");
    let set_up_fen = set_up["fen"].as_str().unwrap().to_string();
    let shown = page.settled(&set_up_fen).await;
    assert_eq!(shown["turn"], "Black to move");
    assert_eq!(shown["setup"], true);
    page.click("#setup-done").await;
    let shown = page
        .until("the set-up position played from", |p| {
            p["setup"] == false && p["fen"] == set_up_fen.as_str() && p["busy"] == false
        })
        .await;
    check_position(&shown, &set_up);

    // A move played from the list: the best.
    let best = &set_up["moves"][0];
    page.click("#moves > li:first-child > button").await;
    let after_best = probe(port, "brazilian", best["fen"].as_str().unwrap());
    let shown = page.settled(after_best["fen"].as_str().unwrap()).await;
    check_position(&shown, &after_best);

    // A move played on the board: a piece, then where it goes.
    let moves = after_best["moves"].as_array().unwrap();
    let on_board = moves
        .iter()
        .find(|m| {
            moves
                .iter()
                .filter(|o| o["from"] == m["from"] && o["to"] == m["to"])
                .count()
                == 1
        })
        .expect("a move told apart by its squares");
    let from = on_board["from"].as_u64().unwrap() as u8;
    let to = on_board["to"].as_u64().unwrap() as u8;
    page.click_square(from).await;
    page.until("the piece picked", |p| {
        p["squares"][from.to_string()]["classes"]
            .as_str()
            .unwrap()
            .contains("selected")
    })
    .await;
    page.click_square(to).await;
    let after_board = probe(port, "brazilian", on_board["fen"].as_str().unwrap());
    let shown = page.settled(after_board["fen"].as_str().unwrap()).await;
    check_position(&shown, &after_board);
    assert_eq!(shown["forward"], false);

    // Back and forward.
    page.click("#back").await;
    page.settled(after_best["fen"].as_str().unwrap()).await;
    page.click("#back").await;
    let shown = page.settled(&set_up_fen).await;
    check_position(&shown, &set_up);
    page.click("#forward").await;
    page.settled(after_best["fen"].as_str().unwrap()).await;
    page.click("#forward").await;
    let shown = page.settled(after_board["fen"].as_str().unwrap()).await;
    check_position(&shown, &after_board);
    assert_eq!(shown["forward"], false);

    // Links: a position in the URL, of either variant; past the tables; a finished game.
    for (variant, fen) in [
        ("international", "B:W32,K46:B19"),
        ("international", "W:W31-50:B1-20"),
        ("brazilian", "W:W:BK28"),
        ("brazilian", "W:WK1,K2:BK28"),
    ] {
        page.goto(variant, fen).await;
        let json = probe(port, variant, fen);
        let shown = page.settled(json["fen"].as_str().unwrap()).await;
        check_position(&shown, &json);
    }
    let past = probe(port, "international", "W:W31-50:B1-20");
    assert_eq!(past["category"], "unknown");
    let over = probe(port, "brazilian", "W:W:BK28");
    assert_eq!(over["game_over"], true);

    // The best line, played to the end of the game.
    let (status, body) = http(
        port,
        "GET",
        &format!("/api/v1/brazilian/line?fen={}", encode(&won_fen)),
        None,
    )
    .expect("the line");
    assert_eq!(status, 200, "{body}");
    let line: Value = serde_json::from_str(&body).expect("JSON");
    let plies = line["line"].as_array().expect("a line");
    assert!(!plies.is_empty());
    let last_fen = plies.last().unwrap()["fen"].as_str().unwrap().to_string();
    page.click("#best-line").await;
    let shown = page
        .until("the end of the best line", |p| {
            p["fen"] == last_fen.as_str() && p["lineEnd"] != "" && p["busy"] == false
        })
        .await;
    let moves: Vec<&Value> = plies.iter().map(|p| &p["move"]).collect();
    let listed: Vec<Value> = shown["line"]
        .as_array()
        .expect("the line is shown")
        .iter()
        .map(|m| Value::String(m.as_str().unwrap().trim().to_string()))
        .collect();
    assert_eq!(listed.iter().collect::<Vec<_>>(), moves, "the line's moves");
    assert_eq!(shown["lineEnd"], line["end"], "how the game ended");
    check_position(&shown, &probe(port, "brazilian", &last_fen));
    // Stepping back through it.
    page.click("#back").await;
    let before_last = if plies.len() > 1 {
        plies[plies.len() - 2]["fen"].as_str().unwrap().to_string()
    } else {
        won_fen.clone()
    };
    page.settled(&before_last).await;

    // Screenshots, desktop and phone, and no sideways scrolling on a phone.
    for (variant, fen) in [
        ("brazilian", "W:WK1,K2:BK28"),
        ("international", "B:W32,K46:B19"),
    ] {
        for (size, width, height) in [("desktop", 1280, 900), ("phone", 390, 844)] {
            page.viewport(width, height).await;
            page.goto(variant, fen).await;
            let json = probe(port, variant, fen);
            let shown = page.settled(json["fen"].as_str().unwrap()).await;
            check_position(&shown, &json);
            assert!(
                shown["scrollWidth"].as_i64() <= shown["innerWidth"].as_i64(),
                "{variant} {size}: no sideways scrolling: {shown:#}"
            );
            if size == "phone" {
                let below = page
                    .client
                    .execute(
                        "const b = document.getElementById('board').getBoundingClientRect();
                         const i = document.querySelector('.info').getBoundingClientRect();
                         return [b.width, i.top >= b.bottom];",
                        vec![],
                    )
                    .await
                    .expect("the layout");
                assert!(
                    below[0].as_f64().unwrap() >= 300.0,
                    "the board fills the phone's width: {below}"
                );
                assert_eq!(below[1], true, "the moves come under the board");
            }
            page.screenshot(&format!("{variant}-{size}")).await;
        }
    }
    links_in_view(page).await;

    page.viewport(375, 740).await;
    page.client
        .goto(&format!("{}/", page.base))
        .await
        .expect("the page loads");
    let shown = page
        .until("the page at 375 px", |p| {
            p["category"] != "" && p["busy"] == false
        })
        .await;
    assert!(
        shown["scrollWidth"].as_i64() <= Some(375),
        "no sideways scrolling at 375 px: {}",
        shown["scrollWidth"]
    );
}

/// What a shared link shows at once: its bad FEN as an error above the board and no other
/// position in its place; the variant it was read in when it names none and the FEN is a
/// position of both; a finished game without moves.
async fn links_in_view(page: &Page) {
    let port = page.port;
    page.viewport(1280, 900).await;

    let (status, bad) = api(port, "international", "W:W99:B1");
    assert_eq!(status, 400, "{bad}");
    page.client
        .goto(&format!("{}/?fen={}", page.base, encode("W:W99:B1")))
        .await
        .expect("the page loads");
    let shown = page
        .until("the link's error", |p| {
            p["error"] != Value::Null && p["busy"] == false
        })
        .await;
    let message = shown["error"].as_str().unwrap();
    assert!(
        message.contains(bad["error"].as_str().unwrap()),
        "the server's message: {shown:#}"
    );
    let (top, board) = (shown["errorTop"].as_f64(), shown["boardTop"].as_f64());
    assert!(top < board, "the error above the board: {shown:#}");
    assert!(
        top < shown["innerHeight"].as_f64(),
        "the error in view: {shown:#}"
    );
    assert_eq!(
        shown["pieces"], 0,
        "no position passed off as the link's: {shown:#}"
    );
    assert_eq!(shown["category"], "", "no value: {shown:#}");
    assert_eq!(shown["moves"], json!([]));
    assert_eq!(shown["title"], "No position: the FEN is not valid");
    assert_eq!(shown["turn"], "No position");
    assert_eq!(shown["fen"], "W:W99:B1", "the FEN box holds the link's FEN");
    assert!(shown["url"].as_str().unwrap().contains(&encode("W:W99:B1")));
    page.screenshot("bad-link").await;

    // A link without a variant whose FEN is a position of both: read as international, and
    // said so where the error would be, with the other reading a click away.
    let fen = "W:WK1,K2:BK28";
    page.client
        .goto(&format!("{}/?fen={}", page.base, encode(fen)))
        .await
        .expect("the page loads");
    let shown = page
        .until("the note of the assumed variant", |p| {
            p["error"] != Value::Null && p["busy"] == false && p["category"] != ""
        })
        .await;
    assert_eq!(shown["answerVariant"], "international", "{shown:#}");
    let note = shown["error"].as_str().unwrap();
    assert!(
        note.starts_with("Read as International draughts, the default")
            && note.contains("Brazilian position too")
            && note.ends_with("Show it as Brazilian"),
        "{note}"
    );
    assert!(shown["errorTop"].as_f64() < shown["boardTop"].as_f64());
    page.click("#other-variant").await;
    let brazilian = probe(port, "brazilian", fen);
    let shown = page
        .until("the other reading", |p| {
            p["answerVariant"] == "brazilian" && p["busy"] == false
        })
        .await;
    check_position(&shown, &brazilian);
    // A FEN of one variant alone gets no note: squares past the 8x8 board.
    let fen = "W:WK45:BK50";
    page.client
        .goto(&format!("{}/?fen={}", page.base, encode(fen)))
        .await
        .expect("the page loads");
    page.settled(fen).await;
    // The note would come from a second request: give it time to come.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let shown = page.read().await;
    check_position(&shown, &probe(port, "international", fen));

    // A finished game: no moves, said so.
    let over = probe(port, "brazilian", "W:W28:B");
    assert_eq!(over["game_over"], true);
    assert_eq!(over["moves"], json!([]));
    page.goto("brazilian", "W:W28:B").await;
    let shown = page.settled("W:W28:B").await;
    check_position(&shown, &over);
    assert_eq!(shown["moves"], json!([]));
    assert_eq!(shown["noMoves"], "No moves: the game is over.");
}
