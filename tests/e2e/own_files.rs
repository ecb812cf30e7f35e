//! Links and FIFOs planted among rafle's own files by whoever else can write a data directory:
//! the lock files, the work directory, the record of `verify --resume`, the stamp of `slurm
//! submit`. None is followed (nothing outside the data directory is written) and none makes a
//! command wait: each is refused at once, naming the file. Tables the user linked to another
//! disk are still read through their links.

use crate::common;

use std::fs;
use std::os::unix::fs::symlink;

use common::{data, generate, mkfifo, ok, refused, run_bounded};
use tempfile::TempDir;

/// A file outside the data directory, as another account's file would be: its path.
fn victim(outside: &TempDir) -> std::path::PathBuf {
    let path = outside.path().join("precious");
    fs::write(&path, b"not rafle's\n").unwrap();
    path
}

const LINK: &str = "a symbolic link, not a regular file: remove it";
const FIFO: &str = "a FIFO, not a regular file: remove it";

#[test]
fn linked_lock_files_are_refused_and_their_targets_untouched() {
    let outside = TempDir::new().unwrap();
    let target = victim(&outside);
    let dir = TempDir::new().unwrap();
    let d = data(&dir);
    let work = dir.path().join("brazilian").join(".rafle-work");
    fs::create_dir_all(&work).unwrap();
    let whole = [
        "generate",
        "--variant",
        "brazilian",
        "--pieces",
        "2",
        "--data",
        d,
    ];
    let lock = work.join("writer.lock");
    symlink(&target, &lock).unwrap();
    refused(&whole, &lock, LINK);
    let unit = ["generate", "--unit", "brazilian/KvK", "--data", d];
    refused(&unit, &lock, LINK);
    assert_eq!(fs::read(&target).unwrap(), b"not rafle's\n");

    // A unit's own lock, and a lock whose link points at nothing (a plain create would make
    // the file it names).
    fs::remove_file(&lock).unwrap();
    let material_lock = work.join("KvK.lock");
    symlink(&target, &material_lock).unwrap();
    refused(&unit, &material_lock, LINK);
    assert_eq!(fs::read(&target).unwrap(), b"not rafle's\n");
    let made = outside.path().join("made");
    fs::remove_file(&lock).unwrap();
    symlink(&made, &lock).unwrap();
    refused(&whole, &lock, LINK);
    assert!(!made.exists());
    assert!(
        !dir.path().join("brazilian").join("KvK.wdl").exists(),
        "nothing is generated"
    );

    // Once the planted links are gone, the run goes ahead.
    fs::remove_file(&lock).unwrap();
    fs::remove_file(&material_lock).unwrap();
    ok(&whole);
}

#[test]
fn a_linked_work_directory_is_refused_and_nothing_written_through_it() {
    let outside = TempDir::new().unwrap();
    let dir = TempDir::new().unwrap();
    let variant = dir.path().join("brazilian");
    fs::create_dir_all(&variant).unwrap();
    let work = variant.join(".rafle-work");
    symlink(outside.path(), &work).unwrap();
    let args = [
        "generate",
        "--variant",
        "brazilian",
        "--pieces",
        "2",
        "--data",
        data(&dir),
    ];
    refused(&args, &work, "a symbolic link, not a directory: remove it");
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
}

/// `rafle verify --resume` of Brazilian in `dir`.
fn verify_resume(dir: &TempDir) -> [&str; 6] {
    [
        "verify",
        "--resume",
        "--variant",
        "brazilian",
        "--data",
        data(dir),
    ]
}

/// How `verify --resume` refuses a record in `dir` that is `what`.
fn record_refused(dir: &TempDir, what: &str) {
    let record = dir.path().join("brazilian").join(".rafle-verified");
    let (code, _, err) = run_bounded(&verify_resume(dir));
    assert_eq!(code, Some(1), "{err}");
    let expected = format!(
        "cannot keep the record of checked materials in {} (--resume writes it): {what}\n",
        record.display()
    );
    assert!(err.ends_with(&expected), "{err}");
}

#[test]
fn a_linked_record_of_checked_materials_is_refused_and_its_target_untouched() {
    let outside = TempDir::new().unwrap();
    let target = victim(&outside);
    let (dir, _, _) = generate("brazilian", 2, &[]);
    let record = dir.path().join("brazilian").join(".rafle-verified");
    symlink(&target, &record).unwrap();
    record_refused(&dir, LINK);
    assert_eq!(fs::read(&target).unwrap(), b"not rafle's\n");
    fs::remove_file(&record).unwrap();
    ok(&verify_resume(&dir));
    assert!(fs::symlink_metadata(&record).unwrap().is_file());
}

/// The stamp `slurm submit` leaves in `dir`, the token a job is given, a dry-run submission
/// and a job of Brazilian up to 2 pieces.
struct Cluster<'a> {
    stamp: std::path::PathBuf,
    submit: [&'a str; 9],
    job: [&'a str; 7],
}

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

fn cluster(dir: &TempDir) -> Cluster<'_> {
    let d = data(dir);
    Cluster {
        stamp: dir.path().join(".rafle-cluster"),
        submit: [
            "slurm",
            "submit",
            "--variant",
            "brazilian",
            "--pieces",
            "2",
            "--data",
            d,
            "--dry-run",
        ],
        job: [
            "generate",
            "--unit",
            "brazilian/KvK",
            "--data",
            d,
            "--cluster-stamp",
            TOKEN,
        ],
    }
}

#[test]
fn a_linked_cluster_stamp_is_refused_by_submit_and_jobs() {
    let outside = TempDir::new().unwrap();
    // A link to a file holding a well-formed token: followed, it would be taken as the stamp.
    let target = outside.path().join("token");
    fs::write(&target, format!("{TOKEN}\n")).unwrap();
    let dir = TempDir::new().unwrap();
    let c = cluster(&dir);
    symlink(&target, &c.stamp).unwrap();
    refused(&c.submit, &c.stamp, LINK);
    refused(&c.job, &c.stamp, LINK);
    assert!(
        !dir.path().join("brazilian").exists(),
        "the job wrote nothing"
    );
    assert_eq!(fs::read(&target).unwrap(), format!("{TOKEN}\n").as_bytes());
}

#[test]
fn fifos_in_place_of_own_files_are_refused_at_once() {
    // The stamp, read by `slurm submit` and by every job before anything else.
    let dir = TempDir::new().unwrap();
    let c = cluster(&dir);
    mkfifo(&c.stamp);
    refused(&c.submit, &c.stamp, FIFO);
    refused(&c.job, &c.stamp, FIFO);
    assert!(
        !dir.path().join("brazilian").exists(),
        "the job wrote nothing"
    );

    // The record of `verify --resume`, which `verify` alone never opens.
    let (dir, _, _) = generate("brazilian", 2, &[]);
    let d = data(&dir);
    let record = dir.path().join("brazilian").join(".rafle-verified");
    mkfifo(&record);
    record_refused(&dir, FIFO);
    let (code, _, err) = run_bounded(&["verify", "--variant", "brazilian", "--data", d]);
    assert_eq!(code, Some(0), "{err}");

    // A lock file.
    let lock = dir
        .path()
        .join("brazilian")
        .join(".rafle-work")
        .join("writer.lock");
    // The generation above left the lock file, empty.
    fs::remove_file(&lock).unwrap();
    mkfifo(&lock);
    let generate = [
        "generate",
        "--variant",
        "brazilian",
        "--pieces",
        "2",
        "--data",
        d,
    ];
    refused(&generate, &lock, FIFO);
    fs::remove_file(&lock).unwrap();
    ok(&generate);
}

#[test]
fn tables_linked_to_another_disk_are_still_read() {
    let (dir, _, _) = generate("brazilian", 2, &[]);
    let elsewhere = TempDir::new().unwrap();
    let b = dir.path().join("brazilian");
    for name in ["KvK.wdl", "KvK.dtw", "KvK.rules"] {
        fs::rename(b.join(name), elsewhere.path().join(name)).unwrap();
        symlink(elsewhere.path().join(name), b.join(name)).unwrap();
    }
    let out = ok(&[
        "probe",
        "--variant",
        "brazilian",
        "W:WK1:BK28",
        "--data",
        data(&dir),
    ]);
    assert!(out.starts_with("brazilian W:WK1:BK28 draw"), "{out}");
    ok(&["verify", "--variant", "brazilian", "--data", data(&dir)]);
}
