//! `rafle generate --compact-wdl`: win/draw/loss tables of one side to move answer every
//! position as the tables of both sides do, pass the check, and are smaller.

mod common;

use std::path::Path;

use common::{ok, rafle, text};

/// Builds the Brazilian tables up to 3 pieces and the international up to 3 in `dir`.
fn build(dir: &Path, compact: bool) -> String {
    let data = dir.to_str().unwrap();
    let mut out = String::new();
    for (variant, pieces) in [("brazilian", "3"), ("international", "3")] {
        let mut args = vec![
            "generate",
            "--variant",
            variant,
            "--pieces",
            pieces,
            "--data",
            data,
        ];
        if compact {
            args.push("--compact-wdl");
        }
        out += &ok(&args);
    }
    out
}

/// The bytes of the `.wdl` tables of a directory.
fn wdl_bytes(dir: &Path) -> u64 {
    ["brazilian", "international"]
        .iter()
        .flat_map(|v| std::fs::read_dir(dir.join(v)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wdl"))
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum()
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
        ok(&["verify", "--data", b, "--variant", variant]);
    }
    let (full_bytes, compact_bytes) = (wdl_bytes(full.path()), wdl_bytes(compact.path()));
    assert!(
        2 * compact_bytes < full_bytes,
        "{compact_bytes} bytes compact, {full_bytes} full"
    );
    // The distance and rule tables are the same either way.
    for name in ["brazilian/KKvK.dtw", "international/KMvK.rules"] {
        let read = |d: &Path| std::fs::read(d.join(name)).unwrap();
        assert!(read(full.path()) == read(compact.path()), "{name}");
    }
}
