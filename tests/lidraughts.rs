//! Lidraughts' tablebase routes of `rafle serve` (`/standard`, `/fromPosition`, `/brazilian`),
//! against a real server on small generated tables: every value and move of their answers is
//! the API's answer for the same position, written as lidraughts reads it; every uci is the
//! move it names; the errors and bounds are the API's.
//!
//! The ignored test type-checks live answers with TypeScript against lidraughts' own
//! interfaces (`scripts/lidraughts-test.sh` installs `tsc` and runs it).
#![cfg(unix)]

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::draughts::{Position, Variant};
use serde_json::{json, Value};
use tempfile::TempDir;

/// `rafle serve` on a free port, stopped when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start(data: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rafle"))
            .args(["serve", "--bind", "127.0.0.1:0", "--cache", "16M", "--data"])
            .arg(data)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("rafle serve starts");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr is piped")).lines();
        let mut seen = Vec::new();
        let addr = loop {
            let line = match lines.next() {
                Some(Ok(line)) => line,
                _ => panic!("rafle serve stopped before listening: {seen:?}"),
            };
            if let Some(rest) = line.strip_prefix("rafle serve: listening on http://") {
                break rest.trim_end_matches('/').parse().expect("an address");
            }
            seen.push(line);
        };
        // The log goes on: read it so that the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Server { child, addr }
    }

    /// `GET target` with `headers`: the status, the headers (names in lower case), the body.
    fn get_with(
        &self,
        target: &str,
        headers: &[(&str, &str)],
    ) -> (u16, Vec<(String, String)>, String) {
        let mut stream = TcpStream::connect(self.addr).expect("the server accepts");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut head = format!("GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).unwrap();
        let response = String::from_utf8(response).expect("a UTF-8 response");
        let (head, body) = response.split_once("\r\n\r\n").expect("a head and a body");
        let mut lines = head.lines();
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        (status, headers, body.to_string())
    }

    /// `GET target`: the status and the body as JSON.
    fn get(&self, target: &str) -> (u16, Value) {
        let (status, headers, body) = self.get_with(target, &[]);
        assert!(
            headers.contains(&("content-type".into(), "application/json".into())),
            "{target}: {headers:?}"
        );
        let json = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{target}: {e}: {body}"));
        (status, json)
    }

    /// `GET target`, which must answer 200: its JSON.
    fn ok(&self, target: &str) -> Value {
        let (status, body) = self.get(target);
        assert_eq!(status, 200, "{target}: {body}");
        body
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text URL-encoded as jQuery encodes a query value: everything but letters, digits and
/// `-_.~` as `%XX`.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Brazilian tables up to 4 pieces and international ones up to 3.
fn tables() -> TempDir {
    let dir = TempDir::new().expect("a temporary directory");
    for (variant, pieces) in [(Variant::Brazilian, 4), (Variant::International, 3)] {
        let plan = Plan::new(variant, pieces, dir.path()).expect("a plan");
        generate(&plan, &NoProgress).expect("tables generate");
    }
    dir
}

/// Lidraughts' key of the variant.
fn key(variant: Variant) -> &'static str {
    match variant {
        Variant::International => "standard",
        Variant::Brazilian => "brazilian",
    }
}

/// Lidraughts' answer (the FEN as lidraughts sends it: with its counters, URL-encoded) and
/// the API's for the same position.
fn both(server: &Server, variant: Variant, fen: &str) -> (Value, Value) {
    let lidraughts = server.ok(&format!(
        "/{}?fen={}",
        key(variant),
        encode(&format!("{fen}:H0:F1"))
    ));
    let api = server.ok(&format!("/api/v1/{}?fen={}", variant.name(), encode(fen)));
    (lidraughts, api)
}

/// Lidraughts' wdl, dtz and dtm of the API's values of a position (or of the position after
/// a move): the rule class as 2/1/0/-1/-2, the count and the distance signed for the side
/// to move, 0 for a draw, null where the API has none.
fn numbers(api: &Value) -> (Value, Value, Value) {
    let Some(wdl) = api["wdl"].as_str() else {
        return (Value::Null, Value::Null, Value::Null);
    };
    let class = api["class"].as_str().unwrap_or(wdl);
    let sign = |n: &Value| {
        n.as_i64()
            .map_or(Value::Null, |n| json!(if wdl == "win" { n } else { -n }))
    };
    let lid_wdl = match class {
        "win" => 2,
        "cursed_win" => 1,
        "draw" => 0,
        "blessed_loss" => -1,
        "loss" => -2,
        other => panic!("class {other}"),
    };
    let dtz = match class {
        "draw" => json!(0),
        "win" | "loss" => sign(&api["count"]),
        _ => Value::Null,
    };
    let dtm = if wdl == "draw" {
        json!(0)
    } else {
        sign(&api["dtw"])
    };
    (json!(lid_wdl), dtz, dtm)
}

/// Whether the side to move in the position of `fen` has lost: no piece or no move.
fn lost(variant: Variant, fen: &str) -> bool {
    let pos = Position::from_fen(variant, fen).unwrap();
    pos.game_over().is_some_and(|o| !o.side_to_move_wins())
}

/// Checks lidraughts' answer of `fen` against the API's, field by field and move by move.
fn check(server: &Server, variant: Variant, fen: &str) -> Value {
    let (lid, api) = both(server, variant, fen);
    let keys: Vec<&String> = lid.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "checkmate",
            "dtm",
            "dtz",
            "fen",
            "insufficient_material",
            "moves",
            "stalemate",
            "variant_loss",
            "variant_win",
            "wdl"
        ],
        "{fen}"
    );
    assert_eq!(lid["fen"], api["fen"], "{fen}");
    let (wdl, dtz, dtm) = numbers(&api);
    assert_eq!(
        (&lid["wdl"], &lid["dtz"], &lid["dtm"]),
        (&wdl, &dtz, &dtm),
        "{fen}: {lid}"
    );
    let over = api["game_over"].as_bool().unwrap();
    let lost_here = lost(variant, fen);
    assert_eq!(lid["checkmate"], over && lost_here, "{fen}");
    assert_eq!(lid["variant_win"], over && !lost_here, "{fen}");
    for never in ["stalemate", "variant_loss", "insufficient_material"] {
        assert_eq!(lid[never], false, "{fen}");
    }
    let pos = Position::from_fen(variant, fen).unwrap();
    let lid_moves = lid["moves"].as_array().unwrap();
    let api_moves = api["moves"].as_array().unwrap();
    assert_eq!(lid_moves.len(), api_moves.len(), "{fen}");
    for (m, a) in lid_moves.iter().zip(api_moves) {
        let keys: Vec<&String> = m.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "checkmate",
                "dtm",
                "dtz",
                "insufficient_material",
                "san",
                "stalemate",
                "uci",
                "variant_loss",
                "variant_win",
                "wdl",
                "zeroing"
            ],
            "{fen}"
        );
        // The same move in the same place: the API's order is lidraughts' order.
        assert_eq!(m["san"], a["move"], "{fen}");
        let uci = m["uci"].as_str().unwrap();
        let mv = pos
            .parse_uci(uci)
            .unwrap_or_else(|e| panic!("{fen}: {uci}: {e}"));
        let san = m["san"].as_str().unwrap();
        assert_eq!(pos.parse_move(san), Ok(mv), "{fen}: {uci} {san}");
        let next = pos.play(&mv).to_fen();
        assert_eq!(next, a["fen"].as_str().unwrap(), "{fen}: {uci}");
        // Two digits a square: the start, then one landing square a piece taken (or the end).
        let squares: Vec<u64> = (0..uci.len())
            .step_by(2)
            .map(|i| uci[i..i + 2].parse().unwrap())
            .collect();
        let taken = a["captures"].as_array().unwrap().len();
        assert_eq!(squares.len(), 1 + taken.max(1), "{fen}: {uci}");
        assert_eq!(
            (json!(squares[0]), json!(squares[squares.len() - 1])),
            (a["from"].clone(), a["to"].clone()),
            "{fen}: {uci}"
        );
        let (wdl, dtz, dtm) = numbers(a);
        assert_eq!(
            (&m["wdl"], &m["dtz"], &m["dtm"]),
            (&wdl, &dtz, &dtm),
            "{fen}: {m}"
        );
        assert_eq!(m["zeroing"], a["resets"], "{fen}: {uci}");
        assert_eq!(m["checkmate"], lost(variant, &next), "{fen}: {uci}");
        for never in [
            "stalemate",
            "variant_win",
            "variant_loss",
            "insufficient_material",
        ] {
            assert_eq!(m[never], false, "{fen}: {uci}");
        }
    }
    lid
}

/// Positions of up to `max` pieces of `variant`, picked by a fixed pseudo-random sequence.
fn sample(variant: Variant, max: usize, count: usize) -> Vec<String> {
    let squares = if variant == Variant::International {
        50
    } else {
        32
    };
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let mut fens = Vec::new();
    while fens.len() < count {
        let pieces = 2 + next(max as u64 - 1) as usize;
        let mut taken = Vec::new();
        let (mut white, mut black) = (Vec::new(), Vec::new());
        for n in 0..pieces {
            let square = 1 + next(squares);
            if taken.contains(&square) {
                continue;
            }
            taken.push(square);
            let piece = if next(2) == 0 {
                format!("K{square}")
            } else {
                square.to_string()
            };
            // Both sides have a piece: the first two go one to each.
            if n == 0 || (n > 1 && next(2) == 0) {
                white.push(piece);
            } else {
                black.push(piece);
            }
        }
        let turn = if next(2) == 0 { 'W' } else { 'B' };
        let fen = format!("{turn}:W{}:B{}", white.join(","), black.join(","));
        // A man on its own crowning row is no position.
        if Position::from_fen(variant, &fen).is_ok() {
            fens.push(fen);
        }
    }
    fens
}

#[test]
fn lidraughts_answers_are_the_api_answers_in_lidraughts_shape() {
    let data = tables();
    let server = Server::start(data.path());
    let mut seen = std::collections::BTreeMap::new();
    for (variant, max) in [(Variant::Brazilian, 4), (Variant::International, 3)] {
        let mut fens: Vec<String> = [
            "W:WK1,K2:BK28",
            "B:W29:B25,22",
            "W:W22:B11,18",
            "W:WK22:B18,19,26,27",
            "W:WK46:B10,19,28,37",
            "W:W28:B23",
        ]
        .iter()
        .filter(|f| Position::from_fen(variant, f).is_ok())
        .map(|f| f.to_string())
        .collect();
        fens.extend(sample(variant, max, 120));
        for fen in &fens {
            let lid = check(&server, variant, fen);
            *seen
                .entry((variant.name(), lid["wdl"].to_string()))
                .or_insert(0) += 1;
            for m in lid["moves"].as_array().unwrap() {
                *seen
                    .entry((variant.name(), format!("move {}", m["wdl"])))
                    .or_insert(0) += 1;
                if m["uci"].as_str().unwrap().len() > 4 {
                    *seen
                        .entry((variant.name(), "multi-capture".into()))
                        .or_insert(0) += 1;
                }
            }
        }
    }
    // The sample reaches wins, draws and losses of both boards, before and after moves, and
    // captures of several pieces. (Tables this small have no cursed win nor blessed loss:
    // the unit tests of the server map those.)
    for variant in ["brazilian", "international"] {
        for wdl in ["2", "0", "-2", "move 2", "move 0", "move -2"] {
            assert!(
                seen.contains_key(&(variant, wdl.to_string())),
                "{variant} {wdl}: {seen:?}"
            );
        }
    }
    assert!(
        seen.contains_key(&("brazilian", "multi-capture".to_string())),
        "{seen:?}"
    );

    // The best move first, as lidraughts' practice mode takes it: the king of 46 takes both
    // men at once, wherever it lands.
    let lid = check(&server, Variant::International, "W:WK46:B28,37");
    assert_eq!(
        (&lid["wdl"], &lid["dtm"], &lid["dtz"]),
        (&json!(2), &json!(1), &json!(1))
    );
    let best = &lid["moves"][0];
    assert_eq!(
        (&best["uci"], &best["san"]),
        (&json!("463205"), &json!("46x5"))
    );
    assert_eq!(
        (&best["wdl"], &best["dtm"], &best["dtz"], &best["checkmate"]),
        (&json!(-2), &json!(0), &json!(0), &json!(true))
    );
    let lid = check(&server, Variant::Brazilian, "W:WK1,K2:BK28");
    assert_eq!(
        (&lid["wdl"], &lid["dtm"], &lid["dtz"]),
        (&json!(2), &json!(7), &json!(7))
    );
    assert_eq!(lid["moves"][0]["uci"], "0209");
    assert_eq!(
        (&lid["moves"][0]["wdl"], &lid["moves"][0]["dtm"]),
        (&json!(-2), &json!(-6))
    );
    assert_eq!(lid["moves"][0]["zeroing"], false);

    // A finished game: lost by the side to move, no moves.
    let lid = check(&server, Variant::Brazilian, "W:W:BK28");
    assert_eq!(lid["checkmate"], true);
    assert_eq!(lid["moves"], json!([]));
    assert_eq!(
        (&lid["wdl"], &lid["dtm"], &lid["dtz"]),
        (&json!(-2), &json!(0), &json!(0))
    );
    let lid = check(&server, Variant::International, "B:W28,37:B");
    assert_eq!(
        (&lid["checkmate"], &lid["moves"]),
        (&json!(true), &json!([]))
    );
    // Set up by hand, the side to move facing no piece has won.
    let lid = check(&server, Variant::Brazilian, "W:W28:B");
    assert_eq!(
        (&lid["checkmate"], &lid["variant_win"], &lid["wdl"]),
        (&json!(false), &json!(true), &json!(2))
    );

    // Past the tables' reach: no values, the legal moves without values, in listing order.
    let lid = check(&server, Variant::International, "W:WK46:B10,19,28,37");
    assert_eq!(
        (&lid["wdl"], &lid["dtz"], &lid["dtm"]),
        (&Value::Null, &Value::Null, &Value::Null)
    );
    assert_eq!(
        (&lid["moves"][0]["uci"], &lid["moves"][0]["san"]),
        (&json!("4632231405"), &json!("46x5"))
    );
    let lid = check(&server, Variant::International, "W:W31-33:B1,2");
    assert_eq!(
        (&lid["wdl"], &lid["dtz"], &lid["dtm"]),
        (&Value::Null, &Value::Null, &Value::Null)
    );
    let ucis: Vec<&str> = lid["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uci"].as_str().unwrap())
        .collect();
    assert_eq!(ucis, ["3126", "3127", "3227", "3228", "3328", "3329"]);
    assert!(lid["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["wdl"].is_null() && m["zeroing"] == true));
    check(&server, Variant::Brazilian, "W:W21-23:B1,2");

    // `fromPosition` is international, as `standard`; the FEN with or without lidraughts'
    // counters, raw or encoded.
    let fen = "W:WK46:B10,19,28,37:H0:F1";
    let standard = server.ok(&format!("/standard?fen={}", encode(fen)));
    assert_eq!(
        server.ok(&format!("/fromPosition?fen={}", encode(fen))),
        standard
    );
    assert_eq!(
        server.ok("/standard?fen=W:WK46:B10,19,28,37:H12:F40"),
        standard
    );
    assert_eq!(server.ok("/standard?fen=W:WK46:B10,19,28,37"), standard);
}

#[test]
fn lidraughts_routes_refuse_as_the_api_does() {
    let data = tables();
    let server = Server::start(data.path());
    // The API's errors, word for word.
    for (lid, api) in [
        ("/brazilian?fen=W:W33:B1", "/api/v1/brazilian?fen=W:W33:B1"),
        ("/standard", "/api/v1/international"),
        (
            "/standard?fen=W:W31:B1&fen=W:W31:B1",
            "/api/v1/international?fen=W:W31:B1&fen=W:W31:B1",
        ),
        ("/standard?fen=", "/api/v1/international?fen="),
    ] {
        let (status, body) = server.get(lid);
        assert_eq!((status, &body), (400, &server.get(api).1), "{lid}");
    }
    let (status, body) = server.get("/brazilian?fen=W:W33:B1");
    assert_eq!(status, 400);
    assert_eq!(
        body["error"],
        "invalid FEN at column 4: square 33 is out of range (1..32)"
    );
    let (status, body) = server.get("/standard");
    assert_eq!(status, 400);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("missing query parameter 'fen'"),
        "{body}"
    );
    // Lidraughts sends the FEN alone: counters or anything else are refused.
    for extra in ["counters=0,0", "_=1700000000000", "variant=standard"] {
        let (status, body) = server.get(&format!("/standard?fen=W:W31:B1&{extra}"));
        assert_eq!(status, 400, "{extra}");
        let name = extra.split('=').next().unwrap();
        assert_eq!(
            body["error"],
            format!("unknown query parameter '{name}' (expected fen)")
        );
    }
    // Ghost pieces of a capture that cannot be under way: the API's refusal, never another
    // position (`G3` is no square g3).
    for (route, api, fen) in [
        ("standard", "international", "W:W31,G32:B1:H0:F1"),
        ("brazilian", "brazilian", "B:WP9,28:BK5:H1:F8"),
        ("brazilian", "brazilian", "W:WG3,K5:B1"),
    ] {
        let (status, body) = server.get(&format!("/{route}?fen={}", encode(fen)));
        assert_eq!(status, 400, "{fen}");
        let (_, expected) = server.get(&format!("/api/v1/{api}?fen={}", encode(fen)));
        assert_eq!(body, expected, "{fen}");
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .starts_with("invalid FEN at column "),
            "{fen}: {body}"
        );
    }
    // The query bound.
    let long = format!("/standard?fen={}", "W".repeat(3000));
    assert_eq!(server.get(&long).0, 414);
    // Lidraughts' other variants, and methods.
    for variant in [
        "russian",
        "antidraughts",
        "frisian",
        "frysk",
        "breakthrough",
    ] {
        let (status, body) = server.get(&format!("/{variant}?fen=W:W31:B1"));
        assert_eq!(status, 404, "{variant}");
        let error = body["error"].as_str().unwrap();
        assert!(
            error.contains(variant)
                && error.contains("'standard'")
                && error.contains("'brazilian'"),
            "{error}"
        );
    }
    assert_eq!(server.get("/international?fen=W:W31:B1").0, 404);
    // CORS: the browser calls from lidraughts' own origin.
    let (status, headers, _) = server.get_with(
        "/standard?fen=W:WK46:BK5",
        &[("Origin", "https://lidraughts.org")],
    );
    assert_eq!(status, 200);
    assert!(
        headers.contains(&("access-control-allow-origin".into(), "*".into())),
        "{headers:?}"
    );

    // Tables missing, damaged or without rule tables: the API's status and message.
    let broken = TempDir::new().unwrap();
    for variant in ["brazilian", "international"] {
        fs::create_dir(broken.path().join(variant)).unwrap();
        for entry in fs::read_dir(data.path().join(variant)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                continue;
            }
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            // Brazilian without rule tables; international without KvK's win/draw/loss table
            // and with KMvK's cut short.
            if (variant == "brazilian" && name.ends_with(".rules"))
                || (variant == "international" && name == "KvK.wdl")
            {
                continue;
            }
            let mut bytes = fs::read(&path).unwrap();
            if variant == "international" && name == "KMvK.wdl" {
                bytes.truncate(bytes.len() / 2);
            }
            fs::write(broken.path().join(variant).join(&name), bytes).unwrap();
        }
    }
    drop(server);
    let server = Server::start(broken.path());
    for (fen, status) in [("W:WK46:BK5", 503), ("W:WK46,31:BK5", 500)] {
        let lid = server.get(&format!("/standard?fen={}", encode(fen)));
        let api = server.get(&format!("/api/v1/international?fen={}", encode(fen)));
        assert_eq!(lid, api, "{fen}");
        assert_eq!(lid.0, status, "{fen}: {}", lid.1);
    }
    // No rule tables: no count, so no dtz but for a draw.
    let lid = check(&server, Variant::Brazilian, "W:WK1,K2:BK28");
    assert_eq!(
        (&lid["wdl"], &lid["dtm"], &lid["dtz"]),
        (&json!(2), &json!(7), &Value::Null)
    );
    assert!(lid["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["dtz"].is_null() == (m["wdl"] != 0)));
}

/// Lidraughts' interfaces, as `ui/analyse/src/explorer/interfaces.ts` declares them (and
/// `ui/@types/lidraughts/index.d.ts` the names of strings).
const INTERFACES: &str = "\
type Fen = string;
type Uci = string;
type San = string;
interface MoveStats { uci: Uci; san: San; }
interface ExplorerData { fen: Fen; moves: MoveStats[]; opening?: true; tablebase?: true; }
interface TablebaseMoveStats extends MoveStats {
  wdl: number | null; dtz: number | null; dtm: number | null;
  checkmate: boolean; stalemate: boolean; variant_win: boolean; variant_loss: boolean;
  insufficient_material: boolean; zeroing: boolean;
}
interface TablebaseData extends ExplorerData {
  moves: TablebaseMoveStats[];
  wdl: number | null, dtz: number | null, dtm: number | null,
  checkmate: boolean; stalemate: boolean; variant_win: boolean; variant_loss: boolean;
  insufficient_material: boolean;
}
";

/// Runs `tsc --strict --noEmit` on `source`: whether it passed, and what it said.
fn tsc(tsc: &str, dir: &Path, name: &str, source: &str) -> (bool, String) {
    let file = dir.join(name);
    fs::write(&file, source).unwrap();
    let out = Command::new(tsc)
        .args(["--strict", "--noEmit", "--target", "es2017"])
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("running {tsc}: {e}"));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

#[test]
#[ignore = "needs TypeScript's tsc in RAFLE_TSC: run scripts/lidraughts-test.sh"]
fn lidraughts_answers_type_check_against_its_interfaces() {
    let compiler = std::env::var("RAFLE_TSC")
        .expect("RAFLE_TSC must name TypeScript's tsc (scripts/lidraughts-test.sh installs it)");
    let data = tables();
    let server = Server::start(data.path());
    let scratch = TempDir::new().unwrap();
    let mut source = INTERFACES.to_string();
    let mut answers = Vec::new();
    for (variant, fen) in [
        (Variant::Brazilian, "W:WK1,K2:BK28"), // a win, moves winning and drawing
        (Variant::Brazilian, "B:W29:B25,22"),
        (Variant::Brazilian, "W:W22:B11,18"), // a capture of two
        (Variant::Brazilian, "W:W:BK28"),     // over: no moves
        (Variant::Brazilian, "W:W28:B"),      // set up: the side to move has won
        (Variant::International, "W:WK46:B10,19,28,37"),
        (Variant::International, "W:WK46:BK5"),     // a draw
        (Variant::International, "W:W31-50:B1-20"), // past the tables: nulls
    ] {
        let answer = check(&server, variant, fen);
        source.push_str(&format!(
            "const a{}: TablebaseData = {answer};\n",
            answers.len()
        ));
        answers.push(answer);
    }
    let (passed, said) = tsc(&compiler, scratch.path(), "answers.ts", &source);
    assert!(passed, "tsc refused the answers:\n{said}\n{source}");
    println!(
        "tsc accepts {} live answers as TablebaseData",
        answers.len()
    );

    // The check can fail: a field lidraughts does not declare, a missing one, a wrong type.
    let mut extra = answers[0].clone();
    extra["category"] = json!("win");
    let mut missing = answers[0].clone();
    missing["moves"][0]
        .as_object_mut()
        .unwrap()
        .remove("zeroing");
    let mut wrong = answers[0].clone();
    wrong["wdl"] = json!("win");
    for (n, bad) in [extra, missing, wrong].iter().enumerate() {
        let source = format!("{INTERFACES}const bad: TablebaseData = {bad};\n");
        let (passed, said) = tsc(&compiler, scratch.path(), &format!("bad{n}.ts"), &source);
        assert!(!passed, "tsc accepted a wrong answer:\n{source}");
        assert!(said.contains("error TS"), "{said}");
    }
}
