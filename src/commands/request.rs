//! What a generation request says on the command line, shared by `generate`, `plan` and
//! `slurm submit`: which tables, the draw-rule limits, the pieces, the memory budget and the
//! names of units of work, and how a refused request exits.

use rafle_generator::{GenerateError, Tables};
use rafle_probe::draughts::{Limits, Material, Variant};

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

/// A unit of work as named on the command line: a material, or one seed part of a large
/// kings-only material.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitName {
    pub variant: Variant,
    pub material: Material,
    /// The seed part (from 1), if the unit is one.
    pub part: Option<u32>,
}

/// The name of a unit: `<variant>/<material>`.
pub fn unit_name(variant: Variant, material: Material) -> String {
    format!("{variant}/{material}")
}

/// The name of a seed part's unit: `<variant>/<material>/seed-<part>`.
pub fn seed_part_name(variant: Variant, material: Material, part: u32) -> String {
    format!("{variant}/{material}/seed-{part}")
}

/// Reads a unit name, `<variant>/<material>` or `<variant>/<material>/seed-<part>`.
pub fn parse_unit(text: &str) -> Result<UnitName, String> {
    let shown = rafle_draughts::excerpt(text);
    let usage = || {
        format!(
            "unit {shown:?} is not <variant>/<material> (like brazilian/KKMvK) or \
             <variant>/<material>/seed-<part>"
        )
    };
    let mut words = text.split('/');
    let (Some(variant), Some(material)) = (words.next(), words.next()) else {
        return Err(usage());
    };
    let part = match (words.next(), words.next()) {
        (None, _) => None,
        (Some(part), None) => Some(
            part.strip_prefix("seed-")
                .and_then(|n| n.parse::<u32>().ok())
                .filter(|&n| n > 0)
                .ok_or_else(usage)?,
        ),
        _ => return Err(usage()),
    };
    let variant = variant
        .parse::<Variant>()
        .map_err(|e| format!("unit {shown:?}: {e}"))?;
    let material = material
        .parse::<Material>()
        .map_err(|e| format!("unit {shown:?}: {e}"))?;
    Ok(UnitName {
        variant,
        material,
        part,
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_names_read_back() {
        let unit = parse_unit("brazilian/KKMvK").unwrap();
        assert_eq!(unit.part, None);
        assert_eq!(unit_name(unit.variant, unit.material), "brazilian/KKMvK");
        let part = parse_unit("international/KKKKvKKK/seed-3").unwrap();
        assert_eq!(part.part, Some(3));
        assert_eq!(
            seed_part_name(part.variant, part.material, 3),
            "international/KKKKvKKK/seed-3"
        );
        for bad in [
            "KKMvK",
            "russian/KvK",
            "brazilian/KxK",
            "brazilian/",
            "",
            "brazilian/KvK/seed-0",
            "brazilian/KvK/seed-",
            "brazilian/KvK/part-1",
            "brazilian/KvK/seed-1/x",
        ] {
            assert!(parse_unit(bad).is_err(), "{bad}");
        }
    }
}
