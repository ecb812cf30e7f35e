//! End-to-end tests of `rafle verify --materials`: only the materials named are checked, only
//! the tables they read are required (a unit's directory passes), a damaged named material
//! still fails, and its records serve a whole `--resume` check.

use std::fs;

use rafle_probe::toolkit::format::TableKind;
use rafle_probe::{
    draughts::{Material, Variant},
    toolkit::{table_path, PositionIndex},
};
use tempfile::TempDir;

use crate::common;
use common::{data, fails, generate, ok, rafle, swap_wins_and_losses, text};

fn material(name: &str) -> Material {
    name.parse().unwrap()
}

/// The line of a material checked whole.
fn checked(name: &str) -> String {
    let positions = PositionIndex::count(Variant::Brazilian, material(name));
    format!("brazilian {name} {positions} positions ok")
}

/// The whole output of a check of one material that passes: its line and the last line.
fn alone(name: &str) -> String {
    let positions = PositionIndex::count(Variant::Brazilian, material(name));
    format!(
        "{}\nverified 1 material, {positions} positions: all ok\n",
        checked(name)
    )
}

/// Removes the three tables of every Brazilian material but `kept`.
fn keep_only(dir: &TempDir, kept: &[&str]) {
    for m in Material::all_up_to(Variant::Brazilian, 4) {
        if kept.contains(&m.to_string().as_str()) {
            continue;
        }
        for kind in TableKind::ALL {
            fs::remove_file(table_path(dir.path(), Variant::Brazilian, m, kind)).unwrap();
        }
    }
}

#[test]
fn a_directory_holding_one_material_and_what_it_reads_passes_for_that_material() {
    let (dir, _, _) = generate("brazilian", 4, &[]);
    // KKvKK's captures reach KKvK, whose captures reach KvK: nothing else.
    keep_only(&dir, &["KvK", "KKvK", "KKvKK"]);
    let out = ok(&["verify", "--data", data(&dir), "--materials", "KKvKK"]);
    assert_eq!(out, alone("KKvKK"));

    // Either orientation names it; a material named twice is checked once.
    let out = ok(&["verify", "--data", data(&dir), "--materials", "KKvKK,KKvKK"]);
    assert_eq!(out, alone("KKvKK"));

    // The whole directory is an incomplete set up to 4 pieces.
    let whole = rafle(&["verify", "--data", data(&dir)]);
    assert_eq!(whole.status.code(), Some(1));
    let stdout = text(&whole.stdout);
    assert!(stdout.contains("brazilian KMvK missing: "), "{stdout}");
    assert!(stdout.contains(&checked("KKvKK")), "{stdout}");
}

#[test]
fn a_table_the_named_material_reads_is_required_and_named() {
    let (dir, _, _) = generate("brazilian", 4, &[]);
    keep_only(&dir, &["KvK", "KKvKK"]);
    let out = rafle(&["verify", "--data", data(&dir), "--materials", "KKvKK"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let kkvk = table_path(
        dir.path(),
        Variant::Brazilian,
        material("KKvK"),
        TableKind::Wdl,
    );
    assert!(
        stdout.contains(&format!("brazilian KKvK missing: {}", kkvk.display())),
        "{stdout}"
    );
    assert!(!stdout.contains("KMvK"), "{stdout}");
    assert!(text(&out.stderr).contains("3 tables are missing"));
}

#[test]
fn a_damaged_named_material_fails_and_the_others_are_not_read() {
    let (dir, _, _) = generate("brazilian", 4, &[]);
    let kmvk = material("KMvK");
    swap_wins_and_losses(
        &table_path(dir.path(), Variant::Brazilian, kmvk, TableKind::Wdl),
        kmvk,
    );
    let out = rafle(&["verify", "--data", data(&dir), "--materials", "KvKM"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("brazilian KMvK 52080 positions "),
        "{stdout}"
    );
    assert!(stdout.contains(" mismatch"), "{stdout}");
    // A material that does not read it is not touched by the damage.
    let out = ok(&["verify", "--data", data(&dir), "--materials", "KKvKK"]);
    assert_eq!(out, alone("KKvKK"));
}

#[test]
fn its_records_serve_a_whole_resumed_check_and_a_bad_name_is_refused() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let args = [
        "verify",
        "--resume",
        "--data",
        data(&dir),
        "--materials",
        "KKvK",
    ];
    assert_eq!(ok(&args), alone("KKvK"));
    let whole = ok(&["verify", "--resume", "--data", data(&dir)]);
    let line = format!(
        "{} (checked before, as .rafle-verified records)",
        checked("KKvK")
    );
    assert!(whole.lines().any(|l| l == line), "{whole}");
    assert!(whole.lines().any(|l| l == checked("KvK")), "{whole}");

    let err = fails(
        &["verify", "--data", data(&dir), "--materials", "KKKKKKKKKvK"],
        2,
    );
    assert!(err.contains("at most 8"), "{err}");
    let err = fails(&["verify", "--data", data(&dir), "--materials", "KxK"], 2);
    assert!(err.contains("--materials"), "{err}");
}
