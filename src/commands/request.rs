//! What a generation request says on the command line, shared by `generate`, `plan` and
//! `slurm submit`: which tables, the draw-rule limits, the pieces, the memory budget and the
//! names of units of work, and how a refused request exits.

use rafle_generator::{GenerateError, Tables};
use rafle_probe::{Limits, Material, Variant};

use crate::output::{input, other, Failure};

/// Reads `--tables`: `all` or `wdl`.
pub fn parse_tables(text: &str) -> Result<Tables, String> {
    match text {
        "all" => Ok(Tables::All),
        "wdl" => Ok(Tables::Wdl),
        _ => Err(format!("expected all or wdl, not {text:?}")),
    }
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

/// The name of a unit: `<variant>/<material>`.
pub fn unit_name(variant: Variant, material: Material) -> String {
    format!("{variant}/{material}")
}

/// Reads a unit name, `<variant>/<material>`.
pub fn parse_unit(text: &str) -> Result<(Variant, Material), String> {
    let shown = rafle_draughts::printable(text);
    let (variant, material) = text.split_once('/').ok_or_else(|| {
        format!("unit {shown:?} is not <variant>/<material> (like brazilian/KKMvK)")
    })?;
    let variant = variant
        .parse::<Variant>()
        .map_err(|e| format!("unit {shown:?}: {e}"))?;
    let material = material
        .parse::<Material>()
        .map_err(|e| format!("unit {shown:?}: {e}"))?;
    Ok((variant, material))
}

/// Running out of memory or asking for too many pieces is the request's fault; anything else
/// (a full disk, a table that does not read back) is not.
pub fn failure(err: GenerateError) -> Failure {
    match err {
        GenerateError::NotEnoughMemory { .. }
        | GenerateError::TooManyPieces { .. }
        | GenerateError::NoSuchMaterial { .. }
        | GenerateError::MissingTables { .. }
        | GenerateError::LimitsWouldMix { .. } => input(err),
        err => other(err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_names_read_back() {
        let (variant, material) = parse_unit("brazilian/KKMvK").unwrap();
        assert_eq!(variant, Variant::Brazilian);
        assert_eq!(unit_name(variant, material), "brazilian/KKMvK");
        for bad in ["KKMvK", "russian/KvK", "brazilian/KxK", "brazilian/", ""] {
            assert!(parse_unit(bad).is_err(), "{bad}");
        }
    }
}
