//! The API's errors driven through the router: every bad request's status and message, the
//! bounds on what a request may cost, and missing or damaged tables naming their file.

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use rafle_probe::draughts::Variant;
use rafle_server::Bounds;
use serde_json::{json, Value};

use common::*;

#[tokio::test]
async fn bad_requests_get_their_status_and_say_what_and_where() {
    let app = app();
    let cases: &[(&str, StatusCode, &str)] = &[
        (
            "/api/v1/international?fen=W:W31,51:B1",
            StatusCode::BAD_REQUEST,
            "invalid FEN at column 7: square 51 is out of range (1..50)",
        ),
        (
            "/api/v1/brazilian?fen=",
            StatusCode::BAD_REQUEST,
            "invalid FEN at column 1: the FEN is empty",
        ),
        (
            "/api/v1/brazilian?fen=W:WK1:BK28&counters=3",
            StatusCode::BAD_REQUEST,
            "counters: bad counters \"3\": expected K,C like 12,0",
        ),
        (
            "/api/v1/brazilian?fen=W:WK1:BK28&counters=0,70000",
            StatusCode::BAD_REQUEST,
            "category_plies (C, rules 6.3/6.4) must be from 0 to 10000 plies, not 70000",
        ),
        (
            "/api/v1/brazilian",
            StatusCode::BAD_REQUEST,
            "missing query parameter 'fen'",
        ),
        (
            "/api/v1/brazilian?fen=W:WK1:BK28&depth=3",
            StatusCode::BAD_REQUEST,
            "unknown query parameter 'depth' (expected fen and counters)",
        ),
        (
            "/api/v1/brazilian?fen=W:WK1:BK28&fen=W:WK2:BK28",
            StatusCode::BAD_REQUEST,
            "query parameter 'fen' given twice",
        ),
        (
            "/api/v1/brazilian/line?fen=W:W1:B28",
            StatusCode::BAD_REQUEST,
            "a white man cannot stand on square 1",
        ),
        (
            "/api/v1/russian?fen=W:WK1:BK28",
            StatusCode::NOT_FOUND,
            "unknown variant 'russian' (expected 'international' or 'brazilian')",
        ),
        (
            "/api/v1/russian/batch",
            StatusCode::METHOD_NOT_ALLOWED,
            "GET is not allowed on /api/v1/russian/batch",
        ),
        (
            "/api/v2/brazilian?fen=W:WK1:BK28",
            StatusCode::NOT_FOUND,
            "no such path: /api/v2/brazilian",
        ),
        (
            "/api/v1/brazilian/line?fen=W:WK1,K2:BK18,K22",
            StatusCode::UNPROCESSABLE_ENTITY,
            "the position has 4 pieces; the brazilian tables cover at most 3",
        ),
    ];
    for &(uri, status, part) in cases {
        let message = get_error(&app, uri, status).await;
        assert!(message.contains(part), "{uri}: {message}");
    }
    let request = Request::post("/api/v1/russian/batch")
        .body(Body::from(r#"{"fens":[]}"#))
        .unwrap();
    let message = error(&app, request, StatusCode::NOT_FOUND).await;
    assert!(message.contains("unknown variant 'russian'"), "{message}");
    // A control character in a FEN is quoted escaped.
    let message = get_error(
        &app,
        "/api/v1/brazilian?fen=W:WK1%1b:BK28",
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert!(message.contains(r"\u{1b}"), "{message}");
    // The server still answers.
    ok(&app, "/api/v1/brazilian?fen=W:WK1,K2:BK28").await;
}

#[tokio::test]
async fn a_query_over_the_bound_is_refused_with_414() {
    let app = app();
    let long = format!("/api/v1/brazilian?fen=W:WK1:BK28{}", ",".repeat(2048));
    let message = get_error(&app, &long, StatusCode::URI_TOO_LONG).await;
    assert_eq!(
        message,
        "the query is 2062 bytes long; at most 2048 are accepted"
    );
    // At the bound it is read (the FEN's trailing blanks ignored).
    let fen = format!("W:WK1:BK28{}", " ".repeat(2048 - 4 - 10));
    let uri = format!("/api/v1/brazilian?fen={}", fen.replace(' ', "+"));
    assert_eq!(ok(&app, &uri).await["fen"], "W:WK1:BK28");
    let small = app_on(
        tables_dir(),
        Bounds {
            max_query_bytes: 10,
            ..Bounds::default()
        },
    );
    get_error(
        &small,
        "/api/v1/brazilian?fen=W:WK1:BK28",
        StatusCode::URI_TOO_LONG,
    )
    .await;
}

#[tokio::test]
async fn more_pieces_than_the_tables_cover_is_unknown() {
    let app = app();
    let answer = ok(&app, "/api/v1/brazilian?fen=W:WK1,K2:BK18,K28").await;
    assert_eq!(answer["category"], "unknown");
    assert_eq!(answer["pieces"], 4);
    assert_eq!(answer["max_pieces"], 3);
    for field in ["wdl", "dtw", "class", "count", "limits"] {
        assert_eq!(answer[field], Value::Null, "{field}");
    }
    assert_eq!(answer["rule"], "6.2");
    let moves = answer["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 13);
    assert_eq!(
        moves[0],
        json!({"move": "1-5", "from": 1, "to": 5, "captures": [], "fen": "B:WK2,K5:BK18,K28",
               "wdl": null, "dtw": null, "class": null, "count": null, "category": "unknown",
               "resets": false})
    );
    // With counters: the counters after each move, and no result.
    let answer = ok(&app, "/api/v1/brazilian?fen=W:WK1,K2,K3:BK28&counters=4,6").await;
    assert_eq!(answer["category"], "unknown");
    assert_eq!(answer["rule"], "6.3");
    assert_eq!(answer["result"], Value::Null);
    assert_eq!(answer["king_plies"], 4);
    assert_eq!(answer["moves"][0]["king_plies"], 5);
    assert_eq!(answer["moves"][0]["category_plies"], 7);
    assert_eq!(answer["moves"][0]["result"], Value::Null);
    // A finished game is answered whatever its pieces.
    let answer = ok(&app, "/api/v1/brazilian?fen=W:W:B1,2,3,4,5").await;
    assert_eq!(answer["game_over"], true);
    assert_eq!(answer["wdl"], "loss");
    assert_eq!(answer["dtw"], 0);
    assert_eq!(answer["category"], "loss");
    assert_eq!(answer["moves"], json!([]));
}

/// A copy of the generated tables of `variant`, for damaging.
fn copy_of_tables(variant: Variant) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    let from = tables_dir().join(variant.name());
    let to = copy.path().join(variant.name());
    std::fs::create_dir(&to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    copy
}

#[tokio::test]
async fn missing_and_damaged_tables_give_503_and_500_naming_the_file() {
    let dir = copy_of_tables(Variant::Brazilian);
    let brazilian = dir.path().join("brazilian");
    // KKvK missing: a position of it is refused, others are answered.
    std::fs::remove_file(brazilian.join("KKvK.dtw")).unwrap();
    // KMvK damaged: a byte of its first block flipped.
    let damaged = brazilian.join("KMvK.wdl");
    let mut bytes = std::fs::read(&damaged).unwrap();
    let last = bytes.len() - 3;
    bytes[last] ^= 0x55;
    std::fs::write(&damaged, bytes).unwrap();
    let app = app_on(dir.path(), Bounds::default());
    let message = get_error(
        &app,
        "/api/v1/brazilian?fen=W:WK1,K2:BK28",
        StatusCode::SERVICE_UNAVAILABLE,
    )
    .await;
    assert!(
        message.contains("no brazilian table for KKvK") && message.contains("KKvK.dtw"),
        "{message}"
    );
    let message = get_error(
        &app,
        "/api/v1/brazilian?fen=W:WK1,13:BK28",
        StatusCode::INTERNAL_SERVER_ERROR,
    )
    .await;
    assert!(
        message.contains("KMvK.wdl") && message.contains("corrupted"),
        "{message}"
    );
    let answer = ok(&app, "/api/v1/brazilian?fen=W:WK1:BK28").await;
    assert_eq!(answer["wdl"], "draw");
    // In a batch, each position fails on its own.
    let reply = post(
        &app,
        "/api/v1/brazilian/batch",
        r#"{"fens":["W:WK1,K2:BK28","W:WK1:BK28"]}"#,
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    let error = reply.body["results"][0]["error"].as_str().unwrap();
    assert!(error.contains("KKvK.dtw"), "{error}");
    assert_eq!(reply.body["results"][1]["wdl"], "draw");
    // International has no tables here: unknown, nothing covered.
    let answer = ok(&app, "/api/v1/international?fen=W:WK46:BK5").await;
    assert_eq!(answer["category"], "unknown");
    assert_eq!(answer["max_pieces"], 0);
}

#[tokio::test]
async fn without_rule_tables_counters_and_lines_are_refused_with_503() {
    let dir = copy_of_tables(Variant::Brazilian);
    for entry in std::fs::read_dir(dir.path().join("brazilian")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rules") {
            std::fs::remove_file(path).unwrap();
        }
    }
    let app = app_on(dir.path(), Bounds::default());
    let answer = ok(&app, "/api/v1/brazilian?fen=W:WK1,K2:BK28").await;
    assert_eq!(answer["wdl"], "win");
    assert_eq!(answer["class"], Value::Null);
    assert_eq!(answer["category"], "win");
    assert_eq!(answer["moves"][0]["move"], "2-9");
    for uri in [
        "/api/v1/brazilian?fen=W:WK1,K2:BK28&counters=0,0",
        "/api/v1/brazilian/line?fen=W:WK1,K2:BK28",
    ] {
        let message = get_error(&app, uri, StatusCode::SERVICE_UNAVAILABLE).await;
        assert!(message.contains("no brazilian rule table"), "{message}");
    }
    let request = Request::post("/api/v1/brazilian/batch")
        .body(Body::from(r#"{"fens":["W:WK1,K2:BK28"],"counters":"0,0"}"#))
        .unwrap();
    error(&app, request, StatusCode::SERVICE_UNAVAILABLE).await;
}

/// Found by hostile testing: with every rule table damaged the server answered as for a set
/// without rule tables (`"class":null`, 200). A rule table that cannot be read is a damaged
/// table: 500 naming the file, like a damaged win/draw/loss table.
#[tokio::test]
async fn every_rule_table_damaged_gives_500_naming_a_file() {
    let dir = copy_of_tables(Variant::Brazilian);
    let brazilian = dir.path().join("brazilian");
    for entry in std::fs::read_dir(&brazilian).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rules") {
            std::fs::write(path, b"").unwrap();
        }
    }
    let app = app_on(dir.path(), Bounds::default());
    let named = format!(
        "table {} is truncated: 0 bytes instead of 64",
        brazilian.join("KvK.rules").display()
    );
    for uri in [
        "/api/v1/brazilian?fen=W:WK1,K2:BK28",
        "/api/v1/brazilian/line?fen=W:WK1,K2:BK28",
        "/api/v1/tables",
    ] {
        let message = get_error(&app, uri, StatusCode::INTERNAL_SERVER_ERROR).await;
        assert_eq!(message, named, "{uri}");
    }
    let request = Request::post("/api/v1/brazilian/batch")
        .body(Body::from(r#"{"fens":["W:WK1,K2:BK28"]}"#))
        .unwrap();
    // Refused as a whole, as without the limits no position of it can be answered.
    let message = error(&app, request, StatusCode::INTERNAL_SERVER_ERROR).await;
    assert_eq!(message, named);
}

#[tokio::test]
async fn long_inputs_are_quoted_as_bounded_excerpts() {
    let app = app();
    // A megabyte FEN in a batch: its error quotes an excerpt of it.
    let fen = format!("W:WK1:BK28,{}", "9".repeat(1_000_000));
    let body = json!({ "fens": [fen] }).to_string();
    let reply = post(&app, "/api/v1/brazilian/batch", body).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    assert!(reply.text.len() < 1_000, "{} bytes", reply.text.len());
    let error = &reply.body["results"][0];
    assert!(
        error["fen"]
            .as_str()
            .unwrap()
            .contains("…(1000011 characters)…"),
        "{error}"
    );
    // A 20 KB variant name and query key.
    let name = "x".repeat(20_000);
    let message = get_error(
        &app,
        &format!("/api/v1/{name}?fen=W:WK1:BK28"),
        StatusCode::NOT_FOUND,
    )
    .await;
    assert!(message.len() < 1_000, "{} bytes", message.len());
    assert!(message.contains("(20000 characters)"), "{message}");
    let key = "k".repeat(2_000);
    let message = get_error(
        &app,
        &format!("/api/v1/brazilian?{key}=1"),
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert!(
        message.len() < 1_000 && message.contains("(2000 characters)"),
        "{message}"
    );
}
