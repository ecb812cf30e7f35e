//! Errors of generation.

use std::fmt;
use std::io;
use std::path::PathBuf;

use rafle_probe::{Material, ProbeError, Variant};

/// Why a generation stopped.
#[derive(Debug)]
#[non_exhaustive]
pub enum GenerateError {
    /// The request's largest slice (with the least cache of decompressed blocks) needs more
    /// memory than the budget.
    NotEnoughMemory {
        /// The board.
        variant: Variant,
        /// Pieces requested.
        pieces: u32,
        /// The least bytes the generation can work in.
        needed: u64,
        /// Bytes available on this machine.
        available: u64,
    },
    /// More pieces than the format and index support.
    TooManyPieces {
        /// Pieces requested.
        requested: u32,
        /// The most supported.
        max: u32,
    },
    /// Reading or writing a file failed (a full disk, say); nothing half-written is left under
    /// a table's name.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A work file of a finished material (see [`crate::WORK_DIR`]) is damaged: it was
    /// changed after it was written. The next run checks it again and rebuilds it.
    DamagedWorkFile {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The variant has no such material.
    NoSuchMaterial {
        /// The board.
        variant: Variant,
        /// The material asked for.
        material: Material,
    },
    /// A unit of work's dependencies are not all finished.
    MissingTables {
        /// The board.
        variant: Variant,
        /// The material to generate.
        material: Material,
        /// Each material whose tables are missing or damaged, with why.
        missing: Vec<(Material, String)>,
    },
    /// A freshly written table did not read back the same.
    Check {
        /// The board.
        variant: Variant,
        /// The material whose table failed.
        material: Material,
        /// The cause.
        source: ProbeError,
    },
}

impl fmt::Display for GenerateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenerateError::NotEnoughMemory { variant, pieces, needed, available } => write!(
                f,
                "{variant} up to {pieces} pieces needs at least {} of memory (its largest slice and the least cache), but only {} is available",
                human_bytes(*needed),
                human_bytes(*available)
            ),
            GenerateError::TooManyPieces { requested, max } => {
                write!(f, "{requested} pieces requested; rafle generates at most {max}")
            }
            GenerateError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            GenerateError::DamagedWorkFile { path, reason } => {
                write!(f, "work file {} is damaged: {reason}", path.display())
            }
            GenerateError::NoSuchMaterial { variant, material } => {
                write!(f, "{variant} has no material {material}")
            }
            GenerateError::MissingTables { variant, material, missing } => {
                write!(
                    f,
                    "{variant} {material} is generated from the finished tables of the materials its moves reach; not finished:"
                )?;
                for (m, why) in missing {
                    write!(f, " {m} ({why});")?;
                }
                write!(f, " generate them first")
            }
            GenerateError::Check { variant, material, source } => {
                write!(f, "the {variant} {material} table failed its read-back check: {source}")
            }
        }
    }
}

impl std::error::Error for GenerateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GenerateError::Io { source, .. } => Some(source),
            GenerateError::Check { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Bytes in binary units, for people: `1.5 GiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}
