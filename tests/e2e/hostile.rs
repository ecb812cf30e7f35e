//! What a hostile or careless user does to a table directory: special files where tables
//! belong, two writers at once, files that only look temporary, a run with other draw-rule
//! limits over part of a set, tables of the other variant, damage the probes never read.
//! Each gets a clear error naming what is wrong, and nothing valid is lost.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;

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
    assert!(out.starts_with("brazilian W:W:B loss in 0 plies"), "{out}");
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

/// A symbolic link where a variant's directory belongs that leads nowhere (to nothing, or
/// round a loop of links) was read as no tables of that variant, and `generate` failed with
/// "File exists" or "Too many levels of symbolic links": every command names the link, as it
/// names a file there.
#[cfg(unix)]
#[test]
fn a_dangling_link_or_a_loop_where_a_variant_directory_belongs_is_named() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let d = data(&dir);
    let link = dir.path().join("international");
    let gone = dir.path().join("moved elsewhere");
    let links: [(&str, &Path, String); 2] = [
        (
            "dangling",
            &gone,
            format!(
                "{}: a symbolic link to {}, which does not exist: remove it, or link it to a \
                 directory",
                link.display(),
                gone.display()
            ),
        ),
        (
            "loop",
            &link,
            format!(
                "{}: a symbolic link in a loop of links: remove it, or link it to a directory",
                link.display()
            ),
        ),
    ];
    for (what, target, expected) in &links {
        std::os::unix::fs::symlink(target, &link).unwrap();
        for command in [
            &[
                "probe",
                "--variant",
                "international",
                "W:WK1:BK50",
                "--data",
                d,
            ][..],
            &["probe", "--variant", "brazilian", "W:WK1:BK28", "--data", d],
            &["verify", "--variant", "brazilian", "--data", d],
            &["stats", "--variant", "brazilian", "--data", d],
        ] {
            let err = fails(command, 1);
            assert!(err.contains(expected), "{what}, {command:?}: {err}");
        }
        let (code, _, err) = run_bounded(&[
            "generate",
            "--variant",
            "international",
            "--pieces",
            "2",
            "--data",
            d,
        ]);
        assert_eq!(code, Some(1), "{what}: {err}");
        assert!(err.ends_with(&format!("{expected}\n")), "{what}: {err}");
        assert!(!gone.exists(), "nothing made through the link");
        std::fs::remove_file(&link).unwrap();
    }
    // The data directory itself a link to nothing: named too, not "no tables".
    let data_link = dir.path().join("data-link");
    std::os::unix::fs::symlink(&gone, &data_link).unwrap();
    let err = fails(
        &[
            "probe",
            "--variant",
            "brazilian",
            "W:WK1:BK28",
            "--data",
            data_link.to_str().unwrap(),
        ],
        1,
    );
    assert!(
        err.contains(&format!(
            "{}: a symbolic link to {}, which does not exist",
            data_link.display(),
            gone.display()
        )),
        "{err}"
    );
}

/// The table files of one kind (extension) of a variant's directory, sorted.
fn files_with(dir: &Path, ext: &str) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

/// Found by hostile testing: with every `.rules` emptied, broken or replaced by a directory,
/// `probe --json` answered `"class":null` and `stats` "no rule tables", both with exit 0, as
/// for a set built without rule tables. A rule table that cannot be read is a damaged table.
#[test]
fn every_rule_table_damaged_is_a_damaged_table_not_no_rule_tables() {
    type Damage = fn(&Path);
    let damages: [(&str, Damage, &str); 3] = [
        (
            "emptied",
            |p| std::fs::write(p, b"").unwrap(),
            " is truncated: 0 bytes instead of 64",
        ),
        (
            "with a broken magic number",
            |p| {
                let mut bytes = std::fs::read(p).unwrap();
                bytes[..8].copy_from_slice(b"NOTRAFLE");
                std::fs::write(p, bytes).unwrap();
            },
            " is corrupted: not a rafle table (bad magic number)",
        ),
        (
            "replaced by directories",
            |p| {
                std::fs::remove_file(p).unwrap();
                std::fs::create_dir(p).unwrap();
            },
            ": a directory, not a regular file",
        ),
    ];
    for (what, damage, reason) in damages {
        let (dir, _, _) = generate("brazilian", 3, &[]);
        let d = data(&dir);
        let place = dir.path().join("brazilian");
        for file in files_with(&place, "rules") {
            damage(&file);
        }
        // The first in material order names the damage.
        let named = format!("{}{reason}", place.join("KvK.rules").display());
        let fen = "W:WK1,K2:BK28";
        for args in [
            &[
                "probe",
                "--variant",
                "brazilian",
                "--json",
                fen,
                "--data",
                d,
            ][..],
            &["probe", "--variant", "brazilian", fen, "--data", d],
            &["stats", "--variant", "brazilian", "--data", d],
        ] {
            let err = fails(args, 1);
            assert!(err.contains(&named), "{what}: {args:?}: {err}");
        }
    }
    // A set without rule tables (made before they existed) still answers without them.
    let (dir, _, _) = generate("brazilian", 3, &[]);
    for file in files_with(&dir.path().join("brazilian"), "rules") {
        std::fs::remove_file(file).unwrap();
    }
    let out = ok(&["stats", "--variant", "brazilian", "--data", data(&dir)]);
    assert!(out.contains(", no rule tables\n"), "{out}");
    let answer = probe_json(&dir, "brazilian", &[], "W:WK1,K2:BK28");
    assert_eq!(answer["class"], serde_json::Value::Null);
    assert_eq!(answer["wdl"], "win");
}

/// The same damage to every distance table: each probe and `stats` name the file.
#[test]
fn every_distance_table_damaged_is_named_too() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let d = data(&dir);
    let place = dir.path().join("brazilian");
    for file in files_with(&place, "dtw") {
        std::fs::write(&file, b"").unwrap();
    }
    let kkvk = format!(
        "table {} is truncated: 0 bytes instead of 64",
        place.join("KKvK.dtw").display()
    );
    let err = fails(
        &[
            "probe",
            "--variant",
            "brazilian",
            "--json",
            "W:WK1,K2:BK28",
            "--data",
            d,
        ],
        1,
    );
    assert!(err.contains(&kkvk), "{err}");
    let err = fails(&["stats", "--variant", "brazilian", "--data", d], 1);
    assert!(
        err.contains("/KvK.dtw is truncated: 0 bytes instead of 64"),
        "{err}"
    );
}

/// Found by hostile testing: a junk file named like a 41-piece material made `stats` list
/// 215,879 missing tables and fail.
#[test]
fn a_junk_file_named_like_a_huge_material_is_a_stray_file() {
    // The prober's bound on a table's pieces is the generator's.
    assert_eq!(rafle_probe::MAX_TABLE_PIECES, rafle_generator::MAX_PIECES);
    let (dir, _, _) = generate("international", 2, &[]);
    let d = data(&dir);
    let junk =
        dir.path()
            .join("international")
            .join(format!("{}v{}.wdl", "K".repeat(21), "K".repeat(20)));
    std::fs::write(&junk, b"not a table").unwrap();
    let out = rafle(&["stats", "--variant", "international", "--data", d]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        err,
        format!(
            "international stray file left out (no table of a set rafle builds has its \
             material): {}\n",
            junk.display()
        )
    );
    assert!(
        text(&out.stdout).starts_with("international: 3 materials up to 2 pieces, rules "),
        "{}",
        text(&out.stdout)
    );
    // The probe is not misled either: 3 pieces are beyond these tables.
    let err = fails(
        &[
            "probe",
            "--variant",
            "international",
            "W:WK1,K2:BK50",
            "--data",
            d,
        ],
        2,
    );
    assert!(
        err.contains("the international tables cover at most 2"),
        "{err}"
    );
}

/// Found by hostile testing: a control character in a `--data` path reached the terminal
/// raw in the error message.
#[test]
fn control_characters_of_a_path_are_escaped_in_messages() {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("data\x1b[2J\x07");
    let d = odd.to_str().unwrap();
    for args in [
        &["probe", "--variant", "brazilian", "W:WK1:BK28", "--data", d][..],
        &["stats", "--data", d],
    ] {
        let err = fails(args, 1);
        assert!(!err.contains('\x1b') && !err.contains('\x07'), "{err:?}");
        assert!(err.contains(r"data\u{1b}[2J\u{7}"), "{err}");
    }
    // Tables in such a directory: a damaged one is named escaped as well.
    let gen = [
        "generate",
        "--variant",
        "brazilian",
        "--pieces",
        "2",
        "--data",
        d,
    ];
    ok(&gen);
    std::fs::write(odd.join("brazilian").join("KvK.dtw"), b"").unwrap();
    let err = fails(&["stats", "--variant", "brazilian", "--data", d], 1);
    assert!(!err.contains('\x1b') && !err.contains('\x07'), "{err:?}");
    assert!(
        err.contains(r"data\u{1b}[2J\u{7}/brazilian/KvK.dtw is truncated"),
        "{err}"
    );
}

/// Found by hostile testing: bare system errors ("File exists", "Is a directory") where a
/// file or a directory stands in the place of rafle's own.
#[test]
fn what_stands_in_rafles_place_is_said_not_a_bare_system_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = data(&dir);
    let place = dir.path().join("brazilian");
    std::fs::create_dir(&place).unwrap();
    let gen = [
        "generate",
        "--variant",
        "brazilian",
        "--pieces",
        "2",
        "--data",
        d,
    ];
    let work = place.join(".rafle-work");
    std::fs::write(&work, b"").unwrap();
    refused(
        &gen,
        &work,
        "not a directory: rafle's work files cannot be kept there",
    );
    std::fs::remove_file(&work).unwrap();
    let table = place.join("KvK.wdl");
    std::fs::create_dir(&table).unwrap();
    refused(
        &gen,
        &table,
        "a directory, where the table belongs: the new table cannot replace it",
    );
}
