//! `rafle verify`: every table checked against its successors, independently of how it was
//! generated.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::anyhow;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rafle_generator::verify_table;
use rafle_probe::{Material, PositionIndex};

use super::{parse_variant_choice, VariantChoice};
use crate::output::Failure;

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Which tables: international, brazilian or all.
    #[arg(long, short = 'v', default_value = "all", value_parser = parse_variant_choice)]
    variant: VariantChoice,
    /// Table directory, holding DIR/<variant>/<material>.wdl.
    #[arg(long, value_name = "DIR", default_value = "data")]
    data: PathBuf,
}

pub fn run(args: &VerifyArgs) -> Result<(), Failure> {
    let (tables, chosen) = super::open_tables(&args.data, args.variant)?;
    // Drawn on stderr only when it is a terminal; the results go to stdout.
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template(
            "{prefix:>24} [{bar:40}] {human_pos}/{human_len} positions  {per_sec}  ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    let mut out = io::stdout().lock();
    let (mut checked, mut failed) = (0, 0);
    for variant in chosen {
        // A set up to N pieces needs every material up to N: probes of a missing one fail.
        let present = tables.materials(variant);
        for material in Material::all_up_to(variant, tables.max_pieces(variant)) {
            if !present.contains(&material) {
                let path = tables.table_path(variant, material);
                let line = format!("{variant} {material} missing: {}\n", path.display());
                bar.suspend(|| out.write_all(line.as_bytes()).and_then(|()| out.flush()))?;
                failed += 1;
                checked += 1;
            }
        }
        for material in present {
            bar.reset();
            // The win/draw/loss table walked, then the distance and rule tables together,
            // then every position checked.
            bar.set_length(3 * PositionIndex::count(variant, material));
            bar.set_prefix(format!("{variant} {material}"));
            let report = verify_table(&tables, variant, material, &|n| bar.inc(n));
            let mut text = format!("{variant} {material} ");
            let ok = match report {
                Ok(r) if r.mismatches == 0 => {
                    text += &format!("{} positions ok\n", r.positions);
                    true
                }
                Ok(r) => {
                    let plural = if r.mismatches == 1 { "" } else { "es" };
                    text += &format!(
                        "{} positions {} mismatch{plural}\n",
                        r.positions, r.mismatches
                    );
                    for example in &r.examples {
                        text += &format!("  {example}\n");
                    }
                    false
                }
                Err(err) => {
                    text += &format!("error: {err}\n");
                    false
                }
            };
            if !ok {
                failed += 1;
            }
            checked += 1;
            bar.suspend(|| out.write_all(text.as_bytes()).and_then(|()| out.flush()))?;
        }
    }
    bar.finish_and_clear();
    if failed > 0 {
        return Err(Failure::Other(anyhow!(
            "{failed} of {checked} tables failed verification"
        )));
    }
    Ok(())
}
