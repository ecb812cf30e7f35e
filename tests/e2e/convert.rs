//! Tables of the previous format version (2): refused by every reader with the way to convert
//! them, and converted by `rafle generate` into exactly the tables a fresh generation writes.
//!
//! `tests/fixtures/v2/brazilian` holds the Brazilian tables up to 3 pieces as the last release
//! of format version 2 wrote them.

use crate::common;

use std::fs;
use std::path::Path;

use common::{ok, rafle, text};

/// A copy of the version-2 fixture in a fresh directory.
fn version_2_set() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("brazilian");
    fs::create_dir(&to).unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v2/brazilian");
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
    dir
}

/// The table files of a directory's Brazilian set, by name, with their bytes.
fn tables(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir.join("brazilian"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, fs::read(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// Runs `rafle generate` of the Brazilian set up to 3 pieces on `dir`: its stdout and stderr.
fn generate(dir: &Path) -> (String, String) {
    let data = dir.to_str().unwrap();
    let out = rafle(&[
        "generate",
        "--variant",
        "brazilian",
        "--pieces",
        "3",
        "--data",
        data,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    (text(&out.stdout), text(&out.stderr))
}

#[test]
fn a_version_2_table_is_refused_with_the_way_to_convert_it() {
    let dir = version_2_set();
    let data = dir.path().to_str().unwrap();
    let out = rafle(&[
        "probe",
        "--data",
        data,
        "--variant",
        "brazilian",
        "W:WK1,K2:BK32",
    ]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("is of format version 2") && stderr.contains("run 'rafle generate'"),
        "{stderr}"
    );
    // Nothing was written: the reader only reads.
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v2");
    assert_eq!(tables(dir.path()), tables(&fixture));
}

#[test]
fn generate_converts_a_version_2_set_into_the_tables_a_fresh_run_writes() {
    let dir = version_2_set();
    let before = tables(dir.path());
    let (stdout, stderr) = generate(dir.path());
    assert!(
        stderr.contains("converting the brazilian tables of format version 2"),
        "{stderr}"
    );
    // Every material converted, none solved again.
    assert!(!stderr.contains("damaged"), "{stderr}");
    assert!(!stdout.contains("rebuilt"), "{stdout}");
    assert_eq!(
        stdout.matches("converted from format version 2").count(),
        9,
        "{stdout}"
    );
    let fresh = tempfile::tempdir().unwrap();
    generate(fresh.path());
    let (converted, expected) = (tables(dir.path()), tables(fresh.path()));
    assert_eq!(converted.len(), 27);
    assert_eq!(
        converted.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        expected.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    for ((name, bytes), (_, fresh)) in converted.iter().zip(&expected) {
        assert!(bytes == fresh, "{name} differs from a fresh generation");
    }
    // Smaller than before, and the values are read: a probe and the check pass.
    let size = |files: &[(String, Vec<u8>)]| files.iter().map(|(_, b)| b.len()).sum::<usize>();
    assert!(size(&converted) < size(&before));
    let data = dir.path().to_str().unwrap();
    let answer = ok(&[
        "probe",
        "--data",
        data,
        "--variant",
        "brazilian",
        "B:W29:B25,22",
    ]);
    assert!(answer.contains("win"), "{answer}");
    ok(&["verify", "--data", data, "--variant", "brazilian"]);
    // A second run has nothing to convert and reuses every table.
    let (_, again) = generate(dir.path());
    assert!(!again.contains("converting"), "{again}");
    assert_eq!(tables(dir.path()), converted);
}

/// A version-2 table is read whole to be converted: a material for which that would pass the
/// memory budget (here every one, as `RAFLE_READ_BACK=streamed` makes them) is solved again
/// within the budget instead, with the reason in its row.
#[test]
fn a_version_2_material_too_large_to_read_whole_is_solved_again() {
    let dir = version_2_set();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rafle"))
        .args([
            "generate",
            "--variant",
            "brazilian",
            "--pieces",
            "3",
            "--memory",
            "1G",
        ])
        .arg("--data")
        .arg(dir.path())
        .env("RAFLE_READ_BACK", "streamed")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        !stdout.contains("converted from format version 2"),
        "{stdout}"
    );
    let row = stdout.lines().find(|l| l.contains(" KMvK ")).unwrap();
    assert!(
        row.contains("rebuilt") && row.contains("more than the memory budget"),
        "{row}"
    );
    let fresh = tempfile::tempdir().unwrap();
    generate(fresh.path());
    assert_eq!(tables(dir.path()), tables(fresh.path()));
}

#[test]
fn a_damaged_version_2_table_is_solved_again_not_converted() {
    let dir = version_2_set();
    let path = dir.path().join("brazilian/KMvK.wdl");
    let mut bytes = fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    fs::write(&path, bytes).unwrap();
    let (stdout, _) = generate(dir.path());
    let row = stdout.lines().find(|l| l.contains(" KMvK ")).unwrap();
    assert!(row.contains("rebuilt") && row.contains("KMvK.wdl"), "{row}");
    // KMvK is solved again; the others are converted.
    assert!(stdout.contains("rebuilt"), "{stdout}");
    assert_eq!(
        stdout.matches("converted from format version 2").count(),
        8,
        "{stdout}"
    );
    let fresh = tempfile::tempdir().unwrap();
    generate(fresh.path());
    assert_eq!(tables(dir.path()), tables(fresh.path()));
}

#[test]
fn a_linked_version_2_table_is_converted_and_its_target_left_alone() {
    let dir = version_2_set();
    let elsewhere = tempfile::tempdir().unwrap();
    let mut targets = Vec::new();
    for kind in ["wdl", "dtw", "rules"] {
        let name = format!("KMvK.{kind}");
        let (inside, outside) = (
            dir.path().join("brazilian").join(&name),
            elsewhere.path().join(&name),
        );
        fs::rename(&inside, &outside).unwrap();
        std::os::unix::fs::symlink(&outside, &inside).unwrap();
        targets.push((outside.clone(), fs::read(&outside).unwrap()));
    }
    let (stdout, _) = generate(dir.path());
    assert_eq!(
        stdout.matches("converted from format version 2").count(),
        9,
        "{stdout}"
    );
    // The converted tables replace the links inside the data directory; the files the links
    // pointed to are not written.
    for (outside, bytes) in &targets {
        assert_eq!(&fs::read(outside).unwrap(), bytes);
    }
    let fresh = tempfile::tempdir().unwrap();
    generate(fresh.path());
    assert_eq!(tables(dir.path()), tables(fresh.path()));
}
