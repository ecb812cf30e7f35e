//! End-to-end tests of `rafle verify --resume`: a check stopped part way starts again at the
//! first material its record does not hold, a material recorded is still checked again when
//! its tables or those of a material before it changed, and damaged blocks of a recorded
//! material are still reported.

use std::fs;
use std::path::PathBuf;

use rafle_probe::toolkit::format::TableKind;
use rafle_probe::{
    draughts::{Material, Variant},
    toolkit::{table_path, PositionIndex},
};
use tempfile::TempDir;

use crate::common;
use common::{data, generate, ok, rafle, swap_wins_and_losses, text};

const RECORD: &str = ".rafle-verified";

fn record(dir: &TempDir) -> PathBuf {
    dir.path().join("brazilian").join(RECORD)
}

/// The line of a material checked whole now.
fn checked_now(material: Material) -> String {
    let positions = PositionIndex::count(Variant::Brazilian, material);
    format!("brazilian {material} {positions} positions ok")
}

/// The line of a material the record holds.
fn checked_before(material: Material) -> String {
    format!(
        "{} (checked before, as {RECORD} records)",
        checked_now(material)
    )
}

fn materials() -> Vec<Material> {
    Material::all_up_to(Variant::Brazilian, 3)
}

/// The material lines of a check's output, without its last line (the run's sum).
fn material_lines(out: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = out.lines().collect();
    let last = lines.pop().unwrap_or_default();
    assert!(last.starts_with("verified "), "{out}");
    lines
}

#[test]
fn a_stopped_check_starts_again_at_the_first_material_not_recorded() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let args = ["verify", "--resume", "--data", data(&dir)];
    let all = materials();
    let first = ok(&args);
    let expected: Vec<String> = all.iter().map(|&m| checked_now(m)).collect();
    assert_eq!(material_lines(&first), expected, "{first}");
    let lines = fs::read_to_string(record(&dir)).unwrap();
    assert_eq!(lines.lines().count(), all.len(), "{lines}");

    // As a run stopped while writing the fifth line leaves the record.
    let kept: Vec<&str> = lines.lines().take(5).collect();
    let cut = &kept[4][..kept[4].len() - 5];
    fs::write(record(&dir), format!("{}\n{cut}", kept[..4].join("\n"))).unwrap();
    let resumed = ok(&args);
    let expected: Vec<String> = all
        .iter()
        .enumerate()
        .map(|(k, &m)| {
            if k < 4 {
                checked_before(m)
            } else {
                checked_now(m)
            }
        })
        .collect();
    assert_eq!(material_lines(&resumed), expected, "{resumed}");

    let again = ok(&args);
    let expected: Vec<String> = all.iter().map(|&m| checked_before(m)).collect();
    assert_eq!(material_lines(&again), expected, "{again}");
    // Without --resume every position is checked, whatever the record says.
    let whole = ok(&["verify", "--data", data(&dir)]);
    assert_eq!(whole, first);
}

#[test]
fn a_changed_table_is_checked_again_with_every_material_after_it() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let args = ["verify", "--resume", "--data", data(&dir)];
    ok(&args);
    let recorded = fs::read_to_string(record(&dir)).unwrap();
    let all = materials();
    let changed: Material = "KKvM".parse().unwrap();
    let at = all.iter().position(|&m| m == changed).unwrap();
    let path = table_path(dir.path(), Variant::Brazilian, changed, TableKind::Wdl);
    swap_wins_and_losses(&path, changed);

    let out = rafle(&args);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    for &m in &all[..at] {
        assert!(stdout.contains(&checked_before(m)), "{m}: {stdout}");
    }
    assert!(
        stdout.contains("brazilian KKvM 26040 positions ") && stdout.contains(" mismatches\n"),
        "{stdout}"
    );
    for &m in &all[at + 1..] {
        assert!(
            !stdout.contains(&checked_before(m)),
            "{m} comes after KKvM: {stdout}"
        );
    }
    // What failed is not recorded.
    let now = fs::read_to_string(record(&dir)).unwrap();
    assert!(
        !now[recorded.len()..].contains("KKvM "),
        "{}",
        &now[recorded.len()..]
    );

    // Sound values again (in other bytes than generated): checked again, and passed.
    swap_wins_and_losses(&path, changed);
    let out = ok(&args);
    for &m in &all[at..] {
        assert!(out.contains(&format!("{}\n", checked_now(m))), "{m}: {out}");
    }
    let out = ok(&args);
    let expected: Vec<String> = all.iter().map(|&m| checked_before(m)).collect();
    assert_eq!(material_lines(&out), expected, "{out}");
}

#[test]
fn a_recorded_material_with_a_damaged_block_is_reported() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let args = ["verify", "--resume", "--data", data(&dir)];
    ok(&args);
    let material: Material = "KMvK".parse().unwrap();
    let path = table_path(
        dir.path(),
        Variant::Brazilian,
        material,
        TableKind::DrawRules,
    );
    let mut bytes = fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    fs::write(&path, bytes).unwrap();
    let out = rafle(&args);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("brazilian KMvK "))
        .unwrap();
    assert!(
        line.contains(" error: ") && line.contains("checksum mismatch"),
        "{line}"
    );
    assert!(
        text(&out.stderr).contains("1 of 9 materials failed verification"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn resuming_needs_a_record_it_can_write_and_no_sample() {
    let (dir, _, _) = generate("brazilian", 2, &[]);
    // A directory where the record should be: it cannot be opened for writing.
    fs::create_dir(record(&dir)).unwrap();
    let out = rafle(&["verify", "--resume", "--data", data(&dir)]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    let verdict = err.lines().last().unwrap_or_default();
    assert!(
        verdict.starts_with("rafle: cannot keep the record of checked materials in ")
            && verdict.contains(RECORD),
        "{err}"
    );
    let out = rafle(&["verify", "--resume", "--sample", "10", "--data", data(&dir)]);
    assert_eq!(out.status.code(), Some(2));
    let help = ok(&["verify", "--help"]);
    assert!(help.contains("--resume"), "{help}");
}
