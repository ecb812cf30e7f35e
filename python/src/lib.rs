//! `rafle._native`: the Rust half of the Python package `rafle` (python/python/rafle). It
//! reads positions, probes tables and generates them with the functions `rafle probe`,
//! `rafle serve` and `rafle generate` use ([`rafle_probe::answer::Answer`],
//! [`rafle_probe::Tablebase`], [`rafle_generator::generate`]); the Python half turns its
//! plain tuples into enums and dataclasses. Nothing here computes a value or orders moves
//! itself: there is one probe path, the library's.
//!
//! Every call that reads tables or generates releases the GIL ([`detached`]), and a Rust
//! panic becomes a Python exception there instead of unwinding into the interpreter.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};
use rafle_probe::draughts::{
    Counters, FenPosition, IntRange, Position, Square, Variant, MAX_COUNTER,
};

mod convert;
mod errors;
mod generate;
mod tablebase;

/// The module `rafle._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<tablebase::NativeTablebase>()?;
    m.add_function(wrap_pyfunction!(generate::generate, m)?)?;
    m.add_function(wrap_pyfunction!(parse_memory, m)?)?;
    m.add_function(wrap_pyfunction!(normalize_fen, m)?)?;
    m.add_function(wrap_pyfunction!(variant_name, m)?)?;
    m.add("DEFAULT_CACHE_BYTES", rafle_probe::DEFAULT_CACHE_BYTES)?;
    m.add("MAX_COUNTER", MAX_COUNTER)?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// Reads a memory size as `rafle generate --memory` does (`512M`, `8G`, bytes).
#[pyfunction]
fn parse_memory(text: &str) -> PyResult<u64> {
    rafle_generator::parse_memory(text).map_err(errors::value_error)
}

/// The FEN of a position as rafle writes it (pieces sorted, ranges expanded).
#[pyfunction]
fn normalize_fen(py: Python<'_>, variant: &str, fen: &str) -> PyResult<String> {
    Ok(position(py, variant, fen)?.to_fen())
}

/// The name rafle gives the variant called `name` (an alias like `brazil` included).
#[pyfunction]
fn variant_name(py: Python<'_>, name: &str) -> PyResult<&'static str> {
    Ok(variant(py, name)?.name())
}

/// The variant named `name` (`international`, `brazilian` or an alias rafle knows).
pub(crate) fn variant(py: Python<'_>, name: &str) -> PyResult<Variant> {
    name.parse().map_err(|_| errors::unknown_variant(py, name))
}

/// The position of `fen` in the variant named `variant`.
pub(crate) fn position(py: Python<'_>, variant_name: &str, fen: &str) -> PyResult<Position> {
    let variant = variant(py, variant_name)?;
    Position::from_fen(variant, fen).map_err(|e| errors::fen_error(py, fen, &e))
}

/// What `fen` holds in the variant named `variant`: a position, or a capture under way
/// (lidraughts' ghost pieces).
pub(crate) fn fen_position(py: Python<'_>, variant_name: &str, fen: &str) -> PyResult<FenPosition> {
    let variant = variant(py, variant_name)?;
    FenPosition::from_fen(variant, fen).map_err(|e| errors::fen_error(py, fen, &e))
}

/// Live draw-rule counters from Python integers of any size, each in its range
/// ([`IntRange::KING_PLIES`], [`IntRange::CATEGORY_PLIES`]).
pub(crate) fn counters(
    king_plies: &Bound<'_, PyAny>,
    category_plies: &Bound<'_, PyAny>,
) -> PyResult<Counters> {
    let plies = |value, range: IntRange| {
        int_in(value, range).map(|n| u16::try_from(n).expect("a counter's range is within u16"))
    };
    Ok(Counters {
        king_plies: plies(king_plies, IntRange::KING_PLIES)?,
        category_plies: plies(category_plies, IntRange::CATEGORY_PLIES)?,
    })
}

/// A Python int of any size in `range`: `ValueError` with the message every entry point gives
/// when it is out of it (never `OverflowError`), `TypeError` when it is no int (a bool is
/// none either).
pub(crate) fn int_in(value: &Bound<'_, PyAny>, range: IntRange) -> PyResult<u64> {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "{} must be an int, not {}",
            range.name,
            value.get_type().name()?
        )));
    }
    match value.extract::<i128>() {
        Ok(n) => range.check_signed(n),
        // Past i128: past every range; its digits are quoted as an excerpt.
        Err(_) => Err(range.refuse(&value.str()?.to_string_lossy())),
    }
    .map_err(|e| errors::value_error(e.to_string()))
}

/// Runs `work` without the GIL, so that other Python threads run meanwhile. A panic in it is
/// caught and raised as `RafleError`: the interpreter must never see a Rust unwind.
pub(crate) fn detached<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    py.detach(|| catch_unwind(AssertUnwindSafe(work)))
        .map_err(|payload| errors::internal(py, payload.as_ref()))
}

/// Square numbers, as Python lists them.
pub(crate) fn numbers(squares: impl IntoIterator<Item = Square>) -> Vec<u8> {
    squares.into_iter().map(Square::number).collect()
}
