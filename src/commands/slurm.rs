//! `rafle slurm submit`: a generation as Slurm jobs, one per unit of work of `rafle plan`,
//! with `afterok` dependencies between them. Slurm does the scheduling, retries and
//! accounting; rafle only describes the graph.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::anyhow;
use clap::{Args, Subcommand};
use rafle_generator::{Tables, UnitState};
use rafle_probe::toolkit::{printable_path, DataDir};

use super::cluster_stamp::stamp_token;
use super::plan::{plans, PlanArgs};
use crate::output::{input, other, stderr_line, Failure};

#[derive(Debug, Subcommand)]
pub enum SlurmCommand {
    /// Submit one job per unit not yet finished (and not already queued), each depending on
    /// the jobs of the units it needs.
    #[command(long_about = SUBMIT_ABOUT)]
    Submit(SubmitArgs),
}

const SUBMIT_ABOUT: &str = "\
Submit a generation to Slurm: one sbatch job per unit of work of 'rafle plan' that is not
finished in --data, running 'rafle generate --unit NAME --set N' with --dependency=afterok on
the jobs of the units it needs (and --kill-on-invalid-dep=yes, so a failed unit's dependents
leave the queue instead of waiting for ever). --mem is the unit's planned memory and a tenth more, and
the unit keeps to the planned memory; --cpus-per-task is --cpus. Job names are
rafle-<variant>-<material>, logs go to DIR/slurm-logs/<variant>-<material>-<job id>.log.

Each unit keeps its values (band or packed files) for the units that read it; once done, a
unit removes the values of every material whose readers in the set are all finished. A last
job per variant, rafle-<variant>-finish, runs 'rafle generate --variant V --pieces N' after
every unit: it checks each table's blocks and removes the work files left.

Run it again after failures: finished units are skipped, units whose job is still queued or
running (same name and data directory) keep that job, and only the rest is submitted.
--dry-run prints the sbatch commands as a shell script instead of running them.

The data directory and the rafle binary must be at the same path on every node (a shared
filesystem with flock support: rafle locks each variant directory and each unit). Submitting
leaves a stamp, DIR/.rafle-cluster; a job that does not find it (DIR is another directory on
its node) fails at once, saying so, before writing anything.";

#[derive(Debug, Args)]
pub struct SubmitArgs {
    #[command(flatten)]
    plan: PlanArgs,
    /// Slurm partition (sbatch --partition).
    #[arg(long, value_name = "P")]
    partition: Option<String>,
    /// Slurm account (sbatch --account).
    #[arg(long, value_name = "A")]
    account: Option<String>,
    /// Cores per job (sbatch --cpus-per-task, and rafle generate --threads).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    cpus: u32,
    /// The rafle binary the jobs run [default: this one].
    #[arg(long, value_name = "PATH")]
    rafle: Option<PathBuf>,
    /// Print the sbatch commands instead of running them.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(command: &SlurmCommand) -> Result<(), Failure> {
    match command {
        SlurmCommand::Submit(args) => submit(args),
    }
}

/// A job of an earlier submission still in the queue, or one just submitted: its id.
type JobIds = HashMap<String, String>;

fn submit(args: &SubmitArgs) -> Result<(), Failure> {
    let data = absolute(&args.plan.data)?;
    let rafle = match &args.rafle {
        Some(path) => absolute(path)?,
        None => std::env::current_exe().map_err(other)?,
    };
    let comment = format!("rafle:{}", comment_path(&data));
    let plan_args = PlanArgs {
        data: data.clone(),
        ..args.plan.clone()
    };
    let plans = plans(&plan_args)?;
    if !args.dry_run {
        which("sbatch", true)?;
    }
    // A dry run without a reachable Slurm has no queue to look at: everything unfinished is
    // new.
    let mut queued = match queued_jobs(&comment) {
        Ok(jobs) => jobs,
        Err(Failure::Input(e) | Failure::Other(e)) if args.dry_run => {
            let why = e.to_string();
            let why = why.lines().last().unwrap_or_default();
            stderr_line!(
                "rafle: no queue to compare with, every unfinished unit is listed ({why})"
            );
            JobIds::new()
        }
        Err(e) => return Err(e),
    };
    let layout = DataDir::new(&data);
    let logs = layout.slurm_logs();
    if !args.dry_run {
        std::fs::create_dir_all(&logs)
            .map_err(|e| other(anyhow!("cannot create {}: {e}", printable_path(&logs))))?;
    }
    let token = stamp_token(&data, args.dry_run)?;
    let mut out = io::stdout().lock();
    if args.dry_run {
        // Every path is written as its bytes, quoted: the script works in the very directory
        // named, whatever its name holds.
        writeln!(out, "#!/bin/sh\nset -e")?;
        // What a submission creates before its first job: the data directory, for the stamp,
        // and the logs' directory, without which Slurm cannot start a job.
        write_line(&mut out, &[b"mkdir -p ", &shell_word(logs.as_os_str())])?;
        // Written under a temporary name and renamed, as `submit` writes it: a link planted
        // at the stamp is replaced, never written through.
        let stamp = layout.cluster_stamp();
        let mut template = stamp.clone().into_os_string();
        template.push(".XXXXXX");
        write_line(
            &mut out,
            &[
                b"t=$(mktemp ",
                &shell_word(&template),
                format!(") && printf '%s\\n' {token} > \"$t\" && mv -fT \"$t\" ").as_bytes(),
                &shell_word(stamp.as_os_str()),
            ],
        )?;
    }
    let job = JobParts {
        args,
        rafle: &rafle,
        data: &data,
        comment: &comment,
        token: &token,
    };
    for plan in &plans {
        let units = plan.units();
        let (mut finished, mut kept, mut submitted) = (0, 0, Vec::new());
        for unit in &units {
            if unit.state == UnitState::Finished {
                finished += 1;
                continue;
            }
            let unit_name = unit.name.to_string();
            let name = job_name(&unit_name);
            if queued.contains_key(&name) {
                kept += 1;
                continue;
            }
            let needs: Vec<String> = unit
                .needs
                .iter()
                .filter_map(|&d| queued.get(&job_name(&units[d].name.to_string())).cloned())
                .collect();
            let sbatch = job.sbatch(
                plan,
                &unit_name,
                unit.memory_bytes,
                &needs,
                unit_command(&unit_name, plan.max_pieces),
            );
            let id = job.submit(&mut out, &sbatch, &unit_name)?;
            queued.insert(name, id.clone());
            submitted.push(id);
        }
        // A last job checks the whole set and removes the work files the units kept for
        // each other; it is due while any unit is, or while such files remain.
        let finish = format!("{}/finish", plan.variant);
        let ours: Vec<String> = units
            .iter()
            .filter_map(|u| queued.get(&job_name(&u.name.to_string())).cloned())
            .collect();
        let due = !ours.is_empty() || work_files_left(&data, plan.variant);
        if due && !queued.contains_key(&job_name(&finish)) {
            let memory = units.iter().map(|u| u.memory_bytes).max().unwrap_or(0);
            let command = words([
                "--variant".to_string(),
                plan.variant.name().to_string(),
                "--pieces".to_string(),
                plan.max_pieces.to_string(),
            ]);
            let sbatch = job.sbatch(plan, &finish, memory, &ours, command);
            let id = job.submit(&mut out, &sbatch, &finish)?;
            queued.insert(job_name(&finish), id.clone());
            submitted.push(id);
        }
        let what = if args.dry_run {
            "to submit"
        } else {
            "submitted"
        };
        let range = match (submitted.first(), submitted.last()) {
            (Some(first), Some(last)) if !args.dry_run => format!(" (jobs {first}..{last})"),
            _ => String::new(),
        };
        // Escaped as every message's paths are: in a dry run this line is a comment of the
        // script, which a newline in the path would end.
        let line = format!(
            "{}: {} units, {finished} finished, {kept} queued already, {} jobs {what}{range}; logs in {}",
            plan.variant,
            units.len(),
            submitted.len(),
            printable_path(&logs)
        );
        if args.dry_run {
            writeln!(out, "# {line}")?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

fn job_name(unit: &str) -> String {
    format!("rafle-{}", unit.replace('/', "-"))
}

/// What every job of a submission shares.
struct JobParts<'a> {
    args: &'a SubmitArgs,
    rafle: &'a Path,
    data: &'a Path,
    comment: &'a str,
    token: &'a str,
}

impl JobParts<'_> {
    /// The arguments of `sbatch` for the job `name` (a unit, or a variant's finishing job)
    /// running `rafle generate` with `what` (which tables) and the submission's options,
    /// holding `memory` bytes, after the jobs `needs`.
    fn sbatch(
        &self,
        plan: &rafle_generator::Plan,
        name: &str,
        memory: u64,
        needs: &[String],
        what: Vec<OsString>,
    ) -> Vec<OsString> {
        let args = self.args;
        // Slurm counts memory in MiB; a tenth more than planned leaves room for what the plan
        // does not see (the binary, libc) before a cgroup limit kills the job.
        let mem_mib = (memory + memory / 10).div_ceil(1 << 20);
        let log = DataDir::new(self.data)
            .slurm_logs()
            .join(format!("{}-%j.log", name.replace('/', "-")));
        let mut output = OsString::from("--output=");
        output.push(log);
        let mut sbatch = words([
            "--parsable".to_string(),
            format!("--job-name={}", job_name(name)),
            format!("--comment={}", self.comment),
        ]);
        sbatch.push(output);
        sbatch.extend(words([
            format!("--mem={mem_mib}M"),
            format!("--cpus-per-task={}", args.cpus),
            "--nodes=1".to_string(),
        ]));
        if let Some(partition) = &args.partition {
            sbatch.push(format!("--partition={partition}").into());
        }
        if let Some(account) = &args.account {
            sbatch.push(format!("--account={account}").into());
        }
        if !needs.is_empty() {
            sbatch.push(format!("--dependency=afterok:{}", needs.join(":")).into());
            sbatch.push("--kill-on-invalid-dep=yes".into());
        }
        // The paths go into the job's command as they are, byte for byte.
        let mut command = vec![
            OsString::from("exec"),
            self.rafle.as_os_str().to_owned(),
            OsString::from("generate"),
        ];
        command.extend(what);
        command.push("--data".into());
        command.push(self.data.as_os_str().to_owned());
        command.extend(words([
            "--threads".to_string(),
            args.cpus.to_string(),
            "--memory".to_string(),
            memory.to_string(),
            "--limits".to_string(),
            plan.limits.to_string(),
            "--cluster-stamp".to_string(),
            self.token.to_string(),
        ]));
        if plan.tables == Tables::Wdl {
            command.extend(words(["--tables".to_string(), "wdl".to_string()]));
        }
        if plan.compact {
            command.push("--compact".into());
        }
        let mut wrap = b"--wrap=".to_vec();
        wrap.extend(shell_words(&command));
        sbatch.push(os_string(wrap));
        sbatch
    }

    /// Submits a job (or, in a dry run, prints its line): its id, or in a dry run the shell
    /// variable that will hold it.
    fn submit(
        &self,
        out: &mut impl Write,
        sbatch: &[OsString],
        name: &str,
    ) -> Result<String, Failure> {
        if self.args.dry_run {
            let var = shell_variable(name);
            write_line(
                out,
                &[
                    format!("{var}=$(sbatch ").as_bytes(),
                    &shell_words(sbatch),
                    b")",
                ],
            )?;
            Ok(format!("${var}"))
        } else {
            run_sbatch(sbatch, name)
        }
    }
}

/// What `rafle generate` builds for a unit of the set up to `pieces` (once done, it removes
/// the values no unit still to finish reads).
fn unit_command(name: &str, pieces: u32) -> Vec<OsString> {
    words([
        "--unit".to_string(),
        name.to_string(),
        "--set".to_string(),
        pieces.to_string(),
    ])
}

/// Whether the variant's work directory still holds packed values units kept for each other.
fn work_files_left(data: &Path, variant: rafle_probe::draughts::Variant) -> bool {
    let work = DataDir::new(data).variant(variant).work_dir();
    std::fs::read_dir(work).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "packed"))
    })
}

/// Runs sbatch; the job id it prints.
fn run_sbatch(sbatch: &[OsString], unit: &str) -> Result<String, Failure> {
    let output = Command::new("sbatch")
        .args(sbatch)
        .output()
        .map_err(|e| other(anyhow!("cannot run sbatch: {e}")))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(other(anyhow!(
            "sbatch refused unit {unit} ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    // --parsable prints "id" or "id;cluster".
    let id = stdout.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(other(anyhow!(
            "sbatch gave no job id for unit {unit}: {stdout:?}"
        )));
    }
    Ok(id)
}

/// The jobs of this data directory still queued or running, by name.
fn queued_jobs(comment: &str) -> Result<JobIds, Failure> {
    which("squeue", false)?;
    let output = Command::new("squeue")
        .args(["--noheader", "--format=%i|%j|%k"])
        .output()
        .map_err(|e| other(anyhow!("cannot run squeue: {e}")))?;
    if !output.status.success() {
        return Err(other(anyhow!(
            "squeue failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let mut jobs = JobIds::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let mut fields = line.splitn(3, '|');
        let (Some(id), Some(name), Some(job_comment)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if job_comment.trim() == comment && name.starts_with("rafle-") {
            jobs.insert(name.trim().to_string(), id.trim().to_string());
        }
    }
    Ok(jobs)
}

/// Fails with a clear message when `program` is not on the PATH; `hint` adds that a dry run
/// needs no Slurm.
fn which(program: &str, hint: bool) -> Result<(), Failure> {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()));
    if found {
        return Ok(());
    }
    let hint = if hint {
        " (use --dry-run to see the commands)"
    } else {
        ""
    };
    Err(other(anyhow!(
        "Slurm is not installed here: {program} is not on the PATH{hint}"
    )))
}

/// `path` made absolute (jobs run elsewhere, from another directory).
fn absolute(path: &Path) -> Result<PathBuf, Failure> {
    std::path::absolute(path).map_err(|e| {
        input(anyhow!(
            "cannot make {} absolute: {e}",
            printable_path(path)
        ))
    })
}

/// A shell variable name for a unit's job id.
fn shell_variable(unit: &str) -> String {
    let name: String = unit
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("job_{name}")
}

/// The data directory as the jobs' `--comment` names it, which tells a submission the jobs of
/// its directory in the queue: its path as text (Slurm keeps a comment as text), the same for
/// every plain path, with backslashes doubled and control characters and bytes that are not
/// UTF-8 escaped, so that two directories never share a comment.
fn comment_path(path: &Path) -> String {
    let mut text = String::new();
    for chunk in os_bytes(path.as_os_str()).utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => text.push_str("\\\\"),
                c if c.is_control() => text.extend(c.escape_default()),
                c => text.push(c),
            }
        }
        for byte in chunk.invalid() {
            text.push_str(&format!("\\x{byte:02x}"));
        }
    }
    text
}

/// Words of text as arguments.
fn words<const N: usize>(words: [String; N]) -> Vec<OsString> {
    words.into_iter().map(OsString::from).collect()
}

/// The bytes of `text` (a path, an argument) as the system has them.
fn os_bytes(text: &OsStr) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::borrow::Cow::Borrowed(text.as_bytes())
    }
    #[cfg(not(unix))]
    {
        match text.to_string_lossy() {
            std::borrow::Cow::Borrowed(s) => std::borrow::Cow::Borrowed(s.as_bytes()),
            std::borrow::Cow::Owned(s) => std::borrow::Cow::Owned(s.into_bytes()),
        }
    }
}

/// An argument of these bytes.
fn os_string(bytes: Vec<u8>) -> OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        OsString::from_vec(bytes)
    }
    #[cfg(not(unix))]
    {
        OsString::from(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Writes the pieces of one line of the dry run's script and its newline.
fn write_line(out: &mut impl Write, pieces: &[&[u8]]) -> io::Result<()> {
    for piece in pieces {
        out.write_all(piece)?;
    }
    out.write_all(b"\n")
}

/// A word for a POSIX shell (the dry run's script and the jobs' `--wrap` commands are run by
/// `sh`): as it is when it needs no quoting, else in single quotes, which keep every byte as it
/// is (a newline, a byte that is not UTF-8) but a single quote, written `'\''`.
fn shell_word(word: &OsStr) -> Vec<u8> {
    let bytes = os_bytes(word);
    let plain = !bytes.is_empty()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,%+@".contains(b));
    // A dependency on a job submitted earlier in a dry run stays a variable.
    let variable = bytes.starts_with(b"--dependency=afterok:$")
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b"-_=:$".contains(b));
    if plain || variable {
        return bytes.into_owned();
    }
    let mut quoted = Vec::with_capacity(bytes.len() + 2);
    quoted.push(b'\'');
    for &b in bytes.iter() {
        if b == b'\'' {
            quoted.extend_from_slice(br"'\''");
        } else {
            quoted.push(b);
        }
    }
    quoted.push(b'\'');
    quoted
}

/// Words joined for a POSIX shell, each quoted when it needs to be ([`shell_word`]).
fn shell_words(words: &[OsString]) -> Vec<u8> {
    let mut line = Vec::new();
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            line.push(b' ');
        }
        line.extend(shell_word(word));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_quote_what_needs_it() {
        let words = [
            "a",
            "b c",
            "it's",
            "--x=1:2",
            "",
            "--dependency=afterok:$job_a:$job_b",
        ]
        .map(OsString::from);
        assert_eq!(
            shell_words(&words),
            br"a 'b c' 'it'\''s' --x=1:2 '' --dependency=afterok:$job_a:$job_b"
        );
        // A newline stays inside its quotes; a command substitution is no variable.
        let words = ["x\n; touch y", "--dependency=afterok:$(touch y)"].map(OsString::from);
        assert_eq!(
            shell_words(&words),
            b"'x\n; touch y' '--dependency=afterok:$(touch y)'"
        );
    }

    #[cfg(unix)]
    #[test]
    fn bytes_that_are_not_utf8_are_kept_in_words_and_escaped_in_comments() {
        use std::os::unix::ffi::OsStrExt;
        let path = Path::new(OsStr::from_bytes(b"/d\xff/x y"));
        assert_eq!(shell_word(path.as_os_str()), b"'/d\xff/x y'");
        assert_eq!(comment_path(path), r"/d\xff/x y");
        // Backslashes are doubled, so no other path has this comment.
        assert_eq!(comment_path(Path::new(r"/d\xff/x y")), r"/d\\xff/x y");
        assert_eq!(comment_path(Path::new("/a\nb")), r"/a\nb");
        assert_eq!(comment_path(Path::new("/plain/data")), "/plain/data");
    }

    #[test]
    fn job_names_and_variables_say_the_unit() {
        assert_eq!(job_name("brazilian/KKMvK"), "rafle-brazilian-KKMvK");
        assert_eq!(shell_variable("brazilian/KKMvK"), "job_brazilian_KKMvK");
    }
}
