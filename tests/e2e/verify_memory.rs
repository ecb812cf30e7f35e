//! End-to-end tests of `rafle verify --memory SIZE`: a full check says up front how it spends
//! its budget, gives the same results within a small budget as within a large one, and refuses
//! at once, with nothing checked, a budget below what it holds whatever the budget.

use crate::common;
use common::{data, fails, generate, rafle, text};

/// Runs a full check of Brazilian tables within `memory`; returns stdout and stderr.
fn verify(dir: &tempfile::TempDir, memory: &str) -> (String, String) {
    let out = rafle(&["verify", "--memory", memory, "--data", data(dir)]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "--memory {memory}: {stderr}");
    (stdout, stderr)
}

#[test]
fn a_full_check_states_its_budget_and_gives_the_same_results_within_any() {
    let (dir, _, _) = generate("brazilian", 3, &[]);
    let (roomy, said) = verify(&dir, "4G");
    // 9 materials of 2 and 3 pieces, 201,272 positions; the window of a material with men
    // is the largest working set there.
    assert!(
        said.starts_with(
            "brazilian: 9 materials, 201272 positions, memory budget 4.0 GiB (3.6 GiB of \
             decoded tables; the largest working set 128.0 MiB, a window's)\n"
        ),
        "{said}"
    );
    assert_eq!(said.lines().count(), 1, "{said}");
    assert_eq!(roomy.lines().count(), 10, "{roomy}");
    assert!(
        roomy.lines().take(9).all(|l| l.ends_with(" positions ok")),
        "{roomy}"
    );
    assert!(
        roomy.ends_with("\nverified 9 materials, 201272 positions: all ok\n"),
        "{roomy}"
    );
    let (tight, said) = verify(&dir, "0.3G");
    assert_eq!(tight, roomy);
    assert!(said.contains(" memory budget 307.2 MiB ("), "{said}");
    // A sample reads no pages: nothing to say about them.
    let out = rafle(&[
        "verify",
        "--sample",
        "10",
        "--memory",
        "1",
        "--data",
        data(&dir),
    ]);
    assert!(out.status.success());
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn a_budget_below_what_a_check_holds_is_refused_up_front() {
    let (dir, _, _) = generate("brazilian", 2, &[]);
    let err = fails(&["verify", "--memory", "100M", "--data", data(&dir)], 1);
    // The allowance for a window, the probe's cache (a sixteenth) and the rest.
    assert!(
        err.starts_with("rafle: brazilian ")
            && err.contains(" is checked a window at a time: it needs ")
            && err.ends_with(" of memory at least, but the budget is 100.0 MiB (--memory)\n"),
        "{err}"
    );
    // Bytes unless a unit says otherwise, as for `generate`.
    let err = fails(&["verify", "--memory", "8192", "--data", data(&dir)], 1);
    assert!(
        err.contains("but the budget is 8.0 KiB (--memory)"),
        "{err}"
    );
    let err = fails(&["verify", "--memory", "8X", "--data", data(&dir)], 2);
    assert!(err.contains("unknown unit"), "{err}");
}

#[test]
fn a_resumed_check_is_sized_on_the_materials_left() {
    let (dir, _, _) = generate("brazilian", 2, &[]);
    let resume = |memory: &str| {
        let out = rafle(&[
            "verify",
            "--resume",
            "--memory",
            memory,
            "--data",
            data(&dir),
        ]);
        assert!(
            out.status.success(),
            "--memory {memory}: {}",
            text(&out.stderr)
        );
        (text(&out.stdout), text(&out.stderr))
    };
    let (first, _) = resume("4G");
    assert_eq!(first.lines().count(), 4, "{first}");
    // A check of the recorded materials reads no pages, so a budget no check fits in is
    // enough for it (refused above while there was something to check).
    let (again, said) = resume("100M");
    assert_eq!(
        said,
        "brazilian: all 3 materials checked before, as .rafle-verified records\n"
    );
    assert!(
        again
            .lines()
            .filter(|l| !l.starts_with("verified "))
            .all(|l| l.ends_with(" (checked before, as .rafle-verified records)")),
        "{again}"
    );
    // With the last material's record gone, only it is sized and checked.
    let record = dir.path().join("brazilian").join(".rafle-verified");
    let kept = std::fs::read_to_string(&record).unwrap();
    let mut lines: Vec<&str> = kept.lines().collect();
    let last = lines.pop().unwrap().split(' ').next().unwrap().to_string();
    std::fs::write(&record, lines.join("\n") + "\n").unwrap();
    let (third, said) = resume("4G");
    assert!(
        said.starts_with("brazilian: 1 material to check, ")
            && said.contains(" positions (2 checked before), memory budget 4.0 GiB ("),
        "{said}"
    );
    assert!(
        third
            .lines()
            .any(|l| l.starts_with(&format!("brazilian {last} ")) && l.ends_with(" positions ok")),
        "{third}"
    );
    assert_eq!(third.matches("checked before").count(), 2, "{third}");
}
