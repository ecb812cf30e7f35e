//! End-to-end test of `scripts/large-set.sh`, the runner of a large set's build and full check:
//! both steps run and leave their record, and a second run resumes both instead of redoing them.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The script tested.
fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/large-set.sh")
}

/// Runs the script on Brazilian up to 3 pieces into `dir`; returns its exit code.
fn run(dir: &Path) -> Option<i32> {
    let out = Command::new("bash")
        .arg(script())
        .args([
            "-r",
            env!("CARGO_BIN_EXE_rafle"),
            "-m",
            "1G",
            "brazilian",
            "3",
        ])
        .arg(dir)
        .output()
        .expect("bash runs the script");
    assert!(
        out.stdout.is_empty() && out.stderr.is_empty(),
        "{}{}",
        common::text(&out.stdout),
        common::text(&out.stderr)
    );
    out.status.code()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines of `text` containing `part`.
fn count(text: &str, part: &str) -> usize {
    text.lines().filter(|l| l.contains(part)).count()
}

#[test]
fn builds_checks_and_resumes_a_set_with_its_record() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("set");
    let logs = tmp.path().join("set.logs");
    assert_eq!(run(&dir), Some(0));
    // 9 materials of 2 and 3 pieces, each with its three tables.
    let files = std::fs::read_dir(dir.join("brazilian")).unwrap().count();
    assert!(files >= 27, "{files} files");
    let built = read(&logs.join("generate.err"));
    assert_eq!(count(&built, "; bytes wdl "), 9, "{built}");
    assert_eq!(count(&built, "reused"), 0, "{built}");
    let checked = read(&logs.join("verify.log"));
    assert_eq!(count(&checked, " positions ok"), 9, "{checked}");
    let chain = read(&logs.join("chain.log"));
    assert_eq!(count(&chain, "generate starts: "), 1, "{chain}");
    assert_eq!(count(&chain, "generate exit 0"), 1, "{chain}");
    assert_eq!(count(&chain, "verify exit 0"), 1, "{chain}");

    // Again: every material reused, every check taken from the record.
    assert_eq!(run(&dir), Some(0));
    let built = read(&logs.join("generate.err"));
    assert_eq!(count(&built, "reused"), 9, "{built}");
    let checked = read(&logs.join("verify.log"));
    assert_eq!(
        count(&checked, " positions ok (checked before"),
        9,
        "{checked}"
    );
    assert_eq!(count(&read(&logs.join("chain.log")), "verify exit 0"), 2);
}

#[test]
fn a_wrong_call_says_how_to_call_it() {
    let out = Command::new("bash")
        .arg(script())
        .args(["brazilian", "3"])
        .output()
        .expect("bash runs the script");
    assert_eq!(out.status.code(), Some(2));
    assert!(common::text(&out.stderr).contains("usage: "));
}
