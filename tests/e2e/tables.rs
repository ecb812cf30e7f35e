//! End-to-end tests of `rafle generate`, `rafle probe` and `rafle verify` on small tables (up
//! to 3 pieces), each test in its own temporary directory: output formats, exit codes, reuse
//! and rebuilding of tables, determinism, and damaged tables reported without a panic.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use tempfile::TempDir;

use crate::common;
use common::{fails, ok, probe_json, rafle, rafle_with_input, text};

/// The materials of up to 3 pieces, in the order they are generated.
const MATERIALS_3: [&str; 9] = [
    "KvK", "KKvK", "KvM", "MvM", "KKvM", "KMvK", "KMvM", "MMvK", "MMvM",
];

/// Generates tables up to 3 pieces into a new directory; returns it and the summary.
fn generate(variant: &str, extra: &[&str]) -> (TempDir, String) {
    let dir = TempDir::new().unwrap();
    let (summary, _) = generate_in(dir.path(), variant, extra);
    (dir, summary)
}

/// Generates tables up to 3 pieces into `dir`; returns the summary and the notes on stderr
/// other than the plan lines and the line per material.
fn generate_in(dir: &Path, variant: &str, extra: &[&str]) -> (String, String) {
    let data = dir.to_str().unwrap();
    let mut args = vec![
        "generate",
        "--variant",
        variant,
        "--pieces",
        "3",
        "--data",
        data,
    ];
    args.extend_from_slice(extra);
    let out = rafle(&args);
    let err = text(&out.stderr);
    assert!(out.status.success(), "rafle {args:?} failed: {err}");
    // Not a terminal: no progress bar, only the plan lines.
    assert!(
        !err.contains('\r') && !err.contains('\x1b'),
        "bar output on stderr: {err:?}"
    );
    let plans = if variant == "all" { 2 } else { 1 };
    let mut lines = err.lines();
    for line in lines.by_ref().take(plans) {
        assert!(
            line.contains(": 9 materials up to 3 pieces, "),
            "plan line '{line}'"
        );
    }
    // Then, with no bars, a line per material, and any other notes.
    let (done, notes): (Vec<&str>, Vec<&str>) =
        lines.partition(|l| l.contains(" positions, ") && l.starts_with(['b', 'i']));
    assert_eq!(done.len(), 9 * plans, "{err}");
    (text(&out.stdout), notes.join("\n"))
}

/// A row of the generate summary: the numbers are the positions, wins, draws, losses, cursed
/// wins, blessed losses, longest win, seconds, and the bytes of the win/draw/loss, distance and
/// rule tables.
#[derive(Debug)]
struct Row {
    variant: String,
    material: String,
    numbers: Vec<String>,
    note: String,
}

/// The rows of a generate summary, headers and blank lines left out.
fn summary_rows(summary: &str) -> Vec<Row> {
    summary
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with("variant "))
        .map(|line| {
            let mut fields = line.split_whitespace();
            let variant = fields.next().unwrap().to_string();
            let material = fields.next().unwrap().to_string();
            let numbers: Vec<String> = fields.by_ref().take(11).map(String::from).collect();
            assert_eq!(numbers.len(), 11, "summary line '{line}'");
            let note = fields.collect::<Vec<_>>().join(" ");
            Row {
                variant,
                material,
                numbers,
                note,
            }
        })
        .collect()
}

/// Every file under `dir`, by path relative to it, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut all = BTreeMap::new();
    for variant in std::fs::read_dir(dir).unwrap() {
        let variant = variant.unwrap().path();
        for file in std::fs::read_dir(&variant).unwrap() {
            let file = file.unwrap().path();
            // The tables, not the work directory.
            if !file.is_file() {
                continue;
            }
            let name = file
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            all.insert(name, std::fs::read(&file).unwrap());
        }
    }
    all
}

fn table(dir: &TempDir, variant: &str, material: &str) -> std::path::PathBuf {
    dir.path().join(variant).join(format!("{material}.wdl"))
}

/// Flips every bit of the byte in the middle of a file.
fn corrupt(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(path, bytes).unwrap();
}

fn truncate(path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    std::fs::write(path, &bytes[..bytes.len() / 2]).unwrap();
}

/// `rafle probe --json` on Brazilian tables, one object per FEN.
fn probe_brazilian(dir: &TempDir, fen: &str) -> Value {
    probe_json(dir, "brazilian", &[], fen)
}

#[test]
fn generate_summarises_every_material_and_verify_passes() {
    let (dir, summary) = generate("all", &[]);
    let rows = summary_rows(&summary);
    assert_eq!(
        summary
            .lines()
            .filter(|l| l.starts_with("variant "))
            .count(),
        2,
        "{summary}"
    );
    for variant in ["international", "brazilian"] {
        let of_variant: Vec<&Row> = rows.iter().filter(|r| r.variant == variant).collect();
        let names: Vec<&str> = of_variant.iter().map(|r| r.material.as_str()).collect();
        assert_eq!(names[..9], MATERIALS_3, "{summary}");
        assert_eq!(names[9], "total");
        let total = of_variant[9];
        assert!(
            total.note.contains(" bits/position, dtw ") && total.note.contains(", rules "),
            "{summary}"
        );
        let mut positions = 0u64;
        for row in &of_variant[..9] {
            assert_eq!(row.note, "", "fresh tables have no note: {summary}");
            let n: Vec<u64> = [0, 1, 2, 3, 4, 5, 8, 9, 10]
                .iter()
                .map(|&i| row.numbers[i].parse().unwrap())
                .collect();
            assert_eq!(n[0], n[1] + n[2] + n[3], "wins + draws + losses: {summary}");
            // Under the FMJD limits no material of 3 pieces has a win the rules spoil.
            assert_eq!(
                (n[4], n[5]),
                (0, 0),
                "no cursed win or blessed loss: {summary}"
            );
            let path = table(&dir, variant, &row.material);
            for (extension, bytes) in [("wdl", n[6]), ("dtw", n[7]), ("rules", n[8])] {
                let path = path.with_extension(extension);
                assert_eq!(
                    std::fs::metadata(&path).unwrap().len(),
                    bytes,
                    "bytes of {path:?}"
                );
            }
            positions += n[0];
        }
        assert_eq!(total.numbers[0], positions.to_string());
    }

    let data = dir.path().to_str().unwrap();
    let out = ok(&["verify", "--data", data]);
    assert_eq!(out.lines().count(), 19, "{out}");
    let last = out.lines().last().unwrap();
    assert!(
        last.starts_with("verified 18 materials, ") && last.ends_with(" positions: all ok"),
        "{out}"
    );
    for line in out.lines().take(18) {
        let fields: Vec<&str> = line.split(' ').collect();
        assert!(
            matches!(fields[..], [_, _, n, "positions", "ok"] if n.parse::<u64>().is_ok()),
            "{line}"
        );
    }
    assert!(
        out.contains("\nbrazilian MMvM 19872 positions ok\n"),
        "{out}"
    );
    let out = ok(&["verify", "--variant", "brazilian", "--data", data]);
    assert_eq!(out.lines().count(), 10, "{out}");
}

#[test]
fn probe_gives_known_values_and_consistent_moves() {
    let (dir, _) = generate("brazilian", &[]);
    // Capturing the last black piece wins; the move leaves Black, to move, lost.
    let pos = probe_brazilian(&dir, "W:W29:B25");
    assert_eq!(
        pos,
        serde_json::json!({
            "variant": "brazilian", "fen": "W:W29:B25", "wdl": "win", "dtw": 1, "class": "win",
            "count": 1, "rule": "6.2", "limits": "6.2=50,6.3=40,6.4=10",
            "moves": [{"move": "29x22", "wdl": "loss", "dtw": 0, "class": "loss", "count": 0}]
        })
    );
    // White's only man is blocked, and the square behind the blocker is taken: no move, lost.
    let pos = probe_brazilian(&dir, "W:W29:B25,22");
    assert_eq!(
        pos,
        serde_json::json!({
            "variant": "brazilian", "fen": "W:W29:B25,22", "wdl": "loss", "dtw": 0,
            "class": "loss", "count": 0,
            "rule": "6.2", "limits": "6.2=50,6.3=40,6.4=10", "moves": []
        })
    );

    let data = dir.path().to_str().unwrap();
    let fens = [
        "B:W29:B25,22",
        "W:WK1,K2:BK32",
        "B:WK1,K2:BK32",
        "W:W21:B1",
        "B:WK18:B9,10",
        "W:W22,23:B14",
    ];
    for fen in fens {
        let pos = probe_brazilian(&dir, fen);
        let moves = pos["moves"].as_array().unwrap();
        let after: Vec<&str> = moves.iter().map(|m| m["wdl"].as_str().unwrap()).collect();
        match pos["wdl"].as_str().unwrap() {
            "win" => assert!(after.contains(&"loss"), "{pos}"),
            "loss" => assert!(after.iter().all(|&w| w == "win"), "{pos}"),
            "draw" => assert!(after.contains(&"draw") && !after.contains(&"loss"), "{pos}"),
            other => panic!("bad value {other} in {pos}"),
        }
        // The distance: the quickest win over a lost successor, the longest loss, none for a
        // draw.
        let after_dtw = |value: &str| -> Vec<u64> {
            moves
                .iter()
                .filter(|m| m["wdl"] == value)
                .map(|m| m["dtw"].as_u64().unwrap())
                .collect()
        };
        let expected = match pos["wdl"].as_str().unwrap() {
            "win" => serde_json::json!(after_dtw("loss").into_iter().min().unwrap() + 1),
            "loss" => serde_json::json!(after_dtw("win").into_iter().max().map_or(0, |d| d + 1)),
            _ => serde_json::Value::Null,
        };
        assert_eq!(pos["dtw"], expected, "{pos}");
        // Under the FMJD limits no position of 3 pieces is a cursed win or a blessed loss:
        // the class is the value, with a count for a win or a loss.
        for value in std::iter::once(&pos).chain(moves) {
            assert_eq!(value["class"], value["wdl"], "{pos}");
            assert_eq!(value["count"].is_null(), value["wdl"] == "draw", "{pos}");
        }
        // The moves of `rafle moves`, in its notation (listed best first: the order is
        // tests/e2e/rules.rs's).
        let mut texts: Vec<&str> = moves.iter().map(|m| m["move"].as_str().unwrap()).collect();
        let listed = ok(&["moves", "--variant", "brazilian", fen]);
        let mut listed: Vec<&str> = listed.lines().collect();
        texts.sort_unstable();
        listed.sort_unstable();
        assert_eq!(texts, listed, "{fen}");

        // Text: the variant, the FEN and its value, then each move with its result for the
        // mover.
        let out = ok(&["probe", "--variant", "brazilian", "--data", data, fen]);
        let mut lines = out.lines();
        let first = lines.next().unwrap();
        let first = first.strip_prefix("brazilian ").expect("the variant first");
        match pos["dtw"].as_u64() {
            Some(d) => assert!(
                first.starts_with(&format!("{fen} {} in {d} pl", pos["wdl"].as_str().unwrap())),
                "{first}"
            ),
            None => assert!(first.starts_with(&format!("{fen} draw; ")), "{first}"),
        }
        for (line, m) in lines.zip(moves) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let mover = match m["wdl"].as_str().unwrap() {
                "win" => "loss",
                "loss" => "win",
                _ => "draw",
            };
            assert!(line.starts_with("  "), "{line}");
            assert_eq!(fields[0], m["move"].as_str().unwrap(), "{out}");
            assert_eq!(fields[1].trim_end_matches(';'), mover, "{out}");
            if let Some(d) = m["dtw"].as_u64() {
                assert_eq!(fields[3], (d + 1).to_string(), "{line}");
            }
        }
        assert_eq!(out.lines().count(), 1 + moves.len(), "{out}");
    }
}

#[test]
fn probe_batch_reports_bad_lines_and_goes_on() {
    let (dir, _) = generate("brazilian", &[]);
    let data = dir.path().to_str().unwrap();
    let input = "W:W29:B25\n\n  not a fen  \nW:W29:B25,22\r\n";
    let out = rafle_with_input(
        &["probe", "-v", "brazilian", "--data", data, "--json"],
        Some(input),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "rafle: 1 of 3 positions could not be probed\n"
    );
    let lines: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["wdl"], "win");
    assert_eq!(lines[1]["fen"], "not a fen");
    assert!(
        lines[1]["error"].as_str().unwrap().contains("invalid FEN"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[1].as_object().unwrap().len(), 2);
    assert_eq!(lines[2]["fen"], "W:W29:B25,22");
    assert_eq!(lines[2]["wdl"], "loss");

    // The same from arguments, as text.
    let out = rafle(&[
        "probe",
        "-v",
        "brazilian",
        "--data",
        data,
        "W:W29:B25",
        "W:W99",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "brazilian W:W29:B25 win in 1 ply (1 move); rule 6.2: win, count 1 (rules 6.2=50,6.3=40,6.4=10)",
            "  29x22  win in 1 ply (1 move); win, count 1"
        ]
    );
    assert!(lines[2].starts_with("W:W99 error: "), "{stdout}");
    assert_eq!(lines.len(), 3);

    // Control characters read from standard input are escaped, never echoed raw.
    let out = rafle_with_input(
        &["probe", "-v", "brazilian", "--data", data],
        Some("W:W\0\x1b[31m:B1\n\x07W:W29:B25\n"),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "W:W\\0\\u{1b}[31m:B1 error: invalid FEN at column 4: found '\\0\\u{1b}[31m' where a \
         square was expected\n\
         \\u{7}W:W29:B25 error: invalid FEN at column 1: found '\\u{7}W' where the side to move, \
         W or B was expected\n"
    );

    // All good: exit 0.
    let out = rafle_with_input(
        &["probe", "-v", "brazilian", "--data", data],
        Some("W:W29:B25\nW:W29:B25,22\n"),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "brazilian W:W29:B25 win in 1 ply (1 move); rule 6.2: win, count 1 (rules 6.2=50,6.3=40,6.4=10)\n\
         \x20 29x22  win in 1 ply (1 move); win, count 1\n\
         brazilian W:W29:B25,22 loss in 0 plies (0 moves); rule 6.2: loss, count 0 (rules 6.2=50,6.3=40,6.4=10)\n"
    );
}

#[test]
fn probe_rejects_bad_input_in_one_line() {
    let (dir, _) = generate("brazilian", &[]);
    let data = dir.path().to_str().unwrap();
    let err = fails(&["probe", "-v", "brazilian", "--data", data, "W:W33:B1"], 2);
    assert!(err.contains("invalid FEN"), "{err}");
    // More pieces than the tables cover is a question they cannot answer: bad input.
    let err = fails(
        &["probe", "-v", "brazilian", "--data", data, "W:W21-32:B1-12"],
        2,
    );
    assert!(
        err.contains("24 pieces") && err.contains("at most 3"),
        "{err}"
    );
    // One piece more than the set: the message names the command that builds it.
    let err = fails(
        &["probe", "-v", "brazilian", "--data", data, "W:W21,22:B1,2"],
        2,
    );
    assert!(
        err.contains(
            "the brazilian tables cover at most 3: build tables up to 4 pieces with 'rafle \
             generate --variant brazilian --pieces 4' ('rafle plan --variant brazilian --pieces \
             4' says first the memory and disk it needs)"
        ),
        "{err}"
    );
    // An international FEN (square 45): no note of a variant assumed, the one error alone.
    let err = fails(&["probe", "--data", data, "W:W45:B23"], 1);
    assert!(err.contains("international"), "{err}");
    let missing = dir.path().join("nowhere");
    let err = fails(
        &["probe", "--data", missing.to_str().unwrap(), "W:W45:B23"],
        1,
    );
    assert!(err.contains("nowhere"), "{err}");
}

#[test]
fn damaged_tables_fail_verify_and_probe_naming_the_file() {
    for damage in [corrupt as fn(&Path), truncate] {
        let (dir, _) = generate("brazilian", &[]);
        let data = dir.path().to_str().unwrap();
        damage(&table(&dir, "brazilian", "KKvK"));

        let out = rafle(&["verify", "--data", data]);
        assert_eq!(out.status.code(), Some(1));
        let stdout = text(&out.stdout);
        let line = stdout
            .lines()
            .find(|l| l.starts_with("brazilian KKvK "))
            .expect("a KKvK line");
        assert!(
            line.starts_with("brazilian KKvK error: table ") && line.contains("KKvK.wdl"),
            "{line}"
        );
        assert!(
            stdout.contains("brazilian KvK 1984 positions ok\n"),
            "{stdout}"
        );
        // The verdict is the last line on stderr, after the line on the memory budget.
        let err = text(&out.stderr);
        let verdict = err.lines().last().unwrap_or_default();
        assert!(
            verdict.starts_with("rafle: ") && verdict.ends_with(" materials failed verification"),
            "{err}"
        );

        // A position without a capture reads its value from the KKvK table itself.
        let err = fails(
            &["probe", "-v", "brazilian", "--data", data, "W:WK1,K2:BK32"],
            1,
        );
        assert!(err.contains("KKvK.wdl"), "{err}");
        assert!(
            err.contains("corrupted") || err.contains("truncated"),
            "{err}"
        );
    }
}

#[test]
fn a_missing_table_is_named() {
    let (dir, _) = generate("brazilian", &[]);
    let data = dir.path().to_str().unwrap();
    std::fs::remove_file(table(&dir, "brazilian", "KKvK")).unwrap();
    let err = fails(
        &["probe", "-v", "brazilian", "--data", data, "B:WK1,K2:BK32"],
        1,
    );
    assert!(err.contains("no brazilian table for KKvK"), "{err}");
    let out = rafle_with_input(
        &["probe", "-v", "brazilian", "--data", data, "--json"],
        Some("W:WK1,K2:BK32\n"),
    );
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(line["error"].as_str().unwrap().contains("KKvK"), "{line}");
    let out = rafle(&["verify", "-v", "brazilian", "--data", data]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("brazilian KKvK missing: ")),
        "{stdout}"
    );
    // The summary counts materials and missing files apart: the materials whose captures
    // reach KKvK fail, and the one file is missing.
    assert_eq!(
        stdout.lines().filter(|l| l.contains(" missing: ")).count(),
        1
    );
    // The verdict is the last line on stderr, after the line on the memory budget.
    let err = text(&out.stderr);
    let verdict = err.lines().last().unwrap_or_default();
    assert!(
        verdict.starts_with("rafle: ")
            && verdict.contains(" materials failed verification; ")
            && verdict.ends_with("; 1 table is missing"),
        "{err}"
    );
}

#[test]
fn verify_without_tables_says_so() {
    let dir = TempDir::new().unwrap();
    let err = fails(&["verify", "--data", dir.path().to_str().unwrap()], 1);
    assert!(err.contains("no tables in "), "{err}");
    let (dir, _) = generate("brazilian", &[]);
    let data = dir.path().to_str().unwrap();
    let err = fails(&["verify", "-v", "international", "--data", data], 1);
    assert!(err.contains("no international tables in "), "{err}");
}

#[test]
fn generate_again_reuses_every_table_unchanged() {
    let (dir, _) = generate("brazilian", &[]);
    let before = files(dir.path());
    // A win/draw/loss, a distance-to-win and a rule table per material.
    assert_eq!(before.len(), 27);
    let (summary, notes) = generate_in(dir.path(), "brazilian", &[]);
    assert_eq!(notes, "");
    for row in summary_rows(&summary)
        .iter()
        .filter(|r| r.material != "total")
    {
        assert_eq!(row.note, "reused", "{summary}");
    }
    assert_eq!(files(dir.path()), before);
}

#[test]
fn thread_count_does_not_change_the_tables() {
    let (one, _) = generate("all", &["--threads", "1"]);
    let (two, _) = generate("all", &["--threads", "2"]);
    let one = files(one.path());
    assert_eq!(one.len(), 54);
    assert!(
        one == files(two.path()),
        "tables differ between 1 and 2 threads"
    );
}

#[test]
fn generate_rebuilds_exactly_the_damaged_tables() {
    let (dir, _) = generate("brazilian", &[]);
    let before = files(dir.path());
    std::fs::remove_file(table(&dir, "brazilian", "MMvM")).unwrap();
    corrupt(&table(&dir, "brazilian", "KKvK"));
    // A leftover of an interrupted run is cleaned up; files and directories that only look
    // temporary are someone else's.
    let b = dir.path().join("brazilian");
    let leftover = rafle_generator::temporary_path(&b.join("KMvK.wdl"));
    std::fs::write(&leftover, b"partial").unwrap();
    std::fs::write(b.join("notes.tmp"), b"hi").unwrap();
    std::fs::create_dir(b.join("x.tmp")).unwrap();
    let (summary, notes) = generate_in(dir.path(), "brazilian", &[]);
    assert!(
        notes.contains("removed 1 temporary file left in "),
        "{notes}"
    );
    assert!(!leftover.exists());
    assert_eq!(std::fs::read(b.join("notes.tmp")).unwrap(), b"hi");
    assert!(b.join("x.tmp").is_dir());
    std::fs::remove_file(b.join("notes.tmp")).unwrap();
    for row in summary_rows(&summary)
        .iter()
        .filter(|r| r.material != "total")
    {
        match row.material.as_str() {
            "KKvK" => assert!(
                row.note.starts_with("rebuilt: table ") && row.note.contains("corrupted"),
                "{summary}"
            ),
            // Its distance-to-win table was still there: a partial material, rebuilt.
            "MMvM" => assert!(
                row.note.starts_with("rebuilt: ") && row.note.contains("MMvM.wdl"),
                "{summary}"
            ),
            _ => assert_eq!(row.note, "reused", "{summary}"),
        }
    }
    assert_eq!(files(dir.path()), before);
}

#[test]
fn generate_refuses_impossible_requests_in_one_line() {
    let dir = TempDir::new().unwrap();
    let data = dir.path().to_str().unwrap();
    let err = fails(&["generate", "--pieces", "9", "--data", data], 2);
    assert!(err.contains("pieces must be from 2 to 8, not 9"), "{err}");
    fails(&["generate", "--pieces", "1", "--data", data], 2);
    fails(&["generate", "--variant", "russian", "--data", data], 2);
    fails(&["generate", "--threads", "0", "--data", data], 2);
    // A budget below what the largest slice needs is refused up front, with the figures.
    let err = fails(
        &[
            "generate",
            "-v",
            "brazilian",
            "--pieces",
            "4",
            "--memory",
            "1M",
            "--data",
            data,
        ],
        2,
    );
    assert!(
        err.contains("needs at least") && err.contains("largest slice") && err.contains("1.0 MiB"),
        "{err}"
    );
    fails(&["generate", "--memory", "8X", "--data", data], 2);
    for (limits, why) in [
        ("6.2=50,6.2=40", "rule 6.2 is given twice, at items 1 and 2"),
        ("", "the limits list is empty"),
        (",", "empty item at position 1 of the limits list"),
        ("6.2=50,", "empty item at position 2 of the limits list"),
        (
            "6.2=50,,6.3=30",
            "empty item at position 2 of the limits list",
        ),
    ] {
        let err = fails(&["generate", "--limits", limits, "--data", data], 2);
        assert!(err.contains(why), "--limits {limits:?}: {err}");
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing written"
    );
}
