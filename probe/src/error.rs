//! Errors of table reading and probing.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::format::TableKind;
use crate::{Limits, Material, Variant};

/// Why a probe could not answer.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProbeError {
    /// The position's material has no table in the directory.
    MissingTable {
        /// The board.
        variant: Variant,
        /// The material (stored orientation).
        material: Material,
        /// Where the table was looked for.
        path: PathBuf,
    },
    /// The position has more pieces than any table of its variant in the directory.
    TooManyPieces {
        /// The board.
        variant: Variant,
        /// Pieces on the board.
        pieces: u32,
        /// Most pieces the tables cover (0 if there is none).
        max: u32,
    },
    /// A table's bytes are damaged: wrong magic, version or checksum, or impossible contents.
    Corrupted {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A table file ends before its last block.
    Truncated {
        /// The file.
        path: PathBuf,
        /// Bytes the file should have.
        expected: u64,
        /// Bytes it has.
        actual: u64,
    },
    /// A table file is for another variant or material than its place says.
    WrongTable {
        /// The file.
        path: PathBuf,
        /// What was expected there.
        expected: String,
        /// What the file says it holds.
        found: String,
    },
    /// The directory's rule tables were computed with different draw-rule limits.
    MixedLimits {
        /// The board.
        variant: Variant,
        /// One table and its limits.
        first: (PathBuf, Limits),
        /// Another table with other limits.
        second: (PathBuf, Limits),
    },
    /// The operating system refused to read a file or directory.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
}

impl ProbeError {
    /// The error for a code `code` that no valid table of `kind` holds, found in `path`.
    pub fn invalid_code(kind: TableKind, path: &Path, code: u16) -> ProbeError {
        let what = match kind {
            TableKind::Wdl => "value",
            TableKind::Dtw => "distance",
            TableKind::DrawRules => "rule value",
        };
        ProbeError::Corrupted {
            path: path.to_path_buf(),
            reason: format!("invalid {what} code {code}"),
        }
    }
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProbeError::MissingTable {
                variant,
                material,
                path,
            } => write!(
                f,
                "no {variant} table for {material} (looked for {})",
                path.display()
            ),
            ProbeError::TooManyPieces {
                variant,
                pieces,
                max: 0,
                ..
            } => write!(
                f,
                "the position has {pieces} pieces and there are no {variant} tables"
            ),
            ProbeError::TooManyPieces {
                variant,
                pieces,
                max,
            } => write!(
                f,
                "the position has {pieces} pieces; the {variant} tables cover at most {max}"
            ),
            ProbeError::Corrupted { path, reason } => {
                write!(f, "table {} is corrupted: {reason}", path.display())
            }
            ProbeError::Truncated {
                path,
                expected,
                actual,
            } => write!(
                f,
                "table {} is truncated: {actual} bytes instead of {expected}",
                path.display()
            ),
            ProbeError::WrongTable {
                path,
                expected,
                found,
            } => write!(
                f,
                "table {} holds {found}, expected {expected}",
                path.display()
            ),
            ProbeError::MixedLimits {
                variant,
                first,
                second,
            } => write!(
                f,
                "the {variant} rule tables mix draw-rule limits: {} has {}, {} has {}",
                first.0.display(),
                first.1,
                second.0.display(),
                second.1
            ),
            ProbeError::Io { path, source } if path.as_os_str().is_empty() => write!(f, "{source}"),
            ProbeError::Io { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for ProbeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProbeError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
