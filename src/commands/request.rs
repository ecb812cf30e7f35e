//! What a generation request says on the command line, shared by `generate`, `plan` and
//! `slurm submit`: which tables, the draw-rule limits, the pieces, the memory budget and the
//! names of units of work, and how a refused request exits.

use rafle_generator::{GenerateError, Tables};
use rafle_probe::draughts::{Limits, Variant};

use crate::output::{input, other, Failure};

/// Reads `--tables`: `all` or `wdl`.
pub fn parse_tables(text: &str) -> Result<Tables, String> {
    Tables::from_name(text).ok_or_else(|| format!("expected all or wdl, not {text:?}"))
}

/// The draw-rule limits of `variant` that `--limits` gives (`text`), the FMJD ones without it.
pub fn limits_of(variant: Variant, text: Option<&str>) -> Result<Limits, Failure> {
    match text {
        Some(text) => Limits::parse(variant, text).map_err(input),
        None => Ok(Limits::fmjd(variant)),
    }
}

/// Pieces generated when `--pieces` is not given: what builds in minutes on a small machine.
pub fn default_pieces(variant: Variant) -> u32 {
    u32::from(variant.rules().quick_set_pieces)
}

/// The default memory budget of `generate` and `verify`: the generator's, shared with the
/// Python package.
pub fn default_budget() -> Option<u64> {
    rafle_generator::default_budget()
}

/// Reads `--threads`: from 1 to [`rafle_probe::draughts::MAX_THREADS`], as every entry point takes it.
pub fn parse_threads(text: &str) -> Result<u32, String> {
    rafle_probe::draughts::IntRange::THREADS
        .parse(text)
        .map(|n| u32::try_from(n).expect("the range of threads is within u32"))
        .map_err(|e| e.to_string())
}

/// Reads `--pieces`: from 2 to [`rafle_generator::MAX_PIECES`].
pub fn parse_pieces(text: &str) -> Result<u32, String> {
    rafle_generator::PIECES
        .parse(text)
        .map(|n| u32::try_from(n).expect("the range of pieces is within u32"))
        .map_err(|e| e.to_string())
}

/// Running out of memory or asking for too many pieces is the request's fault; anything else
/// (a full disk, a table that does not read back) is not.
pub fn failure(err: GenerateError) -> Failure {
    match err {
        GenerateError::NotEnoughMemory { .. }
        | GenerateError::TooManyPieces { .. }
        | GenerateError::NoSuchMaterial { .. }
        | GenerateError::MissingTables { .. }
        | GenerateError::NoSuchSeedPart { .. }
        | GenerateError::LimitsWouldMix { .. }
        | GenerateError::OutOfRange(_)
        | GenerateError::EmptyDirectory => input(err),
        err => other(err),
    }
}
