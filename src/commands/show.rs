//! `rafle show`: a position drawn as text.

use std::io::Write;

use clap::Args;

use super::VariantArg;
use crate::output::Failure;

#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// The position, in PDN FEN.
    fen: String,
}

pub fn run(args: &ShowArgs) -> Result<(), Failure> {
    let pos = args.variant.read_fen(&args.fen)?;
    let mut out = std::io::stdout().lock();
    out.write_all(pos.diagram().as_bytes())?;
    out.flush()?;
    Ok(())
}
