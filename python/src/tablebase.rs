//! `rafle._native.Tablebase`: an open table directory shared by every Python thread, probed
//! without the GIL.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use pyo3::prelude::*;
use rafle_probe::answer::{max_pieces, Answer, AnswerError, Options, Values};
use rafle_probe::{
    draughts::{CaptureUnderWay, Counters, FenPosition, IntRange, Limits, Position, SquareStyle},
    Dtw, Tablebase, Wdl, DEFAULT_CACHE_BYTES,
};

use crate::convert::{self, EndTuple, MoveTuple, PlyTuple, RulesTuple};
use crate::{counters, detached, errors, fen_position, position, variant};

/// An open table directory. Probes take the position as a variant name and a FEN; the
/// Python class `rafle.Tablebase` wraps it.
///
/// The tables are kept behind an [`Arc`]: a probe holds its own reference while it runs
/// without the GIL, so `close()` in another thread never pulls the tables from under it (they
/// are released when the last probe ends).
#[pyclass(frozen, module = "rafle._native", name = "Tablebase")]
pub struct NativeTablebase {
    dir: PathBuf,
    tables: Mutex<Option<Arc<Tablebase>>>,
}

impl NativeTablebase {
    /// The tables, or `TablebaseClosedError` after `close()`.
    fn tables(&self, py: Python<'_>) -> PyResult<Arc<Tablebase>> {
        // A panic while the lock was held cannot leave the Option half-written.
        let guard = self.tables.lock().unwrap_or_else(PoisonError::into_inner);
        guard.clone().ok_or_else(|| errors::closed(py, &self.dir))
    }

    /// The tables and the position, both checked before any table is read.
    fn prepare(
        &self,
        py: Python<'_>,
        variant_name: &str,
        fen: &str,
    ) -> PyResult<(Arc<Tablebase>, Position)> {
        let pos = position(py, variant_name, fen)?;
        Ok((self.tables(py)?, pos))
    }

    /// As [`NativeTablebase::prepare`], also reading a capture under way.
    fn prepare_read(
        &self,
        py: Python<'_>,
        variant_name: &str,
        fen: &str,
    ) -> PyResult<(Arc<Tablebase>, FenPosition)> {
        let read = fen_position(py, variant_name, fen)?;
        Ok((self.tables(py)?, read))
    }

    /// The values of a capture under way: those of its best completion.
    fn capture_values(
        &self,
        py: Python<'_>,
        tables: Arc<Tablebase>,
        cap: CaptureUnderWay,
    ) -> PyResult<Values> {
        detached(py, move || {
            Answer::probe_capture(&tables, &cap, Options::default())
                .map(|a| a.values.expect("a probed answer has values"))
        })?
        .map_err(|e| errors::answer_error(py, &e))
    }

    /// The draw-rule answer of a capture under way with the live counters: that of its best
    /// completion, as `rafle probe --counters` gives it.
    fn capture_rules(
        &self,
        py: Python<'_>,
        tables: Arc<Tablebase>,
        cap: CaptureUnderWay,
        counters: Counters,
    ) -> PyResult<RulesTuple> {
        let options = Options {
            counters: Some(counters),
            line: false,
        };
        let answer = detached(py, move || Answer::probe_capture(&tables, &cap, options))?
            .map_err(|e| errors::answer_error(py, &e))?;
        let outcome = answer
            .rule_outcome()
            .expect("an answer with counters has a rule outcome");
        let limits = answer
            .values
            .and_then(|v| v.rules)
            .expect("an answer with counters has rule values")
            .limits;
        Ok(convert::rules_tuple(&outcome, limits, counters))
    }

    /// The completion of a capture under way [`Tablebase::best_completion`] chooses, with its
    /// values read as every completion's are.
    fn best_completion(
        &self,
        py: Python<'_>,
        tables: Arc<Tablebase>,
        cap: CaptureUnderWay,
    ) -> PyResult<Option<MoveTuple>> {
        let answer = detached(py, move || {
            let (best, _) = tables.best_completion(&cap)?;
            let answer = Answer::probe_capture(&tables, &cap, Options::default())?;
            Ok::<_, AnswerError>((best, answer))
        })?
        .map_err(|e| errors::answer_error(py, &e))?;
        let (best, answer) = answer;
        Ok(answer
            .moves
            .iter()
            .find(|m| m.mv == best)
            .and_then(|m| convert::move_tuple(answer.move_path(m), m)))
    }
}

#[pymethods]
impl NativeTablebase {
    /// Lists the tables of `directory`; `cache_bytes` bounds the decompressed blocks kept.
    #[new]
    #[pyo3(signature = (directory, cache_bytes=None))]
    fn new(
        py: Python<'_>,
        directory: PathBuf,
        cache_bytes: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let budget = match cache_bytes {
            Some(bytes) => usize::try_from(crate::int_in(bytes, IntRange::CACHE_BYTES)?)
                .expect("the range of cache bytes is within usize"),
            None => DEFAULT_CACHE_BYTES,
        };
        let dir = directory.clone();
        let tables = detached(py, move || Tablebase::open_with_cache(&dir, budget))?
            .map_err(|e| errors::probe_error(py, &e))?;
        Ok(NativeTablebase {
            dir: directory,
            tables: Mutex::new(Some(Arc::new(tables))),
        })
    }

    /// The directory the tables were opened from.
    #[getter]
    fn directory(&self) -> PathBuf {
        self.dir.clone()
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.tables
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none()
    }

    /// Releases the tables (at once, or when the probes running in other threads end).
    fn close(&self) {
        let taken = self
            .tables
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        drop(taken);
    }

    /// The most bytes of decompressed blocks the cache may hold.
    fn cache_budget(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.tables(py)?.cache_budget())
    }

    /// Bytes of decompressed blocks the cache holds now.
    fn cache_bytes(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.tables(py)?.cache_bytes())
    }

    /// The most pieces a full answer of the variant can be given for (0 without tables).
    fn max_pieces(&self, py: Python<'_>, variant_name: &str) -> PyResult<u32> {
        let variant = variant(py, variant_name)?;
        Ok(max_pieces(self.tables(py)?.as_ref(), variant))
    }

    /// Win (1), draw (0) or loss (-1) for the side to move, the draw rules ignored.
    fn probe_wdl(&self, py: Python<'_>, variant_name: &str, fen: &str) -> PyResult<i8> {
        let (tables, read) = self.prepare_read(py, variant_name, fen)?;
        let pos = match read {
            FenPosition::Whole(pos) => pos,
            FenPosition::CaptureUnderWay(cap) => {
                return Ok(self.capture_values(py, tables, cap)?.wdl.signum())
            }
        };
        detached(py, move || tables.probe_wdl(&pos))?
            .map(Wdl::signum)
            .map_err(|e| errors::probe_error(py, &e))
    }

    /// The distance to win in plies, signed for the side to move; `None` for a draw.
    fn probe_dtw(&self, py: Python<'_>, variant_name: &str, fen: &str) -> PyResult<Option<i32>> {
        let (tables, read) = self.prepare_read(py, variant_name, fen)?;
        let pos = match read {
            FenPosition::Whole(pos) => pos,
            FenPosition::CaptureUnderWay(cap) => {
                return Ok(self.capture_values(py, tables, cap)?.dtw.signed_plies())
            }
        };
        detached(py, move || tables.probe_dtw(&pos))?
            .map(Dtw::signed_plies)
            .map_err(|e| errors::probe_error(py, &e))
    }

    /// The rule-aware value and the result with the live counters.
    fn probe_draw_rules(
        &self,
        py: Python<'_>,
        variant_name: &str,
        fen: &str,
        king_plies: &Bound<'_, PyAny>,
        category_plies: &Bound<'_, PyAny>,
    ) -> PyResult<RulesTuple> {
        let counters = counters(king_plies, category_plies)?;
        let (tables, read) = self.prepare_read(py, variant_name, fen)?;
        let pos = match read {
            FenPosition::Whole(pos) => pos,
            FenPosition::CaptureUnderWay(cap) => {
                return self.capture_rules(py, tables, cap, counters);
            }
        };
        let found = detached(py, move || {
            let outcome = tables.probe_draw_rules(&pos, counters)?;
            // A finished game is answered without rule tables, under the FMJD limits.
            let limits = tables
                .limits(pos.variant())?
                .unwrap_or_else(|| Limits::fmjd(pos.variant()));
            Ok((outcome, limits))
        })?;
        let (outcome, limits) = found.map_err(|e| errors::probe_error(py, &e))?;
        Ok(convert::rules_tuple(&outcome, limits, counters))
    }

    /// Every legal move with its values, best first ([`Answer::order_best_first`]); with
    /// `counters`, ordered by the result under the rules with them first.
    #[pyo3(signature = (variant_name, fen, counters=None))]
    fn moves(
        &self,
        py: Python<'_>,
        variant_name: &str,
        fen: &str,
        counters: Option<(Bound<'_, PyAny>, Bound<'_, PyAny>)>,
    ) -> PyResult<Vec<MoveTuple>> {
        let counters = counters.map(|(k, c)| crate::counters(&k, &c)).transpose()?;
        let (tables, read) = self.prepare_read(py, variant_name, fen)?;
        let options = Options {
            counters,
            line: false,
        };
        let answer = detached(py, move || {
            let mut answer = Answer::probe_fen(&tables, &read, options)?;
            answer.order_best_first();
            Ok::<Answer, AnswerError>(answer)
        })?
        .map_err(|e| errors::answer_error(py, &e))?;
        Ok(answer
            .moves
            .iter()
            .filter_map(|m| convert::move_tuple(answer.move_path(m), m))
            .collect())
    }

    /// The move [`Tablebase::best_move`] chooses (the quickest win, the longest loss, a
    /// drawing move), with its values; `None` when the game is over.
    fn best_move(
        &self,
        py: Python<'_>,
        variant_name: &str,
        fen: &str,
    ) -> PyResult<Option<MoveTuple>> {
        let (tables, read) = self.prepare_read(py, variant_name, fen)?;
        let pos = match read {
            FenPosition::Whole(pos) => pos,
            FenPosition::CaptureUnderWay(cap) => return self.best_completion(py, tables, cap),
        };
        let found = detached(py, move || {
            let Some((best, _)) = tables.best_move(&pos)? else {
                return Ok(None);
            };
            // The values of the chosen move, read as every move's are.
            let answer = Answer::probe(&tables, &pos, Options::default())?;
            Ok::<_, AnswerError>(answer.moves.into_iter().find(|m| m.mv == best))
        })?
        .map_err(|e| errors::answer_error(py, &e))?;
        Ok(found.and_then(|m| convert::move_tuple(pos.move_path(&m.mv), &m)))
    }

    /// The game played to its end under the draw rules from the live counters
    /// ([`Tablebase::play_line`]).
    fn line(
        &self,
        py: Python<'_>,
        variant_name: &str,
        fen: &str,
        king_plies: &Bound<'_, PyAny>,
        category_plies: &Bound<'_, PyAny>,
    ) -> PyResult<(Vec<PlyTuple>, EndTuple)> {
        let counters = counters(king_plies, category_plies)?;
        let (tables, pos) = self.prepare(py, variant_name, fen)?;
        let line = detached(py, move || {
            tables.play_line(&pos, counters, SquareStyle::Numeric)
        })?
        .map_err(|e| errors::line_error(py, &e))?;
        Ok(convert::line_tuple(&pos, &line))
    }
}
