//! A large kings-only material seeded in parts, each part a unit of its own (as the jobs of
//! several cluster nodes run them), then solved by its material's unit from the parts' files:
//! the tables must be the ones a whole run writes, byte for byte. A part missing or damaged is
//! never taken: the material's unit seeds it again itself.
//!
//! `RAFLE_SEED_PART_POSITIONS` makes parts small enough for Brazilian materials of four kings
//! (in the release set only materials past 2³⁰ positions are split), and `RAFLE_KINGS_IN_BITS=1`
//! sends them through the bit propagation, which parts feed.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use common::{table_files, text};
use serde_json::Value;
use tempfile::TempDir;

/// Positions of a part here: KKvKK (431,520 positions) in 7 parts, KKKvK (287,680) in 5.
const PART: &str = "65536";

fn rafle(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rafle"))
        .args(args)
        .arg("--data")
        .arg(dir)
        .env("RAFLE_KINGS_IN_BITS", "1")
        .env("RAFLE_SEED_PART_POSITIONS", PART)
        .output()
        .unwrap()
}

fn ok(args: &[&str], dir: &Path) -> String {
    let out = rafle(args, dir);
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

fn fails(args: &[&str], dir: &Path) -> String {
    let out = rafle(args, dir);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stderr)
}

/// The units of `rafle plan --json` in order: name, needs, status.
fn plan_units(dir: &Path) -> Vec<(String, Vec<String>, String)> {
    let plan = ok(
        &["plan", "--variant", "brazilian", "--pieces", "4", "--json"],
        dir,
    );
    let plan: Value = serde_json::from_str(plan.trim()).unwrap();
    plan["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            let needs = u["needs"].as_array().unwrap();
            (
                u["name"].as_str().unwrap().to_string(),
                needs
                    .iter()
                    .map(|n| n.as_str().unwrap().to_string())
                    .collect(),
                u["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_material_seeded_in_parts_gives_the_tables_of_a_whole_run() {
    let whole = TempDir::new().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rafle"))
        .args([
            "generate",
            "--variant",
            "brazilian",
            "--pieces",
            "4",
            "--data",
        ])
        .arg(whole.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));

    let split = TempDir::new().unwrap();
    let dir = split.path();
    let units = plan_units(dir);
    let names: Vec<&str> = units.iter().map(|u| u.0.as_str()).collect();
    let parts_of = |m: &str| {
        names
            .iter()
            .filter(|n| n.starts_with(&format!("brazilian/{m}/seed-")))
            .count()
    };
    assert_eq!(
        (parts_of("KKvKK"), parts_of("KKKvK"), parts_of("KKvK")),
        (7, 5, 0)
    );
    // The parts come before their material, which needs them all and what they read.
    let kkvkk = names.iter().position(|&n| n == "brazilian/KKvKK").unwrap();
    assert_eq!(names[kkvkk - 7], "brazilian/KKvKK/seed-1");
    assert_eq!(units[kkvkk - 7].1, ["brazilian/KKvK"]);
    assert!(units[kkvkk]
        .1
        .contains(&"brazilian/KKvKK/seed-7".to_string()));
    assert!(units[kkvkk].1.contains(&"brazilian/KKvK".to_string()));

    ok(
        &["generate", "--variant", "brazilian", "--pieces", "3"],
        dir,
    );
    let err = fails(&["generate", "--unit", "brazilian/KKvKK/seed-8"], dir);
    assert!(err.contains("seed parts 1 to 7"), "{err}");
    let err = fails(&["generate", "--unit", "brazilian/KKvK/seed-1"], dir);
    assert!(err.contains("not seeded in parts"), "{err}");

    // Every unit in plan order, but KKvKK's parts last first, and KKKvK's skipped: its unit
    // seeds them itself.
    let work = dir.join("brazilian/.rafle-work");
    let mut order: Vec<&str> = names.clone();
    order[kkvkk - 7..kkvkk].reverse();
    order.retain(|n| !n.starts_with("brazilian/KKKvK/seed-"));
    for name in order {
        let summary = ok(&["generate", "--unit", name], dir);
        if name.contains("/seed-") {
            assert!(summary.contains(" seeded"), "{name}: {summary}");
            assert!(work
                .join(format!("KKvKK.seeds-{}", &name[name.len() - 1..]))
                .exists());
        }
        if name == "brazilian/KKvKK/seed-3" {
            // Damaged after it was written: never taken, seeded again by KKvKK's unit.
            let path = work.join("KKvKK.seeds-3");
            let mut bytes = fs::read(&path).unwrap();
            bytes[10] ^= 0x40;
            fs::write(&path, &bytes).unwrap();
        }
    }
    // A part run again once its material is finished has nothing to do.
    let again = ok(&["generate", "--unit", "brazilian/KKvKK/seed-2"], dir);
    assert!(again.contains("already seeded"), "{again}");
    ok(
        &["generate", "--variant", "brazilian", "--pieces", "4"],
        dir,
    );

    assert_eq!(
        table_files(dir, "brazilian"),
        table_files(whole.path(), "brazilian")
    );
    assert!(plan_units(dir).iter().all(|u| u.2 == "finished"));
    let left: Vec<String> = fs::read_dir(&work)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".seeds-") && !n.ends_with(".lock"))
                .collect()
        })
        .unwrap_or_default();
    assert!(left.is_empty(), "seed parts left: {left:?}");
}
