//! `rafle slurm submit`: a generation as Slurm jobs, one per unit of work of `rafle plan`,
//! with `afterok` dependencies between them. Slurm does the scheduling, retries and
//! accounting; rafle only describes the graph.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::anyhow;
use clap::{Args, Subcommand};
use rafle_generator::Tables;

use super::plan::{plans, units, PlanArgs, Unit};
use crate::output::{input, other, Failure};

#[derive(Debug, Subcommand)]
pub enum SlurmCommand {
    /// Submit one job per unit not yet finished (and not already queued), each depending on
    /// the jobs of the units it needs.
    #[command(long_about = SUBMIT_ABOUT)]
    Submit(SubmitArgs),
}

const SUBMIT_ABOUT: &str = "\
Submit a generation to Slurm: one sbatch job per unit of work of 'rafle plan' that is not
finished in --data, running 'rafle generate --unit NAME' with --dependency=afterok on the jobs
of the units it needs (and --kill-on-invalid-dep=yes, so a failed unit's dependents leave the
queue instead of waiting for ever). --mem is the unit's planned memory and a tenth more, and
the unit keeps to the planned memory; --cpus-per-task is --cpus. Job names are
rafle-<variant>-<material>, logs go to DIR/slurm-logs/<variant>-<material>-<job id>.log.

Run it again after failures: finished units are skipped, units whose job is still queued or
running (same name and data directory) keep that job, and only the rest is submitted.
--dry-run prints the sbatch commands as a shell script instead of running them.

The data directory and the rafle binary must be at the same path on every node (a shared
filesystem with flock support: rafle locks each variant directory and each unit).";

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
    let comment = format!("rafle:{}", data.display());
    let plan_args = PlanArgs {
        data: data.clone(),
        ..args.plan.clone()
    };
    let plans = plans(&plan_args)?;
    if !args.dry_run {
        which("sbatch")?;
    }
    // A dry run without a reachable Slurm has no queue to look at: everything unfinished is
    // new.
    let mut queued = match queued_jobs(&comment) {
        Ok(jobs) => jobs,
        Err(Failure::Input(e) | Failure::Other(e)) if args.dry_run => {
            let why = e.to_string();
            let why = why.lines().last().unwrap_or_default();
            eprintln!("rafle: no queue to compare with, every unfinished unit is listed ({why})");
            JobIds::new()
        }
        Err(e) => return Err(e),
    };
    let logs = data.join("slurm-logs");
    if !args.dry_run {
        std::fs::create_dir_all(&logs)
            .map_err(|e| other(anyhow!("cannot create {}: {e}", logs.display())))?;
    }
    let mut out = io::stdout().lock();
    if args.dry_run {
        writeln!(out, "#!/bin/sh\nset -e")?;
    }
    for plan in &plans {
        let units = units(plan);
        let (mut finished, mut kept, mut submitted) = (0, 0, Vec::new());
        for unit in &units {
            if unit.finished {
                finished += 1;
                continue;
            }
            let job_name = job_name(&unit.name);
            if queued.contains_key(&job_name) {
                kept += 1;
                continue;
            }
            let needs: Vec<String> = unit
                .needs_index
                .iter()
                .filter_map(|&d| queued.get(&job_name_of(&units[d])).cloned())
                .collect();
            let sbatch = sbatch_args(args, plan, unit, &needs, &rafle, &data, &comment);
            let id = if args.dry_run {
                let var = shell_variable(&unit.name);
                writeln!(out, "{var}=$(sbatch {})", shell_words(&sbatch))?;
                format!("${var}")
            } else {
                run_sbatch(&sbatch, &unit.name)?
            };
            queued.insert(job_name, id.clone());
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
        let line = format!(
            "{}: {} units, {finished} finished, {kept} queued already, {} {what}{range}; logs in {}",
            plan.variant,
            units.len(),
            submitted.len(),
            logs.display()
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

fn job_name_of(unit: &Unit) -> String {
    job_name(&unit.name)
}

/// The arguments of `sbatch` for one unit, its dependencies already submitted.
fn sbatch_args(
    args: &SubmitArgs,
    plan: &rafle_generator::Plan,
    unit: &Unit,
    needs: &[String],
    rafle: &Path,
    data: &Path,
    comment: &str,
) -> Vec<String> {
    // Slurm counts memory in MiB; a tenth more than planned leaves room for what the plan
    // does not see (the binary, libc) before a cgroup limit kills the job.
    let mem_mib = (unit.memory_bytes + unit.memory_bytes / 10).div_ceil(1 << 20);
    let log = data
        .join("slurm-logs")
        .join(format!("{}-%j.log", unit.name.replace('/', "-")));
    let mut sbatch = vec![
        "--parsable".to_string(),
        format!("--job-name={}", job_name(&unit.name)),
        format!("--comment={comment}"),
        format!("--output={}", log.display()),
        format!("--mem={mem_mib}M"),
        format!("--cpus-per-task={}", args.cpus),
        "--nodes=1".to_string(),
    ];
    if let Some(partition) = &args.partition {
        sbatch.push(format!("--partition={partition}"));
    }
    if let Some(account) = &args.account {
        sbatch.push(format!("--account={account}"));
    }
    if !needs.is_empty() {
        sbatch.push(format!("--dependency=afterok:{}", needs.join(":")));
        sbatch.push("--kill-on-invalid-dep=yes".to_string());
    }
    let mut command = vec![
        "exec".to_string(),
        rafle.display().to_string(),
        "generate".to_string(),
        "--unit".to_string(),
        unit.name.clone(),
        "--data".to_string(),
        data.display().to_string(),
        "--threads".to_string(),
        args.cpus.to_string(),
        "--memory".to_string(),
        unit.memory_bytes.to_string(),
        "--limits".to_string(),
        plan.limits.to_string(),
    ];
    if plan.tables == Tables::Wdl {
        command.extend(["--tables".to_string(), "wdl".to_string()]);
    }
    sbatch.push(format!("--wrap={}", shell_words(&command)));
    sbatch
}

/// Runs sbatch; the job id it prints.
fn run_sbatch(sbatch: &[String], unit: &str) -> Result<String, Failure> {
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
    which("squeue")?;
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

/// Fails with a clear message when `program` is not on the PATH.
fn which(program: &str) -> Result<(), Failure> {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()));
    if found {
        Ok(())
    } else {
        Err(other(anyhow!(
            "Slurm is not installed here: {program} is not on the PATH (use --dry-run to see \
             the commands)"
        )))
    }
}

/// `path` made absolute (jobs run elsewhere, from another directory).
fn absolute(path: &Path) -> Result<PathBuf, Failure> {
    std::path::absolute(path)
        .map_err(|e| input(anyhow!("cannot make {} absolute: {e}", path.display())))
}

/// A shell variable name for a unit's job id.
fn shell_variable(unit: &str) -> String {
    let name: String = unit
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("job_{name}")
}

/// Words joined for a POSIX shell, each quoted when it needs to be.
fn shell_words(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            let plain = !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,%+@".contains(&b));
            // A dependency on a job submitted earlier in a dry run stays a variable.
            if plain || (w.starts_with("--dependency=afterok:$") && !w.contains('\'')) {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_quote_what_needs_it() {
        let words = ["a", "b c", "it's", "--x=1:2", ""].map(String::from);
        assert_eq!(shell_words(&words), r"a 'b c' 'it'\''s' --x=1:2 ''");
    }

    #[test]
    fn job_names_and_variables_say_the_unit() {
        assert_eq!(job_name("brazilian/KKMvK"), "rafle-brazilian-KKMvK");
        assert_eq!(shell_variable("brazilian/KKMvK"), "job_brazilian_KKMvK");
    }
}
