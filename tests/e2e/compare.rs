//! `rafle compare`: two table directories compared position by position through the probe,
//! end to end with the built binary on Brazilian tables up to 3 pieces.

use std::fs;
use std::path::Path;

use rafle_probe::{draughts::Variant, toolkit::PositionIndex, Tablebase};
use tempfile::TempDir;

use crate::common;
use common::{data, generate, ok, probe_json, rafle, text};

/// Brazilian tables up to 3 pieces, generated anew.
fn brazilian_3() -> TempDir {
    generate("brazilian", 3, &[]).0
}

/// A copy of every file of a table directory, in a new directory.
fn copy(from: &TempDir) -> TempDir {
    let to = TempDir::new().unwrap();
    copy_dir(from.path(), to.path());
    to
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `rafle compare ARGS… A B`: exit code, stdout, stderr.
fn compare(a: &TempDir, b: &TempDir, extra: &[&str]) -> (Option<i32>, String, String) {
    let mut args = vec!["compare", data(a), data(b)];
    args.extend_from_slice(extra);
    let out = rafle(&args);
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// Positions of every Brazilian material in `dir`, both sides to move.
fn positions(dir: &TempDir) -> u64 {
    let tables = Tablebase::open(dir.path()).unwrap();
    tables
        .materials(Variant::Brazilian)
        .into_iter()
        .map(|m| PositionIndex::new(Variant::Brazilian, m).size())
        .sum()
}

/// The last line of stderr is rafle's error, without a panic.
fn failed(code: Option<i32>, err: &str) {
    assert_eq!(code, Some(1), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("internal error"),
        "{err}"
    );
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with("rafle: the directories differ: "), "{err}");
}

#[test]
fn two_generations_of_the_same_set_are_identical() {
    let (a, b) = (brazilian_3(), brazilian_3());
    let (code, out, err) = compare(&a, &b, &[]);
    assert_eq!(code, Some(0), "{out}{err}");
    let total = positions(&a);
    assert_eq!(total, 201_272);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 10, "{out}");
    assert_eq!(lines[0], "brazilian KvK: 1984 positions, identical");
    for line in &lines[..9] {
        assert!(line.ends_with(" positions, identical"), "{line}");
    }
    assert_eq!(
        lines[9],
        format!("total: {total} positions in 9 materials, identical")
    );
    assert!(err.is_empty(), "{err}");

    // The filters, the threads and the cache change what is compared, not the verdict.
    let (code, out, _) = compare(
        &a,
        &b,
        &[
            "--variant",
            "brazilian",
            "--max-pieces",
            "2",
            "--threads",
            "1",
            "--cache",
            "1M",
        ],
    );
    assert_eq!(code, Some(0));
    assert_eq!(
        out.lines().last().unwrap(),
        "total: 5240 positions in 3 materials, identical"
    );
    let (code, out, _) = compare(&a, &b, &["--materials", "KvKK,MMvM", "--kinds", "wdl"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out,
        "brazilian KKvK: 29760 positions, identical\nbrazilian MMvM: 19872 positions, \
         identical\ntotal: 49632 positions in 2 materials, identical\n"
    );

    // JSON: one object per material, then the total.
    let (code, out, _) = compare(&a, &b, &["--json"]);
    assert_eq!(code, Some(0));
    let objects: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines"))
        .collect();
    assert_eq!(objects.len(), 10);
    assert_eq!(objects[0]["material"], "KvK");
    assert_eq!(objects[0]["status"], "identical");
    assert_eq!(objects[0]["positions"], 1984);
    assert_eq!(objects[0]["differ_by_kind"]["rules"], 0);
    let last = &objects[9];
    assert_eq!(last["material"], "total");
    assert_eq!(last["status"], "identical");
    assert_eq!(last["positions"], total);
    assert_eq!(last["materials"], 9);

    // A directory that is not there is no comparison.
    let out = rafle(&["compare", data(&a), "/nonexistent/rafle-tables"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "rafle: no table directory /nonexistent/rafle-tables (B)\n"
    );

    // A variant neither directory has is no comparison.
    let (code, _, err) = compare(&a, &b, &["--variant", "international"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("no international tables in"), "{err}");
}

#[test]
fn rule_tables_of_other_limits_differ() {
    let a = brazilian_3();
    let b = copy(&a);
    // The rule tables are made anew for the new limits; the others are reused.
    ok(&[
        "generate",
        "--variant",
        "brazilian",
        "--pieces",
        "3",
        "--limits",
        "6.4=4",
        "--data",
        data(&b),
    ]);
    let (code, out, err) = compare(&a, &b, &[]);
    failed(code, &err);
    assert!(
        err.contains("limits 6.2=50,6.3=40,6.4=10 in A, 6.2=50,6.3=40,6.4=4 in B"),
        "{err}"
    );
    assert!(
        out.contains("brazilian KvK: 1984 positions, identical"),
        "{out}"
    );
    let kkvk = out
        .lines()
        .find(|l| l.starts_with("brazilian KKvK: "))
        .unwrap();
    assert!(
        kkvk.starts_with("brazilian KKvK: 29760 positions, ") && kkvk.contains(" differ (rules "),
        "{kkvk}"
    );
    assert!(!out.contains("(wdl") && !out.contains("dtw "), "{out}");
    assert!(
        out.lines()
            .last()
            .unwrap()
            .contains(" positions differ in "),
        "{out}"
    );

    // An example is a position whose rule values the probe gives differently, as printed.
    let example = out
        .lines()
        .skip_while(|l| !l.starts_with("brazilian KKvK: "))
        .nth(1)
        .unwrap();
    let (fen, values) = example.trim().split_once(": ").unwrap();
    assert!(values.starts_with("rules "), "{example}");
    let (va, vb) = values["rules ".len()..].split_once(" vs ").unwrap();
    let shown = |json: serde_json::Value| match json["count"].as_u64() {
        Some(count) => format!("{} (count {count})", json["class"].as_str().unwrap()),
        None => json["class"].as_str().unwrap().to_string(),
    };
    assert_eq!(shown(probe_json(&a, "brazilian", &[], fen)), va);
    assert_eq!(shown(probe_json(&b, "brazilian", &[], fen)), vb);
    assert_ne!(va, vb);

    // The win/draw/loss and distance tables are the same.
    let (code, out, err) = compare(&a, &b, &["--kinds", "wdl,dtw"]);
    assert_eq!(code, Some(0), "{out}{err}");

    let (code, out, err) = compare(&a, &b, &["--json", "--kinds", "rules"]);
    failed(code, &err);
    let first_differing: serde_json::Value = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|o| o["status"] == "differ")
        .unwrap();
    assert_eq!(
        first_differing["differ_by_kind"]["wdl"],
        serde_json::Value::Null
    );
    assert_eq!(first_differing["examples"][0]["kind"], "rules");
}

#[test]
fn a_material_in_one_directory_alone_is_named() {
    let a = brazilian_3();
    let b = copy(&a);
    // Nothing of up to 3 pieces reaches MMvM: the other materials still compare.
    for ext in ["wdl", "dtw", "rules"] {
        fs::remove_file(b.path().join("brazilian").join(format!("MMvM.{ext}"))).unwrap();
    }
    let (code, out, err) = compare(&a, &b, &[]);
    failed(code, &err);
    assert!(out.contains("brazilian MMvM: only in A\n"), "{out}");
    assert!(
        out.contains("brazilian KMvM: 45600 positions, identical"),
        "{out}"
    );
    assert_eq!(
        out.lines().last().unwrap(),
        "total: 181400 positions in 8 materials, 1 material only in A"
    );
    let (code, out, err) = compare(&b, &a, &["--materials", "MMvM"]);
    failed(code, &err);
    assert!(out.starts_with("brazilian MMvM: only in B\n"), "{out}");

    // A variant in one directory alone is left out when --variant is not given, with a note;
    // named, each of its materials is in one directory alone.
    ok(&[
        "generate",
        "--variant",
        "international",
        "--pieces",
        "2",
        "--data",
        data(&b),
    ]);
    let (code, out, err) = compare(&a, &b, &["--materials", "KKvK"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        err.contains("rafle: note: international tables only in B ("),
        "{err}"
    );
    let (code, out, err) = compare(&a, &b, &["--variant", "international"]);
    failed(code, &err);
    assert!(out.starts_with("international KvK: only in B\n"), "{out}");
}

#[test]
fn a_damaged_table_is_an_error_naming_it() {
    let a = brazilian_3();
    let b = copy(&a);
    let path = b.path().join("brazilian").join("KMvK.wdl");
    // The last byte is in the last block's compressed frame, which its checksum covers: the
    // file still opens, and the block fails when a probe reads it (probing KMvK, and
    // possibly KMvM, whose captures reach KMvK).
    let mut bytes = fs::read(&path).unwrap();
    *bytes.last_mut().unwrap() ^= 0xff;
    fs::write(&path, bytes).unwrap();
    for (first, second, side) in [(&a, &b, "B"), (&b, &a, "A")] {
        let (code, out, err) = compare(first, second, &[]);
        failed(code, &err);
        let line = out
            .lines()
            .find(|l| l.starts_with("brazilian KMvK: "))
            .unwrap();
        assert!(
            line.starts_with(&format!("brazilian KMvK: error in {side}: ")),
            "{line}"
        );
        assert!(line.contains("KMvK.wdl"), "{line}");
        assert!(!line.contains("identical"), "{line}");
        assert!(!out.lines().last().unwrap().contains("identical"), "{out}");
        assert!(err.contains(" not compared (probe errors)"), "{err}");
    }
}
