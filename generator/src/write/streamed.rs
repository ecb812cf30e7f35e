//! Reading a finished material's values back from its tables a block at a time, in bounded
//! memory, for a material too large to read back whole (see [`crate::write::load`], which holds it
//! decoded: 3 bytes a position, 19.8 GiB for international KKKKvKKK).
//!
//! Each position's values are found as the probe finds them: a position the tables store
//! (its side to move need not capture, and its side to move is the stored one) reads its
//! win/draw/loss code, and, unless drawn, its distance and rule codes, through the probe's
//! bounded block cache; any other position takes them from its moves. Those moves lead to
//! other materials (read in the run's [`Store`], whose values are complete), to a side without
//! a piece, or to positions of the same material with the other side to move, which the tables
//! store (or which must capture, and whose captures leave the material). Nothing the size of
//! the material is held, and positions are visited in index order, so that the blocks read
//! stay in the cache while they are needed.

use std::path::Path;
use std::sync::Mutex;

use rafle_probe::toolkit::format::TableKind;
use rafle_probe::{
    draughts::{Category, Material, Position},
    toolkit::PositionIndex,
    Dtw, RuleValue, Tablebase,
};
use rayon::prelude::*;

use crate::plan::MaterialPlan;
use crate::plan::STREAMED_CACHE_BYTES;
use crate::probed::{self, Values};
use crate::solve::store::Store;
use crate::work::packed::{self, BLOCK_POSITIONS};
use crate::work::values::Kept;
use crate::work::values::{distance_code, CAPTURE, MAX_DISTANCE};
use crate::write::counts::Counts;
use crate::write::load::LoadError;
use crate::GenerateError;

/// Reads material `m`'s values back from its tables (in the table directory `dir`), the
/// positions they leave out valued from their moves, the values of other materials read in
/// `store`; writes them as its packed work file at `pack` (with its identity) if given, and
/// returns their counts. `advance` is called with the positions done as work goes on.
///
/// # Errors
///
/// [`LoadError::Table`] if the material's tables cannot be read, are damaged, hold a value
/// that cannot be right or rule values of other limits (it is then solved again), and
/// [`LoadError::Work`] if the values of another material cannot be read or the packed file
/// not written.
pub(crate) fn read_back_streamed(
    dir: &Path,
    m: &MaterialPlan,
    index: &PositionIndex,
    store: &Store,
    pack: Option<(&Path, &str, Kept)>,
    advance: &(dyn Fn(u64) + Sync),
) -> Result<Counts, LoadError> {
    let tables = Tablebase::open_with_cache(dir, STREAMED_CACHE_BYTES as usize)?;
    let reader = Reader::new(&tables, store, m, index)?;
    let counts = Mutex::new(Counts::default());
    let positions = index.size();
    // A block's codes, its counts added to the material's.
    let block = |start: u64, len: usize| -> Result<(Vec<u16>, Vec<u8>), LoadError> {
        let (distances, rules, block_counts) = reader.block(start, len)?;
        let mut counts = counts.lock().unwrap_or_else(|e| e.into_inner());
        *counts = counts.merge(block_counts);
        advance(len as u64);
        Ok((distances, rules))
    };
    match pack {
        Some((path, identity, kept)) => {
            // `packed::write` speaks in `GenerateError`s: the load error of a block is kept
            // aside, so that a damaged table is told apart from a failure to write.
            let failed = Mutex::new(None);
            let written = packed::write(path, identity, positions, kept, |start, len| {
                block(start, len).map_err(|e| {
                    let message = match &e {
                        LoadError::Table(why) => why.clone(),
                        LoadError::Work(e) => e.to_string(),
                    };
                    *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                    GenerateError::Io {
                        path: path.to_path_buf(),
                        source: std::io::Error::other(message),
                    }
                })
            });
            if let Err(e) = written {
                let kept = failed.lock().unwrap_or_else(|e| e.into_inner()).take();
                return Err(kept.unwrap_or(LoadError::Work(e)));
            }
        }
        None => (0..positions.div_ceil(BLOCK_POSITIONS))
            .into_par_iter()
            .try_for_each(|b| {
                let len = packed::block_len(positions, BLOCK_POSITIONS, b);
                block(b * BLOCK_POSITIONS, len).map(drop)
            })?,
    }
    Ok(counts.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// What reads a material's positions' values.
struct Reader<'a> {
    tables: &'a Tablebase,
    /// The values of the materials its moves reach.
    store: &'a Store,
    index: &'a PositionIndex,
    material: Material,
    /// The draw-rule limit of the material's category.
    limit: u8,
}

impl<'a> Reader<'a> {
    /// A reader of `m`'s tables in `tables`, the other materials' values in `store`, after checking that they are there and that its
    /// rule table holds values under the plan's limits.
    fn new(
        tables: &'a Tablebase,
        store: &'a Store,
        m: &MaterialPlan,
        index: &'a PositionIndex,
    ) -> Result<Reader<'a>, LoadError> {
        let variant = index.variant();
        let dtw = tables.table_of(TableKind::Dtw, variant, m.material)?;
        let rules = tables.table_of(TableKind::DrawRules, variant, m.material)?;
        let wdl = tables.table_of(TableKind::Wdl, variant, m.material)?;
        if rules.header().limits != Some(m.limits) {
            return Err(LoadError::Table(format!(
                "{} was computed with other draw-rule limits",
                rules.path().display()
            )));
        }
        // The three tables must store the same half (a win/draw/loss table may keep both).
        let stored = dtw.header().stored;
        let wdl_stored = wdl.header().stored;
        if rules.header().stored != stored
            || (wdl_stored != stored
                && wdl_stored != rafle_probe::toolkit::format::StoredHalf::Both)
        {
            return Err(LoadError::Table(format!(
                "{} stores {wdl_stored}, {} {stored} and {} {}",
                wdl.path().display(),
                dtw.path().display(),
                rules.path().display(),
                rules.header().stored
            )));
        }
        Ok(Reader {
            tables,
            store,
            index,
            material: m.material,
            limit: m.limits.of(Category::of(variant, m.material)),
        })
    }

    /// The distance codes (with the capture mark), rule codes and counts of the `len`
    /// positions from `first`.
    fn block(&self, first: u64, len: usize) -> Result<(Vec<u16>, Vec<u8>, Counts), LoadError> {
        let mut distances = Vec::with_capacity(len);
        let mut rules = Vec::with_capacity(len);
        let mut counts = Counts::default();
        let mut cursor = self.index.cursor(first);
        for at in first..first + len as u64 {
            let pos = cursor.position();
            cursor.advance();
            let capture = pos.must_capture();
            let (dtw, rule) = self.values(&pos, capture)?;
            let code = distance_code(dtw);
            if code > MAX_DISTANCE && dtw != Dtw::Draw {
                return Err(LoadError::Table(format!(
                    "{}: a distance of {code} plies, past the longest possible ({MAX_DISTANCE})",
                    self.tables
                        .table_of(TableKind::Dtw, self.index.variant(), self.material)?
                        .path()
                        .display()
                )));
            }
            distances.push(code | if capture { CAPTURE } else { 0 });
            rules.push(rule.code());
            counts.add(at, dtw, rule);
        }
        Ok((distances, rules, counts))
    }

    /// The distance and rule values of `pos`, a position of the material whose side to move
    /// must capture if `capture`.
    fn values(&self, pos: &Position, capture: bool) -> Result<(Dtw, RuleValue), LoadError> {
        let values = match probed::stored(self.tables, pos, capture)? {
            Some(values) => values,
            None => probed::through_moves(pos, self.limit, |next| self.successor(next))?,
        };
        Ok((values.dtw, values.rule))
    }

    /// The values of `next`, a position a move of the material reaches.
    fn successor(&self, next: &Position) -> Result<Values, LoadError> {
        if next.side_pieces(next.turn()).is_empty() {
            return Ok(Values::NO_PIECE);
        }
        let (dtw, rule) = if Material::of(next) == self.material {
            // The other side to move: stored, or captures that leave the material.
            self.values(next, next.must_capture())?
        } else {
            self.store.value(next).map_err(LoadError::Work)?
        };
        Ok(Values {
            wdl: dtw.wdl(),
            dtw,
            rule,
        })
    }
}
