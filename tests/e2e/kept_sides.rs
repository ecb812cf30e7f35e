//! End-to-end tests of the sides to move a whole run keeps of a finished material's values: a
//! capture or a promotion reaches the side that did not move, so once the last reader of one
//! side is done, the run keeps the other side alone; a resumed run takes those files as they
//! are, and a larger run that needs the side let go reads it back from the tables.

use std::path::PathBuf;

use tempfile::TempDir;

use crate::common;
use common::{data, generate, ok, rafle_with_env, table_files, text};

/// Runs `rafle` with `args`, every side read only through crownings keeping the crowned
/// positions alone (`RAFLE_CROWNED_ALONE=always`: a run keeps them so from 6 pieces on, and
/// these tests stop runs of 3).
fn rafle(args: &[&str]) -> std::process::Output {
    rafle_with_env(args, &[("RAFLE_CROWNED_ALONE", "always")])
}

/// Resumes the run in `dir` up to `pieces` (Brazilian) as [`rafle`] does; asserts it succeeded
/// and returns its stderr.
fn resume(dir: &TempDir, pieces: &str, extra: &[&str]) -> String {
    let mut args = vec!["generate", "--variant", "brazilian", "--pieces", pieces];
    args.extend_from_slice(&["--data", data(dir)]);
    args.extend_from_slice(extra);
    let out = rafle(&args);
    let err = text(&out.stderr);
    assert!(out.status.success(), "rafle {args:?} failed: {err}");
    err
}

fn tables(dir: &TempDir) -> std::collections::HashMap<String, Vec<u8>> {
    table_files(dir.path(), "brazilian")
}

fn work(dir: &TempDir) -> PathBuf {
    dir.path().join("brazilian").join(rafle_generator::WORK_DIR)
}

/// The work files left in `dir` but the count files and the lock.
fn left_in_work(dir: &TempDir) -> Vec<String> {
    std::fs::read_dir(work(dir))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with(".summary") && name != "writer.lock")
        .collect()
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
    stopped_at(&["brazilian", rafle_generator::WORK_DIR, "MMvK.packed"])
}

/// Brazilian up to 3 pieces, stopped where a directory stands at `blocked` (a path within the
/// data directory, where a file of the run goes): the run fails there, the directory is
/// removed. Returns the data directory.
fn stopped_at(blocked: &[&str]) -> TempDir {
    let dir = TempDir::new().unwrap();
    let blocked: PathBuf = std::iter::once(dir.path().as_os_str())
        .chain(blocked.iter().map(std::ffi::OsStr::new))
        .collect();
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
    let err = String::from_utf8_lossy(&out.stderr);
    let name = blocked.file_name().unwrap().to_string_lossy();
    assert!(err.contains(&*name), "{err}");
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

    let err = resume(&dir, "3", &[]);
    assert!(!err.contains("damaged"), "{err}");
    assert_eq!(tables(&dir), tables(&clean));
    ok(&["verify", "--variant", "brazilian", "--data", data(&dir)]);
    // Nothing is left once nothing reads it.
    let left = left_in_work(&dir);
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_side_let_go_is_read_back_from_the_tables_when_a_larger_run_reads_it() {
    let (clean, _, _) = generate("brazilian", 4, &[]);
    let dir = stopped_before_mmvk_is_packed();
    // KKMvM reads KMvM's White to move (Black's man takes a king), which the stopped run let
    // go: read back from KMvM's tables, not trusted as it is.
    let err = resume(&dir, "4", &[]);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(tables(&dir), tables(&clean));
    ok(&["verify", "--variant", "brazilian", "--data", data(&dir)]);
}

/// Brazilian up to 3 stopped while KMvM's tables are written (a directory stands where its
/// distance table goes): by then KMvM has let go of KvM's White to move, which it was the
/// last to read.
fn stopped_while_kmvm_is_written() -> TempDir {
    stopped_at(&["brazilian", "KMvM.dtw"])
}

/// The values a material reads last go once it is solved, before its tables are written,
/// which read none of them. The resumed run finds every band of KMvM recorded in its journal
/// and matching: it writes the tables from them, and they are a clean run's.
#[test]
fn the_sides_a_material_reads_last_go_before_its_tables_are_written() {
    let (clean, _, _) = generate("brazilian", 3, &[]);
    let dir = stopped_while_kmvm_is_written();
    let packed = std::fs::read(work(&dir).join("KvM.packed")).unwrap();
    assert!(holds(&packed, "black to move"));
    assert!(!holds(&packed, "white to move"));

    let err = resume(&dir, "3", &[]);
    assert!(!err.contains("damaged"), "{err}");
    assert_eq!(tables(&dir), tables(&clean));
    ok(&["verify", "--variant", "brazilian", "--data", data(&dir)]);
}

/// A band file of KMvM damaged after its run stopped while its tables were written: the
/// resumed run does not take KMvM as solved whole; it reads the values KMvM reads again (KvM's
/// White to move back from its tables) and solves KMvM from that band.
#[test]
fn a_band_damaged_after_its_material_was_solved_is_solved_again_with_what_it_reads() {
    let (clean, _, _) = generate("brazilian", 3, &[]);
    let dir = stopped_while_kmvm_is_written();
    let band = work(&dir).join("KMvM.band-005");
    let mut bytes = std::fs::read(&band).unwrap();
    let middle = bytes.len() / 3;
    bytes[middle] ^= 0x40;
    std::fs::write(&band, bytes).unwrap();

    let err = resume(&dir, "3", &[]);
    assert!(
        err.contains("KMvM.band-005") && err.contains("solved again from that band"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(tables(&dir), tables(&clean));
    ok(&["verify", "--variant", "brazilian", "--data", data(&dir)]);
}

/// Brazilian up to 3 stopped as KMvM's first band is written. KKvM is read by KMvM alone,
/// through White's crowning (KMvM's man crowned, Black to move), so once it is done its band
/// files keep of Black to move only the positions with a White king on White's crowning row,
/// and nothing of White to move, which no material of the run reads.
fn stopped_as_kmvm_is_solved() -> TempDir {
    let dir = stopped_at(&["brazilian", rafle_generator::WORK_DIR, "KMvM.band-000"]);
    let bands: Vec<Vec<u8>> = std::fs::read_dir(work(&dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|path| {
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("KKvM.band-")
        })
        .map(|path| std::fs::read(path).unwrap())
        .collect();
    assert!(!bands.is_empty());
    for band in &bands {
        assert!(holds(band, "black to move where crowned alone"));
        assert!(!holds(band, "white to move"));
    }
    dir
}

/// A side that the materials still to read it reach only through a crowning keeps the
/// positions a crowning reaches alone; the run stopped there resumes to a clean run's tables.
#[test]
fn a_side_read_only_through_crownings_keeps_the_crowned_positions_alone() {
    let (clean, _, _) = generate("brazilian", 3, &[]);
    let dir = stopped_as_kmvm_is_solved();
    let err = resume(&dir, "3", &[]);
    assert!(
        !err.contains("damaged") && !err.contains("panicked"),
        "{err}"
    );
    assert_eq!(tables(&dir), tables(&clean));
    ok(&["verify", "--variant", "brazilian", "--data", data(&dir)]);
    // KKvM's band files, read back from its tables by the resumed run, are not left behind.
    let left = left_in_work(&dir);
    assert!(left.is_empty(), "{left:?}");
}

/// A larger run reads KKvM's Black to move through a capture too (KKvKM: White takes Black's
/// king): it does not take the band files that keep the crowned positions alone, and reads
/// KKvM back from its tables.
#[test]
fn a_larger_run_reads_back_a_side_kept_where_crowned_alone() {
    let (clean, _, _) = generate("brazilian", 4, &[]);
    let dir = stopped_as_kmvm_is_solved();
    let err = resume(&dir, "4", &[]);
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
    let err = resume(&dir, "4", &["--tables", "wdl"]);
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
