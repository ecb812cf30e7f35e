//! Errors of generation.

use std::fmt;
use std::io;
use std::path::PathBuf;

use rafle_probe::{
    draughts::{Limits, Material, Variant},
    toolkit::printable_path,
    ProbeError,
};

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
    /// A value read from a work file or a table (or solved from such values) cannot be right:
    /// a distance past the longest a work file holds, a rule code no value has. The file it
    /// came from was changed past its checksums.
    ImpossibleValue {
        /// The board.
        variant: Variant,
        /// The material whose value it is (or which was being solved).
        material: Material,
        /// The file it was read from (or written to).
        path: PathBuf,
        /// What the value is.
        detail: String,
    },
    /// A unit named a seed part its material does not have.
    NoSuchSeedPart {
        /// The board.
        variant: Variant,
        /// The material.
        material: Material,
        /// The part asked for (from 1).
        part: u32,
        /// Its seed parts (0: it is not seeded in parts).
        parts: u32,
    },
    /// A material to solve has a slice (the positions with the same men: a kings-only
    /// material is one) of more positions than the propagation numbers: it is refused rather
    /// than solved wrong.
    SliceTooLarge {
        /// The board.
        variant: Variant,
        /// The material.
        material: Material,
        /// Positions of its largest slice.
        positions: u64,
        /// The most positions a slice may have.
        max: u64,
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
    /// The run would write rule tables with other draw-rule limits than those the directory
    /// keeps for materials beyond the run, leaving a set the prober refuses.
    LimitsWouldMix {
        /// The variant's table directory.
        dir: PathBuf,
        /// The largest material whose rule table keeps other limits.
        material: Material,
        /// Its limits.
        found: Limits,
        /// The run's limits.
        requested: Limits,
        /// How many more materials keep other limits.
        others: usize,
        /// Most pieces of the run.
        max_pieces: u32,
    },
    /// Another generation is writing the same directory: a whole run beside anything else,
    /// or a unit of work beside a whole run.
    Busy {
        /// The variant's table directory.
        dir: PathBuf,
        /// The other generation's process, if it says.
        pid: Option<u32>,
    },
    /// A count of the request out of its range (pieces, threads, a memory budget), refused
    /// with the words every entry point uses.
    OutOfRange(rafle_probe::draughts::OutOfRange),
    /// The table directory is the empty path: tables would go to the current directory
    /// unasked.
    EmptyDirectory,
    /// The run was stopped at a checkpoint, as its [`Progress`](crate::Progress) asked
    /// ([`Progress::should_stop`](crate::Progress::should_stop)): the work done stays, and
    /// the next run resumes it.
    Stopped,
    /// A finished material's table, read for the values of the side to move it stores (which
    /// its band files then leave out), cannot be read or is damaged. The next run checks the
    /// tables and solves that material again.
    Table {
        /// The board.
        variant: Variant,
        /// The material whose table it is.
        material: Material,
        /// The cause.
        source: ProbeError,
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
            GenerateError::Io { path, source } => write!(f, "{}: {source}", printable_path(path)),
            GenerateError::DamagedWorkFile { path, reason } => {
                write!(f, "work file {} is damaged: {reason}", printable_path(path))
            }
            GenerateError::ImpossibleValue { variant, material, path, detail } => write!(
                f,
                "{variant} {material}: a value that cannot be right ({detail}) in {}: a file was \
                 changed after it was written",
                printable_path(path)
            ),
            GenerateError::NoSuchSeedPart { variant, material, part, parts: 0 } => write!(
                f,
                "{variant} {material} is not seeded in parts: no unit {variant}/{material}/seed-{part}"
            ),
            GenerateError::NoSuchSeedPart { variant, material, part, parts } => write!(
                f,
                "{variant} {material} has seed parts 1 to {parts}: no unit {variant}/{material}/seed-{part}"
            ),
            GenerateError::SliceTooLarge { variant, material, positions, max } => write!(
                f,
                "{variant} {material} cannot be solved by this build: its positions with the same men are solved together, and it has {positions} of them, more than the {max} the propagation numbers"
            ),
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
            GenerateError::LimitsWouldMix { dir, material, found, requested, others, max_pieces } => {
                let more = match others {
                    0 => String::new(),
                    1 => " and 1 more".to_string(),
                    n => format!(" and {n} more"),
                };
                write!(
                    f,
                    "{} keeps rule tables with limits {found} ({material}.rules{more}), beyond the {max_pieces} pieces of this run; writing {requested} would leave the directory with both, which the prober refuses. Recompute them all (--pieces {} --limits {requested}) or use another --data directory",
                    printable_path(dir),
                    material.pieces(),
                )
            }
            GenerateError::Busy { dir, pid } => {
                write!(f, "another rafle generate")?;
                if let Some(pid) = pid {
                    write!(f, " (pid {pid})")?;
                }
                write!(f, " is writing {}", printable_path(dir))
            }
            GenerateError::Table { variant, material, source } => {
                write!(f, "the {variant} {material} table, read for its values: {source}")
            }
            GenerateError::Check { variant, material, source } => {
                write!(f, "the {variant} {material} table failed its read-back check: {source}")
            }
            GenerateError::OutOfRange(e) => e.fmt(f),
            GenerateError::EmptyDirectory => {
                f.write_str("the table directory is an empty path: name one (like data)")
            }
            GenerateError::Stopped => f.write_str(
                "generation stopped: the tables written stay, and the next run resumes from \
                 its last checkpoint",
            ),
        }
    }
}

impl std::error::Error for GenerateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GenerateError::Io { source, .. } => Some(source),
            GenerateError::Check { source, .. } | GenerateError::Table { source, .. } => {
                Some(source)
            }
            _ => None,
        }
    }
}

/// Why a check by [`crate::Verifier`] could not go on: its memory budget, or the record of
/// checked materials `rafle verify --resume` keeps ([`crate::VerifiedRecord`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum VerifyError {
    /// The budget is below what checking a material needs at least
    /// ([`crate::VerifyBudget::check`]).
    NotEnoughMemory {
        /// The board.
        variant: Variant,
        /// The material with the largest working set.
        material: Material,
        /// The least bytes its check holds, with the probe's cache and the rest.
        needed: u64,
        /// The budget.
        budget: u64,
    },
    /// The record cannot be read, or created or opened for appending (a read-only directory,
    /// a link in its place).
    Record {
        /// The record.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A material's line cannot be appended to the record and synced.
    Recording {
        /// The material checked.
        material: Material,
        /// The record.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::NotEnoughMemory {
                variant,
                material,
                needed,
                budget,
            } => {
                let what = match material.men() {
                    0 => "is checked with its values held whole, and those of the materials its captures reach",
                    _ => "is checked a window at a time",
                };
                write!(
                    f,
                    "{variant} {material} {what}: it needs {} of memory at least, but the budget \
                     is {} (--memory)",
                    human_bytes(*needed),
                    human_bytes(*budget)
                )
            }
            VerifyError::Record { path, source } => write!(
                f,
                "cannot keep the record of checked materials in {} (--resume writes it): {source}",
                path.display()
            ),
            VerifyError::Recording {
                material,
                path,
                source,
            } => {
                write!(
                    f,
                    "cannot record {material} in {}: {source}",
                    path.display()
                )
            }
        }
    }
}

impl std::error::Error for VerifyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            VerifyError::Record { source, .. } | VerifyError::Recording { source, .. } => {
                Some(source)
            }
            VerifyError::NotEnoughMemory { .. } => None,
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
