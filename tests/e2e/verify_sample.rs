//! End-to-end tests of `rafle verify --sample N`: a line per material with the positions drawn,
//! the same draw for the same seed, mismatches reported (exit code 1) on a table whose values
//! were changed, and the option documented in `--help`.

use rafle_probe::toolkit::format::TableKind;
use rafle_probe::{
    draughts::{Material, Variant},
    toolkit::{table_path, PositionIndex},
};

use crate::common;
use common::{data, generate, ok, rafle, swap_wins_and_losses, text};

/// The line `rafle verify --sample N` prints for a material that passes.
fn ok_line(material: Material, n: u64) -> String {
    let positions = PositionIndex::count(Variant::Brazilian, material);
    let checked = n.min(positions);
    format!("brazilian {material} {checked} of {positions} positions sampled, ok")
}

#[test]
fn a_sample_of_every_material_passes_the_same_way_twice() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let args = ["verify", "--sample", "1000", "--data", data(&dir)];
    let out = ok(&args);
    let expected: Vec<String> = Material::all_up_to(Variant::Brazilian, 3)
        .into_iter()
        .map(|m| ok_line(m, 1000))
        .collect();
    let mut lines: Vec<&str> = out.lines().collect();
    let sampled: u64 = Material::all_up_to(Variant::Brazilian, 3)
        .into_iter()
        .map(|m| PositionIndex::count(Variant::Brazilian, m).min(1000))
        .sum();
    let last = format!("verified 9 materials, {sampled} of 201272 positions sampled: all ok");
    assert_eq!(lines.pop(), Some(last.as_str()), "{out}");
    assert_eq!(lines, expected, "{out}");
    assert_eq!(ok(&args), out, "the same draw");
    let other_seed = ok(&[
        "verify",
        "--sample",
        "1000",
        "--seed",
        "99",
        "--data",
        data(&dir),
    ]);
    assert_eq!(other_seed, out, "every draw passes on sound tables");
    // A sample as large as a material checks all of it, as without --sample.
    let whole = ok(&[
        "verify",
        "--sample",
        "100000",
        "-v",
        "brazilian",
        "--data",
        data(&dir),
    ]);
    assert!(
        whole.contains("brazilian KvK 1984 of 1984 positions sampled, ok"),
        "{whole}"
    );
}

#[test]
fn a_sample_reports_the_mismatches_it_meets() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let material: Material = "KKvM".parse().unwrap();
    let path = table_path(dir.path(), Variant::Brazilian, material, TableKind::Wdl);
    swap_wins_and_losses(&path, material);
    let out = rafle(&["verify", "--sample", "1000", "--data", data(&dir)]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let mut lines = stdout
        .lines()
        .skip_while(|l| !l.starts_with("brazilian KKvM "));
    let line = lines.next().expect("a KKvM line");
    let (head, tail) = line.split_once(" positions sampled, ").unwrap();
    assert_eq!(head, "brazilian KKvM 1000 of 26040", "{line}");
    assert!(tail.ends_with(" mismatches"), "{line}");
    let examples: Vec<&str> = lines.take_while(|l| l.starts_with("  ")).collect();
    assert_eq!(examples.len(), 5, "{stdout}");
    assert!(
        examples
            .iter()
            .all(|e| e.contains(": stored ") && e.contains(", successors say ")),
        "{stdout}"
    );
    // Materials that never reach KKvM are unaffected.
    assert!(
        stdout.contains(&ok_line("KvK".parse().unwrap(), 1000)),
        "{stdout}"
    );
    // The last line counts them, as the error does.
    let last = stdout.lines().last().unwrap();
    let failed = last
        .strip_prefix("verified 9 materials, ")
        .and_then(|l| l.split_once(" positions sampled: "))
        .and_then(|(_, verdict)| verdict.strip_suffix(" failed"))
        .unwrap_or_else(|| panic!("{stdout}"));
    let err = text(&out.stderr);
    assert!(err.starts_with(&format!("rafle: {failed} of 9 ")), "{err}");
    assert!(
        err.starts_with("rafle: ") && err.ends_with(" of 9 materials failed verification\n"),
        "{err}"
    );
}

#[test]
fn the_sample_options_are_documented() {
    let help = ok(&["verify", "--help"]);
    for needle in [
        "--sample <N>",
        "--seed <S>",
        "--memory <SIZE>",
        "positions sampled, ok",
    ] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
    let out = rafle(&["verify", "--seed", "3", "--data", "nowhere"]);
    assert_eq!(out.status.code(), Some(2), "--seed needs --sample");
    let out = rafle(&["verify", "--sample", "0", "--data", "nowhere"]);
    assert_eq!(out.status.code(), Some(2), "an empty sample is refused");
}
