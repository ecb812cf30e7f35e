//! End-to-end tests of the sides to move a whole run keeps of a finished material's values: a
//! capture or a promotion reaches the side that did not move, so once the last reader of one
//! side is done, the run keeps the other side alone; a resumed run takes those files as they
//! are, and a larger run that needs the side let go reads it back from the tables.

use std::path::PathBuf;

use tempfile::TempDir;

use crate::common;
use common::{data, generate, generate_in, ok, rafle, table_files};

fn tables(dir: &TempDir) -> std::collections::HashMap<String, Vec<u8>> {
    table_files(dir.path(), "brazilian")
}

fn work(dir: &TempDir) -> PathBuf {
    dir.path().join("brazilian").join(rafle_generator::WORK_DIR)
}

/// Whether `haystack` holds `needle`.
fn holds(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

/// Brazilian up to 3 pieces, stopped once MMvK's tables are written (a directory holds its
/// packed file's name). By then KMvM, the last to read White to move of KvM (Black's man
/// takes White's) and of KMvK (Black's man is crowned), is done: each
/// keeps Black to move alone, which MMvM and MMvK read; KMvM itself is read by MMvM alone,
/// through Black to move.
fn stopped_before_mmvk_is_packed() -> TempDir {
    let dir = TempDir::new().unwrap();
    let blocked = work(&dir).join("MMvK.packed");
    std::fs::create_dir_all(&blocked).unwrap();
    let out = rafle(&[
        "generate",
        "--variant",
        "brazilian",
        "--pieces",
        "3",
        "--data",
        data(&dir),
    ]);
    assert!(!out.status.success());
    std::fs::remove_dir(&blocked).unwrap();
    dir
}

#[test]
fn a_run_keeps_the_side_still_read_and_resumes_from_it() {
    let (clean, _, _) = generate("brazilian", 3, &[]);
    let dir = stopped_before_mmvk_is_packed();
    for material in ["KvM", "KMvM"] {
        let packed = std::fs::read(work(&dir).join(format!("{material}.packed"))).unwrap();
        assert!(holds(&packed, "black to move"), "{material}");
        assert!(!holds(&packed, "white to move"), "{material}");
    }
    // MvM, symmetric, keeps both.
    let packed = std::fs::read(work(&dir).join("MvM.packed")).unwrap();
    assert!(!holds(&packed, " to move"));

    let (_, err) = generate_in(dir.path(), "brazilian", 3, &[]);
    assert!(!err.contains("damaged"), "{err}");
    assert_eq!(tables(&dir), tables(&clean));
    ok(&["verify", "--variant", "brazilian", "--data", data(&dir)]);
    // Nothing is left once nothing reads it.
    let left: Vec<String> = std::fs::read_dir(work(&dir))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with(".summary") && name != "writer.lock")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_side_let_go_is_read_back_from_the_tables_when_a_larger_run_reads_it() {
    let (clean, _, _) = generate("brazilian", 4, &[]);
    let dir = stopped_before_mmvk_is_packed();
    // KKMvM reads KMvM's White to move (Black's man takes a king), which the stopped run let
    // go: read back from KMvM's tables, not trusted as it is.
    let (_, err) = generate_in(dir.path(), "brazilian", 4, &[]);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(tables(&dir), tables(&clean));
    ok(&["verify", "--variant", "brazilian", "--data", data(&dir)]);
}

/// Each material's line as `rafle generate` prints it: its longest win and its cursed wins and
/// blessed losses, by material.
fn counted(err: &str) -> std::collections::BTreeMap<String, String> {
    err.lines()
        .filter_map(|line| {
            let (material, rest) = line.strip_prefix("brazilian ")?.split_once(": ")?;
            let counts = &rest[rest.find("longest win")?..];
            Some((material.to_string(), counts.to_string()))
        })
        .collect()
}

/// A run of the win/draw/loss tables alone over the three tables of the smaller materials
/// keeps only the kind of their values (a win, a loss or a draw) for the materials that read
/// them, read back from their win/draw/loss tables: its tables are a clean run's, and each
/// material it reuses keeps the counts of its own tables. Reading their distance tables back
/// from the kinds of the materials below gave distances that are not theirs: KMvM's longest
/// win came out as 11 plies, where its tables hold 13.
#[test]
fn a_wdl_run_over_all_three_tables_reads_back_their_kinds() {
    let (clean, _, _) = generate("brazilian", 4, &["--tables", "wdl"]);
    let (dir, _, full) = generate("brazilian", 3, &[]);
    let (_, err) = generate_in(dir.path(), "brazilian", 4, &["--tables", "wdl"]);
    let wdl = |dir: &TempDir| {
        let mut files = tables(dir);
        files.retain(|name, _| name.ends_with(".wdl"));
        files
    };
    assert_eq!(wdl(&dir), wdl(&clean));
    let (full, reused) = (counted(&full), counted(&err));
    assert_eq!(full.len(), 9);
    for (material, counts) in &full {
        assert_eq!(reused.get(material), Some(counts), "{material}");
    }
    assert_eq!(
        full["KMvM"],
        "longest win 13, cursed wins 0, blessed losses 0"
    );
}
