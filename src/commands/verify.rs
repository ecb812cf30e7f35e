//! `rafle verify`: every table checked against its successors, independently of how it was
//! generated.

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use clap::Args;
use rafle_generator::{
    check_block_checksums, parse_memory, Plan, VerifiedRecord, Verifier, VerifyBudget, VerifyReport,
};
use rafle_probe::toolkit::format::TableKind;
use rafle_probe::toolkit::layout::VERIFY_RECORD;
use rafle_probe::{
    draughts::{Material, Variant},
    toolkit::PositionIndex,
    ProbeError, Tablebase,
};

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
    let mut work = Vec::with_capacity(chosen.len());
    for variant in chosen {
        let only = Selection::of(variant, &args.materials, &args.data)?;
        work.push(Work::of(&tables, variant, &args.data, args.resume, only)?);
    }
    if args.sample.is_none() {
        // Every variant's budget checked before anything is said or checked, sized on the
        // materials still to check (a resumed check does not need a recorded one's memory).
        let notes = work
            .iter()
            .map(|w| spending.check(&tables, w.variant, &w.todo, w.before.len()))
            .collect::<Result<Vec<Option<String>>, _>>()
            .map_err(other)?;
        for line in notes.iter().flatten() {
            let _ = writeln!(io::stderr(), "{line}");
        }
    }
    // Drawn on stderr only when it is a terminal; the results go to stdout.
    let bar = crate::output::positions_bar();
    let mut out = io::stdout().lock();
    // Materials checked and failed, and table files missing (whose materials are not checked).
    let (mut checked, mut failed, mut missing) = (0, 0, 0);
    // The positions of the materials checked, and those looked at (fewer with --sample).
    let (mut positions, mut looked_at) = (0u64, 0u64);
    // Materials not checked because a material they read has tables that do not agree.
    let mut unchecked = 0;
    for work in work {
        let Work {
            variant,
            mut record,
            stamps,
            before,
            todo: present,
            missing: missing_tables,
        } = work;
        let verifier = Verifier::new(&tables, variant)
            .with_memory(spending.pages as usize)
            .releasing_past(spending.release_at);
        for (material, _, path) in missing_tables {
            let line = format!(
                "{variant} {material} missing: {}\n",
                rafle_probe::toolkit::printable_path(&path)
            );
            bar.suspend(|| out.write_all(line.as_bytes()).and_then(|()| out.flush()))?;
            missing += 1;
        }
        for material in before {
            positions += PositionIndex::count(variant, material);
            let text = match check_block_checksums(&tables, variant, material) {
                Ok(()) => format!(
                    "{variant} {material} {} positions ok (checked before, as {} records)\n",
                    PositionIndex::count(variant, material),
                    VERIFY_RECORD
                ),
                Err(err) => {
                    failed += 1;
                    format!("{variant} {material} error: {err}\n")
                }
            };
            checked += 1;
            bar.suspend(|| out.write_all(text.as_bytes()).and_then(|()| out.flush()))?;
        }
        // Each material's line as soon as it is done; the next one's bar set up.
        let start = |material: Material| {
            bar.reset();
            let n = args.sample.unwrap_or(u64::MAX);
            bar.set_length(verifier.sample_size(material, n));
            bar.set_prefix(format!("{variant} {material}"));
        };
        let mut written = Ok(());
        let mut recorded = Ok(());
        let mut count = 0;
        let mut done = |material: Material, report: Result<VerifyReport, ProbeError>| {
            let text = match report {
                Ok(r) => {
                    positions += r.positions;
                    looked_at += r.checked;
                    failed += usize::from(r.mismatches > 0);
                    if let (Some(record), Some(stamp), 0) =
                        (&mut record, stamps.get(&material), r.mismatches)
                    {
                        recorded = record.record(material, stamp);
                    }
                    format!(
                        "{variant} {material} {}",
                        summary(&r, args.sample.is_some())
                    )
                }
                // A material read through another whose tables store sides that do not
                // agree cannot be checked; the fault is that one's, reported on its own line.
                Err(ProbeError::MixedHalves {
                    material: mixed, ..
                }) if mixed != material => {
                    unchecked += 1;
                    format!(
                        "{variant} {material} not checked: it reads {mixed}, whose tables store \
                         different sides to move\n"
                    )
                }
                Err(err) => {
                    positions += PositionIndex::count(variant, material);
                    failed += 1;
                    format!("{variant} {material} error: {err}\n")
                }
            };
            checked += 1;
            count += 1;
            written = bar.suspend(|| out.write_all(text.as_bytes()).and_then(|()| out.flush()));
            if let Some(&next) = present.get(count) {
                start(next);
            }
            // A reader gone away (`| head`) ends the run, and so does a record that cannot be
            // kept (the run would otherwise lose what it checks).
            written.is_ok() && recorded.is_ok()
        };
        if let Some(&first) = present.first() {
            start(first);
        }
        let advance = |n| bar.inc(n);
        match args.sample {
            Some(n) => {
                for &material in &present {
                    let report = verifier.verify_sample(material, n, args.seed, &advance);
                    if !done(material, report) {
                        break;
                    }
                }
            }
            None => verifier.verify_each(&present, &advance, &mut done),
        }
        written?;
        recorded.map_err(other)?;
    }
    bar.finish_and_clear();
    let sampled = args.sample.map(|_| looked_at);
    // A material not checked is not counted among those checked.
    let checked = checked - unchecked;
    writeln!(
        out,
        "{}",
        run_summary(checked, positions, sampled, failed, unchecked, missing)
    )?;
    out.flush()?;
    let mut problems = Vec::new();
    if failed > 0 {
        problems.push(format!(
            "{failed} of {checked} materials failed verification"
        ));
    }
    match unchecked {
        0 => {}
        1 => problems.push("1 material could not be checked".to_string()),
        n => problems.push(format!("{n} materials could not be checked")),
    }
    match missing {
        0 => {}
        1 => problems.push("1 table is missing".to_string()),
        n => problems.push(format!("{n} tables are missing")),
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failure::Other(anyhow!("{}", problems.join("; "))))
    }
}

/// The last line of a check: the materials and positions checked, and whether all passed.
fn run_summary(
    materials: usize,
    positions: u64,
    sampled: Option<u64>,
    failed: usize,
    unchecked: usize,
    missing: usize,
) -> String {
    let positions = match sampled {
        Some(n) => format!("{n} of {positions} positions sampled"),
        None => format!("{positions} positions"),
    };
    let mut verdict = Vec::new();
    if failed > 0 {
        verdict.push(format!("{failed} failed"));
    }
    if unchecked > 0 {
        verdict.push(format!("{unchecked} not checked"));
    }
    match missing {
        0 => {}
        1 => verdict.push("1 table missing".to_string()),
        n => verdict.push(format!("{n} tables missing")),
    }
    if verdict.is_empty() {
        verdict.push("all ok".to_string());
    }
    let plural = if materials == 1 { "" } else { "s" };
    format!(
        "verified {materials} material{plural}, {positions}: {}",
        verdict.join(", ")
    )
}

/// What a check does in one variant: the materials recorded as checked before (with
/// `--resume`) and those to check.
struct Work {
    variant: Variant,
    /// The record of materials checked, with `--resume`.
    record: Option<VerifiedRecord>,
    /// The stamp of each material to check whose tables could be stamped, for the record.
    stamps: HashMap<Material, String>,
    /// Materials the record holds with the same tables: only their checksums are checked.
    before: Vec<Material>,
    /// Materials to check, in order.
    todo: Vec<Material>,
    /// The tables the check needs and the directory lacks, with where they were looked for.
    missing: Vec<(Material, TableKind, PathBuf)>,
}

/// The materials `--materials` names in one variant (as stored) and those whose tables
/// checking them reads.
struct Selection {
    named: HashSet<Material>,
    /// The named ones among them.
    needed: HashSet<Material>,
}

impl Selection {
    /// What `named` selects in `variant`; `None` when it is empty (every material).
    fn of(variant: Variant, named: &[Material], dir: &Path) -> Result<Option<Selection>, Failure> {
        if named.is_empty() {
            return Ok(None);
        }
        let mut needed = HashSet::new();
        for &material in named {
            let plan = Plan::for_material(variant, material, dir).map_err(failure)?;
            needed.extend(plan.materials.iter().map(|m| m.material));
        }
        Ok(Some(Selection {
            named: named.iter().map(|m| m.canonical()).collect(),
            needed,
        }))
    }
}

impl Work {
    /// The work in `variant` of the tables in `dir`, skipping recorded materials if `resume`,
    /// on the materials `only` selects (all without it).
    fn of(
        tables: &Tablebase,
        variant: Variant,
        dir: &Path,
        resume: bool,
        only: Option<Selection>,
    ) -> Result<Work, Failure> {
        let present = tables.materials(variant);
        let chosen = |material: &Material| only.as_ref().is_none_or(|o| o.named.contains(material));
        let mut work = Work {
            variant,
            record: None,
            stamps: HashMap::new(),
            before: Vec::new(),
            todo: Vec::with_capacity(present.len()),
            // A set up to N pieces needs every material up to N: probes of a missing one fail.
            missing: match &only {
                None => tables.missing_tables(variant),
                // In the order of a whole check's list.
                Some(o) => {
                    let most = o.needed.iter().map(|m| m.pieces()).max().unwrap_or(0);
                    let all = Material::all_up_to(variant, most);
                    tables.missing_tables_of(
                        variant,
                        all.into_iter().filter(|m| o.needed.contains(m)),
                    )
                }
            },
        };
        if !resume {
            work.todo = present.into_iter().filter(chosen).collect();
            return Ok(work);
        }
        let record = VerifiedRecord::open(dir, variant).map_err(other)?;
        // Stamped over every material present, as a whole check stamps them, so that either
        // check honours the other's records.
        let all = VerifiedRecord::stamps(tables, variant, &present);
        for (material, stamp) in present.into_iter().zip(all) {
            if !chosen(&material) {
                continue;
            }
            match stamp {
                Some(stamp) if record.holds(material, &stamp) => work.before.push(material),
                Some(stamp) => {
                    work.stamps.insert(material, stamp);
                    work.todo.push(material);
                }
                // A material whose tables cannot be stamped is checked, which reports why.
                None => work.todo.push(material),
            }
        }
        work.record = Some(record);
        Ok(work)
    }
}

/// The rest of a material's line (`N positions ok`, or for a sample `N of M positions
/// sampled, ok`) and the examples of its mismatches, one line each.
fn summary(r: &VerifyReport, sampled: bool) -> String {
    let positions = if sampled {
        format!("{} of {} positions sampled,", r.checked, r.positions)
    } else {
        format!("{} positions", r.positions)
    };
    if r.mismatches == 0 {
        return format!("{positions} ok\n");
    }
    let plural = if r.mismatches == 1 { "" } else { "es" };
    let mut text = format!("{positions} {} mismatch{plural}\n", r.mismatches);
    for example in &r.examples {
        text += &format!("  {example}\n");
    }
    text
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
