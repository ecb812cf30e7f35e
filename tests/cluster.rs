//! Generation as units of work, as a cluster runs it: `rafle plan`, `rafle generate --unit`
//! and `rafle slurm submit`. Slurm itself is stood in for by two small scripts on the PATH
//! (an `squeue` with an empty queue and an `sbatch` that runs each job at once), so the
//! submission's graph, commands and stamp are checked on every machine; the real cluster's
//! test is `scripts/slurm-test.sh`.

mod common;

use std::collections::HashMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{data, fails, generate, ok, rafle, table_files, text};
use serde_json::Value;
use tempfile::TempDir;

/// Asserts two directories hold the same table files, byte for byte; their number.
fn assert_same_tables(a: &Path, b: &Path, variant: &str) -> usize {
    let (a, b) = (table_files(a, variant), table_files(b, variant));
    let mut names: Vec<&String> = a.keys().collect();
    names.sort();
    assert_eq!(
        names,
        {
            let mut n: Vec<&String> = b.keys().collect();
            n.sort();
            n
        },
        "the same files"
    );
    for name in names {
        assert!(a[name] == b[name], "{name} differs");
    }
    a.len()
}

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

fn unit_names(plan: &Value) -> Vec<String> {
    plan["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["name"].as_str().unwrap().to_string())
        .collect()
}

fn packed_files(dir: &Path) -> usize {
    fs::read_dir(dir.join("brazilian/.rafle-work")).map_or(0, |entries| {
        entries
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "packed")
            })
            .count()
    })
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
    assert!(plan["units"]
        .as_array()
        .unwrap()
        .iter()
        .all(|u| u["status"] == "finished"));
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
    assert!(plan["units"]
        .as_array()
        .unwrap()
        .iter()
        .all(|u| u["status"] == "finished"));
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

fn with_path(args: &[&str], path: &Path) -> std::process::Output {
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
    let out = with_path(&submit_brazilian_3(&dir, &["--dry-run"]), &nothing);
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
    let out = with_path(&submit_brazilian_3(&dir, &[]), &nothing);
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
    let out = with_path(&submit, &nothing);
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
    // KMvKM's own values, and those of the nine materials below it that it or they read.
    assert_eq!(packed.len(), 10, "{:?}", packed.keys());
    assert!(packed == work_files(streamed.path(), "packed"));
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
