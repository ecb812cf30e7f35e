//! Resuming a material from the raw work file and journal a stopped run left: the bands whose
//! checksums match are taken as they are, never solved again; from the first that does not,
//! everything is solved again, with a notice.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use rafle_generator::{generate, GenerateError, NoProgress, Plan, Progress, WORK_DIR};
use rafle_probe::draughts::{Material, Variant};

/// Counts the progress reports of one material, and keeps the notices of damaged work files.
#[derive(Default)]
struct Watch {
    material: &'static str,
    inside: AtomicBool,
    reports: AtomicU64,
    damaged: Mutex<Vec<(PathBuf, String)>>,
}

impl Progress for Watch {
    fn damaged_work_file(&self, path: &Path, what: &str) {
        let mut damaged = self.damaged.lock().unwrap();
        damaged.push((path.to_path_buf(), what.to_string()));
    }

    fn material_started(&self, _: Variant, material: Material, _: u64) {
        let inside = material.to_string() == self.material;
        self.inside.store(inside, Ordering::SeqCst);
    }

    fn advance(&self, _: u64) {
        if self.inside.load(Ordering::SeqCst) {
            self.reports.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// The tables of a directory's Brazilian tables, by name, with their bytes.
fn tables(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("brazilian"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    all.sort();
    all
}

/// A run stopped in MvM after all its bands were solved and recorded: its win/draw/loss
/// table cannot be written (a directory holds the name). Returns the plan, the directory in
/// the way, and the number of bands the journal records.
fn stopped_after_solving(dir: &Path) -> (Plan, PathBuf, usize) {
    let plan = Plan::new(Variant::Brazilian, 3, dir).unwrap();
    let blocked = dir.join("brazilian/MvM.wdl");
    std::fs::create_dir_all(&blocked).unwrap();
    let err = generate(&plan, &NoProgress).unwrap_err();
    assert!(matches!(err, GenerateError::Io { .. }), "{err}");
    let journal = dir.join("brazilian").join(WORK_DIR).join("MvM.journal");
    let bands = std::fs::read_to_string(journal).unwrap().lines().count() - 1;
    assert!(bands > 1, "{bands} bands");
    (plan, blocked, bands)
}

#[test]
fn intact_bands_are_taken_without_solving_them_again() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, blocked, bands) = stopped_after_solving(dir.path());
    // Stopped at the same place again: each recorded band reported done at once (one report a
    // band), none solved (solving reports slice by slice).
    let watch = Watch {
        material: "MvM",
        ..Watch::default()
    };
    assert!(generate(&plan, &watch).is_err());
    assert_eq!(watch.reports.load(Ordering::SeqCst), bands as u64);
    assert!(watch.damaged.lock().unwrap().is_empty());
    std::fs::remove_dir(&blocked).unwrap();
    generate(&plan, &NoProgress).unwrap();
    let clean = tempfile::tempdir().unwrap();
    generate(
        &Plan::new(Variant::Brazilian, 3, clean.path()).unwrap(),
        &NoProgress,
    )
    .unwrap();
    assert_eq!(tables(dir.path()), tables(clean.path()));
}

#[test]
fn a_changed_band_and_those_after_it_are_solved_again() {
    let clean = tempfile::tempdir().unwrap();
    generate(
        &Plan::new(Variant::Brazilian, 3, clean.path()).unwrap(),
        &NoProgress,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (plan, blocked, bands) = stopped_after_solving(dir.path());
    std::fs::remove_dir(&blocked).unwrap();
    // One byte changed at a time: the raw file holds the slices in index order, not band by
    // band, so which band it falls in is read from the notice.
    let partial = dir
        .path()
        .join("brazilian")
        .join(WORK_DIR)
        .join("MvM.partial");
    let journal = partial.with_extension("journal");
    let (good_partial, good_journal) = (
        std::fs::read(&partial).unwrap(),
        std::fs::read(&journal).unwrap(),
    );
    // A few bytes across the file, distance codes and rule codes.
    for at in (0..good_partial.len()).step_by(good_partial.len() / 5 + 1) {
        let mut bytes = good_partial.clone();
        bytes[at] ^= 0x02;
        std::fs::write(&partial, &bytes).unwrap();
        std::fs::write(&journal, &good_journal).unwrap();
        let watch = Watch {
            material: "MvM",
            ..Watch::default()
        };
        let summaries = generate(&plan, &watch).unwrap();
        let damaged = watch.damaged.lock().unwrap();
        assert_eq!(damaged.len(), 1, "byte {at}: {damaged:?}");
        let (path, what) = &damaged[0];
        assert_eq!(path, &partial);
        let band: usize = what
            .strip_prefix("band ")
            .and_then(|rest| rest.split(' ').next())
            .and_then(|b| b.parse().ok())
            .unwrap_or_else(|| panic!("byte {at}: {what}"));
        assert!(band < bands, "byte {at}: {what}");
        assert!(what.ends_with("solved again from that band"), "{what}");
        assert!(summaries
            .iter()
            .any(|s| s.material.to_string() == "MvM" && !s.reused));
        assert_eq!(tables(dir.path()), tables(clean.path()), "byte {at}");
        // Stopped again in the same place for the next byte.
        for kind in ["wdl", "dtw", "rules"] {
            std::fs::remove_file(dir.path().join(format!("brazilian/MvM.{kind}"))).unwrap();
        }
        std::fs::create_dir(&blocked).unwrap();
        let err = generate(&plan, &NoProgress).unwrap_err();
        assert!(matches!(err, GenerateError::Io { .. }), "{err}");
        std::fs::remove_dir(&blocked).unwrap();
        assert_eq!(std::fs::read(&partial).unwrap(), good_partial);
    }
}

/// Asks to stop once `material` has solved `bands` bands.
struct StopIn {
    material: &'static str,
    inside: AtomicBool,
    bands: u64,
    asked: AtomicU64,
}

impl Progress for StopIn {
    fn material_started(&self, _: Variant, material: Material, _: u64) {
        let inside = material.to_string() == self.material;
        self.inside.store(inside, Ordering::SeqCst);
    }

    fn should_stop(&self) -> bool {
        // Asked before each material (not yet inside it) and after each of its bands.
        self.inside.load(Ordering::SeqCst)
            && self.asked.fetch_add(1, Ordering::SeqCst) + 1 >= self.bands
    }
}

#[test]
fn a_run_asked_to_stop_stops_at_a_band_and_the_next_resumes_it() {
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan::new(Variant::Brazilian, 3, dir.path()).unwrap();
    let stop = StopIn {
        material: "MvM",
        inside: AtomicBool::new(false),
        bands: 2,
        asked: AtomicU64::new(0),
    };
    let err = generate(&plan, &stop).unwrap_err();
    assert!(matches!(err, GenerateError::Stopped), "{err}");
    assert!(err.to_string().contains("resumes"), "{err}");
    // Stopped after its second band, recorded; no table of it written, those before it kept.
    let journal = dir
        .path()
        .join("brazilian")
        .join(WORK_DIR)
        .join("MvM.journal");
    let recorded = std::fs::read_to_string(journal).unwrap().lines().count() - 1;
    assert_eq!(recorded, 2);
    assert!(!dir.path().join("brazilian/MvM.wdl").exists());
    assert!(dir.path().join("brazilian/KvK.wdl").exists());
    // The next run takes the two bands as they are and finishes the same tables.
    let watch = Watch {
        material: "MvM",
        ..Watch::default()
    };
    let summaries = generate(&plan, &watch).unwrap();
    assert!(
        summaries
            .iter()
            .find(|s| s.material.to_string() == "KvK")
            .unwrap()
            .reused
    );
    assert!(watch.damaged.lock().unwrap().is_empty());
    let clean = tempfile::tempdir().unwrap();
    generate(
        &Plan::new(Variant::Brazilian, 3, clean.path()).unwrap(),
        &NoProgress,
    )
    .unwrap();
    assert_eq!(tables(dir.path()), tables(clean.path()));
}

#[test]
fn a_run_asked_to_stop_in_a_material_writes_no_table_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan::new(Variant::Brazilian, 3, dir.path()).unwrap();
    let stop = StopIn {
        material: "KMvK",
        inside: AtomicBool::new(false),
        bands: 1,
        asked: AtomicU64::new(0),
    };
    assert!(matches!(
        generate(&plan, &stop),
        Err(GenerateError::Stopped)
    ));
    assert!(!dir.path().join("brazilian/KMvK.wdl").exists());
}

#[test]
fn an_empty_directory_or_too_few_pieces_are_refused() {
    let err = Plan::new(Variant::Brazilian, 3, Path::new("")).unwrap_err();
    assert!(matches!(err, GenerateError::EmptyDirectory), "{err}");
    let err = Plan::new(Variant::Brazilian, 1, Path::new("data")).unwrap_err();
    assert_eq!(err.to_string(), "pieces must be from 2 to 8, not 1");
}
