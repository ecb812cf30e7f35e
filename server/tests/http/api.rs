//! The API driven through the router, without a socket, on Brazilian and international tables
//! up to 3 pieces generated here: every endpoint's JSON against the values of `rafle probe`
//! and of the probe library, the best-first order, counters, batches, the
//! table list, CORS and the explorer's page (errors: `errors.rs`).

use crate::common;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use rafle_probe::toolkit::format::TableKind;
use rafle_probe::{
    draughts::{Counters, Material, Position, SquareStyle, Variant},
    toolkit::PositionIndex,
    Dtw, RuleClass, Tablebase, Wdl,
};
use serde_json::{json, Value};

use common::*;

#[tokio::test]
async fn position_gives_the_values_of_rafle_probe() {
    let app = app();
    let answer = ok(&app, "/api/v1/brazilian?fen=W:WK1,K2:BK28").await;
    // `rafle probe --variant brazilian W:WK1,K2:BK28`: win in 7 plies, rule 6.4: win, count 7.
    for (field, value) in [
        ("variant", json!("brazilian")),
        ("fen", json!("W:WK1,K2:BK28")),
        ("turn", json!("white")),
        ("game_over", json!(false)),
        ("wdl", json!("win")),
        ("dtw", json!(7)),
        ("class", json!("win")),
        ("count", json!(7)),
        ("rule", json!("6.4")),
        ("limits", json!("6.2=50,6.3=40,6.4=10")),
        ("category", json!("win")),
        ("pieces", json!(3)),
        ("max_pieces", json!(3)),
    ] {
        assert_eq!(answer[field], value, "{field}");
    }
    assert!(answer.get("king_plies").is_none() && answer.get("result").is_none());
    assert_eq!(answer["moves"].as_array().unwrap().len(), 13);
    assert_eq!(
        answer["moves"][0],
        json!({"move": "2-9", "from": 2, "to": 9, "captures": [], "fen": "B:WK1,K9:BK28",
               "wdl": "loss", "dtw": 6, "class": "loss", "count": 6, "category": "loss",
               "resets": false})
    );

    // The whole answer of a small position, FEN normalised (`B:W29:B25,22` as given).
    let answer = ok(&app, "/api/v1/brazilian?fen=B:W29:B25,22").await;
    assert_eq!(
        answer,
        json!({"variant": "brazilian", "fen": "B:W29:B22,25", "turn": "black",
               "game_over": false, "wdl": "win", "dtw": 3, "class": "win", "count": 1,
               "rule": "6.2", "limits": "6.2=50,6.3=40,6.4=10", "category": "win",
               "pieces": 3, "max_pieces": 3, "moves": [
            {"move": "25-30", "from": 25, "to": 30, "captures": [], "fen": "W:W29:B22,K30",
             "wdl": "loss", "dtw": 2, "class": "loss", "count": 1, "category": "loss",
             "resets": true},
            {"move": "22-26", "from": 22, "to": 26, "captures": [], "fen": "W:W29:B25,26",
             "wdl": "win", "dtw": 1, "class": "win", "count": 1, "category": "win",
             "resets": true}]})
    );

    // International, a forced capture.
    let answer = ok(&app, "/api/v1/international?fen=W:W28:B23,5").await;
    assert_eq!(moves_of(&answer), ["28x19"]);
    assert_eq!(answer["moves"][0]["captures"], json!([23]));
    assert_eq!(answer["moves"][0]["resets"], json!(true));
    assert_eq!(answer["rule"], "6.2");
    assert_eq!(answer["limits"], "6.2=50,6.3=32,6.4=10");
    // Variant aliases are read; the answer names the variant.
    let answer = ok(&app, "/api/v1/8x8?fen=W:WK1,K2:BK28").await;
    assert_eq!(answer["variant"], "brazilian");
}

/// The class the tables give with fresh counters, as the API names categories.
fn category_of(class: RuleClass) -> &'static str {
    match class {
        RuleClass::Win => "win",
        RuleClass::CursedWin => "cursed-win",
        RuleClass::Draw => "draw",
        RuleClass::BlessedLoss => "blessed-loss",
        RuleClass::Loss => "loss",
    }
}

fn dtw_json(dtw: Dtw) -> Value {
    dtw.plies().map_or(Value::Null, |d| json!(d))
}

/// Positions of every material up to 3 pieces, a fixed pseudo-random sequence.
fn sample(variant: Variant, count: usize) -> Vec<Position> {
    let indexes: Vec<PositionIndex> = Material::all_up_to(variant, 3)
        .into_iter()
        .map(|m| PositionIndex::new(variant, m))
        .collect();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            let index = &indexes[(next() % indexes.len() as u64) as usize];
            index.unrank(next() % index.size())
        })
        .collect()
}

/// The best-first rank of a move from what the opponent gets after it, as documented: a
/// loss (quickest first), a blessed loss, a draw, a cursed win, a win (longest first).
fn rank(after: &Value) -> (u8, i64, i64) {
    let dtw = after["dtw"].as_i64().unwrap_or(0);
    let count = after["count"].as_i64().unwrap_or(0);
    match after["class"].as_str().unwrap() {
        "loss" => (0, dtw, count),
        "blessed_loss" => (1, dtw, 0),
        "draw" => (2, 0, 0),
        "cursed_win" => (3, -dtw, 0),
        "win" => (4, -dtw, -count),
        other => panic!("class {other}"),
    }
}

#[tokio::test]
async fn every_value_is_the_tablebase_s_and_moves_come_best_first() {
    let app = app();
    let tables = Tablebase::open(tables_dir()).unwrap();
    for variant in [Variant::Brazilian, Variant::International] {
        for pos in sample(variant, 150) {
            let fen = pos.to_fen();
            let answer = ok(&app, &format!("/api/v1/{variant}?fen={fen}")).await;
            assert_eq!(answer["fen"], fen.as_str());
            let wdl = tables.probe_wdl(&pos).unwrap();
            let rules = tables.probe_draw_rules(&pos, Counters::FRESH).unwrap();
            assert_eq!(answer["wdl"], wdl.name(), "{fen}");
            assert_eq!(answer["dtw"], dtw_json(tables.probe_dtw(&pos).unwrap()));
            assert_eq!(answer["class"], rules.value.class().name());
            assert_eq!(answer["count"], json!(rules.value.count()));
            assert_eq!(answer["category"], category_of(rules.value.class()));
            assert_eq!(answer["game_over"], json!(pos.game_over().is_some()));
            let mut expected = tables.probe_moves_all(&pos).unwrap();
            let moves = answer["moves"].as_array().unwrap();
            assert_eq!(moves.len(), expected.len(), "{fen}");
            for m in moves {
                let text = m["move"].as_str().unwrap();
                let i = expected
                    .iter()
                    .position(|e| pos.move_text(&e.mv, SquareStyle::Numeric) == text)
                    .unwrap_or_else(|| panic!("{fen}: {text} is not legal"));
                let e = expected.remove(i);
                let after = e.draw_rules.unwrap();
                assert_eq!(m["fen"], e.next.to_fen());
                assert_eq!(m["wdl"], e.wdl.name(), "{fen} {text}");
                assert_eq!(m["dtw"], dtw_json(e.dtw));
                assert_eq!(m["class"], after.class().name());
                assert_eq!(m["count"], json!(after.count()));
                assert_eq!(m["category"], category_of(after.class()));
                assert_eq!(m["resets"], json!(e.resets));
                assert_eq!(m["from"], json!(e.mv.from().number()));
            }
            let ranks: Vec<_> = moves.iter().map(rank).collect();
            assert!(ranks.is_sorted(), "{fen}: {ranks:?}");
        }
    }
}

#[tokio::test]
async fn moves_come_best_first_for_the_losing_side_too() {
    let app = app();
    // Black's lone king loses; the longest resistance first.
    let answer = ok(&app, "/api/v1/brazilian?fen=B:WK1,K9:BK28").await;
    assert_eq!(answer["wdl"], "loss");
    let dtws: Vec<i64> = answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert_eq!(m["wdl"], "win");
            m["dtw"].as_i64().unwrap()
        })
        .collect();
    assert!(dtws.windows(2).all(|w| w[0] >= w[1]), "{dtws:?}");
    assert_eq!(answer["dtw"], json!(dtws[0] + 1));
    // Winning: the quickest wins first, then the slower ones, then the draws in listing
    // order (`rafle moves` order).
    let answer = ok(&app, "/api/v1/brazilian?fen=W:WK1,K2:BK28").await;
    let moves = moves_of(&answer);
    assert_eq!(moves[..4], ["2-9", "2-6", "1-5", "1-6"]);
}

#[tokio::test]
async fn counters_give_the_result_under_the_rules() {
    let app = app();
    let answer = ok(&app, "/api/v1/brazilian?fen=W:WK1,K2:BK28&counters=0,2").await;
    assert_eq!(answer["king_plies"], 0);
    assert_eq!(answer["category_plies"], 2);
    assert_eq!(answer["result"], "win");
    assert_eq!(
        answer["moves"][0],
        json!({"move": "2-9", "from": 2, "to": 9, "captures": [], "fen": "B:WK1,K9:BK28",
               "wdl": "loss", "dtw": 6, "class": "loss", "count": 6, "category": "loss",
               "resets": false, "king_plies": 1, "category_plies": 3, "result": "loss"})
    );
    // 2-6 loses in 8 for Black with count 8: with 3 plies used of 10 it no longer wins.
    assert_eq!(answer["moves"][1]["move"], "2-6");
    assert_eq!(answer["moves"][1]["result"], "draw");
    // With 4 plies used the win in 7 is out of reach: a draw, and every move draws; the
    // classes order them then.
    let answer = ok(&app, "/api/v1/brazilian?fen=W:WK1,K2:BK28&counters=0,4").await;
    assert_eq!(answer["result"], "draw");
    assert_eq!(answer["class"], "win");
    assert!(answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["result"] == "draw"));
    assert_eq!(moves_of(&answer)[..2], ["2-9", "2-6"]);
    // Counters put the result first: with 3 used, 2-9 (count 6, 1 + 3 + 6 = 10 plies) still
    // wins and comes first; past that, the draws.
    let answer = ok(&app, "/api/v1/brazilian?fen=W:WK1,K2:BK28&counters=5,3").await;
    assert_eq!(answer["result"], "win");
    assert_eq!(answer["moves"][0]["result"], "loss");
    assert_eq!(answer["moves"][0]["king_plies"], 6);
    assert!(answer["moves"].as_array().unwrap()[1..]
        .iter()
        .all(|m| m["result"] == "draw"));
}

#[tokio::test]
async fn line_is_the_line_of_rafle_probe() {
    let app = app();
    let answer = ok(
        &app,
        "/api/v1/brazilian/line?fen=W:WK1,K2:BK28&counters=0,2",
    )
    .await;
    assert_eq!(answer["result"], "win");
    assert_eq!(answer["end"], "White wins: Black has no piece left");
    let line = answer["line"].as_array().unwrap();
    // `rafle probe --variant brazilian --counters 0,2 --line W:WK1,K2:BK28`.
    assert_eq!(line.len(), 7);
    assert_eq!(
        line[0],
        json!({"move": "2-9", "fen": "B:WK1,K9:BK28", "king_plies": 1, "category_plies": 3,
               "result": "loss", "class": "loss", "count": 6, "dtw": 6})
    );
    assert_eq!(line[1]["move"], "28-32");
    assert_eq!(line[1]["result"], "win");
    assert_eq!(line[6]["move"], "1x10");
    assert_eq!(line[6]["fen"], "B:WK10,K32:B");
    assert_eq!(line[6]["count"], 0);
    // Each FEN follows from the one before by the move.
    let mut pos = Position::from_fen(Variant::Brazilian, "W:WK1,K2:BK28").unwrap();
    for ply in line {
        let mv = pos.parse_move(ply["move"].as_str().unwrap()).unwrap();
        pos = pos.play(&mv);
        assert_eq!(ply["fen"], pos.to_fen());
    }
    // The position's own fields are those of the plain answer.
    let plain = ok(&app, "/api/v1/brazilian?fen=W:WK1,K2:BK28&counters=0,2").await;
    let mut without_line = answer.clone();
    let object = without_line.as_object_mut().unwrap();
    object.remove("line");
    object.remove("end");
    assert_eq!(without_line, plain);
    // Without counters the line starts from 0,0; a drawn position ends by a rule.
    let answer = ok(&app, "/api/v1/brazilian/line?fen=W:WK1:BK28").await;
    assert_eq!(answer["end"], "draw: rule 6.4 (10 plies)");
    assert_eq!(answer["line"].as_array().unwrap().len(), 10);
}

#[tokio::test]
async fn batch_answers_each_position_in_order() {
    let app = app();
    let body = json!({"fens": ["W:WK1,K2:BK28", "W:W31,,32:B20", "B:W29:B25,22",
                               "W:WK1,K2:BK18,K22,K28"],
                      "counters": "0,2"})
    .to_string();
    let reply = post(&app, "/api/v1/brazilian/batch", body).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    let results = reply.body["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    let single = ok(&app, "/api/v1/brazilian?fen=W:WK1,K2:BK28&counters=0,2").await;
    assert_eq!(results[0], single);
    assert_eq!(
        results[1],
        json!({"fen": "W:W31,,32:B20",
               "error": "invalid FEN at column 7: empty square item in a piece list: found \
                         ',' where a square was expected"})
    );
    assert_eq!(results[2]["fen"], "B:W29:B22,25");
    assert_eq!(results[2]["result"], "win");
    assert_eq!(results[3]["category"], "unknown");
    // Without counters, the answers of single requests, in order.
    let reply = post(
        &app,
        "/api/v1/international/batch",
        r#"{"fens":["W:W28:B23,5","W:WK46:BK5"]}"#,
    )
    .await;
    let results = reply.body["results"].as_array().unwrap();
    assert_eq!(
        results[0],
        ok(&app, "/api/v1/international?fen=W:W28:B23,5").await
    );
    assert_eq!(
        results[1],
        ok(&app, "/api/v1/international?fen=W:WK46:BK5").await
    );
    let reply = post(&app, "/api/v1/brazilian/batch", r#"{"fens":[]}"#).await;
    assert_eq!(reply.body, json!({"results": []}));
}

#[tokio::test]
async fn batches_over_the_bounds_are_refused() {
    let app = app();
    let fens = vec!["W:WK1,K2:BK28"; 1001];
    let body = json!({ "fens": fens }).to_string();
    let request = Request::post("/api/v1/brazilian/batch")
        .body(Body::from(body))
        .unwrap();
    let message = error(&app, request, StatusCode::PAYLOAD_TOO_LARGE).await;
    assert_eq!(
        message,
        "the batch has 1001 positions; at most 1000 are accepted"
    );
    let big = format!(r#"{{"fens":["{}"]}}"#, "W".repeat(1 << 20));
    let request = Request::post("/api/v1/brazilian/batch")
        .body(Body::from(big))
        .unwrap();
    let message = error(&app, request, StatusCode::PAYLOAD_TOO_LARGE).await;
    assert_eq!(message, "the body is over 1048576 bytes");
    let cases = [
        (r#"{"fens":"W:WK1:BK28"}"#, "invalid type: string"),
        (
            r#"{"fens":["W:WK1:BK28"],"line":true}"#,
            "unknown field `line`",
        ),
        (r#"{"fens":["W:WK1:BK28"]"#, "EOF while parsing"),
        ("", "EOF while parsing"),
        (
            r#"{"fens":[],"counters":"1"}"#,
            "counters: bad counters \"1\"",
        ),
    ];
    for (body, part) in cases {
        let request = Request::post("/api/v1/brazilian/batch")
            .body(Body::from(body))
            .unwrap();
        let message = error(&app, request, StatusCode::BAD_REQUEST).await;
        assert!(message.contains(part), "{body}: {message}");
    }
}

#[tokio::test]
async fn tables_lists_every_material_with_its_sizes() {
    let app = app();
    let listing = ok(&app, "/api/v1/tables").await;
    let names: Vec<&String> = listing.as_object().unwrap().keys().collect();
    assert_eq!(names, ["brazilian", "international"]);
    for variant in [Variant::International, Variant::Brazilian] {
        let entry = &listing[variant.name()];
        assert_eq!(entry["max_pieces"], 3);
        let limits = rafle_probe::draughts::Limits::fmjd(variant).to_string();
        assert_eq!(entry["limits"], limits.as_str());
        let materials = entry["materials"].as_array().unwrap();
        assert_eq!(materials.len(), 9);
        assert_eq!(materials[0]["material"], "KvK");
        assert_eq!(materials[0]["pieces"], 2);
        for m in materials {
            let material: Material = m["material"].as_str().unwrap().parse().unwrap();
            for (field, kind) in [
                ("wdl", TableKind::Wdl),
                ("dtw", TableKind::Dtw),
                ("rules", TableKind::DrawRules),
            ] {
                let path = rafle_probe::toolkit::table_path(tables_dir(), variant, material, kind);
                let size = std::fs::metadata(path).unwrap().len();
                assert_eq!(m[field], json!(size), "{material} {field}");
            }
        }
    }
}

#[tokio::test]
async fn cors_lets_any_origin_read() {
    let app = app();
    let request = Request::get("/api/v1/brazilian?fen=W:WK1,K2:BK28")
        .header(header::ORIGIN, "http://example.test")
        .body(Body::empty())
        .unwrap();
    let reply = send(&app, request).await;
    assert_eq!(reply.headers[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*");
    let request = Request::get("/api/v1/russian?fen=x")
        .header(header::ORIGIN, "http://example.test")
        .body(Body::empty())
        .unwrap();
    let reply = send(&app, request).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(reply.headers[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*");
    let preflight = Request::builder()
        .method(Method::OPTIONS)
        .uri("/api/v1/brazilian/batch")
        .header(header::ORIGIN, "http://example.test")
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
        .header(header::ACCESS_CONTROL_REQUEST_HEADERS, "content-type")
        .body(Body::empty())
        .unwrap();
    let reply = send(&app, preflight).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.headers[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*");
    let methods = reply.headers[header::ACCESS_CONTROL_ALLOW_METHODS]
        .to_str()
        .unwrap();
    assert!(
        methods.contains("GET") && methods.contains("POST"),
        "{methods}"
    );
}

#[tokio::test]
async fn the_explorer_page_is_served_with_its_content_types() {
    let app = app();
    for (uri, content_type, part) in [
        ("/", "text/html; charset=utf-8", "<html"),
        ("/explorer.js", "text/javascript; charset=utf-8", ""),
        ("/explorer.css", "text/css; charset=utf-8", ""),
    ] {
        let reply = get(&app, uri).await;
        assert_eq!(reply.status, StatusCode::OK, "{uri}");
        assert_eq!(reply.headers[header::CONTENT_TYPE], content_type, "{uri}");
        assert!(!reply.text.is_empty() && reply.text.contains(part), "{uri}");
    }
}

#[tokio::test]
async fn answers_agree_with_the_json_of_rafle_probe() {
    // The fields `rafle probe --json` prints are the API's, with the same values (the API
    // adds fields and orders the moves best first).
    let tables = Tablebase::open(tables_dir()).unwrap();
    let app = app();
    let pos = Position::from_fen(Variant::Brazilian, "W:WK1,K2:BK28").unwrap();
    let options = rafle_probe::answer::Options {
        counters: Some(Counters {
            king_plies: 0,
            category_plies: 2,
        }),
        line: true,
    };
    let answer = rafle_probe::Answer::probe(&tables, &pos, options).unwrap();
    let cli = serde_json::to_value(rafle_probe::answer::json::JsonAnswer::for_cli(
        &answer,
        "W:WK1,K2:BK28",
    ))
    .unwrap();
    let api = ok(
        &app,
        "/api/v1/brazilian/line?fen=W:WK1,K2:BK28&counters=0,2",
    )
    .await;
    for (field, value) in cli.as_object().unwrap() {
        match field.as_str() {
            "moves" => {
                for m in value.as_array().unwrap() {
                    let same = api["moves"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|a| a["move"] == m["move"])
                        .unwrap();
                    for (key, v) in m.as_object().unwrap() {
                        assert_eq!(&same[key], v, "{} {key}", m["move"]);
                    }
                }
            }
            "line" => {
                for (c, a) in value
                    .as_array()
                    .unwrap()
                    .iter()
                    .zip(api["line"].as_array().unwrap())
                {
                    for (key, v) in c.as_object().unwrap() {
                        assert_eq!(&a[key], v, "line {key}");
                    }
                }
            }
            _ => assert_eq!(&api[field], value, "{field}"),
        }
    }
    assert_eq!(cli["wdl"], "win");
    assert_eq!(Wdl::Win.name(), "win");
}

/// A finished game answers `"game_over":true` and no moves, alone, in a batch and with its
/// line; a game under way keeps its moves. Every answer names its variant.
#[tokio::test]
async fn a_finished_game_has_no_moves() {
    let app = app();
    for (variant, fen) in [
        ("brazilian", "W:W28:B"),
        ("international", "W:W28:B"),
        ("brazilian", "B:W:BK5"),
        ("brazilian", "W:W:BK28"),
    ] {
        let answer = ok(&app, &format!("/api/v1/{variant}?fen={fen}")).await;
        assert_eq!(answer["variant"], variant, "{fen}");
        assert_eq!(answer["game_over"], true, "{fen}");
        assert_eq!(answer["moves"], json!([]), "{variant} {fen}");
        let line = ok(&app, &format!("/api/v1/{variant}/line?fen={fen}")).await;
        assert_eq!(line["moves"], json!([]), "{variant} {fen}");
        assert_eq!(line["line"], json!([]), "{variant} {fen}");
    }
    // Of more pieces than the tables cover too: the rules alone answer a finished game.
    let answer = ok(&app, "/api/v1/brazilian?fen=W:W28,K1,K2,K3:B").await;
    assert_eq!(answer["category"], "win");
    assert_eq!(answer["game_over"], true);
    assert_eq!(answer["moves"], json!([]));
    let answer = ok(&app, "/api/v1/brazilian?fen=W:W28,K1,K2:B5").await;
    assert_eq!(answer["game_over"], false);
    assert!(!answer["moves"].as_array().unwrap().is_empty());
    let reply = post(
        &app,
        "/api/v1/international/batch",
        r#"{"fens":["W:W28:B","W:W28:B1"]}"#,
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    let results = reply.body["results"].as_array().unwrap();
    assert_eq!(results[0]["variant"], "international");
    assert_eq!(results[0]["moves"], json!([]));
    assert_eq!(results[1]["variant"], "international");
    assert_eq!(moves_of(&results[1]), ["28-22", "28-23"]);
    // The variant comes first in the body, before the FEN it is the board of.
    let reply = get(&app, "/api/v1/brazilian?fen=W:W28:B").await;
    assert!(
        reply
            .text
            .starts_with(r#"{"variant":"brazilian","fen":"W:W28:B","#),
        "{}",
        reply.text
    );
}
