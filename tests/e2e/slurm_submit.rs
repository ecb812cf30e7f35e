//! `rafle slurm submit` against stand-ins for Slurm's commands on the PATH (an `squeue` with an
//! empty queue and an `sbatch` that runs each job at once), so that the submission's graph,
//! commands and stamp are checked on every machine; the real cluster's test is
//! `scripts/slurm-test.sh`, and the units themselves are tested in `tests/e2e/cluster.rs`.

use crate::common;

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{assert_same_tables, data, fails, generate, packed_files, text};
use tempfile::TempDir;

/// A directory of stand-ins for Slurm's commands: `squeue` with an empty queue and `sbatch`
/// that records its arguments, runs the job's `--wrap` command at once (in submission
/// order, which the dependencies allow) and prints a job id.
fn fake_slurm(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    let log = dir.join("sbatch.log");
    fs::write(&log, "").unwrap();
    let scripts = [
        ("squeue", "#!/bin/sh\nexit 0\n".to_string()),
        (
            "sbatch",
            format!(
                "#!/bin/sh\nn=$(/usr/bin/wc -l < {log})\nprintf '%s\\n' \"$*\" >> {log}\n\
                 for a in \"$@\"; do case \"$a\" in --wrap=*) wrap=\"${{a#--wrap=}}\";; esac; done\n\
                 /bin/sh -c \"$wrap\" > /dev/null 2>&1 || exit 1\necho $((n + 1000))\n",
                log = log.display()
            ),
        ),
    ];
    for (name, body) in scripts {
        let path = bin.join(name);
        fs::write(&path, body).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

fn with_path<S: AsRef<OsStr>>(
    args: impl IntoIterator<Item = S>,
    path: &Path,
) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rafle"))
        .args(args)
        .env("PATH", path)
        .output()
        .unwrap()
}

/// `rafle slurm submit` of Brazilian up to 3 pieces into `dir`, then `extra`.
fn submit_brazilian_3<'a>(dir: &'a TempDir, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "slurm",
        "submit",
        "-v",
        "brazilian",
        "-p",
        "3",
        "--data",
        data(dir),
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn a_submission_runs_every_unit_after_its_needs_and_resubmits_only_what_is_missing() {
    let (reference, _, _) = generate("brazilian", 3, &[]);
    let scratch = TempDir::new().unwrap();
    let bin = fake_slurm(scratch.path());
    let dir = TempDir::new().unwrap();
    let submit = submit_brazilian_3(
        &dir,
        &["--cpus", "2", "--partition", "long", "--account", "games"],
    );
    let out = with_path(&submit, &bin);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.starts_with(
            "brazilian: 9 units, 0 finished, 0 queued already, 10 jobs submitted (jobs 1000..1009)"
        ),
        "{said}"
    );
    assert_eq!(
        assert_same_tables(reference.path(), dir.path(), "brazilian"),
        27
    );
    // The finishing job ran last and removed the units' work files.
    assert_eq!(packed_files(dir.path()), 0);
    let log = fs::read_to_string(scratch.path().join("sbatch.log")).unwrap();
    let jobs: Vec<&str> = log.lines().collect();
    assert_eq!(jobs.len(), 10);
    for job in &jobs {
        for part in [
            "--partition=long",
            "--account=games",
            "--cpus-per-task=2",
            "--nodes=1",
            "--threads 2",
            "--cluster-stamp ",
        ] {
            assert!(job.contains(part), "{part} in {job}");
        }
    }
    assert!(
        jobs[0].contains("--job-name=rafle-brazilian-KvK "),
        "{}",
        jobs[0]
    );
    assert!(!jobs[0].contains("--dependency"), "{}", jobs[0]);
    // KKvK needs KvK, the first job.
    let kkvk = jobs
        .iter()
        .find(|j| j.contains("--unit brazilian/KKvK "))
        .unwrap();
    assert!(
        kkvk.contains("--dependency=afterok:1000 --kill-on-invalid-dep=yes"),
        "{kkvk}"
    );
    let finish = jobs[9];
    assert!(
        finish.contains("--job-name=rafle-brazilian-finish"),
        "{finish}"
    );
    assert!(
        finish.contains("generate --variant brazilian --pieces 3"),
        "{finish}"
    );
    assert!(
        finish.contains("--dependency=afterok:1000:1001:"),
        "{finish}"
    );

    // All finished: a second submission has nothing to do.
    let out = with_path(&submit, &bin);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout)
            .starts_with("brazilian: 9 units, 9 finished, 0 queued already, 0 jobs submitted"),
        "{}",
        text(&out.stdout)
    );
    // One table lost: its unit goes again, with the three units whose values it reads
    // (repacked from their tables: the finishing job removed their packed values), then the
    // finishing job.
    fs::remove_file(dir.path().join("brazilian/KMvK.rules")).unwrap();
    let out = with_path(&submit, &bin);
    assert!(
        text(&out.stdout).starts_with(
            "brazilian: 9 units, 5 finished, 0 queued already, 5 jobs submitted (jobs 1010..1014)"
        ),
        "{}",
        text(&out.stdout)
    );
    let log = fs::read_to_string(scratch.path().join("sbatch.log")).unwrap();
    let again: Vec<&str> = log.lines().skip(10).collect();
    for unit in ["KvK", "KvM", "KKvK", "KMvK"] {
        assert!(
            again
                .iter()
                .any(|j| j.contains(&format!("--unit brazilian/{unit} "))),
            "{unit}: {again:?}"
        );
    }
    assert_same_tables(reference.path(), dir.path(), "brazilian");
}

#[test]
fn a_dry_run_prints_the_script_and_submits_nothing() {
    let scratch = TempDir::new().unwrap();
    let nothing = scratch.path().join("no-slurm");
    fs::create_dir_all(&nothing).unwrap();
    let dir = TempDir::new().unwrap();
    let out = with_path(submit_brazilian_3(&dir, &["--dry-run"]), &nothing);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "no queue to compare with, every unfinished unit is listed (Slurm is not installed \
             here: squeue is not on the PATH)"
        ),
        "{err}"
    );
    let script = text(&out.stdout);
    let logs = dir.path().join("slurm-logs");
    assert!(
        script.starts_with(&format!(
            "#!/bin/sh\nset -e\nmkdir -p {}\nt=$(mktemp ",
            logs.display()
        )),
        "{script}"
    );
    assert_eq!(script.matches("=$(sbatch ").count(), 10, "{script}");
    assert!(
        script.contains("--dependency=afterok:$job_brazilian_KvK --kill-on-invalid-dep=yes"),
        "{script}"
    );
    assert!(
        script.contains("# brazilian: 9 units, 0 finished, 0 queued already, 10 jobs to submit"),
        "{script}"
    );
    // Nothing written: no stamp, no logs, no tables.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);

    // Without --dry-run and without Slurm, a clear refusal.
    let out = with_path(submit_brazilian_3(&dir, &[]), &nothing);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("Slurm is not installed here: sbatch is not on the PATH"),
        "{err}"
    );
}

/// A stand-in for `sbatch` as strict as Slurm about the job's log: it refuses a job whose
/// `--output` directory does not exist (Slurm starts no job whose log it cannot open), else
/// runs the `--wrap` command at once with its output in that log (`%j` the job id) and prints
/// the id.
fn strict_sbatch(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    let count = dir.join("jobs");
    fs::write(&count, "").unwrap();
    let body = format!(
        r#"#!/bin/sh
id=$(($(wc -l < {count}) + 1000))
echo job >> {count}
for a in "$@"; do
    case "$a" in
    --wrap=*) wrap="${{a#--wrap=}}" ;;
    --output=*) log=$(printf '%s' "${{a#--output=}}" | sed "s/%j/$id/") ;;
    esac
done
[ -d "$(dirname "$log")" ] || {{ echo "sbatch: cannot open $log" >&2; exit 1; }}
/bin/sh -c "$wrap" > "$log" 2>&1 || exit 1
echo $id
"#,
        count = count.display()
    );
    let path = bin.join("sbatch");
    fs::write(&path, body).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// Runs a dry run's `script` in `scratch` with a strict `sbatch` (each job run as it is
/// submitted), `envs` set; asserts it succeeded.
fn run_script(scratch: &Path, script: &[u8], envs: &[(&str, &str)]) {
    let path = scratch.join("submit.sh");
    fs::write(&path, script).unwrap();
    let bin = strict_sbatch(scratch);
    let run = Command::new("/bin/sh")
        .arg(&path)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .envs(envs.iter().copied())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "the script failed: {}",
        text(&run.stderr)
    );
}

#[test]
fn the_dry_run_script_runs_on_a_directory_that_does_not_exist_yet() {
    let (reference, _, _) = generate("brazilian", 3, &[]);
    let scratch = TempDir::new().unwrap();
    let nothing = scratch.path().join("no-slurm");
    fs::create_dir_all(&nothing).unwrap();
    let data_dir = scratch.path().join("not/made/yet");
    let data_arg = data_dir.to_str().unwrap();
    let submit = [
        "slurm",
        "submit",
        "-v",
        "brazilian",
        "-p",
        "3",
        "--data",
        data_arg,
        "--dry-run",
    ];
    let out = with_path(submit, &nothing);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!data_dir.exists(), "a dry run writes nothing");
    run_script(scratch.path(), &out.stdout, &[]);
    // Every unit and the finishing job ran, each with its log.
    let logs: Vec<String> = fs::read_dir(data_dir.join("slurm-logs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(logs.len(), 10, "{logs:?}");
    assert!(
        logs.iter().any(|l| l.starts_with("brazilian-finish-")),
        "{logs:?}"
    );
    assert_eq!(
        assert_same_tables(reference.path(), &data_dir, "brazilian"),
        27
    );
    assert_eq!(packed_files(&data_dir), 0);
}

/// A kings-only material seeded in parts (`RAFLE_SEED_PART_POSITIONS` makes Brazilian KKvK's
/// 29,760 positions 8 parts) is submitted as a job per part, which its material's job needs;
/// run in the order submitted, they give the tables of a whole run.
#[test]
fn seed_parts_are_jobs_of_their_own() {
    let (reference, _, _) = generate("brazilian", 3, &[]);
    let scratch = TempDir::new().unwrap();
    let data_dir = TempDir::new().unwrap();
    let envs = [
        ("RAFLE_KINGS_IN_BITS", "1"),
        ("RAFLE_SEED_PART_POSITIONS", "4096"),
    ];
    let submit = Command::new(env!("CARGO_BIN_EXE_rafle"))
        .args(submit_brazilian_3(&data_dir, &["--dry-run"]))
        .env("PATH", scratch.path().join("no-slurm"))
        .envs(envs)
        .output()
        .unwrap();
    assert!(submit.status.success(), "{}", text(&submit.stderr));
    let script = text(&submit.stdout);
    assert!(
        script.contains("# brazilian: 17 units, 0 finished, 0 queued already, 18 jobs to submit"),
        "{script}"
    );
    let kkvk = script
        .lines()
        .find(|l| l.contains("--job-name=rafle-brazilian-KKvK "))
        .unwrap();
    for part in 1..=8 {
        assert!(
            kkvk.contains(&format!("$job_brazilian_KKvK_seed_{part}")),
            "{kkvk}"
        );
    }
    assert!(script.contains("--unit brazilian/KKvK/seed-8"), "{script}");
    run_script(scratch.path(), &submit.stdout, &envs);
    assert_eq!(
        assert_same_tables(reference.path(), data_dir.path(), "brazilian"),
        27
    );
    assert_eq!(packed_files(data_dir.path()), 0);
}

#[test]
fn a_job_whose_data_directory_is_not_the_submitted_one_stops_before_writing() {
    let dir = TempDir::new().unwrap();
    let job = [
        "generate",
        "--unit",
        "brazilian/KvK",
        "--data",
        data(&dir),
        "--cluster-stamp",
        "0123456789abcdef0123456789abcdef",
    ];
    let err = fails(&job, 1);
    assert!(
        err.contains("holds no stamp of 'rafle slurm submit'"),
        "{err}"
    );
    assert!(err.contains("shared by every node"), "{err}");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    fs::write(
        dir.path().join(".rafle-cluster"),
        "ffffffffffffffffffffffffffffffff\n",
    )
    .unwrap();
    let err = fails(&job, 1);
    assert!(
        err.contains("holds the stamp of another submission"),
        "{err}"
    );
    assert!(!dir.path().join("brazilian").exists());
}

/// `rafle slurm submit` of Brazilian up to 3 pieces into `data`, then `extra`.
fn submit_into(data: &Path, extra: &[&str]) -> Vec<OsString> {
    let mut args: Vec<OsString> = ["slurm", "submit", "-v", "brazilian", "-p", "3", "--data"]
        .map(OsString::from)
        .into();
    args.push(data.as_os_str().to_owned());
    args.extend(extra.iter().map(OsString::from));
    args
}

/// Pipes a dry run's `script` to `sh` in `cwd`, with a strict `sbatch` made in `scratch`;
/// asserts it succeeded.
fn pipe_to_sh(scratch: &Path, cwd: &Path, script: &[u8]) {
    let bin = strict_sbatch(scratch);
    let mut sh = Command::new("/bin/sh")
        .current_dir(cwd)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    sh.stdin.take().unwrap().write_all(script).unwrap();
    let run = sh.wait_with_output().unwrap();
    assert!(
        run.status.success(),
        "the script failed: {}",
        text(&run.stderr)
    );
}

/// A data directory whose name holds a newline and a command: the dry run's script, piped to
/// `sh`, builds the tables in that very directory and runs nothing of its name; the summary
/// and `rafle plan` show the name escaped, on one line.
#[test]
fn a_data_directory_named_with_a_newline_and_a_command_runs_no_command() {
    let (reference, _, _) = generate("brazilian", 3, &[]);
    let scratch = TempDir::new().unwrap();
    let cwd = scratch.path().join("cwd");
    fs::create_dir_all(&cwd).unwrap();
    let nothing = scratch.path().join("no-slurm");
    fs::create_dir_all(&nothing).unwrap();
    let data_dir = scratch.path().join("data\n: ; touch PWNED #");
    let out = with_path(submit_into(&data_dir, &["--dry-run"]), &nothing);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let script = text(&out.stdout);
    let escaped = format!("{}/data\\n: ; touch PWNED #", scratch.path().display());
    assert!(
        script.contains(&format!(
            "\n# brazilian: 9 units, 0 finished, 0 queued already, 10 jobs to submit; logs in \
             {escaped}/slurm-logs\n"
        )),
        "{script}"
    );
    pipe_to_sh(scratch.path(), &cwd, &out.stdout);
    assert!(!cwd.join("PWNED").exists(), "the name ran as a command");
    assert!(!scratch.path().join("PWNED").exists());
    assert_eq!(
        assert_same_tables(reference.path(), &data_dir, "brazilian"),
        27
    );
    assert_eq!(
        fs::read_dir(data_dir.join("slurm-logs")).unwrap().count(),
        10
    );

    let mut plan: Vec<OsString> = ["plan", "-v", "brazilian", "-p", "3", "--data"]
        .map(OsString::from)
        .into();
    plan.push(data_dir.clone().into());
    let out = with_path(plan, &nothing);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    let first = said.lines().next().unwrap();
    assert!(
        first.ends_with(&format!("9 finished in {escaped}")),
        "{said}"
    );
}

/// A data directory whose name is not UTF-8: the jobs, of a dry run's script or submitted,
/// work in that very directory (its bytes kept, not replaced by U+FFFD), and messages show
/// the byte as `\xff`.
#[test]
fn a_data_directory_whose_name_is_not_utf8_is_the_one_the_jobs_work_in() {
    let (reference, _, _) = generate("brazilian", 3, &[]);
    let scratch = TempDir::new().unwrap();
    let nothing = scratch.path().join("no-slurm");
    fs::create_dir_all(&nothing).unwrap();
    let data_dir = scratch.path().join(OsStr::from_bytes(b"d\xff"));
    let out = with_path(submit_into(&data_dir, &["--dry-run"]), &nothing);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let raw = b"/d\xff/slurm-logs";
    let script = String::from_utf8_lossy(&out.stdout);
    assert!(out.stdout.windows(raw.len()).any(|w| w == raw), "{script}");
    assert!(
        script.contains(&format!(
            "10 jobs to submit; logs in {}/d\\xff/slurm-logs\n",
            scratch.path().display()
        )),
        "{script}"
    );
    assert!(
        !out.stdout.windows(3).any(|w| w == "\u{fffd}".as_bytes()),
        "{script}"
    );
    pipe_to_sh(scratch.path(), scratch.path(), &out.stdout);
    assert_eq!(
        assert_same_tables(reference.path(), &data_dir, "brazilian"),
        27
    );
    assert_eq!(packed_files(&data_dir), 0);
    let entries: Vec<OsString> = fs::read_dir(scratch.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        entries
            .iter()
            .all(|e| !e.as_bytes().windows(3).any(|w| w == "\u{fffd}".as_bytes())),
        "a directory named with U+FFFD: {entries:?}"
    );

    // Submitted to a stand-in sbatch that runs each job at once.
    let bin = fake_slurm(scratch.path());
    let data_dir = scratch.path().join(OsStr::from_bytes(b"e\xfe"));
    let out = with_path(submit_into(&data_dir, &[]), &bin);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.starts_with(&format!(
            "brazilian: 9 units, 0 finished, 0 queued already, 10 jobs submitted (jobs \
             1000..1009); logs in {}/e\\xfe/slurm-logs",
            scratch.path().display()
        )),
        "{said}"
    );
    assert_eq!(
        assert_same_tables(reference.path(), &data_dir, "brazilian"),
        27
    );
    assert_eq!(packed_files(&data_dir), 0);
}
