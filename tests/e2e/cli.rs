//! End-to-end tests of the `rafle` command line: output formats, exit codes, and that no input
//! makes it panic.

use crate::common;
use common::{ok, rafle};
use serde_json::json;

/// The depth and node columns of `rafle perft`.
fn perft_counts(args: &[&str]) -> Vec<(u32, u64)> {
    ok(args)
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            assert_eq!(fields.len(), 3, "perft line '{line}'");
            fields[2]
                .parse::<f64>()
                .expect("seconds column is a number");
            (fields[0].parse().unwrap(), fields[1].parse().unwrap())
        })
        .collect()
}

#[test]
fn perft_prints_one_line_per_depth() {
    assert_eq!(
        perft_counts(&["perft", "5"]),
        [(1, 9), (2, 81), (3, 658), (4, 4265), (5, 27117)]
    );
    assert_eq!(
        perft_counts(&["perft", "--variant", "brazilian", "6"]),
        [(1, 7), (2, 49), (3, 302), (4, 1469), (5, 7473), (6, 37628)]
    );
    let woldouby = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38";
    assert_eq!(
        perft_counts(&["perft", "--fen", woldouby, "3"]),
        [(1, 6), (2, 12), (3, 30)]
    );
}

#[test]
fn moves_lists_pdn_moves() {
    let out = ok(&["moves", "W:W31-50:B1-20"]);
    let moves: Vec<&str> = out.lines().collect();
    assert_eq!(
        moves,
        ["31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30"]
    );
    assert_eq!(ok(&["moves", "W:W28:B23,24"]), "28x30\n");
}

#[test]
fn moves_writes_long_form_only_for_shared_start_and_end() {
    let out = ok(&["moves", "--variant", "brazilian", "W:WK12:B7,18,19,22"]);
    assert_eq!(out, "12x23x14x3\n12x26x17x3\n");
}

#[test]
fn moves_json_has_squares_captures_and_fen_after() {
    let out = ok(&["moves", "--json", "W:WK46,19:B37"]);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[0],
        serde_json::json!({"move": "46x23", "from": 46, "to": 23, "captures": [37], "fen": "B:W19,K23:B"})
    );
    let out = ok(&["moves", "--json", "W:W28:B23,24,33,34"]);
    let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(line["captures"], serde_json::json!([23, 24, 33, 34]));
    assert_eq!(line["move"], "28x28");
}

#[test]
fn brazilian_algebraic_in_and_out() {
    let numeric = ok(&["moves", "--variant", "brazilian", "W:W21-32:B1-12"]);
    let algebraic = ok(&[
        "moves",
        "--variant",
        "brazilian",
        "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:B1-12",
    ]);
    assert_eq!(numeric, algebraic);
    let out = ok(&[
        "moves",
        "--variant",
        "brazilian",
        "--algebraic",
        "W:W21-32:B1-12",
    ]);
    assert_eq!(out.lines().next(), Some("a3-b4"));
    let out = ok(&[
        "moves",
        "-v",
        "brazilian",
        "--algebraic",
        "--json",
        "W:W22:B18",
    ]);
    let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(line["move"], "c3xe5");
    assert_eq!(line["from"], 22);
    assert_eq!(line["fen"], "B:We5:B");
}

#[test]
fn show_draws_the_board() {
    let out = ok(&["show", "B:WK46:B5"]);
    assert!(out.contains("Black to move"), "{out}");
    assert!(out.contains(" 1 |  W "), "{out}");
    assert!(out.contains("| 46-50"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("10 |") && l.contains(" b |")),
        "{out}"
    );
    let out = ok(&["show", "--variant", "brazilian", "W:W21-32:B1-12"]);
    assert!(out.contains("Brazilian draughts, White to move"), "{out}");
    assert_eq!(out.lines().filter(|l| l.contains(" | ")).count(), 8);
}

#[test]
fn bad_input_gives_one_line_and_exit_code_2() {
    let cases: &[&[&str]] = &[
        &[],
        &["frobnicate"],
        &["perft"],
        &["perft", "x"],
        &["perft", "-3"],
        &["perft", "0"],
        &["perft", "99999999999999999999"],
        &["perft", "--variant", "russian", "3"],
        &["perft", "--fen", "W:W31,51:B1", "2"],
        &["moves"],
        &["moves", ""],
        &["moves", "W:W3:B10"],
        &["moves", "W:W31,31:B1"],
        &["moves", "W:W31:B31"],
        &["moves", "W:Wz9:B1"],
        &["moves", "--variant", "brazilian", "W:Wb1:B5"],
        &["moves", "--variant", "brazilian", "W:W33:B5"],
        &["moves", "🙂"],
        &["moves", "W:W31:B1:", "extra"],
        &["show", "hello"],
        &["show", "W:W31-:B1"],
        &["probe", "--counters", "x", "W:W28:B23"],
        &["probe", "--counters", "3", "W:W28:B23"],
        &["stats", "--variant", "russian"],
        &["stats", "extra"],
    ];
    for args in cases {
        let out = rafle(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "rafle {args:?}: {stderr}");
        assert_eq!(
            stderr.lines().count(),
            1,
            "rafle {args:?} printed: {stderr}"
        );
        assert!(stderr.starts_with("rafle: "), "rafle {args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "rafle {args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "rafle {args:?} wrote to stdout");
    }
}

#[test]
fn errors_say_where() {
    let out = rafle(&["moves", "W:W31,51:B1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim(),
        "rafle: invalid FEN at column 7: square 51 is out of range (1..50)"
    );
}

/// The one line `rafle ARGS` prints on stderr, after checking it exits 2.
fn usage_error(args: &[&str]) -> String {
    let out = rafle(args);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "rafle {args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "rafle {args:?}: {stderr}");
    stderr.trim_end().to_string()
}

#[test]
fn fen_errors_name_the_character_and_its_column() {
    for (fen, message) in [
        (
            "W:W31.:B20",
            "invalid FEN at column 6: unexpected '.': a '.' may only end the FEN",
        ),
        (
            "W:W31,,32:B20",
            "invalid FEN at column 7: empty square item in a piece list: \
             found ',' where a square was expected",
        ),
        (
            "W:W31::B20",
            "invalid FEN at column 7: found ':' where W or B starting a piece list was expected",
        ),
        (
            "W:W31:B99999999999999999999",
            "invalid FEN at column 8: square 99999999999999999999 is out of range (1..50)",
        ),
    ] {
        assert_eq!(usage_error(&["moves", fen]), format!("rafle: {message}"));
    }
}

#[test]
fn numbers_out_of_range_name_the_range() {
    for depth in ["0", "4294967296", "99999999999999999999999"] {
        assert_eq!(
            usage_error(&["perft", depth]),
            format!(
                "rafle: invalid value '{depth}' for '<DEPTH>': DEPTH must be a number from 1 to \
                 4294967295 (see 'rafle --help')"
            )
        );
    }
    let err = usage_error(&["probe", "--counters", "70000,0", "W:W28:B23"]);
    assert!(
        err.contains("king_plies (K, rule 6.2) must be from 0 to 10000 plies, not 70000"),
        "{err}"
    );
    let err = usage_error(&["probe", "--counters", "0,-1", "W:W28:B23"]);
    assert!(
        err.contains("category_plies (C, rules 6.3/6.4) must be from 0 to 10000 plies, not -1"),
        "{err}"
    );
}

#[test]
fn control_characters_are_never_echoed() {
    for args in [
        &["moves", "W:W\u{1b}[31m:B\u{7}1"][..],
        // No NUL: an argument cannot hold one; standard input can (tests/e2e/tables.rs).
        &["moves", "W:W31:B1\u{8}"],
        &["stats", "--variant", "\u{1}x"],
        &["generate", "--limits", "6.2=\u{1b}"],
    ] {
        let err = usage_error(args);
        assert!(
            !err.chars().any(char::is_control),
            "rafle {args:?} echoed a control character: {err:?}"
        );
    }
}

#[test]
fn help_and_version_succeed() {
    assert!(ok(&["--help"]).contains("perft"));
    assert!(ok(&["perft", "--help"]).contains("--fen"));
    assert!(ok(&["probe", "--help"]).contains("--counters"));
    assert!(ok(&["stats", "--help"]).contains("cursed win"));
    assert!(ok(&["generate", "--help"]).contains("--limits"));
    assert!(ok(&["--version"]).starts_with("rafle "));
}

/// `serve --help` names lidraughts' routes beside the API's.
#[test]
fn serve_help_names_the_lidraughts_routes() {
    let help = ok(&["serve", "--help"]);
    for route in [
        "GET  /standard?fen=FEN",
        "GET  /fromPosition?fen=FEN",
        "GET  /brazilian?fen=FEN",
    ] {
        assert!(help.contains(route), "{route}: {help}");
    }
}

/// `rafle plan` for international up to 8 pieces answers at once: it used to build a position
/// index of every material each unit reads (a minute or more before its first line).
#[test]
fn plan_of_international_up_to_8_answers_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let start = std::time::Instant::now();
    let out = ok(&[
        "plan",
        "--variant",
        "international",
        "--pieces",
        "8",
        "--memory",
        "8G",
        "--data",
        common::data(&dir),
    ]);
    let took = start.elapsed();
    let first = out.lines().next().unwrap();
    // 210 materials and 179 seed parts of the kings-only materials past 2^30 positions.
    assert!(
        first.starts_with("international: 389 units up to 8 pieces in 17 levels, "),
        "{first}"
    );
    // Milliseconds now; generous for a loaded machine.
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
}

// ---- the first five minutes: the variant named and noted, finished games, missing tables --

/// Brazilian tables up to 3 pieces and international up to 2, in one directory.
fn both_variants() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (variant, pieces) in [("brazilian", "3"), ("international", "2")] {
        ok(&[
            "generate",
            "--variant",
            variant,
            "--pieces",
            pieces,
            "--data",
            common::data(&dir),
        ]);
    }
    dir
}

/// `rafle ARGS`: stdout and stderr of a run that succeeded.
fn ok_with_stderr(args: &[&str], stdin: Option<&str>) -> (String, String) {
    let out = common::rafle_with_input(args, stdin);
    let err = common::text(&out.stderr);
    assert!(out.status.success(), "rafle {args:?}: {err}");
    (common::text(&out.stdout), err)
}

#[test]
fn probe_names_the_variant_in_text_and_json() {
    let dir = both_variants();
    let data = common::data(&dir);
    for (variant, fen) in [
        ("brazilian", "B:W29:B25,22"),
        ("international", "W:WK1:BK50"),
    ] {
        let text = ok(&["probe", "-v", variant, "--data", data, fen]);
        let first = text.lines().next().unwrap();
        assert!(first.starts_with(&format!("{variant} {fen} ")), "{text}");
        // Move lines stay as they were: indented, the move first.
        assert!(text.lines().skip(1).all(|l| l.starts_with("  ")), "{text}");
        let json = ok(&["probe", "-v", variant, "--data", data, "--json", fen]);
        assert!(
            json.starts_with(&format!("{{\"variant\":\"{variant}\",\"fen\":\"{fen}\",")),
            "{json}"
        );
    }
    // On every line of a batch.
    let (out, _) = ok_with_stderr(
        &["probe", "-v", "brazilian", "--data", data, "--json"],
        Some("W:WK1:BK28\nB:WK1:BK28\n"),
    );
    assert!(
        out.lines()
            .all(|l| l.starts_with(r#"{"variant":"brazilian","#)),
        "{out}"
    );
}

#[test]
fn a_finished_game_has_no_moves() {
    let dir = both_variants();
    let data = common::data(&dir);
    // Black has no piece: White has won, though its man could still move on the board.
    let text = ok(&["probe", "-v", "brazilian", "--data", data, "W:W28:B"]);
    assert_eq!(text.lines().count(), 1, "no move lines: {text}");
    assert!(
        text.starts_with("brazilian W:W28:B win in 0 plies"),
        "{text}"
    );
    let json = common::probe_json(&dir, "brazilian", &[], "W:W28:B");
    assert_eq!(json["moves"], serde_json::json!([]));
    let line = common::probe_json(&dir, "brazilian", &["--line"], "W:W28:B");
    assert_eq!(line["line"], serde_json::json!([]));
    assert_eq!(line["end"], "White wins: Black has no piece left");
    // `rafle moves` agrees, and a game under way keeps its moves.
    assert_eq!(ok(&["moves", "-v", "brazilian", "W:W28:B"]), "");
    assert_eq!(ok(&["moves", "-v", "brazilian", "--json", "B:W:BK5"]), "");
    assert_eq!(ok(&["moves", "-v", "brazilian", "W:W28:B1"]), "28-24\n");
    let json = common::probe_json(&dir, "brazilian", &[], "W:W28:B1");
    assert_eq!(json["moves"].as_array().unwrap().len(), 1);
}

/// The note of a FEN read in the default variant that is a position of the other too.
const NOTE: &str = "is a position of both variants, read as international (the default); \
                    --variant brazilian reads it as brazilian";

#[test]
fn a_fen_of_both_variants_without_variant_gets_a_note() {
    for fen in ["W:WK1,K2:BK28", "W:Wc3,Kh2:Bf6"] {
        for args in [
            &["moves", fen][..],
            &["show", fen],
            &["perft", "--fen", fen, "1"],
        ] {
            let (_, err) = ok_with_stderr(args, None);
            assert_eq!(
                err,
                format!("rafle: note: {fen} {NOTE}\n"),
                "rafle {args:?}"
            );
        }
        // Not when the variant is given, either one.
        for variant in ["international", "brazilian"] {
            let (_, err) = ok_with_stderr(&["moves", "-v", variant, fen], None);
            assert_eq!(err, "", "rafle moves -v {variant} {fen}");
        }
    }
    // Not for a FEN of one variant alone: square 45, or a name past the 8x8 board.
    for fen in ["W:W45:B1", "W:Wi3:B1"] {
        let (_, err) = ok_with_stderr(&["moves", fen], None);
        assert_eq!(err, "", "rafle moves {fen}");
    }
    // Nor for a FEN valid in the other variant alone: that is an error, and only it is said.
    let err = common::fails(&["moves", "W:W3:B10"], 2);
    assert!(!err.contains("note"), "{err}");
}

#[test]
fn probe_notes_an_assumed_variant_once_a_run() {
    let dir = both_variants();
    let data = common::data(&dir);
    let (out, err) = ok_with_stderr(&["probe", "--data", data, "W:WK1:BK28"], None);
    assert!(out.starts_with("international W:WK1:BK28 "), "{out}");
    assert_eq!(err, format!("rafle: note: W:WK1:BK28 {NOTE}\n"));
    // From standard input, the first such FEN alone: a batch is not drowned in notes.
    let (out, err) = ok_with_stderr(
        &["probe", "--data", data],
        Some("W:WK45:BK50\nW:WK1:BK28\nB:WK1:BK28\n"),
    );
    assert_eq!(
        out.lines().filter(|l| !l.starts_with(' ')).count(),
        3,
        "{out}"
    );
    assert_eq!(err, format!("rafle: note: W:WK1:BK28 {NOTE}\n"));
    let (_, err) = ok_with_stderr(
        &["probe", "-v", "international", "--data", data],
        Some("W:WK1:BK28\n"),
    );
    assert_eq!(err, "");
}

#[test]
fn probe_reads_the_fen_before_looking_for_tables() {
    let empty = tempfile::tempdir().unwrap();
    let missing = empty.path().join("nowhere");
    let missing = missing.to_str().unwrap();
    // A bad FEN is the error, whatever the directory.
    for dir in [missing, common::data(&empty)] {
        let err = common::fails(&["probe", "--data", dir, "W:W31,51:B1"], 2);
        assert_eq!(
            err,
            "rafle: invalid FEN at column 7: square 51 is out of range (1..50)\n"
        );
    }
    // A good one: no tables, with the hint, whether the directory is missing or empty; the
    // same words from every command that finds none.
    let hint =
        "build them with 'rafle generate' (or point --data or RAFLE_DATA at a table directory)";
    for (dir, which) in [(missing, ""), (common::data(&empty), "international ")] {
        let err = common::fails(
            &["probe", "--data", dir, "-v", "international", "W:W45:B1"],
            1,
        );
        assert_eq!(err, format!("rafle: no {which}tables in {dir}: {hint}\n"));
        let err = common::fails(&["stats", "--data", dir], 1);
        assert_eq!(err, format!("rafle: no tables in {dir}: {hint}\n"));
        let err = common::fails(&["verify", "--data", dir], 1);
        assert_eq!(err, format!("rafle: no tables in {dir}: {hint}\n"));
    }
    let err = common::fails(&["probe", "--data", missing, "-v", "brazilian"], 1);
    assert_eq!(err, format!("rafle: no tables in {missing}: {hint}\n"));
    // Tables of the other variant alone.
    let (brazilian, _, _) = common::generate("brazilian", 2, &[]);
    let data = common::data(&brazilian);
    let err = common::fails(
        &["probe", "--data", data, "-v", "international", "W:W45:B1"],
        1,
    );
    assert_eq!(
        err,
        format!("rafle: no international tables in {data}: {hint}\n")
    );
}

/// `rafle probe` without a FEN says on stderr that it reads standard input, when that is a
/// terminal (here the pseudo-terminal of util-linux's `script`), and only then.
#[cfg(target_os = "linux")]
#[test]
fn probe_from_a_terminal_says_it_reads_standard_input() {
    let (dir, _, _) = common::generate("brazilian", 2, &[]);
    let prompt = "rafle probe: reading FENs from standard input, one a line (Ctrl-D to end)";
    let command = format!(
        "{} probe -v brazilian --data {}",
        env!("CARGO_BIN_EXE_rafle"),
        common::data(&dir)
    );
    // `script` gives the command a terminal; at the end of its own input it sends Ctrl-D.
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("util-linux's script runs");
    assert!(out.status.success(), "{out:?}");
    let seen = common::text(&out.stdout);
    assert_eq!(seen.trim_end(), prompt, "{seen:?}");
    // On a pipe, nothing but the answers.
    let (out, err) = ok_with_stderr(
        &["probe", "-v", "brazilian", "--data", common::data(&dir)],
        Some("W:WK1:BK28\n"),
    );
    assert_eq!(err, "");
    assert!(out.starts_with("brazilian W:WK1:BK28 "), "{out}");
}

/// `rafle args` run in `cwd` with `RAFLE_DATA` set to `data_env` (unset if `None`): exit
/// code, stdout and stderr.
fn rafle_in(cwd: &std::path::Path, data_env: Option<&str>, args: &[&str]) -> (i32, String, String) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_rafle"));
    command.args(args).current_dir(cwd).env_remove("RAFLE_DATA");
    if let Some(value) = data_env {
        command.env("RAFLE_DATA", value);
    }
    let out = command.output().expect("the rafle binary runs");
    (
        out.status.code().expect("rafle exits"),
        common::text(&out.stdout),
        common::text(&out.stderr),
    )
}

/// The default `data` is the current directory's: a command run elsewhere names the absolute
/// path it looked in, with the hint of --data and RAFLE_DATA.
#[test]
fn no_tables_names_the_absolute_directory_looked_in() {
    let elsewhere = tempfile::tempdir().unwrap();
    let cwd = elsewhere.path().canonicalize().unwrap();
    let absolute = cwd.join("data");
    let hint =
        "build them with 'rafle generate' (or point --data or RAFLE_DATA at a table directory)";
    for args in [
        &["stats"][..],
        &["verify"],
        &["probe", "-v", "brazilian", "B:W29:B25,22"],
    ] {
        let (code, _, err) = rafle_in(&cwd, None, args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert_eq!(
            err,
            format!(
                "rafle: no tables in data ({}): {hint}\n",
                absolute.display()
            ),
            "{args:?}"
        );
    }
    let (code, _, err) = rafle_in(&cwd, None, &["stats", "--data", "sub/tables"]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "rafle: no tables in sub/tables ({}): {hint}\n",
            cwd.join("sub/tables").display()
        )
    );
}

/// RAFLE_DATA sets the table directory of every command once; --data given wins over it; an
/// empty RAFLE_DATA is unset.
#[test]
fn rafle_data_sets_the_table_directory_and_data_wins() {
    let (tables, _, _) = common::generate("brazilian", 2, &[]);
    let tables = common::data(&tables);
    let elsewhere = tempfile::tempdir().unwrap();
    let cwd = elsewhere.path().canonicalize().unwrap();
    let probe = ["probe", "-v", "brazilian", "W:W32:B1"];
    let (code, out, err) = rafle_in(&cwd, Some(tables), &probe);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("brazilian W:W32:B1 "), "{out}");
    let (code, out, err) = rafle_in(&cwd, Some(tables), &["stats"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("brazilian"), "{out}");
    // plan looks for finished units in RAFLE_DATA: Brazilian up to 2 is all done there.
    let (code, out, err) = rafle_in(&cwd, Some(tables), &["plan", "-v", "brazilian", "-p", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("3 finished in {tables}\n")), "{out}");
    // --data wins over the environment.
    let empty = tempfile::tempdir().unwrap();
    let empty = empty.path().canonicalize().unwrap();
    let mut args = probe.to_vec();
    args.extend(["--data", empty.to_str().unwrap()]);
    let (code, _, err) = rafle_in(&cwd, Some(tables), &args);
    assert_eq!(code, 1);
    assert!(
        err.starts_with(&format!(
            "rafle: no brazilian tables in {}: ",
            empty.display()
        )),
        "{err}"
    );
    // generate writes into RAFLE_DATA, not into the current directory.
    let target = empty.join("set");
    let (code, _, err) = rafle_in(
        &cwd,
        Some(target.to_str().unwrap()),
        &["generate", "-v", "brazilian", "-p", "2", "--tables", "wdl"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(target.join("brazilian").is_dir());
    assert!(!cwd.join("data").exists());
    // Empty is unset: the default `data` of the current directory.
    let (code, _, err) = rafle_in(&cwd, Some(""), &["stats"]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with(&format!(
            "rafle: no tables in data ({}): ",
            cwd.join("data").display()
        )),
        "{err}"
    );
}

/// Every command with --data names RAFLE_DATA in its help.
#[test]
fn every_data_option_names_rafle_data_in_its_help() {
    for command in [
        &["generate"][..],
        &["verify"],
        &["probe"],
        &["serve"],
        &["stats"],
        &["plan"],
        &["slurm", "submit"],
    ] {
        let mut args = command.to_vec();
        args.push("--help");
        let help = ok(&args);
        let line = help
            .lines()
            .skip_while(|l| !l.trim_start().starts_with("--data <DIR>"))
            .take_while(|l| !l.trim_start().starts_with("-") || l.contains("--data"))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(line.contains("[env: RAFLE_DATA]"), "{command:?}: {line}");
        assert!(line.contains("[default: data]"), "{command:?}: {line}");
    }
}

// ---- captures under way: lidraughts' ghost pieces --------------------------------------------

#[test]
fn a_capture_under_way_is_answered_by_its_completions() {
    let dir = both_variants();
    let data = common::data(&dir);
    // G7 was read as the square g7, answering for B:WK46:BK5,19: it is a ghost, and one
    // in the list of the side to move, which no capture under way has.
    let err = common::fails(&["probe", "--data", data, "B:WK46:BG7,K5:H0:F1"], 2);
    assert_eq!(
        err.trim_end(),
        "rafle: invalid FEN at column 9: the ghost piece on 7 is in the list of the side to \
         move: ghosts are pieces already taken by the capture under way, so they belong to the \
         side not to move"
    );
    // Brazilian: of White's 31x7 and 31x11 (over the king on f2, then over 16), the first
    // jump is made: the king stands on 20, the black king on 27 is a ghost.
    let fen = "W:WK20:B16,2,P27:H0:F1";
    let mid = common::probe_json(&dir, "brazilian", &[], fen);
    assert_eq!(
        (&mid["capturing"], &mid["ghosts"]),
        (&json!(20), &json!([27]))
    );
    let moves: Vec<&str> = mid["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    // Best first: 20x11 wins, 20x7 loses.
    assert_eq!(moves, ["20x11", "20x7"]);
    // Each completion is worth what the position it reaches is worth, probed on its own.
    let mut best = None::<(i64, i64)>;
    for (m, after) in mid["moves"]
        .as_array()
        .unwrap()
        .iter()
        .zip(["B:WK11:B2", "B:WK7:B2"])
    {
        let next = common::probe_json(&dir, "brazilian", &[], after);
        for key in ["wdl", "dtw", "class", "count"] {
            assert_eq!(m[key], next[key], "{after} {key}");
        }
        // For White, a loss of Black's after the move is a win one ply longer.
        if next["wdl"] == "loss" {
            let plies = next["dtw"].as_i64().unwrap() + 1;
            best = Some(best.map_or((plies, 0), |b| (b.0.min(plies), 0)));
        }
    }
    // The capture's value is its best completion's: the same as the whole move 31x11 from
    // W:WK31:B16,2,K27, win in 9 plies with count 1 (docs/api.md, "lidraughts").
    assert_eq!(best, Some((9, 0)));
    assert_eq!(
        (&mid["wdl"], &mid["dtw"], &mid["class"], &mid["count"]),
        (&json!("win"), &json!(9), &json!("win"), &json!(1))
    );
    let text = ok(&["probe", "--variant", "brazilian", "--data", data, fen]);
    assert!(
        text.starts_with(
            "brazilian W:WK20:B16,2,P27:H0:F1 (capture under way by 20) win in 9 plies (5 moves)"
        ),
        "{text}"
    );
    // Commands that take only positions between moves say why they refuse it.
    for command in ["moves", "show"] {
        let err = common::fails(&[command, "--variant", "brazilian", fen], 2);
        assert!(err.contains("'P27' is a ghost piece"), "{err}");
    }
    let err = common::fails(
        &[
            "probe",
            "--variant",
            "brazilian",
            "--data",
            data,
            "--line",
            fen,
        ],
        2,
    );
    assert!(err.contains("in the middle of a capture"), "{err}");
    // A capture whose piece the FEN does not tell: two men stand past the ghost.
    let err = common::fails(&["probe", "--data", data, "W:W21,22:BG27,17,18,5"], 2);
    assert!(err.contains("piece on 21 or on 22"), "{err}");
}
