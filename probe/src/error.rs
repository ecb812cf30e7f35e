//! Errors of table reading and probing.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::format::{StoredHalf, TableKind};
use crate::{Limits, Material, Variant};

/// A path as messages show it: the text of [`Path::display`] with control characters (and
/// other characters that do not print) escaped as Rust writes them (`\n`, `\u{1b}`), and on
/// Unix the bytes that are not UTF-8 as `\xff`, so that a file name given by a user or found
/// in a directory cannot move the cursor, clear the screen or change the colours of the
/// terminal the message lands in. Quotes and backslashes are kept as they are, as
/// [`printable`](crate::printable) keeps them in FENs. A path longer than
/// [`EXCERPT_CHARS`](crate::draughts::EXCERPT_CHARS) is shown as an [`excerpt`](crate::excerpt) of it:
/// its start and its end, with its length.
#[derive(Debug, Clone, Copy)]
pub struct PrintablePath<'a>(&'a Path);

/// `path` for a message: see [`PrintablePath`].
///
/// ```
/// use std::path::Path;
/// let shown = rafle_probe::toolkit::printable_path(Path::new("data\x1b[2J/brazilian"));
/// assert_eq!(shown.to_string(), "data\\u{1b}[2J/brazilian");
/// ```
pub fn printable_path(path: &Path) -> PrintablePath<'_> {
    PrintablePath(path)
}

impl fmt::Display for PrintablePath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut shown = String::new();
        #[cfg(unix)]
        {
            use std::fmt::Write;
            use std::os::unix::ffi::OsStrExt;
            for chunk in self.0.as_os_str().as_bytes().utf8_chunks() {
                shown.push_str(&crate::printable(chunk.valid()));
                for byte in chunk.invalid() {
                    write!(shown, "\\x{byte:02x}")?;
                }
            }
        }
        #[cfg(not(unix))]
        shown.push_str(&crate::printable(&self.0.to_string_lossy()));
        // Escaped text is printable already: the excerpt only bounds it.
        f.write_str(&crate::excerpt(&shown))
    }
}

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
    /// A table of an earlier format version, which `rafle generate` converts.
    OldFormat {
        /// The file.
        path: PathBuf,
        /// Its format version.
        version: u16,
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
    /// Two tables of one material store different sides to move (one built with
    /// `--compact`, one without): the probe finds the side a table leaves out through the
    /// others, so the tables of a material must store the same side, or the `.wdl` both.
    MixedHalves {
        /// The board.
        variant: Variant,
        /// The material (stored orientation).
        material: Material,
        /// One table and the side it stores.
        first: (PathBuf, StoredHalf),
        /// Another table of the material, storing another side.
        second: (PathBuf, StoredHalf),
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

impl ProbeError {
    /// The same error again, for an error kept to be reported on every call that meets it
    /// (`ProbeError` is not `Clone`, as [`io::Error`] is not): an I/O cause keeps its kind
    /// and text.
    pub(crate) fn replica(&self) -> ProbeError {
        match self {
            ProbeError::MissingTable {
                variant,
                material,
                path,
            } => ProbeError::MissingTable {
                variant: *variant,
                material: *material,
                path: path.clone(),
            },
            ProbeError::TooManyPieces {
                variant,
                pieces,
                max,
            } => ProbeError::TooManyPieces {
                variant: *variant,
                pieces: *pieces,
                max: *max,
            },
            ProbeError::Corrupted { path, reason } => ProbeError::Corrupted {
                path: path.clone(),
                reason: reason.clone(),
            },
            ProbeError::Truncated {
                path,
                expected,
                actual,
            } => ProbeError::Truncated {
                path: path.clone(),
                expected: *expected,
                actual: *actual,
            },
            ProbeError::WrongTable {
                path,
                expected,
                found,
            } => ProbeError::WrongTable {
                path: path.clone(),
                expected: expected.clone(),
                found: found.clone(),
            },
            ProbeError::OldFormat { path, version } => ProbeError::OldFormat {
                path: path.clone(),
                version: *version,
            },
            ProbeError::MixedLimits {
                variant,
                first,
                second,
            } => ProbeError::MixedLimits {
                variant: *variant,
                first: first.clone(),
                second: second.clone(),
            },
            ProbeError::MixedHalves {
                variant,
                material,
                first,
                second,
            } => ProbeError::MixedHalves {
                variant: *variant,
                material: *material,
                first: first.clone(),
                second: second.clone(),
            },
            ProbeError::Io { path, source } => ProbeError::Io {
                path: path.clone(),
                source: io::Error::new(source.kind(), source.to_string()),
            },
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
                printable_path(path)
            ),
            ProbeError::TooManyPieces {
                variant,
                pieces,
                max: 0,
                ..
            } => {
                write!(
                    f,
                    "the position has {pieces} pieces and there are no {variant} tables"
                )?;
                write_build_hint(f, *variant, *pieces)
            }
            ProbeError::TooManyPieces {
                variant,
                pieces,
                max,
            } => {
                write!(
                    f,
                    "the position has {pieces} pieces; the {variant} tables cover at most {max}"
                )?;
                write_build_hint(f, *variant, *pieces)
            }
            ProbeError::Corrupted { path, reason } => {
                write!(f, "table {} is corrupted: {reason}", printable_path(path))
            }
            ProbeError::Truncated {
                path,
                expected,
                actual,
            } => write!(
                f,
                "table {} is truncated: {actual} bytes instead of {expected}",
                printable_path(path)
            ),
            ProbeError::WrongTable {
                path,
                expected,
                found,
            } => write!(
                f,
                "table {} holds {found}, expected {expected}",
                printable_path(path)
            ),
            ProbeError::OldFormat { path, version } => write!(
                f,
                "table {} is of format version {version}, which this build reads only to \
                 convert: run 'rafle generate' on its directory to convert the set (its values \
                 are read, not solved again)",
                printable_path(path)
            ),
            ProbeError::MixedLimits {
                variant,
                first,
                second,
            } => write!(
                f,
                "the {variant} rule tables mix draw-rule limits: {} has {}, {} has {}",
                printable_path(&first.0),
                first.1,
                printable_path(&second.0),
                second.1
            ),
            ProbeError::MixedHalves {
                variant,
                material,
                first,
                second,
            } => write!(
                f,
                "the tables of {variant} {material} store different sides to move: {} stores \
                 {}, {} stores {}; the tables of a material must agree (all built with \
                 --compact or all without): build them again together",
                printable_path(&first.0),
                first.1,
                printable_path(&second.0),
                second.1
            ),
            ProbeError::Io { path, source } if path.as_os_str().is_empty() => write!(f, "{source}"),
            ProbeError::Io { path, source } => write!(f, "{}: {source}", printable_path(path)),
        }
    }
}

/// How to build tables that answer a position of `pieces` pieces, when rafle builds such
/// tables: the command, and the one that says first what it needs.
fn write_build_hint(f: &mut fmt::Formatter<'_>, variant: Variant, pieces: u32) -> fmt::Result {
    if pieces > crate::MAX_GENERATED_PIECES {
        return Ok(());
    }
    write!(
        f,
        ": build tables up to {pieces} pieces with 'rafle generate --variant {variant} --pieces \
         {pieces}' \
         ('rafle plan --variant {variant} --pieces {pieces}' says first the memory and disk it \
         needs)"
    )
}

impl std::error::Error for ProbeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProbeError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_many_pieces_names_the_command_that_builds_them_while_rafle_can() {
        let err = |pieces, max| {
            ProbeError::TooManyPieces {
                variant: Variant::International,
                pieces,
                max,
            }
            .to_string()
        };
        assert_eq!(
            err(5, 4),
            "the position has 5 pieces; the international tables cover at most 4: build tables \
             up to 5 pieces with 'rafle generate --variant international --pieces 5' ('rafle \
             plan --variant international --pieces 5' says first the memory and disk it needs)"
        );
        assert!(err(3, 0).starts_with(
            "the position has 3 pieces and there are no international tables: build tables up \
             to 3 pieces with 'rafle generate --variant international --pieces 3'"
        ));
        // Beyond any set rafle builds: no command to suggest.
        assert_eq!(
            err(40, 6),
            "the position has 40 pieces; the international tables cover at most 6"
        );
    }

    #[test]
    fn paths_are_shown_without_control_characters() {
        let shown = |p: &str| printable_path(Path::new(p)).to_string();
        assert_eq!(shown("data/brazilian/KvK.wdl"), "data/brazilian/KvK.wdl");
        assert_eq!(shown("a\nb\tc\u{7}"), r"a\nb\tc\u{7}");
        assert_eq!(shown("it's \"x\" a\\b"), "it's \"x\" a\\b");
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let odd = std::ffi::OsStr::from_bytes(b"d\xffx\x1b[2J\xc3\xa9");
            assert_eq!(
                printable_path(Path::new(odd)).to_string(),
                r"d\xffx\u{1b}[2Jé"
            );
        }
        let err = ProbeError::Corrupted {
            path: PathBuf::from("d\u{1b}[31m/KvK.wdl"),
            reason: "bad".to_string(),
        };
        assert_eq!(
            err.to_string(),
            r"table d\u{1b}[31m/KvK.wdl is corrupted: bad"
        );
    }
}
