//! Rust errors as the Python exceptions of `rafle._errors`: each kind of failure has its class,
//! with the fields a caller needs (the file of a missing table, the piece counts of a position
//! out of reach), and the message rafle's command line prints.
//!
//! The classes are defined in Python, so that they pickle, subclass and document like any
//! Python exception; this module looks them up when it raises one.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rafle_generator::GenerateError;
use rafle_probe::answer::AnswerError;
use rafle_probe::{draughts::FenError, toolkit::printable_path, LineError, ProbeError};

/// The exception `class` of `rafle._errors`, made with `args` (the message first).
fn raise<'py>(py: Python<'py>, class: &str, args: Bound<'py, PyTuple>) -> PyErr {
    let made = py
        .import("rafle._errors")
        .and_then(|module| module.getattr(class))
        .and_then(|class| class.call1(args));
    match made {
        Ok(exception) => PyErr::from_value(exception),
        // The Python half of the package is missing or broken: say so rather than hide it.
        Err(e) => e,
    }
}

/// Builds the tuple of an exception's arguments; a failure to convert is the error raised.
fn args<'py, T>(py: Python<'py>, items: T) -> PyResult<Bound<'py, PyTuple>>
where
    T: IntoPyObject<'py, Target = PyTuple, Output = Bound<'py, PyTuple>>,
{
    items.into_pyobject(py).map_err(Into::into)
}

/// A FEN rafle cannot read: `FenError`, a `ValueError`.
pub fn fen_error(py: Python<'_>, fen: &str, err: &FenError) -> PyErr {
    let message = format!("{err} in FEN \"{}\"", rafle_probe::draughts::excerpt(fen));
    match args(py, (message, err.column)) {
        Ok(args) => raise(py, "FenError", args),
        Err(e) => e,
    }
}

/// A probe that failed, as its class: `TooManyPiecesError`, `MissingTableError` or `TableError`.
pub fn probe_error(py: Python<'_>, err: &ProbeError) -> PyErr {
    let message = err.to_string();
    let built = match err {
        ProbeError::TooManyPieces {
            variant,
            pieces,
            max,
        } => args(py, (message, variant.name(), *pieces, *max))
            .map(|a| raise(py, "TooManyPiecesError", a)),
        ProbeError::MissingTable {
            variant,
            material,
            path,
        } => args(
            py,
            (
                message,
                path.clone(),
                variant.name(),
                Some(material.to_string()),
            ),
        )
        .map(|a| raise(py, "MissingTableError", a)),
        ProbeError::Corrupted { path, .. }
        | ProbeError::Truncated { path, .. }
        | ProbeError::OldFormat { path, .. }
        | ProbeError::WrongTable { path, .. }
        | ProbeError::Io { path, .. } => {
            args(py, (message, Some(path.clone()))).map(|a| raise(py, "TableError", a))
        }
        ProbeError::MixedLimits { first, .. } => {
            args(py, (message, Some(first.0.clone()))).map(|a| raise(py, "TableError", a))
        }
        ProbeError::MixedHalves { first, .. } => {
            args(py, (message, Some(first.0.clone()))).map(|a| raise(py, "TableError", a))
        }
        // A kind added later: still a failure of the tables, with its message.
        _ => args(py, (message, None::<std::path::PathBuf>)).map(|a| raise(py, "TableError", a)),
    };
    built.unwrap_or_else(|e| e)
}

/// A whole answer that failed: the probe's class, `MissingTableError` for missing rule
/// tables (naming their directory), `TableError` when the tables contradict each other.
pub fn answer_error(py: Python<'_>, err: &AnswerError) -> PyErr {
    if let Some(probe) = err.probe_error() {
        return probe_error(py, probe);
    }
    let message = err.to_string();
    let built = match err {
        AnswerError::NoRuleTables { variant, dir } => {
            args(py, (message, dir.clone(), variant.name(), None::<String>))
                .map(|a| raise(py, "MissingTableError", a))
        }
        _ => args(py, (message, None::<std::path::PathBuf>)).map(|a| raise(py, "TableError", a)),
    };
    built.unwrap_or_else(|e| e)
}

/// A line that could not be played.
pub fn line_error(py: Python<'_>, err: &LineError) -> PyErr {
    match err {
        LineError::Probe(probe) => probe_error(py, probe),
        _ => args(py, (err.to_string(), None::<std::path::PathBuf>))
            .map(|a| raise(py, "TableError", a))
            .unwrap_or_else(|e| e),
    }
}

/// A generation that stopped: `GenerateError`, with the path involved when there is one.
pub fn generate_error(py: Python<'_>, err: &GenerateError) -> PyErr {
    let path = match err {
        GenerateError::Io { path, .. }
        | GenerateError::DamagedWorkFile { path, .. }
        | GenerateError::ImpossibleValue { path, .. } => Some(path.clone()),
        _ => None,
    };
    // The message names the file already; the path is kept apart for programs.
    args(py, (err.to_string(), path))
        .map(|a| raise(py, "GenerateError", a))
        .unwrap_or_else(|e| e)
}

/// A request rafle cannot take (an unknown variant, counters out of range, a bad budget).
pub fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// An unknown variant: `UnsupportedVariantError`, a `ValueError`.
pub fn unknown_variant(py: Python<'_>, name: &str) -> PyErr {
    let message = format!(
        "unknown variant {:?}: rafle has tables for \"international\" and \"brazilian\"",
        rafle_probe::draughts::excerpt(name)
    );
    args(py, (message,))
        .map(|a| raise(py, "UnsupportedVariantError", a))
        .unwrap_or_else(|e| e)
}

/// A probe after `close()`: `TablebaseClosedError`, a `ValueError` as for a closed file.
pub fn closed(py: Python<'_>, dir: &std::path::Path) -> PyErr {
    let message = format!(
        "the tablebase of {} is closed: open it again with rafle.open_tablebase",
        printable_path(dir)
    );
    args(py, (message,))
        .map(|a| raise(py, "TablebaseClosedError", a))
        .unwrap_or_else(|e| e)
}

/// A Rust panic caught before it reached Python: a bug of rafle, reported as `RafleError`
/// with what the panic said, never a crash of the interpreter.
pub fn internal(py: Python<'_>, payload: &(dyn std::any::Any + Send)) -> PyErr {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string());
    args(
        py,
        (format!(
            "internal error of rafle (please report it): {what}"
        ),),
    )
    .map(|a| raise(py, "RafleError", a))
    .unwrap_or_else(|e| e)
}
