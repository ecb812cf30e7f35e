//! Captures under way (lidraughts' ghost pieces) and lidraughts' halfmove clock, through the
//! API and lidraughts' routes: a capture under way is worth its best completion, and each
//! completion what the whole move from the position before the capture is worth.

use crate::common;

use axum::http::StatusCode;
use common::{app, get_error, moves_of, ok, post};
use serde_json::{json, Value};

/// The move of `answer` that reaches `fen`.
fn reaching<'a>(answer: &'a Value, fen: &str) -> &'a Value {
    answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["fen"] == fen)
        .unwrap_or_else(|| panic!("no move reaches {fen} in {answer}"))
}

#[tokio::test]
async fn a_capture_under_way_is_worth_the_whole_move() {
    let app = app();
    // 46x5 and the like take 37 on the way to 32, then 28: stopped on 32, 37 is a ghost.
    let before = ok(&app, "/api/v1/international?fen=W:WK46:B28,37").await;
    let mid = ok(&app, "/api/v1/international?fen=W:WK32:BG37,28:H0:F1").await;
    assert_eq!(mid["fen"], "W:WK32:B28,G37");
    assert_eq!(
        (&mid["capturing"], &mid["ghosts"]),
        (&json!(32), &json!([37]))
    );
    assert_eq!(
        (&mid["turn"], &mid["game_over"]),
        (&json!("white"), &json!(false))
    );
    // Every whole move goes through 32, so the capture is worth what the position was.
    for key in ["wdl", "dtw", "class", "count", "category", "rule"] {
        assert_eq!(mid[key], before[key], "{key}");
    }
    assert_eq!(moves_of(&mid), ["32x5", "32x10", "32x14", "32x19", "32x23"]);
    for m in mid["moves"].as_array().unwrap() {
        let whole = reaching(&before, m["fen"].as_str().unwrap());
        assert_eq!(m["from"], 32);
        assert_eq!(m["to"], whole["to"]);
        assert_eq!(m["captures"], json!([28, 37]), "the ghost is taken too");
        for key in ["wdl", "dtw", "class", "count", "category", "resets"] {
            assert_eq!(m[key], whole[key], "{key}");
        }
    }
    // Lidraughts' route: the same numbers, the moves written from where the king stands.
    let lid_before = ok(&app, "/standard?fen=W:WK46:B28,37:H0:F1").await;
    let lid_mid = ok(&app, "/standard?fen=W:WK32:BG37,28:H0:F1").await;
    assert_eq!(lid_mid["fen"], "W:WK32:B28,G37");
    for key in ["wdl", "dtz", "dtm", "checkmate"] {
        assert_eq!(lid_mid[key], lid_before[key], "{key}");
    }
    let ucis: Vec<&str> = lid_mid["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uci"].as_str().unwrap())
        .collect();
    assert_eq!(ucis, ["3205", "3210", "3214", "3219", "3223"]);
    for (m, whole) in lid_mid["moves"]
        .as_array()
        .unwrap()
        .iter()
        .zip(lid_before["moves"].as_array().unwrap())
    {
        // The whole move is 46, 32, then the same end: the rest of it is the completion.
        assert_eq!(format!("46{}", m["uci"].as_str().unwrap()), whole["uci"]);
        assert_eq!(
            m["san"].as_str().unwrap().replace("32x", "46x"),
            whole["san"].as_str().unwrap()
        );
        for key in ["wdl", "dtz", "dtm", "zeroing", "checkmate"] {
            assert_eq!(m[key], whole[key], "{key}");
        }
    }
}

#[tokio::test]
async fn completions_are_worth_the_positions_they_reach() {
    let app = app();
    // Brazilian 31x7 and 31x11 from W:WK31:B16,2,K27, stopped on 20 over the king on 27.
    let mid = ok(&app, "/api/v1/brazilian?fen=W:WK20:B16,2,P27").await;
    assert_eq!(mid["fen"], "W:WK20:B2,16,P27");
    assert_eq!(moves_of(&mid), ["20x11", "20x7"], "best first");
    for m in mid["moves"].as_array().unwrap() {
        let fen = m["fen"].as_str().unwrap();
        let next = ok(&app, &format!("/api/v1/brazilian?fen={fen}")).await;
        for key in ["wdl", "dtw", "class", "count"] {
            assert_eq!(m[key], next[key], "{fen} {key}");
        }
    }
    assert_eq!(
        (&mid["wdl"], &mid["dtw"], &mid["class"], &mid["count"]),
        (&json!("win"), &json!(9), &json!("win"), &json!(1))
    );
    // With counters: a completion is a capture, which starts the 6.2 count afresh.
    let counted = ok(&app, "/api/v1/brazilian?fen=W:WK20:B16,2,P27&counters=30,0").await;
    assert_eq!(counted["result"], "win");
    for m in counted["moves"].as_array().unwrap() {
        assert_eq!(
            (&m["king_plies"], &m["category_plies"]),
            (&json!(0), &json!(0))
        );
    }
    // A batch reads ghosts as the single route does.
    let batch = post(
        &app,
        "/api/v1/brazilian/batch",
        r#"{"fens":["W:WK20:B16,2,P27","W:WK20:B2,G27"]}"#,
    )
    .await;
    assert_eq!(batch.body["results"][0], mid);
    assert!(batch.body["results"][1]["error"]
        .as_str()
        .unwrap()
        .contains("no piece of the side to move can be the one capturing"));
    // Lidraughts' route, best first too.
    let lid = ok(&app, "/brazilian?fen=W:WK20:B16,2,P27:H0:F1").await;
    assert_eq!(lid["moves"][0]["uci"], "2011");
    assert_eq!(lid["moves"][0]["san"], "20x11");
    assert_eq!((&lid["wdl"], &lid["dtm"]), (&json!(2), &json!(9)));
}

#[tokio::test]
async fn unanswerable_captures_are_refused_alike_everywhere() {
    let app = app();
    for (variant, route, fen, message) in [
        (
            "international",
            "standard",
            "B:WK46:BG7,K5:H0:F1",
            "invalid FEN at column 9: the ghost piece on 7 is in the list of the side to move",
        ),
        (
            "international",
            "standard",
            "W:W21,22:BG27,17,18,5",
            "invalid FEN at column 11: the capture under way could be that of the piece on 21 \
             or on 22",
        ),
        (
            "brazilian",
            "brazilian",
            "W:WK20:B2,G27",
            "invalid FEN at column 11: no piece of the side to move can be the one capturing",
        ),
    ] {
        let api = get_error(
            &app,
            &format!("/api/v1/{variant}?fen={fen}"),
            StatusCode::BAD_REQUEST,
        )
        .await;
        assert!(api.starts_with(message), "{fen}: {api}");
        let lid = get_error(
            &app,
            &format!("/{route}?fen={fen}"),
            StatusCode::BAD_REQUEST,
        )
        .await;
        assert_eq!(lid, api, "{fen}");
    }
    // The line starts between moves.
    let line = get_error(
        &app,
        "/api/v1/brazilian/line?fen=W:WK20:B16,2,P27",
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert!(line.contains("in the middle of a capture"), "{line}");
}

#[tokio::test]
async fn lidraughts_halfmove_clock_is_the_live_counter() {
    let app = app();
    // Brazilian two kings against one, 6.4: win in 7 with count 7 (docs/api.md). Lidraughts'
    // clock there counts the plies in the category, as rafle's category count does.
    let fresh = ok(&app, "/brazilian?fen=W:WK1,K2:BK28:H0:F40").await;
    assert_eq!((&fresh["wdl"], &fresh["dtz"]), (&json!(2), &json!(7)));
    assert_eq!(ok(&app, "/brazilian?fen=W:WK1,K2:BK28").await, fresh);
    // 3 plies used of 10: the win in 7 still fits.
    let three = ok(&app, "/brazilian?fen=W:WK1,K2:BK28:H3:F40").await;
    assert_eq!((&three["wdl"], &three["dtz"]), (&json!(2), &json!(7)));
    let api = ok(&app, "/api/v1/brazilian?fen=W:WK1,K2:BK28&counters=0,3").await;
    assert_eq!(api["result"], "win");
    let ucis = |answer: &Value| -> Vec<String> {
        answer["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["san"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        ucis(&three),
        moves_of(&api),
        "ordered by the result with the counters"
    );
    // 4 used: the rules draw it, a win prevented by the rule (lidraughts' cursed win).
    let four = ok(&app, "/brazilian?fen=W:WK1,K2:BK28:H4:F40").await;
    assert_eq!(
        (&four["wdl"], &four["dtz"], &four["dtm"]),
        (&json!(1), &Value::Null, &json!(7))
    );
    let api = ok(
        &app,
        "/api/v1/brazilian?fen=W:WK1,K2:BK28:H4:F40&counters=0,4",
    )
    .await;
    assert_eq!(api["result"], "draw");
    // The API reads its counters from `counters` alone: the FEN's clock changes nothing.
    assert_eq!(
        ok(&app, "/api/v1/brazilian?fen=W:WK1,K2:BK28:H4:F40").await,
        ok(&app, "/api/v1/brazilian?fen=W:WK1,K2:BK28").await
    );
    // Outside 6.4 lidraughts counts Brazilian draws by the Russian rules: its clock is not
    // used, the answer is that of fresh counters.
    let fen = "B:W21:BK1,K28";
    let fresh = ok(&app, &format!("/api/v1/brazilian?fen={fen}&counters=0,0")).await;
    let counted = ok(&app, &format!("/api/v1/brazilian?fen={fen}&counters=49,0")).await;
    assert_ne!(
        fresh["result"], counted["result"],
        "49 plies would change it"
    );
    assert_eq!(
        ok(&app, &format!("/brazilian?fen={fen}:H49:F40")).await,
        ok(&app, &format!("/brazilian?fen={fen}")).await
    );
}
