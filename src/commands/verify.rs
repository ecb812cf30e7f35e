//! `rafle verify`: every table checked against its successors, independently of how it was
//! generated.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::anyhow;
use clap::Args;
use rafle_draughts::{Material, Variant};
use rafle_generator::{
    parse_memory, CheckEvent, CheckSelection, CheckTotals, SetCheck, Verifier, VerifyBudget,
};
use rafle_probe::Tablebase;

use super::request::failure;
use super::{parse_variant_choice, VariantChoice};
use crate::output::{other, Failure};

#[derive(Debug, Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct VerifyArgs {
    /// Which tables: international, brazilian or all.
    #[arg(long, short = 'v', default_value = "all", value_parser = parse_variant_choice)]
    variant: VariantChoice,
    /// Table directory, holding DIR/<variant>/<material>.wdl.
    #[arg(long, value_name = "DIR", env = super::DATA_ENV, hide_env_values = true, default_value = "data")]
    data: PathBuf,
    /// Check only N positions of each material, drawn at random (a material of at most N
    /// positions is checked whole): a quick look, which still reports the mismatches it meets.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    sample: Option<u64>,
    /// The seed of the --sample draw: the same seed draws the same positions.
    #[arg(long, value_name = "S", default_value_t = 1, requires = "sample")]
    seed: u64,
    /// Memory budget of the whole check, like 8G or 512M [default: the memory free, less a
    /// tenth (at least 512 MiB)]: decoded tables kept between steps (a material that does not
    /// fit is checked a window at a time, with the same result), the probe's block cache and
    /// the rest.
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    memory: Option<u64>,
    /// Keep a record of the materials checked whole, in DIR/<variant>/.rafle-verified, and
    /// skip those it holds with the same tables (their block checksums are still checked): a
    /// check stopped at any point starts again at the first material not recorded.
    #[arg(long, conflicts_with = "sample")]
    resume: bool,
    /// Only these materials, like KKKKKvKK,KKKKvKKK (either orientation): each is checked
    /// against the tables of the materials its moves reach, which must be there but are not
    /// checked themselves (a unit's tables, in a directory that holds only what it reads).
    #[arg(long, value_name = "M,...", value_delimiter = ',')]
    materials: Vec<Material>,
}

const AFTER_HELP: &str = "\
Each material's three tables are checked: every block checksum, then every position's stored
win/draw/loss, distance to win and draw-rule value against its successors' values, found by
forward move generation (a position whose side to move must capture is resolved through its
captures: nothing is stored for it). One line per material gives the positions checked and the
mismatches, with up to five examples; a last line sums the run up, like
  verified 9 materials, 201272 positions: all ok
or with how many materials failed and tables are missing; the exit code is 1 if any table
fails.

With --sample N, N positions of each material are drawn at random (--seed picks the draw) and
checked the same way, reading only the blocks they need:
  brazilian KKvK 1000 of 29760 positions sampled, ok

With --materials, only the materials named are checked, and only the tables they read are
required: a directory holding the 7-piece material KKKKKvKK and the kings-only materials up
to 6 pieces passes `rafle verify --materials KKKKKvKK`, where a check of the whole directory
reports every other material up to 7 pieces as missing.

With --resume, each material that passes is recorded as soon as it is done, with a fingerprint
of its tables; run again, the command checks only the block checksums of the recorded materials
whose tables are unchanged, and every position of the others:
  brazilian KKvK 29760 positions ok (checked before, as .rafle-verified records)";

pub fn run(args: &VerifyArgs) -> Result<(), Failure> {
    let (listed, chosen) = super::open_tables(&args.data, args.variant)?;
    if args.sample.is_none() {
        give_back_dropped_pages();
    }
    let budget = args.memory.or_else(super::request::default_budget);
    let spending = VerifyBudget::of(budget, rayon::current_num_threads());
    drop(listed);
    let tables = super::open_table_dir(&args.data, spending.probe_cache as usize)?;
    let checks = checks(args, &tables, &chosen, &spending)?;
    // Drawn on stderr only when it is a terminal; the results go to stdout.
    let bar = crate::output::positions_bar();
    let mut out = io::stdout().lock();
    let mut totals = CheckTotals::default();
    let sample = args.sample.map(|n| (n, args.seed));
    for check in checks {
        let verifier = Verifier::new(&tables, check.variant)
            .with_memory(spending.pages as usize)
            .releasing_past(spending.release_at);
        let mut written = Ok(());
        let mut report = |event: CheckEvent| {
            if let CheckEvent::Starting {
                variant,
                material,
                positions,
            } = event
            {
                bar.reset();
                bar.set_length(positions);
                bar.set_prefix(format!("{variant} {material}"));
                return true;
            }
            let line = event.to_string();
            // A reader gone away (`| head`) ends the run.
            written = bar.suspend(|| out.write_all(line.as_bytes()).and_then(|()| out.flush()));
            written.is_ok()
        };
        let recorded = check.run(&verifier, sample, &mut totals, &mut report, &|n| bar.inc(n));
        written?;
        recorded.map_err(other)?;
    }
    bar.finish_and_clear();
    writeln!(out, "{totals}")?;
    out.flush()?;
    match totals.problems() {
        None => Ok(()),
        Some(problems) => Err(Failure::Other(anyhow!("{problems}"))),
    }
}

/// The check of each variant chosen, and for a full check each variant's budget checked
/// before anything is said or checked, sized on the materials still to check (a resumed
/// check does not need a recorded one's memory).
fn checks(
    args: &VerifyArgs,
    tables: &Tablebase,
    chosen: &[Variant],
    spending: &VerifyBudget,
) -> Result<Vec<SetCheck>, Failure> {
    let mut checks = Vec::with_capacity(chosen.len());
    for &variant in chosen {
        let only = CheckSelection::of(variant, &args.materials, &args.data).map_err(failure)?;
        let check = SetCheck::of(tables, variant, &args.data, args.resume, only.as_ref());
        checks.push(check.map_err(other)?);
    }
    if args.sample.is_none() {
        let notes = checks
            .iter()
            .map(|c| spending.check(tables, c.variant, &c.todo, c.before.len()))
            .collect::<Result<Vec<Option<String>>, _>>()
            .map_err(other)?;
        for line in notes.iter().flatten() {
            let _ = writeln!(io::stderr(), "{line}");
        }
    }
    Ok(checks)
}

/// Makes the decoded pages of a full check (264 KiB) mappings of their own, so that a page the
/// check drops is memory given back at once (but for those `malloc` places in free room of its
/// arenas, which the check's trims give back). By default glibc's `malloc` raises its mapping
/// threshold past a block's size once such a block is freed, and from then on keeps the pages
/// in its arenas, where the holes dropped pages leave stay resident: measured, international up
/// to 6 with 8 GiB of pages held 10.0 GiB (9.0 GiB of arenas), and Brazilian up to 5 with 64
/// MiB of pages 155 and 168 MB, against 129 and 131 MB with the threshold fixed. Past the
/// system's limit on mappings `malloc` falls back to its arenas, so a large budget still works.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn give_back_dropped_pages() {
    // 128 KiB, glibc's default, now fixed instead of rising.
    const THRESHOLD: libc::c_int = 128 << 10;
    // SAFETY: `mallopt` only sets a parameter of the allocator, under the allocator's own lock;
    // it takes no pointer and leaves every allocation made so far valid.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, THRESHOLD);
    }
}

/// Other allocators keep no such threshold; nothing to do.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back_dropped_pages() {}
