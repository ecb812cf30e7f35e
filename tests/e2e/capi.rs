//! The C library end to end: `examples/probe.c` compiled with the system's C compiler against
//! the freshly built `librafle`, run on a batch of positions given as bitboards, and its
//! answers (value, distance, best move, rule class and count, result with live counters)
//! compared with the Rust API's and with those of `rafle probe --json`.
//!
//! Needs a C compiler (`cc`, or the one named by `$CC`); Unix only (the shared library is
//! found next to this test's executable, where cargo builds it as a dependency).

#![cfg(unix)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::{
    draughts::{Color, Counters, Position, Role, SquareStyle, Variant},
    toolkit::PositionIndex,
    Dtw, ProbeError, RuleClass, Tablebase, Wdl,
};
use serde_json::Value;
use tempfile::TempDir;

/// Tables of both variants up to 3 pieces.
fn tables() -> TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for variant in Variant::ALL {
        let plan = Plan::new(variant, 3, dir.path()).expect("plan");
        generate(&plan, &NoProgress).expect("tables generate");
    }
    dir
}

/// Where cargo put `librafle` for this test: beside the test executable.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let deps = exe
        .parent()
        .expect("the test lives in a directory")
        .to_path_buf();
    let name = format!(
        "{}rafle{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    assert!(
        deps.join(&name).is_file(),
        "{name} is not in {}: cargo builds it as a dependency of the tests",
        deps.display()
    );
    deps
}

/// Compiles `examples/probe.c`, warnings as errors; returns the program.
fn build_example(out: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    build_c(&root.join("examples/probe.c"), &out.join("probe-example"))
}

/// Compiles the C program `source` against `librafle` into `program`, warnings as errors.
fn build_c(source: &Path, program: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library_dir();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let output = Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I"])
        .arg(root.join("capi/include"))
        .arg(source)
        .arg("-L")
        .arg(&lib)
        .arg("-lrafle")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(program)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {cc:?}: {e}"));
    assert!(
        output.status.success(),
        "{cc} failed on {}:\n{}",
        source.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    program.to_path_buf()
}

fn run(program: &Path, args: &[&std::ffi::OsStr], input: &str) -> (i32, String, String) {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the program starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin.write_all(input.as_bytes()).expect("input written");
    drop(stdin);
    let out = child.wait_with_output().expect("the program ends");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("UTF-8 output"),
        String::from_utf8(out.stderr).expect("UTF-8 errors"),
    )
}

/// A fixed pseudo-random sequence.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Random positions of every material of the variant, with random live counters, plus the
/// corner cases: a side without pieces, a side without moves, too many pieces.
fn positions(tables: &Tablebase, variant: Variant, rng: &mut Rng) -> Vec<(Position, Counters)> {
    let mut list = Vec::new();
    for material in tables.materials(variant) {
        let index = PositionIndex::new(variant, material);
        for _ in 0..25 {
            let pos = index.unrank(rng.next() % index.size());
            let counters = Counters {
                king_plies: (rng.next() % 60) as u16,
                category_plies: (rng.next() % 14) as u16,
            };
            list.push((pos, counters));
        }
        if let Some(blocked) = (0..index.size())
            .map(|i| index.unrank(i))
            .find(|p| p.legal_moves().is_empty())
        {
            list.push((blocked, Counters::FRESH));
        }
    }
    let fens = match variant {
        Variant::International => ["W:W33:B", "W:W31,32:B18,19"],
        Variant::Brazilian => ["B:W29:B", "W:W21,22:B9,10"],
    };
    for fen in fens {
        let pos = Position::from_fen(variant, fen).expect("a good FEN");
        list.push((pos, Counters::FRESH));
    }
    list
}

/// The input line the C example reads for a position.
fn input_line(pos: &Position, counters: Counters) -> String {
    let bits = |color, role| pos.numbered_bits(color, role);
    format!(
        "{} {} {:#x} {:#x} {:#x} {:#x} {} {}",
        pos.variant(),
        pos.turn().letter(),
        bits(Color::White, Role::Man),
        bits(Color::White, Role::King),
        bits(Color::Black, Role::Man),
        bits(Color::Black, Role::King),
        counters.king_plies,
        counters.category_plies
    )
}

fn status_name(e: &ProbeError) -> &'static str {
    match e {
        ProbeError::TooManyPieces { .. } => "RAFLE_ERR_TOO_MANY_PIECES",
        ProbeError::MissingTable { .. } => "RAFLE_ERR_MISSING_TABLE",
        ProbeError::MixedLimits { .. } => "RAFLE_ERR_MIXED_LIMITS",
        ProbeError::Io { .. } => "RAFLE_ERR_IO",
        _ => "RAFLE_ERR_BAD_TABLE",
    }
}

/// The line the C example should print, from the Rust API, probing in the same order.
fn expected_line(tables: &Tablebase, pos: &Position, counters: Counters) -> String {
    let mut line = match tables.probe_wdl(pos) {
        Ok(wdl) => format!("wdl={wdl}"),
        Err(e) => format!("wdl=!{}", status_name(&e)),
    };
    line += &match tables.probe_dtw(pos) {
        Ok(Dtw::Draw) => " dtw=draw".to_string(),
        Ok(dtw) => format!(" dtw={}", dtw.plies().unwrap_or_default()),
        Err(e) => format!(" dtw=!{}", status_name(&e)),
    };
    line += &match tables.best_move(pos) {
        Ok(Some((mv, _))) => format!(" best={}", pos.move_text(&mv, SquareStyle::Numeric)),
        Ok(None) => " best=none".to_string(),
        Err(e) => format!(" best=!{}", status_name(&e)),
    };
    line += &match tables.probe_draw_rules(pos, counters) {
        Ok(outcome) => {
            let count = outcome
                .value
                .count()
                .map_or(String::new(), |c| format!("/{c}"));
            let rule = &outcome.category.article().replace('.', "");
            format!(
                " rules={}{count} rule={rule}/{} result={}",
                outcome.value.class(),
                outcome.limit,
                outcome.result
            )
        }
        Err(e) => format!(" rules=!{}", status_name(&e)),
    };
    line += &match tables.probe_wdl_cached(pos) {
        Some(wdl) => format!(" cached={wdl}"),
        None => " cached=miss".to_string(),
    };
    line
}

/// The value a move gives the side playing it, from the value after it (as `rafle probe
/// --json` lists it), and the order of preference of `Tablebase::best_move`.
fn preference(wdl_after: &str, dtw_after: Option<u64>) -> (u8, i64) {
    let d = dtw_after.map_or(0, |d| d as i64 + 1);
    match wdl_after {
        "loss" => (2, -d),
        "draw" => (1, 0),
        _ => (0, d),
    }
}

/// The fields of one line of the C example's output.
fn field<'a>(line: &'a str, name: &str) -> &'a str {
    line.split(' ')
        .find_map(|f| f.strip_prefix(name)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {name} in {line}"))
}

#[test]
fn the_c_example_agrees_with_the_rust_api_and_the_command_line() {
    let dir = tables();
    let program = build_example(dir.path());
    let rust = Tablebase::open_with_cache(dir.path(), 64 << 20).expect("tables open");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for variant in Variant::ALL {
        let batch = positions(&rust, variant, &mut rng);
        let input: String = batch
            .iter()
            .map(|(p, c)| input_line(p, *c) + "\n")
            .collect();
        let (code, out, err) = run(&program, &[dir.path().as_os_str()], &input);
        assert_eq!(code, 0, "{err}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), batch.len(), "{out}");

        // The command line on the same positions, as FENs.
        let fens: String = batch.iter().map(|(p, _)| p.to_fen() + "\n").collect();
        let cli = Command::new(env!("CARGO_BIN_EXE_rafle"))
            .args(["probe", "--json", "--variant", variant.name(), "--data"])
            .arg(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("rafle runs");
        let (code, json, _) = {
            let mut cli = cli;
            let mut stdin = cli.stdin.take().expect("piped");
            stdin.write_all(fens.as_bytes()).expect("written");
            drop(stdin);
            let out = cli.wait_with_output().expect("rafle ends");
            (
                out.status.code(),
                String::from_utf8(out.stdout).expect("UTF-8"),
                (),
            )
        };
        // Exit code 1: the positions with too many pieces fail, on their own lines.
        assert_eq!(code, Some(1));
        let answers: Vec<Value> = json
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON lines"))
            .collect();
        assert_eq!(answers.len(), batch.len());

        for (((pos, counters), line), answer) in batch.iter().zip(&lines).zip(&answers) {
            let fen = pos.to_fen();
            assert_eq!(
                *line,
                expected_line(&rust, pos, *counters),
                "{fen} counters {counters:?}"
            );
            assert_eq!(answer["fen"], fen.as_str());
            if answer.get("error").is_some() {
                assert!(field(line, "wdl").starts_with('!'), "{fen}: {line}");
                continue;
            }
            assert_eq!(field(line, "wdl"), answer["wdl"], "{fen}");
            let dtw = match answer["dtw"].as_u64() {
                Some(d) => d.to_string(),
                None => "draw".to_string(),
            };
            assert_eq!(field(line, "dtw"), dtw, "{fen}");
            let class = answer["class"].as_str().expect("a rule class");
            let rules = match answer["count"].as_u64() {
                Some(count) => format!("{class}/{count}"),
                None => class.to_string(),
            };
            assert_eq!(field(line, "rules"), rules, "{fen}");
            let rule = answer["rule"].as_str().expect("a rule").replace('.', "");
            assert_eq!(field(line, "rule").split('/').next(), Some(rule.as_str()));
            let moves = answer["moves"].as_array().expect("a move list");
            let mut best: Option<(&str, (u8, i64))> = None;
            for m in moves {
                let p = preference(m["wdl"].as_str().expect("wdl"), m["dtw"].as_u64());
                if best.is_none_or(|(_, kept)| p > kept) {
                    best = Some((m["move"].as_str().expect("text"), p));
                }
            }
            let opponent_gone = pos.side_pieces(pos.turn().opposite()).is_empty();
            let best = if opponent_gone {
                "none"
            } else {
                best.map_or("none", |(text, _)| text)
            };
            assert_eq!(field(line, "best"), best, "{fen}");
            checked += 1;
        }
    }
    assert!(checked > 400, "{checked}");
    assert!(
        rust.probe_draw_rules(
            &Position::from_fen(Variant::Brazilian, "B:W29:B25,22").expect("FEN"),
            Counters::FRESH
        )
        .is_ok_and(|o| o.value.class() == RuleClass::Win && o.result == Wdl::Win),
        "the rule tables are generated and read"
    );
}

#[test]
fn the_c_example_reports_bad_input_and_runs_its_demo() {
    let dir = tables();
    let program = build_example(dir.path());
    let input = "\
brazilian W 0x1 0x0 0x0 0x100
brazilian W 0x100000 0x100000 0x0 0x100
brazilian W 0x100000 0x0 0x0 0x100000000
checkers W 0x100000 0x0 0x0 0x100
international X 0x100000 0x0 0x0 0x100
not a position
";
    let (code, out, _) = run(&program, &[dir.path().as_os_str()], input);
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    assert!(
        lines[0].starts_with("error=RAFLE_ERR_POSITION a white man on square 1"),
        "{out}"
    );
    assert!(
        lines[1].starts_with("error=RAFLE_ERR_POSITION square 21 is in both"),
        "{out}"
    );
    assert!(
        lines[2].contains("square 33, past the last square"),
        "{out}"
    );
    assert!(
        lines[3].starts_with("error=RAFLE_ERR_ARGUMENT unknown variant"),
        "{out}"
    );
    assert!(
        lines[4].starts_with("error=RAFLE_ERR_ARGUMENT unknown side"),
        "{out}"
    );
    assert!(lines[5].starts_with("error=input"), "{out}");

    let demo = [dir.path().as_os_str(), "--demo".as_ref()];
    let (code, out, err) = run(&program, &demo, "");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("brazilian: 9 materials, up to 3 pieces"),
        "{out}"
    );
    assert!(out.contains("wdl=win dtw=3 best=25-30"), "{out}");

    let missing = dir.path().join("nowhere");
    let (code, _, err) = run(&program, &[missing.as_os_str()], "");
    assert_eq!(code, 1);
    assert!(err.contains("nowhere"), "{err}");
}

#[test]
fn the_header_compiles_as_cpp() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("a temporary directory");
    let source = dir.path().join("use.cpp");
    std::fs::write(
        &source,
        "#include \"rafle.h\"\nint main() { return rafle_version() == nullptr; }\n",
    )
    .expect("written");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    let output = match Command::new(&cxx)
        .args(["-std=c++11", "-Wall", "-Werror", "-fsyntax-only", "-I"])
        .arg(root.join("capi/include"))
        .arg(&source)
        .output()
    {
        Ok(output) => output,
        // C++ is optional; the C compiler is not (see the tests above).
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => panic!("cannot run {cxx}: {e}"),
    };
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A C program reading one Brazilian FEN a line, printing what `rafle_probe_fen` answers
/// with the counters 50,10, at the limits of rules 6.2 and 6.4 (or the status and the error
/// text).
const PROBE_FEN_C: &str = r#"#include <stdio.h>
#include <string.h>
#include "rafle.h"

int main(int argc, char **argv) {
    char fen[256];
    rafle_tablebase *tb = argc > 1 ? rafle_open(argv[1], 0) : NULL;
    if (tb == NULL) return 2;
    while (fgets(fen, sizeof fen, stdin) != NULL) {
        rafle_counters live = {50, 10};
        rafle_rules rules;
        int wdl, plies, status;
        fen[strcspn(fen, "\n")] = '\0';
        status = rafle_probe_fen(tb, RAFLE_BRAZILIAN, fen, &live, &wdl, &plies, &rules);
        if (status == RAFLE_OK)
            printf("wdl=%d plies=%d class=%d count=%d rule=%d limit=%d result=%d\n", wdl, plies,
                   rules.rule_class, rules.count, rules.rule, rules.limit, rules.result);
        else
            printf("%s: %s\n", rafle_status_name(status), rafle_last_error());
    }
    rafle_close(tb);
    return 0;
}
"#;

/// `rafle_probe_fen` called from C as the header declares it: a capture under way (a ghost
/// king on 27) answered as the whole move from before the capture, and a FEN whose capturing
/// piece cannot be told refused with the Rust API's text.
#[test]
fn a_c_program_probes_a_capture_under_way() {
    let tables = tables();
    let out = tempfile::tempdir().expect("a temporary directory");
    let source = out.path().join("probe_fen.c");
    std::fs::write(&source, PROBE_FEN_C).expect("written");
    let program = build_c(&source, &out.path().join("probe-fen"));
    let bad = "W:WK20:BG1";
    let input = format!("W:WK20:B16,P27\nW:WK31:B16,K27\n{bad}\n");
    let (code, stdout, stderr) = run(&program, &[tables.path().as_os_str()], &input);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    let rust = Tablebase::open(tables.path()).expect("tables open");
    let before = Position::from_fen(Variant::Brazilian, "W:WK31:B16,K27").expect("a position");
    let counters = Counters {
        king_plies: 50,
        category_plies: 10,
    };
    let dtw = rust.probe_dtw(&before).expect("probed");
    let rules = rust.probe_draw_rules(&before, counters).expect("probed");
    let expected = format!(
        "wdl=1 plies={} class=2 count={} rule={} limit={} result=0",
        dtw.plies().expect("a win"),
        rules.value.count().expect("a win has a count"),
        rules.category.article().replace('.', ""),
        rules.limit,
    );
    // The counters are used: at the rule's limit the win is a draw.
    assert_eq!(
        (dtw, rules.value.class(), rules.result),
        (Dtw::Win(1), RuleClass::Win, Wdl::Draw)
    );
    assert_eq!(lines[..2], [expected.as_str(), expected.as_str()]);
    let refusal =
        rafle_probe::draughts::FenPosition::from_fen(Variant::Brazilian, bad).unwrap_err();
    assert_eq!(lines[2], format!("RAFLE_ERR_POSITION: {refusal}"));
    assert_eq!(lines.len(), 3);
}
