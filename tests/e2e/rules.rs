//! End-to-end tests of the draw rules (FMJD 6.2–6.4) in the command line, on Brazilian tables
//! up to 3 pieces: `rafle probe` with its class and count, `--counters` and `--line`,
//! `rafle stats`, and `rafle generate --limits`, each test in its own temporary directory.
//!
//! The values asserted were checked by reasoning with docs/rules.md §5.3: with `used` plies on the
//! live counter of a rule of limit `L`, a position of class win and count `c` is won iff
//! `c <= L - used`, and drawn otherwise.

use rafle_probe::{
    draughts::{Counters, Position, Variant},
    Tablebase, Wdl,
};
use serde_json::{json, Value};
use tempfile::TempDir;

use crate::common;
use common::{data, fails, ok, probe_json, rafle, text};

const FMJD: &str = "6.2=50,6.3=40,6.4=10";
const TIGHT: &str = "6.2=6,6.3=4,6.4=3";

/// Brazilian tables up to 3 pieces, with `--limits` if given; the directory and the summary.
fn generate(limits: Option<&str>) -> (TempDir, String) {
    let extra = limits.map_or(vec![], |l| vec!["--limits", l]);
    let (dir, summary, err) = common::generate("brazilian", 3, &extra);
    let plan = err.lines().next().unwrap();
    let expected = format!(", rules {}", limits.map_or(FMJD, |l| l));
    assert!(plan.ends_with(&expected), "plan line '{plan}'");
    (dir, summary)
}

/// `rafle probe --json` on Brazilian tables with extra options.
fn probe(dir: &TempDir, extra: &[&str], fen: &str) -> Value {
    probe_json(dir, "brazilian", extra, fen)
}

/// The summary or stats rows of a material or total: the name and its numbers, by column
/// header.
fn rows(table: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut lines = table
        .lines()
        .filter(|l| l.starts_with("variant ") || l.starts_with("brazilian "));
    let header = lines.next().expect("a header");
    // Column names are separated by two spaces or more.
    let names: Vec<String> = header
        .split("  ")
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(String::from)
        .collect();
    lines
        .map(|line| {
            let cells: Vec<&str> = line.split_whitespace().collect();
            let pairs = names
                .iter()
                .cloned()
                .zip(cells.iter().map(|c| c.to_string()))
                .collect();
            (cells[1].to_string(), pairs)
        })
        .collect()
}

fn cell<'a>(row: &'a [(String, String)], name: &str) -> &'a str {
    &row.iter().find(|(n, _)| n == name).expect(name).1
}

#[test]
fn probe_gives_class_count_and_result_under_live_counters() {
    let (dir, _) = generate(None);
    // Two kings against one (rule 6.4, 10 plies): 2-9 wins in 7 plies, within the limit.
    let fen = "W:WK1,K2:BK28";
    let pos = probe(&dir, &[], fen);
    for (key, value) in [
        ("wdl", json!("win")),
        ("dtw", json!(7)),
        ("class", json!("win")),
        ("count", json!(7)),
        ("rule", json!("6.4")),
        ("limits", json!(FMJD)),
    ] {
        assert_eq!(pos[key], value, "{key} in {pos}");
    }
    assert!(pos.get("result").is_none(), "no result without counters");
    let moves = pos["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 13);
    for m in moves {
        // As stored for the side to move after the move.
        let expected = match m["move"].as_str().unwrap() {
            "2-9" => json!({"move": "2-9", "wdl": "loss", "dtw": 6, "class": "loss", "count": 6}),
            "2-6" => json!({"move": "2-6", "wdl": "loss", "dtw": 8, "class": "loss", "count": 8}),
            other => {
                json!({"move": other, "wdl": "draw", "dtw": null, "class": "draw", "count": null})
            }
        };
        assert_eq!(*m, expected);
    }

    // 7 <= 10 - 3: still won with 3 plies used in the category; with 4 it is a draw. The 6.2
    // count does not matter inside a category.
    let tables = Tablebase::open(dir.path()).unwrap();
    let position = Position::from_fen(Variant::Brazilian, fen).unwrap();
    for (counters, result) in [
        ("0,3", "win"),
        ("0,4", "draw"),
        ("40,3", "win"),
        ("0,0", "win"),
        ("0,10", "draw"),
    ] {
        let pos = probe(&dir, &["--counters", counters], fen);
        assert_eq!(pos["result"], result, "counters {counters}: {pos}");
        let live: Counters = counters.parse().unwrap();
        assert_eq!(pos["king_plies"], live.king_plies);
        assert_eq!(pos["category_plies"], live.category_plies);
        // The library says the same.
        let outcome = tables.probe_draw_rules(&position, live).unwrap();
        assert_eq!(outcome.result.name(), result);
    }
    // With counters, each move has the counters after it and the result of the side to move
    // then: after 2-9 Black loses in 6 plies, with 10 - 4 = 6 left; after 2-6 Black needs 8.
    let pos = probe(&dir, &["--counters", "0,3"], fen);
    for m in pos["moves"].as_array().unwrap() {
        assert_eq!(
            (&m["king_plies"], &m["category_plies"]),
            (&json!(1), &json!(4))
        );
        let expected = if m["move"] == "2-9" { "loss" } else { "draw" };
        assert_eq!(m["result"], expected, "{m}");
    }
    let out = ok(&[
        "probe",
        "-v",
        "brazilian",
        "--data",
        data(&dir),
        "--counters",
        "0,3",
        fen,
    ]);
    let mut lines = out.lines();
    assert_eq!(
        lines.next().unwrap(),
        format!("brazilian {fen} win in 7 plies (4 moves); rule 6.4: win, count 7; counters 0,3: win (rules {FMJD})")
    );
    assert!(
        out.contains("\n  2-9   win in 7 plies (4 moves); win, count 7; counters 1,4: win\n"),
        "{out}"
    );
    assert!(
        out.contains("\n  2-6   win in 9 plies (5 moves); win, count 9; counters 1,4: draw\n"),
        "{out}"
    );

    // Two kings against a man: no category, rule 6.2 (50 plies) counts. A king move, then
    // the capture after Black's man move: count 2.
    let fen = "W:WK1,K2:B12";
    let pos = probe(&dir, &[], fen);
    assert_eq!(
        (&pos["rule"], &pos["class"], &pos["count"]),
        (&json!("6.2"), &json!("win"), &json!(2))
    );
    for (counters, result) in [("48,0", "win"), ("49,0", "draw"), ("48,99", "win")] {
        let pos = probe(&dir, &["--counters", counters], fen);
        assert_eq!(pos["result"], result, "counters {counters}: {pos}");
    }
}

#[test]
fn line_plays_the_game_out() {
    let (dir, _) = generate(None);
    let fen = "W:WK1,K2:BK28";
    let pos = probe(&dir, &["--line"], fen);
    let line = pos["line"].as_array().unwrap();
    // The limits do not bind: the game lasts exactly the distance to win.
    assert_eq!(line.len() as u64, pos["dtw"].as_u64().unwrap(), "{pos}");
    assert_eq!(pos["end"], "White wins: Black has no piece left");
    // Replayed by the library: legal moves, the counters of Counters::after, the values the
    // tables give, a loss for Black after every White move.
    let tables = Tablebase::open(dir.path()).unwrap();
    let mut position = Position::from_fen(Variant::Brazilian, fen).unwrap();
    let mut counters = Counters::FRESH;
    for (n, ply) in line.iter().enumerate() {
        let mv = position.parse_move(ply["move"].as_str().unwrap()).unwrap();
        let next = position.play(&mv);
        counters = counters.after(&position, &mv, &next);
        position = next;
        assert_eq!(ply["king_plies"], counters.king_plies, "{ply}");
        assert_eq!(ply["category_plies"], counters.category_plies, "{ply}");
        let outcome = tables.probe_draw_rules(&position, counters).unwrap();
        assert_eq!(ply["result"], outcome.result.name(), "{ply}");
        let expected = if n % 2 == 0 { Wdl::Loss } else { Wdl::Win };
        assert_eq!(outcome.result, expected, "{ply}");
        assert_eq!(ply["dtw"], 6 - n as u64, "{ply}");
    }
    assert!(position
        .side_pieces(rafle_probe::draughts::Color::Black)
        .is_empty());

    // The same as text: a line per ply and the end.
    let out = ok(&[
        "probe",
        "-v",
        "brazilian",
        "--data",
        data(&dir),
        "--line",
        fen,
    ]);
    let tail: Vec<&str> = out.lines().skip_while(|l| *l != "  line:").collect();
    assert_eq!(tail.len(), 1 + 7 + 1, "{out}");
    assert_eq!(
        tail[1],
        "     1. 2-9    1,1  Black loses (loss, count 6, dtw 6)"
    );
    assert_eq!(tail[8], "  end: White wins: Black has no piece left");

    // No move at all: the game is over before it starts.
    let pos = probe(&dir, &["--line"], "W:W29:B25,22");
    assert_eq!(pos["line"], json!([]));
    assert_eq!(pos["end"], "Black wins: White has no move");
    // The counter already at its limit: drawn, though the tables say won.
    let pos = probe(&dir, &["--line", "--counters", "0,10"], fen);
    assert_eq!(pos["line"], json!([]));
    assert_eq!(pos["end"], "draw: rule 6.4 (10 plies)");
    // Three plies left: the win in 7 no longer fits, the game is drawn by rule 6.4 with both
    // sides keeping the draw.
    let pos = probe(&dir, &["--line", "--counters", "3,7"], fen);
    let line = pos["line"].as_array().unwrap();
    assert_eq!(line.len(), 3, "{pos}");
    assert!(line.iter().all(|p| p["result"] == "draw"), "{pos}");
    assert_eq!(line[2]["category_plies"], 10);
    assert_eq!(pos["end"], "draw: rule 6.4 (10 plies)");
}

#[test]
fn tight_limits_make_cursed_wins_and_blessed_losses() {
    let (dir, summary) = generate(Some(TIGHT));
    // Won in 7 plies, but rule 6.4 allows 3 here: a cursed win, drawn in play.
    let fen = "W:WK1,K2:BK28";
    let pos = probe(&dir, &[], fen);
    assert_eq!(
        (&pos["wdl"], &pos["dtw"], &pos["class"], &pos["count"]),
        (&json!("win"), &json!(7), &json!("cursed_win"), &Value::Null)
    );
    assert_eq!(pos["limits"], TIGHT);
    let pos = probe(&dir, &["--line"], fen);
    let line = pos["line"].as_array().unwrap();
    assert_eq!(line.len(), 3, "{pos}");
    assert!(line.iter().all(|p| p["result"] == "draw"), "{pos}");
    assert_eq!(pos["end"], "draw: rule 6.4 (3 plies)");
    // Its other side: every move of the lone king loses ignoring the rules, two of them only
    // after the limit.
    let pos = probe(&dir, &[], "B:WK1,K3:BK10");
    assert_eq!(
        (&pos["wdl"], &pos["class"]),
        (&json!("loss"), &json!("blessed_loss"))
    );
    // A win in 3 fits in 3 plies, not in 2.
    let fen = "W:WK1,K3:BK21";
    let pos = probe(&dir, &["--line"], fen);
    assert_eq!((&pos["class"], &pos["count"]), (&json!("win"), &json!(3)));
    assert_eq!(pos["line"].as_array().unwrap().len(), 3, "{pos}");
    assert_eq!(pos["end"], "White wins: Black has no piece left");
    let pos = probe(&dir, &["--counters", "0,1"], fen);
    assert_eq!(pos["result"], "draw");

    // The summary counts them, and stats read the same from the tables.
    let summary = rows(&summary);
    let total = &summary.iter().find(|(m, _)| m == "total").unwrap().1;
    assert_ne!(cell(total, "cursed"), "0");
    assert_ne!(cell(total, "blessed"), "0");
    let stats = rows(&ok(&["stats", "-v", "brazilian", "--data", data(&dir)]));
    assert_eq!(stats.len(), summary.len());
    // The summary lists the materials in the order they were solved, stats by name.
    for (material, generated) in &summary {
        let counted = &(stats.iter().find(|(name, _)| name == material))
            .unwrap_or_else(|| panic!("{material} not in stats"))
            .1;
        for (generate_column, stats_column) in [
            ("positions", "positions"),
            ("wins", "wins"),
            ("draws", "draws"),
            ("losses", "losses"),
            ("cursed", "cursed"),
            ("blessed", "blessed"),
            ("longest", "longest"),
        ] {
            assert_eq!(
                cell(generated, generate_column),
                cell(counted, stats_column),
                "{material} {generate_column}"
            );
        }
    }
}

#[test]
fn stats_count_what_generate_summarised() {
    let (dir, summary) = generate(None);
    let summary = rows(&summary);
    let out = ok(&["stats", "-v", "brazilian", "--data", data(&dir)]);
    assert!(
        out.starts_with(&format!(
            "brazilian: 9 materials up to 3 pieces, rules {FMJD}\n"
        )),
        "{out}"
    );
    let stats = rows(&out);
    assert_eq!(stats.len(), 10, "{out}");
    let tables = Tablebase::open(dir.path()).unwrap();
    // The summary lists the materials in the order they were solved, stats by name.
    for (material, generated) in &summary {
        let counted = &(stats.iter().find(|(name, _)| name == material))
            .unwrap_or_else(|| panic!("{material} not in stats"))
            .1;
        let number = |row: &[(String, String)], column: &str| -> u64 {
            cell(row, column).parse().expect(column)
        };
        for column in ["positions", "wins", "draws", "losses", "longest"] {
            assert_eq!(
                number(generated, column),
                number(counted, column),
                "{material} {column}"
            );
        }
        // The classes split the positions; under the FMJD limits, 3 pieces are never cursed.
        let classes: u64 = [
            "rule wins",
            "cursed",
            "rule draws",
            "blessed",
            "rule losses",
        ]
        .iter()
        .map(|c| number(counted, c))
        .sum();
        assert_eq!(classes, number(counted, "positions"), "{material}");
        assert_eq!(number(counted, "rule wins"), number(counted, "wins"));
        // The position given for the longest win has that distance.
        let fen = cell(counted, "longest win at");
        let pos = Position::from_fen(Variant::Brazilian, fen).unwrap();
        assert_eq!(
            tables.probe_dtw(&pos).unwrap(),
            rafle_probe::Dtw::Win(number(counted, "longest") as u16),
            "{material} {fen}"
        );
    }
    // The same as JSON.
    let json: Vec<Value> = ok(&["stats", "--data", data(&dir), "--json"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(json.len(), 10);
    let total = &json[9];
    assert_eq!(total["material"], "total");
    assert_eq!(total["limits"], FMJD);
    let summary_total = &summary[9].1;
    assert_eq!(
        total["positions"].to_string(),
        cell(summary_total, "positions")
    );
    assert_eq!(total["wins"].to_string(), cell(summary_total, "wins"));
    assert_eq!(total["classes"]["cursed_win"], 0);
    assert_eq!(total["classes"]["win"], total["wins"]);
    assert_eq!(total["longest_win"], 25);
    let fen = total["longest_win_fen"].as_str().unwrap();
    assert_eq!(
        probe(&dir, &[], fen)["dtw"],
        25,
        "the longest win of all is at {fen}"
    );
}

/// `stats` reads what `generate` counted from its summaries, and counts from the tables a
/// material whose summary is gone or damaged, saying so on stderr: the same figures either way.
#[test]
fn stats_from_summaries_are_those_counted_from_the_tables() {
    // Tight limits, so that the classes are not the values without the rules.
    let (dir, _) = generate(Some(TIGHT));
    let stats = |extra: &[&str]| {
        let mut args = vec!["stats", "-v", "brazilian", "--data", data(&dir)];
        args.extend_from_slice(extra);
        let out = rafle(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        (text(&out.stdout), text(&out.stderr))
    };
    let (from_summaries, err) = stats(&[]);
    assert_eq!(err, "", "nothing counted");
    let (json_from_summaries, _) = stats(&["--json"]);
    let work = dir.path().join("brazilian").join(".rafle-work");
    let summaries: Vec<_> = std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "summary"))
        .collect();
    assert_eq!(summaries.len(), 9);
    // One gone: that material alone is counted.
    std::fs::remove_file(work.join("KMvK.summary")).unwrap();
    let (counted, err) = stats(&[]);
    assert_eq!(counted, from_summaries);
    assert!(
        err.starts_with("brazilian: counting 1 of 9 materials from their tables")
            && err.contains("\nbrazilian KMvK: ")
            && err.contains(" positions counted in "),
        "{err}"
    );
    // Every one damaged (a byte changed): never trusted, all counted.
    for path in &summaries[..] {
        if let Ok(mut bytes) = std::fs::read(path) {
            let at = bytes.iter().position(|&b| b == b'\n').unwrap() + 9;
            bytes[at] ^= 0x01;
            std::fs::write(path, bytes).unwrap();
        }
    }
    let (counted, err) = stats(&[]);
    assert_eq!(counted, from_summaries);
    assert!(
        err.starts_with("brazilian: counting 9 of 9 materials"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 10, "{err}");
    assert_eq!(stats(&["--json"]).0, json_from_summaries);
    let total = rows(&counted).pop().unwrap().1;
    assert_ne!(cell(&total, "cursed"), "0");
    assert_ne!(cell(&total, "blessed"), "0");
}

/// `rafle probe` lists the moves best first, in the order of the library's
/// `Answer::order_best_first`, which the HTTP API, the explorer and Python give.
#[test]
fn probe_lists_the_moves_best_first_as_the_api_does() {
    let (dir, _) = generate(None);
    let tables = Tablebase::open(dir.path()).unwrap();
    let cases: [(&str, &[&str]); 5] = [
        ("B:W29:B25,22", &[]),
        ("W:WK1,K2:BK28", &[]),
        ("W:WK1,K2:BK28", &["--counters", "40,8"]),
        ("W:W22:BK4", &[]),
        ("B:WK1,10:BK32", &[]),
    ];
    for (fen, extra) in cases {
        let listed: Vec<String> = probe(&dir, extra, fen)["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["move"].as_str().unwrap().to_string())
            .collect();
        let pos = Position::from_fen(Variant::Brazilian, fen).unwrap();
        let counters = extra.get(1).map(|c| c.parse().unwrap());
        let options = rafle_probe::answer::Options {
            counters,
            line: false,
        };
        let mut answer = rafle_probe::Answer::probe(&tables, &pos, options).unwrap();
        answer.order_best_first();
        let best_first: Vec<String> = answer.moves.iter().map(|m| m.text.clone()).collect();
        assert_eq!(listed, best_first, "{fen} {extra:?}");
        assert!(listed.len() > 1, "{fen}");
    }
    // Black wins with 25-30 and loses with 22-26: the win first, in text as in JSON.
    let text = ok(&[
        "probe",
        "-v",
        "brazilian",
        "--data",
        data(&dir),
        "B:W29:B25,22",
    ]);
    let moves: Vec<&str> = text.lines().skip(1).map(str::trim_start).collect();
    assert!(
        moves[0].starts_with("25-30  win") && moves[1].starts_with("22-26  loss"),
        "{text}"
    );
}

#[test]
fn mixed_limits_are_refused_until_regenerated() {
    let (dir, _) = generate(None);
    let (tight, _) = generate(Some(TIGHT));
    let copy = |from: &TempDir, to: &TempDir| {
        let path = |d: &TempDir| d.path().join("brazilian").join("KKvK.rules");
        std::fs::copy(path(from), path(to)).unwrap();
    };
    copy(&tight, &dir);
    let err = fails(
        &[
            "probe",
            "-v",
            "brazilian",
            "--data",
            data(&dir),
            "W:W29:B25",
        ],
        1,
    );
    assert!(
        err.contains("mix draw-rule limits")
            && err.contains("KKvK.rules has 6.2=6,6.3=4,6.4=3")
            && err.contains(FMJD),
        "{err}"
    );
    let err = fails(&["stats", "--data", data(&dir)], 1);
    assert!(err.contains("mix draw-rule limits"), "{err}");
    // Generating again with the directory's limits recomputes just that rule table.
    let out = ok(&[
        "generate",
        "-v",
        "brazilian",
        "--pieces",
        "3",
        "--data",
        data(&dir),
    ]);
    let rebuilt: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("rebuilt: ") && l.contains("other draw-rule limits"))
        .collect();
    assert_eq!(rebuilt.len(), 1, "{out}");
    assert!(rebuilt[0].starts_with("brazilian  KKvK "), "{out}");
    assert_eq!(probe(&dir, &[], "W:W29:B25")["limits"], FMJD);
}

#[test]
fn without_rule_tables_probe_answers_the_rest() {
    let (dir, _) = generate(None);
    let sub = dir.path().join("brazilian");
    for entry in std::fs::read_dir(&sub).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rules") {
            std::fs::remove_file(path).unwrap();
        }
    }
    let pos = probe(&dir, &[], "W:W29:B25");
    assert_eq!(
        pos,
        json!({
            "variant": "brazilian", "fen": "W:W29:B25", "wdl": "win", "dtw": 1, "class": null,
            "count": null,
            "rule": "6.2", "limits": null,
            "moves": [{"move": "29x22", "wdl": "loss", "dtw": 0, "class": null, "count": null}]
        })
    );
    let out = ok(&[
        "probe",
        "-v",
        "brazilian",
        "--data",
        data(&dir),
        "W:W29:B25",
    ]);
    assert_eq!(
        out,
        "brazilian W:W29:B25 win in 1 ply (1 move); rule 6.2: class unavailable (no rule tables)\n  29x22  win in 1 ply (1 move)\n"
    );
    for option in ["--line", "--counters=0,0"] {
        let err = fails(
            &[
                "probe",
                "-v",
                "brazilian",
                "--data",
                data(&dir),
                option,
                "W:W29:B25",
            ],
            1,
        );
        assert!(
            err.contains("needs the draw-rule tables") && err.contains(".rules"),
            "{err}"
        );
    }
    let out = ok(&["stats", "-v", "brazilian", "--data", data(&dir)]);
    assert!(out.starts_with("brazilian: 9 materials up to 3 pieces, no rule tables\n"));
    let total = rows(&out).pop().unwrap().1;
    assert_eq!(cell(&total, "cursed"), "-");
    assert_eq!(cell(&total, "positions"), "201272");
}

#[test]
fn bad_limits_and_counters_exit_2() {
    let dir = TempDir::new().unwrap();
    for limits in ["6.5=3", "6.2=0", "6.2=126", "6.2", "6.2=x", "50"] {
        let err = fails(
            &[
                "generate",
                "-v",
                "brazilian",
                "--pieces",
                "2",
                "--data",
                data(&dir),
                "--limits",
                limits,
            ],
            2,
        );
        assert!(err.contains("bad limits"), "{err}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    for counters in ["1", "a,b", "1,2,3", "-1,0", "1,99999", ""] {
        let option = format!("--counters={counters}");
        let err = fails(&["probe", "--data", data(&dir), &option, "W:W28:B23"], 2);
        assert!(err.contains("--counters"), "{err}");
    }
    // A partial list keeps the other limits: only 6.4 changes.
    let out = rafle(&[
        "generate",
        "-v",
        "brazilian",
        "--pieces",
        "2",
        "--data",
        data(&dir),
        "--limits",
        "6.4=4",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let pos = ok(&[
        "probe",
        "-v",
        "brazilian",
        "--data",
        data(&dir),
        "--json",
        "W:WK1:BK32",
    ]);
    let pos: Value = serde_json::from_str(&pos).unwrap();
    assert_eq!(pos["limits"], "6.2=50,6.3=40,6.4=4");
    // The text names the limits too.
    let out = ok(&[
        "probe",
        "-v",
        "brazilian",
        "--data",
        data(&dir),
        "W:WK1:BK32",
    ]);
    assert!(
        out.lines()
            .next()
            .unwrap()
            .ends_with("(rules 6.2=50,6.3=40,6.4=4)"),
        "{out}"
    );
}
