//! `rafle perft`: move-tree sizes, the standard check of a move generator.

use std::io::Write;
use std::time::Instant;

use clap::Args;
use rafle_probe::{perft, Position};

use super::{read_fen, VariantArg};
use crate::output::{input, Failure};

#[derive(Debug, Args)]
pub struct PerftArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// Position to start from (default: the variant's start position).
    #[arg(long)]
    fen: Option<String>,
    /// Deepest depth to count; one line is printed per depth from 1.
    depth: u32,
}

pub fn run(args: &PerftArgs) -> Result<(), Failure> {
    let variant = args.variant.variant;
    let pos = match &args.fen {
        Some(fen) => read_fen(variant, fen)?,
        None => Position::start(variant),
    };
    if args.depth == 0 {
        return Err(input(anyhow::anyhow!("DEPTH must be at least 1")));
    }
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
