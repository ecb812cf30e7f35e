//! End-to-end tests of `rafle generate` on damaged work and bookkeeping files: a raw work file
//! changed after a stopped run is never trusted, a summary that is not whole is never printed,
//! a link or a FIFO in a summary's place is replaced, and a table the probe refuses is rebuilt.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use crate::common;
use common::{crc32, data, generate, ok, rafle, raw_zstd_frame, table_bytes, text};

use rafle_probe::toolkit::format::TableKind;
use rafle_probe::{draughts::Variant, toolkit::Table};

/// `rafle generate --variant brazilian --pieces 3 --data DIR`: its exit status, stdout and
/// stderr.
fn generate_again(dir: &TempDir) -> (bool, String, String) {
    let out = rafle(&[
        "generate",
        "--variant",
        "brazilian",
        "--pieces",
        "3",
        "--data",
        data(dir),
    ]);
    let err = text(&out.stderr);
    assert!(
        !err.contains("panicked") && !err.contains("internal error"),
        "{err}"
    );
    (out.status.success(), text(&out.stdout), err)
}

/// The tables under `dir`'s Brazilian directory, by name, with their bytes.
fn tables(dir: &TempDir) -> BTreeMap<String, Vec<u8>> {
    let mut all = BTreeMap::new();
    for entry in std::fs::read_dir(dir.path().join("brazilian")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            all.insert(name, std::fs::read(&path).unwrap());
        }
    }
    all
}

fn work(dir: &TempDir) -> PathBuf {
    dir.path().join("brazilian").join(rafle_generator::WORK_DIR)
}

/// Flips the lowest bit of every `step`th byte of the file from `from` on: a win becomes a
/// loss, a loss a win, a rule count another.
fn flip_every(path: &Path, from: usize, step: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    for at in (from..bytes.len()).step_by(step) {
        bytes[at] ^= 1;
    }
    std::fs::write(path, bytes).unwrap();
}

/// The wins, draws and losses of each material in a generate summary.
fn counts(summary: &str) -> BTreeMap<String, Vec<String>> {
    summary
        .lines()
        .filter(|l| l.starts_with("brazilian "))
        .map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            (
                fields[1].to_string(),
                fields[3..6].iter().map(|f| f.to_string()).collect(),
            )
        })
        .collect()
}

/// A run stopped in MvM (men alone: a raw work file) after its every band was solved and recorded
/// (its win/draw/loss table cannot be written: a directory holds the name), its raw work file
/// then changed. The next run finds the bands that no longer match, solves them again, and
/// ends with the tables of a run never stopped, which `verify` passes.
#[test]
fn a_changed_raw_work_file_is_solved_again_not_trusted() {
    let (clean, _, _) = generate("brazilian", 3, &[]);
    let dir = TempDir::new().unwrap();
    let blocked = dir.path().join("brazilian/MvM.wdl");
    std::fs::create_dir_all(&blocked).unwrap();
    let (success, _, err) = generate_again(&dir);
    assert!(!success, "{err}");
    assert!(err.contains("MvM.wdl"), "{err}");
    std::fs::remove_dir(&blocked).unwrap();
    let partial = work(&dir).join("MvM.partial");
    let journal = std::fs::read_to_string(work(&dir).join("MvM.journal")).unwrap();
    assert!(journal.lines().count() > 2, "{journal}");
    flip_every(&partial, 0, 5);

    let (success, _, err) = generate_again(&dir);
    assert!(success, "{err}");
    assert!(
        err.contains("MvM.partial is damaged: band 0 does not match its checksum"),
        "{err}"
    );
    assert_eq!(tables(&dir), tables(&clean));
    ok(&["verify", "--variant", "brazilian", "--data", data(&dir)]);
}

/// A run stopped in MvM after every band was recorded, run again as it was left: nothing is
/// said about damage, and the tables are those of a run never stopped. (That no band is solved
/// again is checked in `generator/tests/e2e/resume.rs`, which sees the progress reports.)
#[test]
fn an_intact_raw_work_file_is_resumed_without_notice() {
    let (clean, _, _) = generate("brazilian", 3, &[]);
    let dir = TempDir::new().unwrap();
    let blocked = dir.path().join("brazilian/MvM.wdl");
    std::fs::create_dir_all(&blocked).unwrap();
    let (success, _, err) = generate_again(&dir);
    assert!(!success, "{err}");
    std::fs::remove_dir(&blocked).unwrap();
    let (success, _, err) = generate_again(&dir);
    assert!(success && !err.contains("damaged"), "{err}");
    assert_eq!(tables(&dir), tables(&clean));
}

/// Brazilian up to 3 generated whole, and a run of it stopped after writing `material`'s
/// tables, before packing its values for the materials after it (a directory held the packed
/// file's name, removed since).
fn stopped_before_packing(material: &str) -> (TempDir, TempDir) {
    let (clean, _, _) = generate("brazilian", 3, &[]);
    let dir = TempDir::new().unwrap();
    let blocked = work(&dir).join(format!("{material}.packed"));
    std::fs::create_dir_all(&blocked).unwrap();
    let (success, _, err) = generate_again(&dir);
    assert!(!success, "{err}");
    std::fs::remove_dir(&blocked).unwrap();
    assert!(dir
        .path()
        .join(format!("brazilian/{material}.rules"))
        .exists());
    (clean, dir)
}

/// A run stopped after writing MvM's tables, before packing its values for the materials
/// after it (a directory holds the packed file's name): the next run packs the raw file it
/// left, but only if every band still matches; changed, it reads the values back from the
/// tables instead.
#[test]
fn a_changed_raw_work_file_of_finished_tables_is_not_packed() {
    let (clean, dir) = stopped_before_packing("MvM");
    flip_every(&work(&dir).join("MvM.partial"), 3, 11);

    let (success, _, err) = generate_again(&dir);
    assert!(success, "{err}");
    assert!(
        err.contains("MvM.partial is damaged: band ")
            && err.contains("read back from the tables instead"),
        "{err}"
    );
    assert_eq!(tables(&dir), tables(&clean));
    ok(&["verify", "--variant", "brazilian", "--data", data(&dir)]);
}

/// A run stopped after writing KMvM's tables (a single king among men: band files), before
/// packing them for the materials after it (a directory holds the packed file's name): the
/// next run packs the band files it left, which check, says nothing of damage, and ends with
/// the tables of a run never stopped.
#[test]
fn band_files_of_a_single_king_are_packed_when_the_run_resumes() {
    let (clean, dir) = stopped_before_packing("KMvM");
    assert!(!work(&dir).join("KMvM.partial").exists());
    assert!(work(&dir).join("KMvM.band-000").is_file());

    let (success, _, err) = generate_again(&dir);
    assert!(success && !err.contains("damaged"), "{err}");
    assert_eq!(tables(&dir), tables(&clean));
    let left: Vec<String> = std::fs::read_dir(work(&dir))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".band-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// An edited summary (9,999,999 wins for a material of 1,760 positions) is not printed: the
/// counts are taken from the tables again. Edited with its checksum made again, too.
#[test]
fn an_edited_summary_is_never_printed() {
    let (dir, first, _) = generate("brazilian", 3, &[]);
    let expected = counts(&first);
    let wins = &expected["KMvM"][0];
    let path = work(&dir).join("KMvM.summary");
    let good = std::fs::read_to_string(&path).unwrap();
    // The first number of the file that is the wins (the file's first field in the summaries
    // of the version before checksums).
    let edit = |text: &str| match text.strip_prefix(&format!("{wins} ")) {
        Some(rest) => format!("9999999 {rest}"),
        None => text.replacen(&format!("counts {wins} "), "counts 9999999 ", 1),
    };
    let edited = edit(&good);
    assert_ne!(edited, good);
    let forged = match edited.rsplit_once("crc ") {
        Some((body, _)) => format!("{body}crc {:08x}\n", crc32(body.as_bytes())),
        None => edited.clone(),
    };
    for text in [edited, forged] {
        std::fs::write(&path, text).unwrap();
        let (success, summary, err) = generate_again(&dir);
        assert!(success, "{err}");
        assert!(!summary.contains("9999999"), "{summary}");
        assert_eq!(counts(&summary), expected, "{summary}");
    }
}

/// A symbolic link in a summary's place is replaced, its target left as it was.
#[test]
fn a_symlinked_summary_does_not_overwrite_its_target() {
    let (dir, first, _) = generate("brazilian", 3, &[]);
    let outside = TempDir::new().unwrap();
    let target = outside.path().join("precious");
    std::fs::write(&target, "keep me\n").unwrap();
    let path = work(&dir).join("KMvM.summary");
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&target, &path).unwrap();
    let (success, summary, err) = generate_again(&dir);
    assert!(success, "{err}");
    assert_eq!(counts(&summary), counts(&first));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me\n");
    assert!(std::fs::symlink_metadata(&path).unwrap().is_file());
}

/// A FIFO in a summary's place does not make `generate` wait for a reader: it is replaced.
#[test]
fn a_fifo_summary_does_not_hang_generate() {
    let (dir, first, _) = generate("brazilian", 3, &[]);
    let path = work(&dir).join("KMvM.summary");
    std::fs::remove_file(&path).unwrap();
    let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: `name` is a valid NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let mut child = Command::new(env!("CARGO_BIN_EXE_rafle"))
        .args(["generate", "--variant", "brazilian", "--pieces", "3"])
        .args(["--data", data(&dir)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("generate still waits on the FIFO after 2 minutes");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(counts(&text(&out.stdout)), counts(&first));
    assert!(std::fs::symlink_metadata(&path).unwrap().is_file());
}

/// A distance table whose header is edited (8 bits a distance made 16) with its checksum made
/// again opens, and its block checksums match, but the probe refuses to read it: `generate`
/// rebuilds it rather than reuse it, and `verify` passes again.
#[test]
fn a_table_the_probe_refuses_is_rebuilt_not_reused() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let before = tables(&dir);
    let path = dir.path().join("brazilian/KMvM.dtw");
    let mut bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes[32], 8, "an 8-bit distance table");
    bytes[32] = 16;
    let crc = crc32(&bytes[..60]);
    bytes[60..64].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let out = rafle(&["verify", "--variant", "brazilian", "--data", data(&dir)]);
    assert!(
        !out.status.success(),
        "verify passed a table it cannot read"
    );

    let (success, summary, err) = generate_again(&dir);
    assert!(success, "{err}");
    let row = summary
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("KMvM"))
        .unwrap();
    assert!(row.contains("rebuilt") && row.contains("KMvM.dtw"), "{row}");
    assert_eq!(tables(&dir), before);
    ok(&["verify", "--variant", "brazilian", "--data", data(&dir)]);
}

/// Rewrites the table at `path` (of `kind`, Brazilian `material`) with its header changed by
/// `header` and each block's decompressed codes by `block` (given the block's number), its
/// blocks, index and header checksums made again: it opens and reads cleanly.
fn rewrite_table(
    path: &Path,
    kind: TableKind,
    material: &str,
    header: impl FnOnce(&mut rafle_probe::toolkit::format::Header),
    block: impl Fn(u32, Vec<u8>) -> Vec<u8>,
) {
    let material = material.parse().unwrap();
    let table = Table::open(path, kind, Variant::Brazilian, material).unwrap();
    let mut changed = *table.header();
    header(&mut changed);
    let frames: Vec<Vec<u8>> = (0..changed.blocks)
        .map(|b| raw_zstd_frame(&block(b, table.read_block(b).unwrap())))
        .collect();
    drop(table);
    std::fs::write(path, table_bytes(&changed, &frames)).unwrap();
}

/// Rewrites a distance table as 16 bits a distance with every win made one of 40,001 plies and
/// every loss but the immediate ones one of 40,000: no work file holds such a distance.
fn forge_impossible_distances(path: &Path, material: &str) {
    let header = |header: &mut rafle_probe::toolkit::format::Header| {
        assert_eq!(header.bits, 8);
        header.bits = 16;
    };
    rewrite_table(path, TableKind::Dtw, material, header, |_, codes| {
        codes
            .into_iter()
            .flat_map(|code| {
                let code = match code {
                    255 => u16::MAX,
                    c if c % 2 == 1 => 40_001,
                    0 => 0,
                    _ => 40_000,
                };
                code.to_le_bytes()
            })
            .collect()
    });
}

/// A reused distance table forged with valid checksums to hold wins and losses of 40,000 plies
/// and more (past the longest a work file holds, 32,766): read back for its counts, it is
/// refused and rebuilt,
/// naming the file; its values are never counted, printed or read by another material.
#[test]
fn a_reused_table_with_impossible_distances_is_rebuilt() {
    let (dir, first, _) = generate("brazilian", 3, &[]);
    let before = tables(&dir);
    let path = dir.path().join("brazilian/KKvK.dtw");
    forge_impossible_distances(&path, "KKvK");
    // The counts kept with the tables are gone: they are read back from the tables.
    std::fs::remove_file(work(&dir).join("KKvK.summary")).unwrap();
    let (success, summary, err) = generate_again(&dir);
    assert!(success, "{err}");
    let row = summary
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("KKvK"))
        .unwrap();
    assert!(
        row.contains("rebuilt") && row.contains("KKvK.dtw: a distance of 4000"),
        "{row}"
    );
    // Its longest win is the true one, not the forged.
    assert_eq!(row.split_whitespace().nth(8), Some("7"), "{row}");
    assert_eq!(counts(&summary), counts(&first));
    assert_eq!(tables(&dir), before);
}

/// Rewrites a rule table with a code no rule value has (255) at every seventh position of its
/// first block.
fn forge_invalid_rule_codes(path: &Path, material: &str) {
    rewrite_table(
        path,
        TableKind::DrawRules,
        material,
        |_| {},
        |b, mut codes| {
            if b == 0 {
                codes.iter_mut().step_by(7).for_each(|code| *code = 255);
            }
            codes
        },
    );
}

/// A reused rule table forged with valid checksums to hold codes no rule value has: read back
/// with its distance table for a material that reads it, it is refused, its material's values
/// rebuilt, and the tables are those of a clean run.
#[test]
fn a_reused_rule_table_with_invalid_codes_is_rebuilt() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let (clean, _, _) = generate("brazilian", 4, &[]);
    forge_invalid_rule_codes(&dir.path().join("brazilian/KKvK.rules"), "KKvK");
    std::fs::remove_file(work(&dir).join("KKvK.summary")).unwrap();
    let (summary, err) = common::generate_in(dir.path(), "brazilian", 4, &[]);
    assert!(!err.contains("panicked"), "{err}");
    let row = summary
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("KKvK"))
        .unwrap();
    assert!(
        row.contains("rebuilt") && row.contains("no valid rule table"),
        "{row}"
    );
    assert_eq!(tables(&dir), tables(&clean));
    ok(&["verify", "--variant", "brazilian", "--data", data(&dir)]);
}

/// `rafle generate --variant brazilian --pieces 4 --data DIR` run with KKMvK's win/draw/loss
/// table blocked (a directory holds its name): it stops after every band of KKMvK, a material
/// solved into band files, is written and recorded. Returns the directory.
fn stopped_after_the_bands_of_kkmvk() -> TempDir {
    let dir = TempDir::new().unwrap();
    let blocked = dir.path().join("brazilian/KKMvK.wdl");
    std::fs::create_dir_all(&blocked).unwrap();
    let out = generate_four(&dir, &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("KKMvK.wdl"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir(&blocked).unwrap();
    dir
}

/// `rafle generate --variant brazilian --pieces 4` into `dir`, then `more` arguments.
fn generate_four(dir: &TempDir, more: &[&str]) -> std::process::Output {
    let mut args = vec![
        "generate",
        "--variant",
        "brazilian",
        "--pieces",
        "4",
        "--data",
        data(dir),
    ];
    args.extend_from_slice(more);
    rafle(&args)
}

fn generate_four_again(dir: &TempDir) -> String {
    let out = generate_four(dir, &[]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// A material with many king placements keeps no raw work file: its bands go to compressed
/// band files, each checked against the journal when a stopped run resumes. One changed is
/// solved again from its band, with a notice; the tables end as a run never stopped makes
/// them, and the band files are gone once no material reads them.
#[test]
fn a_changed_band_file_is_solved_again_not_trusted() {
    let (clean, _, _) = generate("brazilian", 4, &[]);
    let dir = stopped_after_the_bands_of_kkmvk();
    assert!(!work(&dir).join("KKMvK.partial").exists());
    let journal = std::fs::read_to_string(work(&dir).join("KKMvK.journal")).unwrap();
    let bands = journal.lines().count() - 1;
    assert!(bands > 2, "{journal}");
    for b in 0..bands {
        assert!(work(&dir).join(format!("KKMvK.band-{b:03}")).is_file());
    }
    // A byte of band 1's chunks changed: the directory at its end still checks.
    flip_every(&work(&dir).join("KKMvK.band-001"), 40, 1_000_000);

    let err = generate_four_again(&dir);
    assert!(
        err.contains("KKMvK.band-001 is damaged: does not match its checksum"),
        "{err}"
    );
    assert_eq!(tables(&dir), tables(&clean));
    ok(&["verify", "--variant", "brazilian", "--data", data(&dir)]);
    let left: Vec<_> = std::fs::read_dir(work(&dir))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|name| name.to_string_lossy().contains(".band-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The same stop, resumed as it was left: no notice, and the tables of a run never stopped;
/// a missing band file is solved again from its band.
#[test]
fn intact_band_files_are_resumed_and_a_missing_one_solved_again() {
    let (clean, _, _) = generate("brazilian", 4, &[]);
    let dir = stopped_after_the_bands_of_kkmvk();
    let err = generate_four_again(&dir);
    assert!(!err.contains("damaged"), "{err}");
    assert_eq!(tables(&dir), tables(&clean));

    let dir = stopped_after_the_bands_of_kkmvk();
    std::fs::remove_file(work(&dir).join("KKMvK.band-002")).unwrap();
    let err = generate_four_again(&dir);
    assert!(err.contains("KKMvK.band-002 is damaged: missing"), "{err}");
    assert_eq!(tables(&dir), tables(&clean));
}

/// The arguments of a run of the win/draw/loss tables alone.
const WDL: [&str; 2] = ["--tables", "wdl"];

/// A run of the win/draw/loss tables alone packs the band files of a finished material that
/// a later one reads (KKMvK, read by KKMvM's captures and, last, by KMMvK's promotions) into
/// a packed file of 2 bits a position, and removes them; a run stopped while KKMvM's table
/// is written takes those values up again instead of solving the material a second time.
#[test]
fn a_wdl_run_packs_band_files_and_resumes_from_the_packed_file() {
    let clean = TempDir::new().unwrap();
    assert!(generate_four(&clean, &WDL).status.success());
    let dir = TempDir::new().unwrap();
    let blocked = dir.path().join("brazilian/KKMvM.wdl");
    std::fs::create_dir_all(&blocked).unwrap();
    let out = generate_four(&dir, &WDL);
    assert!(!out.status.success());
    std::fs::remove_dir(&blocked).unwrap();
    let packed = std::fs::read(work(&dir).join("KKMvK.wdl.packed")).unwrap();
    // Format version 2 (2 bits a position), 65,536 positions a block.
    assert_eq!(&packed[..16], b"RAFLEPK\x1a\x02\0\0\0\0\0\x01\0");
    let bands: Vec<_> = std::fs::read_dir(work(&dir))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("KKMvK.") && name.contains(".band-"))
        .collect();
    assert!(bands.is_empty(), "{bands:?}");

    let out = generate_four(&dir, &WDL);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("brazilian KKMvK: 755160 positions, reused"),
        "{err}"
    );
    assert!(!err.contains("damaged"), "{err}");
    assert_eq!(tables(&dir), tables(&clean));
}
