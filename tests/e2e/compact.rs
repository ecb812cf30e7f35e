//! `rafle generate --compact`: tables of one side to move, chosen for size, answer every
//! position as the default tables do, pass the check, and are smaller.

use crate::common;

use std::path::Path;

use common::{fails, generate_in, ok, rafle, text};

/// `rafle generate` of `variant` up to `pieces` in `dir`, compact or not: stdout and stderr.
fn generate(dir: &Path, variant: &str, pieces: u32, compact: bool) -> (String, String) {
    let extra: &[&str] = if compact { &["--compact"] } else { &[] };
    generate_in(dir, variant, pieces, extra)
}

/// Builds the Brazilian tables up to 3 pieces and the international up to 3 in `dir`.
fn build(dir: &Path, compact: bool) {
    for variant in ["brazilian", "international"] {
        generate(dir, variant, 3, compact);
    }
}

/// The tables of a directory with the extension `ext`.
fn tables(dir: &Path, ext: &str) -> Vec<std::path::PathBuf> {
    ["brazilian", "international"]
        .iter()
        .flat_map(|v| std::fs::read_dir(dir.join(v)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect()
}

/// The bytes of the tables of a directory with the extension `ext`.
fn bytes(dir: &Path, ext: &str) -> u64 {
    tables(dir, ext)
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum()
}

/// The stored half a table's header names (byte 36: 1 White, 2 Black, 3 both).
fn stored_half(path: &Path) -> u8 {
    std::fs::read(path).unwrap()[36]
}

#[test]
fn compact_win_draw_loss_tables_answer_as_the_full_ones() {
    let (full, compact) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    build(full.path(), false);
    build(compact.path(), true);
    let (a, b) = (
        full.path().to_str().unwrap(),
        compact.path().to_str().unwrap(),
    );
    // Every position of every material, all three values.
    let out = rafle(&["compare", a, b]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let report = text(&out.stdout);
    assert!(
        report.contains("identical") && !report.contains("differ"),
        "{report}"
    );
    for variant in ["brazilian", "international"] {
        for data in [a, b] {
            ok(&["verify", "--data", data, "--variant", variant]);
        }
    }
    let (full_wdl, compact_wdl) = (bytes(full.path(), "wdl"), bytes(compact.path(), "wdl"));
    assert!(
        2 * compact_wdl < full_wdl,
        "{compact_wdl} bytes compact, {full_wdl} full"
    );
    for ext in ["dtw", "rules"] {
        let (full_bytes, compact_bytes) = (bytes(full.path(), ext), bytes(compact.path(), ext));
        assert!(
            compact_bytes < full_bytes,
            ".{ext}: {compact_bytes} bytes compact, {full_bytes} full"
        );
    }
    // By default: both sides in `.wdl`, White to move (the side with more pieces) in the
    // others. Compact: the three tables of a material store the same side, Black for some.
    let mut black = 0;
    for wdl in tables(compact.path(), "wdl") {
        let half = stored_half(&wdl);
        assert!(half == 1 || half == 2, "{}: {half}", wdl.display());
        black += usize::from(half == 2);
        for ext in ["dtw", "rules"] {
            assert_eq!(
                stored_half(&wdl.with_extension(ext)),
                half,
                "{}",
                wdl.display()
            );
        }
    }
    assert!(black > 0, "no compact table stores Black to move");
    for wdl in tables(full.path(), "wdl") {
        assert_eq!(stored_half(&wdl), 3, "{}", wdl.display());
        for ext in ["dtw", "rules"] {
            assert_eq!(
                stored_half(&wdl.with_extension(ext)),
                1,
                "{}",
                wdl.display()
            );
        }
    }
}

#[test]
fn a_run_says_which_tables_keep_the_other_form() {
    let dir = tempfile::tempdir().unwrap();
    let generate = |pieces, compact| generate(dir.path(), "brazilian", pieces, compact);
    let (_, stderr) = generate(3, false);
    assert!(!stderr.contains("kept"), "{stderr}");
    let wdl = dir.path().join("brazilian/KKvK.wdl");
    let before = std::fs::read(&wdl).unwrap();
    // The nine materials up to 3 pieces are kept as they are, and said to be.
    let (stdout, stderr) = generate(3, true);
    assert_eq!(
        stdout.matches("reused (not compact)").count(),
        9,
        "{stdout}"
    );
    assert!(
        stderr.contains("--compact was asked, but 9 materials kept their tables of both sides"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&wdl).unwrap(), before);
    // The new 4-piece materials are compact; run again without --compact, they are the ones
    // said to keep the other form.
    let (stdout, _) = generate(4, true);
    let new = stdout
        .lines()
        .filter(|l| l.starts_with("brazilian ") && !l.contains(" total ") && !l.contains("reused"))
        .count();
    assert!(new > 0, "{stdout}");
    assert_ne!(stored_half(&dir.path().join("brazilian/KKKvK.wdl")), 3);
    let (stdout, stderr) = generate(4, false);
    assert_eq!(stdout.matches("reused (compact)").count(), new, "{stdout}");
    assert_eq!(
        stdout.matches("reused (not compact)").count(),
        0,
        "{stdout}"
    );
    assert!(
        stderr.contains(&format!("{new} materials kept their compact tables")),
        "{stderr}"
    );
}

/// A compact `.wdl` (storing Black to move) copied into a default set, whose `.dtw` and
/// `.rules` store White to move: `verify` reported mismatches in two materials whose own
/// tables are clean while probes and `stats` accepted the set. The material whose tables
/// disagree is the error, everywhere; the materials that read it are not blamed.
#[test]
fn a_material_whose_tables_store_different_sides_is_named_and_others_are_not_blamed() {
    let (full, compact) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    generate(full.path(), "brazilian", 3, false);
    generate(compact.path(), "brazilian", 3, true);
    let from = compact.path().join("brazilian/KKvK.wdl");
    assert_eq!(
        stored_half(&from),
        2,
        "KKvK's compact tables store Black to move"
    );
    let (wdl, dtw) = (
        full.path().join("brazilian/KKvK.wdl"),
        full.path().join("brazilian/KKvK.dtw"),
    );
    std::fs::copy(&from, &wdl).unwrap();
    let d = full.path().to_str().unwrap();
    let mixed = format!(
        "the tables of brazilian KKvK store different sides to move: {} stores black to move, \
         {} stores white to move; the tables of a material must agree (all built with \
         --compact or all without): build them again together",
        wdl.display(),
        dtw.display()
    );

    let out = rafle(&["verify", "--variant", "brazilian", "--data", d]);
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    assert!(
        report.contains(&format!("brazilian KKvK error: {mixed}\n")),
        "{report}"
    );
    // The last line sums the run up: the mixed material failed, the three that read it were
    // not checked (nor counted among the materials verified).
    let (last, lines) = report
        .trim_end()
        .rsplit_once('\n')
        .map_or(("", ""), |(l, r)| (r, l));
    assert!(
        last.starts_with("verified 6 materials, ") && last.ends_with(": 1 failed, 3 not checked"),
        "{report}"
    );
    for line in lines.lines().filter(|l| !l.starts_with("brazilian KKvK ")) {
        assert!(
            line.ends_with(" positions ok")
                || line.ends_with(
                    " not checked: it reads KKvK, whose tables store different sides to move"
                ),
            "{line}\n{report}"
        );
    }
    assert!(!report.contains("mismatch"), "{report}");
    assert!(
        text(&out.stderr)
            .contains("1 of 6 materials failed verification; 3 materials could not be checked"),
        "{}",
        text(&out.stderr)
    );

    let err = fails(&["stats", "--variant", "brazilian", "--data", d], 1);
    assert!(err.contains(&mixed), "{err}");
    let err = fails(
        &[
            "probe",
            "--variant",
            "brazilian",
            "W:WK1,K2:BK28",
            "--data",
            d,
        ],
        1,
    );
    assert!(err.contains(&mixed), "{err}");
    // A position of another material that never reaches KKvK is answered.
    ok(&["probe", "--variant", "brazilian", "W:WK1:BK28", "--data", d]);

    // Tables that agree though built apart pass: a compact `.wdl` of White to move beside a
    // `.dtw` of White to move, and a `.wdl` of both sides beside compact tables of Black.
    let white = compact.path().join("brazilian/KvM.wdl");
    assert_eq!(stored_half(&white), 1);
    let other = tempfile::tempdir().unwrap();
    generate(other.path(), "brazilian", 3, false);
    std::fs::copy(&white, other.path().join("brazilian/KvM.wdl")).unwrap();
    std::fs::copy(
        other.path().join("brazilian/KKvK.wdl"),
        compact.path().join("brazilian/KKvK.wdl"),
    )
    .unwrap();
    for dir in [other.path(), compact.path()] {
        ok(&[
            "verify",
            "--variant",
            "brazilian",
            "--data",
            dir.to_str().unwrap(),
        ]);
        ok(&[
            "stats",
            "--variant",
            "brazilian",
            "--data",
            dir.to_str().unwrap(),
        ]);
    }
}
