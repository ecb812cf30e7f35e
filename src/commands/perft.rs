//! `rafle perft`: move-tree sizes, the standard check of a move generator.

use std::io::Write;
use std::time::Instant;

use clap::Args;
use rafle_probe::draughts::{perft, Position};

use super::VariantArg;
use crate::output::Failure;

#[derive(Debug, Args)]
pub struct PerftArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// Position to start from (default: the variant's start position).
    #[arg(long)]
    fen: Option<String>,
    /// Deepest depth to count; one line is printed per depth from 1.
    #[arg(value_parser = parse_depth)]
    depth: u32,
}

/// A depth from 1, every refusal naming the range: clap's ranged parser names none for a
/// number past `u64`.
fn parse_depth(text: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .ok()
        .filter(|&depth| depth >= 1)
        .ok_or_else(|| format!("DEPTH must be a number from 1 to {}", u32::MAX))
}

pub fn run(args: &PerftArgs) -> Result<(), Failure> {
    let pos = match &args.fen {
        Some(fen) => args.variant.read_fen(fen)?,
        None => Position::start(args.variant.variant()),
    };
    let mut out = std::io::stdout().lock();
    for depth in 1..=args.depth {
        let started = Instant::now();
        let nodes = perft(&pos, depth);
        let seconds = started.elapsed().as_secs_f64();
        writeln!(out, "{depth} {nodes} {seconds:.3}")?;
        out.flush()?;
    }
    Ok(())
}
