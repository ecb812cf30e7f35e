//! What the explorer page shows, read in one script, and its check against the API's JSON.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};
use rafle_probe::draughts::{Color, Position, Role, Square, Variant};
use serde_json::Value;

use super::*;

// ---- the page ------------------------------------------------------------------------------

/// Everything the page shows, read in one script.
pub(crate) const READ_PAGE: &str = r#"
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

pub(crate) struct Page {
    pub(crate) client: Client,
    pub(crate) base: String,
    pub(crate) port: u16,
}

impl Page {
    pub(crate) async fn read(&self) -> Value {
        self.client
            .execute(READ_PAGE, vec![])
            .await
            .expect("the page reads")
    }

    /// Polls the page until `ready` holds of what it shows; returns that.
    pub(crate) async fn until(&self, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
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
    pub(crate) async fn settled(&self, fen: &str) -> Value {
        self.until(&format!("the position {fen}"), |p| {
            p["fen"] == fen && p["busy"] == false && p["category"] != ""
        })
        .await
    }

    pub(crate) async fn click(&self, css: &str) {
        self.client
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no {css} on the page: {e}"))
            .click()
            .await
            .unwrap_or_else(|e| panic!("{css} cannot be clicked: {e}"));
    }

    pub(crate) async fn click_square(&self, square: u8) {
        self.click(&format!("#board [data-square=\"{square}\"]"))
            .await;
    }

    /// Types `text` into the FEN box in place of what it holds, then Enter.
    pub(crate) async fn enter_fen(&self, text: &str) {
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

    pub(crate) async fn goto(&self, variant: &str, fen: &str) {
        let url = format!("{}/?variant={variant}&fen={}", self.base, encode(fen));
        self.client.goto(&url).await.expect("the page loads");
    }

    /// Sets the size of the page's viewport (not the window's).
    pub(crate) async fn viewport(&self, width: i64, height: i64) {
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

    pub(crate) async fn screenshot(&self, name: &str) -> PathBuf {
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
pub(crate) fn for_mover(category: &str) -> &'static str {
    match category {
        "win" => "loss",
        "cursed-win" => "blessed-loss",
        "draw" => "draw",
        "blessed-loss" => "cursed-win",
        "loss" => "win",
        _ => "unknown",
    }
}

pub(crate) fn plies_text(plies: u64) -> String {
    let moves = plies.div_ceil(2);
    format!(
        "{plies} {} ({moves} {})",
        if plies == 1 { "ply" } else { "plies" },
        if moves == 1 { "move" } else { "moves" }
    )
}

pub(crate) fn text_of(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Checks what the page shows against the API's answer `json` for the same position.
pub(crate) fn check_position(page: &Value, json: &Value) {
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
