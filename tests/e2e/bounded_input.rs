//! Input of any size or value a caller gives the command line: counts out of their range are
//! refused with the words every entry point uses, and what is quoted back of an input is a
//! bounded excerpt, however long the input.

use crate::common;

use common::*;

/// A line of output, or a message, quoting an input of a megabyte stays a few hundred bytes.
const BOUND: usize = 1_000;

#[test]
fn a_megabyte_fen_gives_a_bounded_line() {
    let (dir, _, _) = generate("brazilian", 2, &[]);
    let d = data(&dir);
    let inputs = [
        format!("W:W18:B{}", "9".repeat(1 << 20)),
        format!("W:W18:B1{}", ",".repeat(1 << 20)),
        format!("W:W18:B1{},2", " ".repeat(1 << 20)),
        format!("W:W18:B1,{}", "\u{1b}".repeat(1 << 20)),
    ];
    for fen in &inputs {
        for json in [false, true] {
            let mut args = vec!["probe", "--variant", "brazilian", "--data", d];
            if json {
                args.push("--json");
            }
            let out = rafle_with_input(&args, Some(&format!("{fen}\n")));
            assert_eq!(out.status.code(), Some(1));
            let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
            assert!(
                stdout.len() < BOUND,
                "{} bytes: {}",
                stdout.len(),
                &stdout[..300]
            );
            assert!(stderr.len() < BOUND, "{} bytes", stderr.len());
            assert!(stdout.contains("characters)…"), "{stdout}");
            assert!(!stdout.contains('\u{1b}'), "escaped");
        }
    }
}

#[test]
fn a_valid_fen_padded_to_a_megabyte_is_answered_in_a_bounded_line() {
    let (dir, _, _) = generate("brazilian", 2, &[]);
    let fen = format!("W:WK1:BK28{}", " ".repeat(1 << 20));
    for json in [false, true] {
        let mut args = vec!["probe", "--variant", "brazilian", "--data", data(&dir)];
        if json {
            args.push("--json");
        }
        let out = rafle_with_input(&args, Some(&format!("{fen}\n")));
        assert!(out.status.success(), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert!(stdout.len() < 4 * BOUND, "{} bytes", stdout.len());
        assert!(stdout.contains("W:WK1:BK28"), "{stdout}");
    }
}

#[test]
fn a_long_variant_unit_or_memory_is_quoted_as_an_excerpt() {
    let long = "x".repeat(20_000);
    for args in [
        vec!["probe", "--variant", &long, "W:W18:B1"],
        vec!["generate", "--variant", &long],
        vec!["generate", "--unit", &long],
        vec!["generate", "--memory", &long],
        vec!["generate", "--limits", &long],
        vec!["probe", "--counters", &long, "W:W18:B1"],
        vec!["generate", &long],
    ] {
        let err = fails(&args, 2);
        assert!(err.len() < BOUND, "{args:.2?}: {} bytes", err.len());
        assert!(err.contains("(20000 characters)"), "{err}");
    }
}

#[test]
fn a_long_path_is_quoted_as_an_excerpt() {
    // One argument of Linux holds at most 128 KiB.
    let long = format!("{}end", "d/".repeat(60_000));
    let err = fails(
        &[
            "probe",
            "--variant",
            "brazilian",
            "--data",
            &long,
            "W:W18:B1",
        ],
        1,
    );
    assert!(err.len() < BOUND, "{} bytes", err.len());
    assert!(
        err.contains("(120003 characters)…") && err.contains("d/d/end"),
        "{err}"
    );
}

#[test]
fn counts_out_of_range_are_refused_with_the_library_words() {
    for (args, expected) in [
        (
            vec!["generate", "--threads", "2147483648"],
            "threads must be from 1 to 1024, not 2147483648",
        ),
        (
            vec!["generate", "--threads", "99999999999999999999999"],
            "threads must be from 1 to 1024, not 99999999999999999999999",
        ),
        (
            vec!["generate", "--threads", "0"],
            "threads must be from 1 to 1024, not 0",
        ),
        (
            vec!["generate", "--pieces", "9"],
            "pieces must be from 2 to 8, not 9",
        ),
        (
            vec!["plan", "--pieces", "1"],
            "pieces must be from 2 to 8, not 1",
        ),
        (
            vec!["compare", "a", "b", "--threads", "1025"],
            "threads must be from 1 to 1024, not 1025",
        ),
        (
            vec!["probe", "--counters", "9223372036854775808,0", "W:W18:B1"],
            "king_plies (K, rule 6.2) must be from 0 to 10000 plies, not 9223372036854775808",
        ),
    ] {
        let err = fails(&args, 2);
        assert!(err.contains(expected), "{args:?}: {err}");
    }
}
