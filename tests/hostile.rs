//! What a hostile or careless user does to a table directory: special files where tables
//! belong, two writers at once, files that only look temporary, a run with other draw-rule
//! limits over part of a set, tables of the other variant, damage the probes never read.
//! Each gets a clear error naming what is wrong, and nothing valid is lost.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

/// Runs `rafle args`, killing it if it has not finished within 20 s (a hang is the defect):
/// exit code, stdout and stderr.
fn run_bounded(args: &[&str]) -> (Option<i32>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rafle"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the rafle binary runs");
    let started = Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("rafle {args:?} hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("finished");
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}

#[test]
fn special_files_in_a_tables_place_are_refused_at_once() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let d = data(&dir);
    let table = dir.path().join("brazilian").join("KKvK.wdl");
    let probe = [
        "probe",
        "--variant",
        "brazilian",
        "W:WK1,K2:BK28",
        "--data",
        d,
    ];
    type Make = fn(&Path);
    let specials: [(&str, Make); 3] = [
        ("a FIFO", mkfifo),
        ("a character device", |p| {
            std::os::unix::fs::symlink("/dev/zero", p).expect("symlink")
        }),
        ("a directory", |p| std::fs::create_dir(p).expect("mkdir")),
    ];
    for (what, make) in specials {
        std::fs::remove_file(&table).ok();
        std::fs::remove_dir(&table).ok();
        make(&table);
        let expected = format!("{}: {what}, not a regular file", table.display());
        for args in [
            &probe[..],
            &["stats", "--variant", "brazilian", "--data", d],
            &["verify", "--variant", "brazilian", "--data", d],
        ] {
            // `verify` reports each material on stdout, the verdict on stderr.
            let (code, out, err) = run_bounded(args);
            assert_eq!(code, Some(1), "{args:?} with {what}: {err}");
            assert!(
                out.contains(&expected) || err.contains(&expected),
                "{args:?} with {what}: {out}{err}"
            );
        }
    }
    // `generate` puts a table back in place of a FIFO (a directory it cannot replace).
    std::fs::remove_dir(&table).unwrap();
    mkfifo(&table);
    let (code, _, err) = run_bounded(&[
        "generate",
        "--variant",
        "brazilian",
        "--pieces",
        "3",
        "--data",
        d,
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(std::fs::metadata(&table).unwrap().is_file());
    ok(&probe);
}

#[test]
fn two_writers_on_one_directory_never_collide() {
    let reference = generate("brazilian", 3, &[]).0;
    let reference = tables_of(reference.path());
    for trial in 0..4 {
        let dir = tempfile::tempdir().unwrap();
        let d = data(&dir);
        let args = [
            "generate",
            "--variant",
            "brazilian",
            "--pieces",
            "3",
            "--data",
            d,
        ];
        let spawn = || {
            Command::new(env!("CARGO_BIN_EXE_rafle"))
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("runs")
        };
        let first = spawn();
        // A small offset in some trials, so the second starts at different points of the first.
        std::thread::sleep(Duration::from_millis(15 * trial));
        let second = spawn();
        let mut successes = 0;
        for child in [first, second] {
            let out = child.wait_with_output().unwrap();
            let err = text(&out.stderr);
            match out.status.code() {
                Some(0) => successes += 1,
                Some(1) => assert!(
                    err.contains("rafle: another rafle generate (pid ")
                        && err.contains(&format!(") is writing {d}/brazilian")),
                    "{err}"
                ),
                code => panic!("trial {trial}: exit {code:?}: {err}"),
            }
        }
        assert!(successes >= 1, "trial {trial}");
        // Whichever finished, the set is whole: a third run finds every table valid.
        ok(&args);
        assert!(tables_of(dir.path()) == reference, "trial {trial}");
    }
}

/// The tables of a directory (not its work files), by name.
fn tables_of(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir.join("brazilian"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

#[test]
fn other_limits_over_part_of_a_set_are_refused_with_advice() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let d = data(&dir);
    let before = tables_of(dir.path());
    let two = [
        "generate",
        "--variant",
        "brazilian",
        "--pieces",
        "2",
        "--data",
        d,
    ];
    let err = fails(&[&two[..], &["--limits", "6.4=5"]].concat(), 2);
    assert!(
        err.contains("keeps rule tables with limits 6.2=50,6.3=40,6.4=10")
            && err.contains(
                "Recompute them all (--pieces 3 --limits 6.2=50,6.3=40,6.4=5) or use another --data directory"
            ),
        "{err}"
    );
    assert!(tables_of(dir.path()) == before, "nothing was written");
    // The whole set with the new limits is fine, and the prober takes it.
    let three = [
        "generate",
        "--variant",
        "brazilian",
        "--pieces",
        "3",
        "--data",
        d,
    ];
    ok(&[&three[..], &["--limits", "6.4=5"]].concat());
    let out = ok(&[
        "probe",
        "--variant",
        "brazilian",
        "W:WK1,K2:BK28",
        "--data",
        d,
    ]);
    assert!(out.contains("(rules 6.2=50,6.3=40,6.4=5)"), "{out}");
}

#[test]
fn a_table_of_the_other_variant_is_named_as_such() {
    let (dir, _, _) = generate("all", 2, &[]);
    let d = data(&dir);
    std::fs::copy(
        dir.path().join("international").join("KvK.rules"),
        dir.path().join("brazilian").join("KvK.rules"),
    )
    .unwrap();
    let err = fails(
        &["probe", "--variant", "brazilian", "W:WK1:BK28", "--data", d],
        1,
    );
    assert!(
        err.ends_with(
            "brazilian/KvK.rules holds rules international KvK, expected rules brazilian KvK\n"
        ),
        "{err}"
    );
}

#[test]
fn finished_games_are_answered_before_any_table_or_piece_count() {
    let (dir, _, _) = generate("brazilian", 2, &[]);
    let d = data(&dir);
    let kings: Vec<String> = (1..=32).map(|s| format!("K{s}")).collect();
    let all_kings = format!("W:W{}:B", kings.join(","));
    let out = ok(&["probe", "--variant", "brazilian", &all_kings, "--data", d]);
    assert!(
        out.contains(" win in 0 plies (0 moves); rule 6.2: win, count 0"),
        "{out}"
    );
    let out = ok(&["probe", "--variant", "brazilian", "W:W:B", "--data", d]);
    assert!(out.starts_with("W:W:B loss in 0 plies"), "{out}");
}

#[test]
fn stats_fails_on_damage_it_would_skip_and_on_missing_tables() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let d = data(&dir);
    let b = dir.path().join("brazilian");
    let stats = ["stats", "--variant", "brazilian", "--data", d];
    ok(&stats);
    std::fs::remove_file(b.join("MMvM.wdl")).unwrap();
    let out = rafle(&stats);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "brazilian MMvM missing: {}",
            b.join("MMvM.wdl").display()
        )) && err.ends_with("rafle: 1 table is missing; the totals leave it out\n"),
        "{err}"
    );

    // Damage in any block fails the count, whether or not the walk decodes that block (the
    // positions of many follow from other tables): every checksum is checked.
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let rules = dir.path().join("brazilian").join("KMvK.rules");
    let mut bytes = std::fs::read(&rules).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x10;
    std::fs::write(&rules, bytes).unwrap();
    let err = fails(
        &["stats", "--variant", "brazilian", "--data", data(&dir)],
        1,
    );
    assert!(
        err.contains("KMvK.rules is corrupted: block 0 checksum mismatch")
            && err.contains("checksum mismatch"),
        "{err}"
    );
}

#[test]
fn a_file_where_a_variant_directory_belongs_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = data(&dir);
    std::fs::write(dir.path().join("brazilian"), b"not a directory").unwrap();
    // The plan is printed first; the refusal is the last line.
    let (code, _, err) = run_bounded(&[
        "generate",
        "--variant",
        "brazilian",
        "--pieces",
        "2",
        "--data",
        d,
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.ends_with("/brazilian: not a directory: tables cannot be written there\n"),
        "{err}"
    );
    let err = fails(
        &["probe", "--variant", "brazilian", "W:WK1:BK28", "--data", d],
        1,
    );
    assert!(
        err.contains("brazilian: not a directory, where the variant's tables belong"),
        "{err}"
    );
}
