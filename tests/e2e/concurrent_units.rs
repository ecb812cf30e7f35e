//! Units of work side by side on one data directory, as the jobs of a cluster run them: every
//! unit of a set started as soon as the units it needs are finished, several at a time, in a
//! random order the dependencies allow, then the finishing whole run. The tables must be the
//! ones a local run writes, byte for byte, and no unit may fail because another removed or
//! rewrote a work file it reads (the packed values of the materials below it, which each unit
//! removes once it sees every unit that reads them finished).
//!
//! The order is drawn from a seed, printed by each test; `RAFLE_TEST_SEED=<n>` replays it.
//! The Brazilian set up to 5 pieces is an ignored test (about 8 minutes on 2 cores):
//!
//! ```text
//! cargo test -p rafle --test e2e concurrent_units -- --ignored --nocapture
//! ```

use crate::common;

use std::collections::HashMap;
use std::fs::{self, File};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime};

use common::{data, generate, ok, table_files};
use rafle_testkit::Sampler;
use serde_json::Value;
use tempfile::TempDir;

/// The seed of this run: `RAFLE_TEST_SEED` if set, else drawn from the clock; printed, so a
/// failing order can be replayed.
fn seed() -> u64 {
    let seed = std::env::var("RAFLE_TEST_SEED")
        .ok()
        .map(|s| s.parse().expect("RAFLE_TEST_SEED is a number"))
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    println!("seed {seed} (replay with RAFLE_TEST_SEED={seed})");
    seed
}

/// A unit of `rafle plan --json`: its name and the units it needs (by position).
struct Unit {
    name: String,
    needs: Vec<usize>,
}

/// The units of Brazilian up to `pieces`, in plan order.
fn units(dir: &TempDir, pieces: u32) -> Vec<Unit> {
    let pieces = pieces.to_string();
    let out = ok(&[
        "plan",
        "-v",
        "brazilian",
        "-p",
        &pieces,
        "--data",
        data(dir),
        "--json",
    ]);
    let plan: Value = serde_json::from_str(&out).unwrap();
    let listed = plan["units"].as_array().unwrap();
    let position: HashMap<&str, usize> = listed
        .iter()
        .enumerate()
        .map(|(i, u)| (u["name"].as_str().unwrap(), i))
        .collect();
    listed
        .iter()
        .map(|u| Unit {
            name: u["name"].as_str().unwrap().to_string(),
            needs: u["needs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| position[n.as_str().unwrap()])
                .collect(),
        })
        .collect()
}

/// A unit's process under way, its output going to files of `logs`.
struct Running {
    unit: usize,
    child: Child,
}

/// Runs every unit as its own `rafle generate --unit NAME --set PIECES` process on `dir` (each
/// removing, once done, the values no unfinished unit reads), at most `at_once` at
/// a time, each started (picked at random among those ready) as soon as the units it needs
/// have finished and a place is free. Panics, naming the unit, its output and `seed`, if one
/// fails.
fn run_side_by_side(
    dir: &TempDir,
    units: &[Unit],
    pieces: &str,
    at_once: usize,
    rng: &mut Sampler,
    seed: u64,
) {
    let logs = TempDir::new().unwrap();
    let log = |unit: usize, stream: &str| {
        let name = units[unit].name.replace('/', "-");
        logs.path().join(format!("{name}.{stream}"))
    };
    let (mut started, mut finished) = (vec![false; units.len()], vec![false; units.len()]);
    let mut running: Vec<Running> = Vec::new();
    loop {
        let mut ready: Vec<usize> = (0..units.len())
            .filter(|&u| !started[u] && units[u].needs.iter().all(|&d| finished[d]))
            .collect();
        while running.len() < at_once && !ready.is_empty() {
            let unit = ready.swap_remove(rng.below(ready.len() as u64) as usize);
            started[unit] = true;
            let child = Command::new(env!("CARGO_BIN_EXE_rafle"))
                .args([
                    "generate",
                    "--unit",
                    &units[unit].name,
                    "--set",
                    pieces,
                    "--data",
                    data(dir),
                    "--threads",
                    "1",
                ])
                .stdin(Stdio::null())
                .stdout(File::create(log(unit, "out")).unwrap())
                .stderr(File::create(log(unit, "err")).unwrap())
                .spawn()
                .unwrap();
            running.push(Running { unit, child });
        }
        if running.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
        let mut k = 0;
        while k < running.len() {
            let Some(status) = running[k].child.try_wait().unwrap() else {
                k += 1;
                continue;
            };
            let unit = running.swap_remove(k).unit;
            assert!(
                status.success(),
                "seed {seed}: unit {} failed ({status}): {}",
                units[unit].name,
                fs::read_to_string(log(unit, "err")).unwrap()
            );
            finished[unit] = true;
        }
    }
    assert!(finished.iter().all(|&f| f), "seed {seed}: a unit never ran");
}

/// Packed work files left in the variant's work directory.
fn packed_files(dir: &Path) -> usize {
    fs::read_dir(dir.join("brazilian/.rafle-work")).map_or(0, |entries| {
        entries
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "packed"))
            .count()
    })
}

/// `rounds` times: every unit of Brazilian up to `pieces` side by side on a fresh directory,
/// then the finishing whole run; each time the tables are those of a local run (`tables`
/// files), and no work file is left.
fn units_side_by_side_are_a_local_run(pieces: u32, at_once: usize, rounds: usize, count: usize) {
    let seed = seed();
    let mut rng = Sampler::new(seed);
    let (local, _, _) = generate("brazilian", pieces, &[]);
    let expected = table_files(local.path(), "brazilian");
    assert_eq!(expected.len(), count);
    let pieces_arg = pieces.to_string();
    for round in 0..rounds {
        let dir = TempDir::new().unwrap();
        let units = units(&dir, pieces);
        run_side_by_side(&dir, &units, &pieces_arg, at_once, &mut rng, seed);
        ok(&[
            "generate",
            "--variant",
            "brazilian",
            "--pieces",
            &pieces_arg,
            "--data",
            data(&dir),
        ]);
        let got = table_files(dir.path(), "brazilian");
        let mut names: Vec<&String> = expected.keys().collect();
        names.sort();
        let mut got_names: Vec<&String> = got.keys().collect();
        got_names.sort();
        assert_eq!(
            names, got_names,
            "seed {seed}, round {round}: the same files"
        );
        for name in names {
            assert!(
                expected[name] == got[name],
                "seed {seed}, round {round}: {name} differs from the local run's"
            );
        }
        assert_eq!(packed_files(dir.path()), 0, "seed {seed}, round {round}");
    }
}

#[test]
fn units_of_brazilian_up_to_4_side_by_side_are_a_local_run() {
    units_side_by_side_are_a_local_run(4, 4, 3, 69);
}

#[test]
#[ignore = "about 8 minutes: cargo test -p rafle --test e2e concurrent_units -- --ignored"]
fn units_of_brazilian_up_to_5_side_by_side_are_a_local_run() {
    units_side_by_side_are_a_local_run(5, 4, 1, 135);
}
