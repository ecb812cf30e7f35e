//! The explorer page of `rafle serve` in a real browser: headless Chromium driven over
//! WebDriver (chromedriver), against a server on small generated tables. Every value and
//! move the page shows is checked against the API's JSON, fetched here directly.
//!
//! Ignored by default (it needs Chromium and chromedriver); `scripts/browser-test.sh`
//! installs them when missing and runs it. Screenshots of both variants at a desktop and a
//! phone size land in `target/screenshots/`.

#[path = "browser/page.rs"]
mod page;
#[path = "browser/processes.rs"]
mod processes;

use page::*;
use processes::*;

use std::time::{Duration, Instant};

use fantoccini::ClientBuilder;
use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::draughts::Variant;
use serde_json::{json, Value};
use tempfile::TempDir;

/// How long the page may take to show what was asked.
pub(crate) const WAIT: Duration = Duration::from_secs(20);

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
    variant_names_in_links(page).await;
    verdict_follows_the_winner(page).await;
    numbers_over_the_pieces(page).await;

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

/// A link's `variant=` takes the names the command line and the API take (`brazil`, `8x8`...);
/// a name rafle does not know is said to be one, not taken for a missing name.
async fn variant_names_in_links(page: &Page) {
    let port = page.port;
    page.viewport(1280, 900).await;
    let fen = "W:WK1,K2:BK28";
    let brazilian = probe(port, "brazilian", fen);
    for name in ["brazil", "Brazil", "8x8", "BRAZILIAN"] {
        page.goto(name, fen).await;
        let shown = page
            .until(&format!("the link of variant={name}"), |p| {
                p["answerVariant"] == "brazilian" && p["busy"] == false
            })
            .await;
        check_position(&shown, &brazilian);
        // Given time for a note, none comes: the link named its variant.
        tokio::time::sleep(Duration::from_millis(1000)).await;
        assert_eq!(page.read().await["error"], Value::Null, "variant={name}");
    }
    page.goto("russian", fen).await;
    let shown = page
        .until("the note of the unknown variant", |p| {
            p["error"] != Value::Null && p["busy"] == false && p["category"] != ""
        })
        .await;
    assert_eq!(shown["answerVariant"], "international", "{shown:#}");
    let note = shown["error"].as_str().unwrap();
    assert!(
        note.starts_with(
            "Read as International draughts, the default: the link names the variant \"russian\", \
             which is not one rafle knows (international, intl, 10x10; brazilian, brazil, 8x8)."
        ) && !note.contains("names no variant"),
        "{note}"
    );
}

/// The verdict box is coloured by who wins, whichever side is to move: "White wins" with Black
/// to move looks as it does with White to move, and not as a loss.
async fn verdict_follows_the_winner(page: &Page) {
    const VERDICT: &str = "const v = document.getElementById('value');
        return { winner: v.dataset.winner, classes: v.className,
                 background: getComputedStyle(v).backgroundColor,
                 border: getComputedStyle(v).borderLeftColor,
                 title: document.getElementById('value-title').textContent };";
    let port = page.port;
    let mut seen = Vec::new();
    for (fen, category, title, winner) in [
        ("W:WK1,K2:BK28", "win", "White wins", "white"),
        ("B:WK1,K9:BK28", "loss", "White wins", "white"),
        ("W:W9:BK28,K27", "loss", "Black wins", "black"),
        ("B:W9:BK28,K27", "win", "Black wins", "black"),
    ] {
        let json = probe(port, "brazilian", fen);
        assert_eq!(json["category"], category, "{fen}: {json}");
        page.goto("brazilian", fen).await;
        page.settled(json["fen"].as_str().unwrap()).await;
        let verdict = page
            .client
            .execute(VERDICT, vec![])
            .await
            .expect("the verdict box");
        assert_eq!(verdict["title"], title, "{fen}: {verdict}");
        assert_eq!(verdict["winner"], winner, "{fen}: {verdict}");
        assert!(
            verdict["classes"].as_str().unwrap().contains("verdict-win"),
            "{fen}: {verdict}"
        );
        seen.push((fen, verdict));
    }
    // One colour for a win, whoever moves and whoever wins; not a loss's red.
    let (first_fen, first) = &seen[0];
    for (fen, verdict) in &seen[1..] {
        assert_eq!(
            (&verdict["background"], &verdict["border"]),
            (&first["background"], &first["border"]),
            "{fen} against {first_fen}"
        );
    }
    assert_eq!(first["background"], "rgb(220, 241, 224)", "the win's green");
    // A draw stays grey.
    page.goto("brazilian", "W:WK1:BK28").await;
    let json = probe(port, "brazilian", "W:WK1:BK28");
    page.settled(json["fen"].as_str().unwrap()).await;
    let verdict = page.client.execute(VERDICT, vec![]).await.expect("the box");
    assert_eq!(verdict["winner"], "", "{verdict}");
    assert!(verdict["classes"]
        .as_str()
        .unwrap()
        .contains("verdict-draw"));
}

/// With numbers on, each square's number is drawn over its piece, opaque, outlined: an occupied
/// square's number is read as an empty one's.
async fn numbers_over_the_pieces(page: &Page) {
    let port = page.port;
    for (variant, fen, size) in [
        ("brazilian", "W:WK1,K2,18:BK28,22", 8),
        ("international", "B:W32,K46:B19", 10),
    ] {
        page.viewport(1280, 900).await;
        page.goto(variant, fen).await;
        page.settled(probe(port, variant, fen)["fen"].as_str().unwrap())
            .await;
        let numbers_on = page
            .client
            .execute("return document.getElementById('numbers').checked;", vec![])
            .await
            .expect("the numbers box");
        if numbers_on != Value::Bool(true) {
            page.click("#numbers").await;
        }
        let labels = page
            .client
            .execute(
                "const out = [];
                 for (const g of document.querySelectorAll('#board [data-square]')) {
                   const square = g.dataset.square;
                   const label = document.querySelector(`#board .num[data-label=\"${square}\"]`);
                   const piece = [...document.querySelectorAll('#board use.piece')].find((u) =>
                     Number(u.getAttribute('x')) === Number(g.querySelector('rect').getAttribute('x')) &&
                     Number(u.getAttribute('y')) === Number(g.querySelector('rect').getAttribute('y')));
                   const style = label ? getComputedStyle(label) : null;
                   out.push({
                     square, occupied: Boolean(piece), text: label ? label.textContent : null,
                     opacity: style ? style.opacity : null,
                     outlined: style ? style.paintOrder.startsWith('stroke') && style.stroke !== 'none' : false,
                     above: piece && label
                       ? Boolean(piece.compareDocumentPosition(label) & Node.DOCUMENT_POSITION_FOLLOWING)
                       : true,
                   });
                 }
                 return out;",
                vec![],
            )
            .await
            .expect("the labels");
        let labels = labels.as_array().unwrap();
        assert_eq!(labels.len(), size * size / 2, "{variant}");
        let occupied = labels.iter().filter(|l| l["occupied"] == true).count();
        assert!(occupied >= 3, "{variant}: pieces on the board: {labels:?}");
        for label in labels {
            assert_eq!(label["text"], label["square"], "{variant}: {label}");
            assert_eq!(label["opacity"], "1", "{variant}: {label}");
            assert_eq!(label["outlined"], true, "{variant}: {label}");
            assert_eq!(
                label["above"], true,
                "drawn over its piece: {variant}: {label}"
            );
        }
        page.screenshot(&format!("{variant}-numbers")).await;
        page.click("#numbers").await;
    }
}
