//! Generation as units of work, as a cluster runs it: `rafle plan`, `rafle generate --unit`,
//! and how units hand values to each other (packed work files, a material read back from its
//! tables, whole or block by block). `rafle slurm submit` is tested in `tests/e2e/slurm_submit.rs`.

use crate::common;

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{assert_same_tables, data, fails, generate, ok, packed_files, rafle, text};
use serde_json::Value;
use tempfile::TempDir;

/// `rafle plan --json` of Brazilian up to `pieces` in `dir`: its one JSON object.
fn plan_json(dir: &str, pieces: u32) -> Value {
    let pieces = pieces.to_string();
    let out = ok(&[
        "plan",
        "--variant",
        "brazilian",
        "--pieces",
        &pieces,
        "--data",
        dir,
        "--json",
    ]);
    assert_eq!(out.lines().count(), 1, "one line a variant: {out}");
    serde_json::from_str(&out).unwrap()
}

/// `rafle plan --json` of Brazilian up to 4 pieces in `dir`, with `extra` options.
fn plan_json_with(dir: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "plan",
        "-v",
        "brazilian",
        "-p",
        "4",
        "--data",
        dir,
        "--json",
    ];
    args.extend_from_slice(extra);
    serde_json::from_str(&ok(&args)).unwrap()
}

/// Whether every unit of a plan's JSON is finished.
fn all_finished(plan: &Value) -> bool {
    plan["units"]
        .as_array()
        .unwrap()
        .iter()
        .all(|u| u["status"] == "finished")
}

fn unit_names(plan: &Value) -> Vec<String> {
    plan["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_plan_lists_every_unit_after_the_units_it_needs() {
    let empty = TempDir::new().unwrap();
    let plan = plan_json(data(&empty), 4);
    assert_eq!(plan["variant"], "brazilian");
    assert_eq!(plan["max_pieces"], 4);
    assert_eq!(plan["limits"], "6.2=50,6.3=40,6.4=10");
    let units = plan["units"].as_array().unwrap();
    // The materials of up to 4 pieces with a piece on each side, one orientation each.
    assert_eq!(units.len(), 23);
    let mut level_of = HashMap::new();
    let mut positions = 0;
    for u in units {
        let name = u["name"].as_str().unwrap();
        assert!(name.starts_with("brazilian/"), "{name}");
        assert_eq!(u["status"], "to do");
        assert_eq!(u["finished"], false);
        let needs = u["needs"].as_array().unwrap();
        let deepest = needs
            .iter()
            .map(|n| {
                *level_of
                    .get(n.as_str().unwrap())
                    .unwrap_or_else(|| panic!("{name} needs {n}, not listed before it"))
            })
            .max();
        assert_eq!(u["level"].as_u64().unwrap(), deepest.map_or(0, |l| l + 1));
        level_of.insert(name, u["level"].as_u64().unwrap());
        assert!(u["memory_bytes"].as_u64().unwrap() > 0);
        let files = u["files"].as_array().unwrap();
        let material = name.trim_start_matches("brazilian/");
        for (file, kind) in files.iter().zip(["wdl", "dtw", "rules"]) {
            let file = file.as_str().unwrap();
            assert!(
                file.ends_with(&format!("brazilian/{material}.{kind}")),
                "{file}"
            );
        }
        positions += u["positions"].as_u64().unwrap();
    }
    assert_eq!(plan["positions"].as_u64().unwrap(), positions);
    assert_eq!(positions, 7_413_212);
    assert_eq!(level_of["brazilian/KvK"], 0);
    assert_eq!(level_of["brazilian/KKvK"], 1);

    let text = ok(&["plan", "-v", "brazilian", "-p", "4", "--data", data(&empty)]);
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("brazilian: 23 units up to 4 pieces in 7 levels, 7413212 positions"),
        "{first}"
    );
    assert!(first.contains(", 0 finished in "), "{first}");
}

#[test]
fn a_freshly_built_set_is_counted_finished() {
    let (dir, _, stderr) = generate("brazilian", 3, &[]);
    // The tests run an optimized binary: it says nothing of optimizations.
    assert!(!stderr.contains("without optimizations"), "{stderr}");
    let headline = |pieces: &str| {
        let text = ok(&[
            "plan",
            "-v",
            "brazilian",
            "-p",
            pieces,
            "--data",
            data(&dir),
        ]);
        text.lines().next().unwrap().to_string()
    };
    let same = headline("3");
    assert!(same.contains(", 9 finished in "), "{same}");
    // A plan of more pieces: the 9 built are finished, their packed values to be made again
    // for the 4-piece units that read them.
    let more = headline("4");
    assert!(more.starts_with("brazilian: 23 units"), "{more}");
    assert!(more.contains(", 9 finished (9 to repack) in "), "{more}");
}

#[test]
fn units_built_one_by_one_are_the_whole_run_byte_for_byte() {
    let (whole, _, _) = generate("brazilian", 4, &[]);
    let units = TempDir::new().unwrap();
    let plan = plan_json(data(&units), 4);
    for name in unit_names(&plan) {
        ok(&["generate", "--unit", &name, "--data", data(&units)]);
    }
    assert_eq!(
        assert_same_tables(whole.path(), units.path(), "brazilian"),
        69
    );
    // Each unit kept its values packed for the units reading it; nothing is left to do.
    assert!(packed_files(units.path()) > 0);
    let plan = plan_json(data(&units), 4);
    assert!(all_finished(&plan), "{plan}");
    // A unit run again checks its tables and reuses them.
    let again = ok(&[
        "generate",
        "--unit",
        "brazilian/KKMvK",
        "--data",
        data(&units),
    ]);
    assert!(again.contains("reused"), "{again}");
    // A whole run over the finished set removes the work files, and still nothing is to do.
    ok(&[
        "generate",
        "-v",
        "brazilian",
        "-p",
        "4",
        "--data",
        data(&units),
    ]);
    assert_eq!(packed_files(units.path()), 0);
    assert_eq!(
        assert_same_tables(whole.path(), units.path(), "brazilian"),
        69
    );
    let plan = plan_json(data(&units), 4);
    assert!(all_finished(&plan), "{plan}");
    // One more piece: the 4-piece units are finished, but the 5-piece ones read their values,
    // which the whole run removed: they are repacked, not solved.
    let plan = plan_json(data(&units), 5);
    let status: HashMap<&str, &str> = plan["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["name"].as_str().unwrap(), u["status"].as_str().unwrap()))
        .collect();
    assert_eq!(status["brazilian/KKMvK"], "repack");
    assert_eq!(status["brazilian/KKKvKK"], "to do");
    let repacked = ok(&[
        "generate",
        "--unit",
        "brazilian/KKMvK",
        "--data",
        data(&units),
    ]);
    assert!(repacked.contains("reused"), "{repacked}");
    let plan = plan_json(data(&units), 5);
    let kkmvk = plan["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == "brazilian/KKMvK")
        .unwrap();
    assert_eq!(kkmvk["status"], "finished");
}

/// Bytes of the files in the variant's work directory.
fn work_bytes(dir: &Path) -> u64 {
    fs::read_dir(dir.join("brazilian/.rafle-work")).map_or(0, |entries| {
        entries.map(|e| e.unwrap().metadata().unwrap().len()).sum()
    })
}

/// The materials whose values are kept in the variant's work directory (band or packed files).
fn kept_values(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir.join("brazilian/.rafle-work")).map_or_else(
        |_| BTreeSet::new(),
        |entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|name| name.ends_with(".packed") || name.contains(".band-"))
                .map(|name| name.split('.').next().unwrap().to_string())
                .collect()
        },
    )
}

#[test]
fn units_of_a_set_keep_values_only_while_a_unit_that_reads_them_is_unfinished() {
    let (whole, _, _) = generate("brazilian", 4, &[]);
    let units = TempDir::new().unwrap();
    let plan = plan_json(data(&units), 4);
    let listed = plan["units"].as_array().unwrap();
    let material = |name: &str| name.strip_prefix("brazilian/").unwrap().to_string();
    let mut done: BTreeSet<String> = BTreeSet::new();
    let (mut released_any, mut most) = (false, 0);
    for (k, unit) in listed.iter().enumerate() {
        let name = unit["name"].as_str().unwrap();
        let out = rafle(&[
            "generate",
            "--unit",
            name,
            "--set",
            "4",
            "--data",
            data(&units),
        ]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        done.insert(material(name));
        // Kept: exactly the finished materials that a unit still to run reads.
        let read_later: BTreeSet<String> = listed[k + 1..]
            .iter()
            .flat_map(|u| u["needs"].as_array().unwrap())
            .map(|n| material(n.as_str().unwrap()))
            .collect();
        let expected: BTreeSet<String> = read_later.intersection(&done).cloned().collect();
        assert_eq!(kept_values(units.path()), expected, "after {name}");
        most = most.max(work_bytes(units.path()));
        if name == "brazilian/KMMvM" {
            // Every material of the set that reads it reaches it by a move of White (a capture
            // or a promotion), leaving Black to move: the unit keeps that side alone.
            let packed = fs::read(units.path().join("brazilian/.rafle-work/KMMvM.packed")).unwrap();
            assert!(
                packed.windows(14).any(|w| w == b" black to move"),
                "KMMvM keeps Black to move alone"
            );
        }
        let err = text(&out.stderr);
        if err.contains("removed the kept values of") {
            released_any = true;
            assert!(
                err.contains("every material up to 4 pieces that reads them is finished"),
                "{err}"
            );
        }
    }
    assert!(released_any);
    assert!(kept_values(units.path()).is_empty());
    // Within what the plan says units one at a time hold (their values and the one under way).
    let estimate = plan_json_with(data(&units), &["--units-at-once", "1"]);
    let estimate = estimate["units_scratch_bytes"].as_u64().unwrap();
    assert!(
        0 < most && most <= estimate,
        "{most} bytes kept, {estimate} estimated"
    );
    // A unit run again once its set is done reuses its tables and rebuilds no values: nothing
    // still to finish reads them.
    let again = rafle(&[
        "generate",
        "--unit",
        "brazilian/KKvKM",
        "--set",
        "4",
        "--data",
        data(&units),
    ]);
    let (out, err) = (text(&again.stdout), text(&again.stderr));
    assert!(
        again.status.success() && out.contains("reused"),
        "{out}{err}"
    );
    assert!(
        !err.contains("removed the kept values"),
        "nothing was kept: {err}"
    );
    assert!(kept_values(units.path()).is_empty());
    assert_eq!(
        assert_same_tables(whole.path(), units.path(), "brazilian"),
        69
    );
    // No unit read a material back from its tables: each found the values it reads.
    let plan = plan_json(data(&units), 4);
    assert!(all_finished(&plan), "{plan}");
    // A set smaller than the unit, or a set without a unit, is refused.
    let err = fails(
        &[
            "generate",
            "--unit",
            "brazilian/KKvKK",
            "--set",
            "3",
            "--data",
            data(&units),
        ],
        2,
    );
    assert!(err.contains("set pieces must be from 4 to"), "{err}");
    let err = fails(
        &[
            "generate",
            "-v",
            "brazilian",
            "--set",
            "4",
            "--data",
            data(&units),
        ],
        2,
    );
    assert!(
        err.contains("--set names the set a unit of work belongs to"),
        "{err}"
    );
}

#[test]
fn a_unit_names_what_it_lacks_and_writes_nothing() {
    let empty = TempDir::new().unwrap();
    let out = rafle(&[
        "generate",
        "--unit",
        "brazilian/KKvK",
        "--data",
        data(&empty),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "brazilian KKvK is generated from the finished tables of the materials its \
             moves reach; not finished: KvK (no tables); generate them first"
        ),
        "{err}"
    );
    assert!(!empty.path().join("brazilian/KKvK.wdl").exists());
    for (name, says) in [
        ("brazilian/KvKv", "KvKv"),
        ("chess/KvK", "chess"),
        ("brazilian", "<variant>/<material>"),
        (
            "brazilian/KKKKKKKKKKKKKKKKKvK",
            "18 pieces requested; rafle generates at most 8",
        ),
    ] {
        let out = rafle(&["generate", "--unit", name, "--data", data(&empty)]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(!empty.path().join("brazilian").join("KvK.wdl").exists());
}

#[test]
fn a_second_job_on_a_unit_waits_then_reuses_the_first_ones_tables() {
    let (reference, _, _) = generate("brazilian", 3, &[]);
    let (dir, _, _) = generate("brazilian", 3, &[]);
    for kind in ["wdl", "dtw", "rules"] {
        fs::remove_file(dir.path().join(format!("brazilian/KMvK.{kind}"))).unwrap();
    }
    // Another job holds KMvK's lock, as a unit under way does.
    let work = dir.path().join("brazilian/.rafle-work");
    let lock = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(work.join("KMvK.lock"))
        .unwrap();
    lock.lock().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_rafle"))
        .args(["generate", "--unit", "brazilian/KMvK", "--data", data(&dir)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    // The other job finishes: its tables are in place when it lets go.
    for kind in ["wdl", "dtw", "rules"] {
        let name = format!("KMvK.{kind}");
        fs::copy(
            reference.path().join("brazilian").join(&name),
            dir.path().join("brazilian").join(&name),
        )
        .unwrap();
    }
    drop(lock);
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("waiting for it"), "{err}");
    assert!(
        text(&out.stdout).contains("reused"),
        "{}",
        text(&out.stdout)
    );
    let kmvk = |d: &Path| fs::read(d.join("brazilian/KMvK.dtw")).unwrap();
    assert_eq!(kmvk(dir.path()), kmvk(reference.path()));
}

#[test]
fn values_kept_packed_spare_rebuilding_the_materials_below_them() {
    let (reference, _, _) = generate("brazilian", 4, &[]);
    let (dir, _, _) = generate("brazilian", 4, &[]);
    // KKvKM's unit packs its values, and those of the materials it reads (KKvKK among them).
    ok(&[
        "generate",
        "--unit",
        "brazilian/KKvKM",
        "--data",
        data(&dir),
    ]);
    let work = dir.path().join("brazilian/.rafle-work");
    fs::remove_file(work.join("KKvKK.packed")).unwrap();
    for kind in ["wdl", "dtw", "rules"] {
        fs::remove_file(dir.path().join(format!("brazilian/KMvKM.{kind}"))).unwrap();
    }
    // KMvKM reads KKvKM, whose values are packed: KKvKK, which only KKvKM reads, is not
    // read back from its tables again.
    ok(&[
        "generate",
        "--unit",
        "brazilian/KMvKM",
        "--data",
        data(&dir),
    ]);
    assert!(!work.join("KKvKK.packed").exists());
    assert!(work.join("KKvKM.packed").is_file());
    assert_eq!(
        assert_same_tables(reference.path(), dir.path(), "brazilian"),
        69
    );
}

#[test]
fn a_lost_summary_is_counted_again_from_the_tables() {
    let (reference, summary, _) = generate("brazilian", 3, &[]);
    fs::remove_file(reference.path().join("brazilian/.rafle-work/KKvK.summary")).unwrap();
    let again = ok(&[
        "generate",
        "-v",
        "brazilian",
        "-p",
        "3",
        "--data",
        data(&reference),
    ]);
    let row = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("brazilian  KKvK "))
            .map(|l| l.split_whitespace().take(8).collect::<Vec<_>>().join(" "))
            .unwrap()
    };
    assert_eq!(row(&again), row(&summary));
    assert!(reference
        .path()
        .join("brazilian/.rafle-work/KKvK.summary")
        .is_file());
}

/// The work files of `dir`'s Brazilian set with extension `extension`, by name.
fn work_files(dir: &Path, extension: &str) -> HashMap<String, Vec<u8>> {
    fs::read_dir(dir.join("brazilian/.rafle-work"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == extension))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, fs::read(&p).unwrap())
        })
        .collect()
}

/// A material too large to read back whole within a unit's memory is read back block by block
/// (`RAFLE_READ_BACK=streamed` makes every material so): the same packed values, the same
/// counts, the same tables as reading it whole.
#[test]
fn a_material_read_back_block_by_block_is_the_one_read_whole() {
    let (reference, _, _) = generate("brazilian", 4, &[]);
    let (whole, _, _) = generate("brazilian", 4, &[]);
    let (streamed, _, _) = generate("brazilian", 4, &[]);
    for dir in [&whole, &streamed] {
        for kind in ["wdl", "dtw", "rules"] {
            fs::remove_file(dir.path().join(format!("brazilian/KMvKM.{kind}"))).unwrap();
        }
        // Counted again as they are read back.
        for material in ["KKvKM", "KMvK"] {
            let summary = format!("brazilian/.rafle-work/{material}.summary");
            fs::remove_file(dir.path().join(summary)).unwrap();
        }
    }
    let unit = |dir: &TempDir, how: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_rafle"))
            .args(["generate", "--unit", "brazilian/KMvKM", "--data", data(dir)])
            .env("RAFLE_READ_BACK", how)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    };
    unit(&whole, "whole");
    unit(&streamed, "streamed");
    let packed = work_files(whole.path(), "packed");
    // The values of the nine materials below KMvKM that it or they read; KMvKM's own stay in
    // its band files (their chunks in the order its threads finished them).
    assert_eq!(packed.len(), 9, "{:?}", packed.keys());
    assert!(packed == work_files(streamed.path(), "packed"));
    for dir in [&whole, &streamed] {
        let band = dir.path().join("brazilian/.rafle-work/KMvKM.band-000");
        assert!(band.is_file(), "{}", band.display());
    }
    let summaries = work_files(whole.path(), "summary");
    assert!(summaries.contains_key("KKvKM.summary"));
    assert!(summaries == work_files(streamed.path(), "summary"));
    for dir in [&whole, &streamed] {
        assert_eq!(
            assert_same_tables(reference.path(), dir.path(), "brazilian"),
            69
        );
    }
}

#[test]
fn the_plan_says_the_disk_a_run_fills() {
    let empty = TempDir::new().unwrap();
    let plan = plan_json(data(&empty), 4);
    let peak = plan["disk_peak_bytes"].as_u64().unwrap();
    let tables = plan["tables_bytes"].as_u64().unwrap();
    let positions = |name: &str| {
        plan["units"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["material"] == name)
            .map(|u| u["positions"].as_u64().unwrap())
            .unwrap()
    };
    assert!(peak >= tables);
    // What fills it at the peak: the parts add up. MMMvM (men alone) keeps a raw work file
    // of 3 bytes a position while it is solved, beside the values waiting and the tables so
    // far; KKvKK, whose raw work file was the peak when it came after the other 3-piece
    // materials' tables, is solved earlier, where its file meets fewer tables.
    assert_eq!(plan["disk_peak_at"], "MMMvM");
    let parts = &plan["disk_at_peak"];
    let part = |name: &str| parts[name].as_u64().unwrap();
    assert_eq!(
        part("raw_bytes") + part("scratch_bytes") + part("packed_bytes") + part("tables_bytes"),
        peak
    );
    assert_eq!(part("raw_bytes"), 3 * positions("MMMvM"));
    assert!(
        part("packed_bytes") > 0 && part("tables_bytes") > 0,
        "{parts}"
    );
    let text = ok(&[
        "plan",
        "--variant",
        "brazilian",
        "--pieces",
        "4",
        "--data",
        data(&empty),
    ]);
    assert!(
        text.contains("disk: a whole run fills about")
            && text.contains("solving MMMvM (its raw work file ")
            && text.contains("; units on a cluster, 8 at a time, hold about "),
        "{text}"
    );
    // Units side by side hold more than one at a time, and less than every value at once.
    assert_eq!(plan["units_at_once"], 8);
    let eight = plan["units_scratch_bytes"].as_u64().unwrap();
    let one = plan_json_with(data(&empty), &["--units-at-once", "1"]);
    let one = one["units_scratch_bytes"].as_u64().unwrap();
    let total: u64 = plan["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["positions"].as_u64().unwrap())
        .sum();
    assert!(
        0 < one && one < eight && eight < total,
        "{one} {eight} {total}"
    );
    // The tables written stay within the estimate, and the run says the estimate up front.
    let (dir, _, stderr) = generate("brazilian", 4, &[]);
    assert!(
        stderr.lines().next().unwrap().contains(", disk about "),
        "{stderr}"
    );
    let written: u64 = fs::read_dir(dir.path().join("brazilian"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| fs::metadata(p).unwrap().len())
        .sum();
    assert!(
        written > tables / 4 && written <= tables,
        "{written} bytes written, {tables} estimated"
    );
}
