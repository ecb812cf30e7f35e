//! A stderr that fails (a full disk, here `/dev/full`) loses rafle's messages but changes
//! nothing else: no abort (exit 134), and the exit codes stay the documented ones (0, 1 for a
//! failure, 2 for bad input or usage).
#![cfg(target_os = "linux")]

use crate::common;

use std::fs::{File, OpenOptions};
use std::process::{Command, Stdio};

use common::{data, generate};

/// `/dev/full`, where every write fails with "No space left on device".
fn dev_full() -> File {
    OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full opens on Linux")
}

/// The exit code of `rafle ARGS` with stderr on `/dev/full`, and its stdout.
fn run_with_full_stderr(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rafle"))
        .args(args)
        .stdin(Stdio::null())
        .stderr(dev_full())
        .output()
        .expect("rafle runs");
    (out.status.code(), common::text(&out.stdout))
}

#[test]
fn bad_input_exits_2_when_stderr_fails() {
    assert_eq!(run_with_full_stderr(&["moves", "W:W31,51:B1"]).0, Some(2));
    assert_eq!(run_with_full_stderr(&["no-such-command"]).0, Some(2));
    assert_eq!(
        run_with_full_stderr(&["probe", "--data", "/nonexistent", "W:W31:B1"]).0,
        Some(1)
    );
}

#[test]
fn success_is_unchanged_when_stderr_fails() {
    let (code, stdout) = run_with_full_stderr(&["moves", "W:W28:B23,24"]);
    assert_eq!((code, stdout.as_str()), (Some(0), "28x30\n"));
}

#[test]
fn a_failure_exits_1_when_stderr_fails() {
    let (dir, _, _) = generate("brazilian", 2, &[]);
    // A position with more pieces than the tables cover is bad input; a missing directory of
    // tables a failure.
    let (code, _) = run_with_full_stderr(&[
        "probe",
        "--data",
        data(&dir),
        "--variant",
        "brazilian",
        "W:W28:B23,24",
    ]);
    assert_eq!(code, Some(2));
    let missing = dir.path().join("missing");
    let (code, _) = run_with_full_stderr(&[
        "serve",
        "--data",
        missing.to_str().unwrap(),
        "--bind",
        "127.0.0.1:0",
    ]);
    assert_eq!(code, Some(1));
}
