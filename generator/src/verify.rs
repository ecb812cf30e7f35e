//! Checking tables independently of how they were made: every position's stored value against
//! its successors' values, found by forward move generation and read back through the probe.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use rafle_probe::codec::{Codec, DrawRulesCodec, DtwCodec, Entry, WdlCodec};
use rafle_probe::format::TableKind;
use rafle_probe::walk::{unpack, Captures, Walk};
use rafle_probe::{
    resets_counter, Counters, Dtw, Material, Position, PositionIndex, ProbeError, RuleValue,
    Tablebase, Variant, Wdl,
};
use rayon::prelude::*;

/// The outcome of checking one table.
#[derive(Debug, Clone, Default)]
pub struct VerifyReport {
    /// Positions in the table.
    pub positions: u64,
    /// Positions whose side to move must capture: their value is resolved from their captures
    /// by the probe, so there is nothing stored to check.
    pub capture_positions: u64,
    /// Positions whose stored value disagrees with their successors.
    pub mismatches: u64,
    /// A few mismatching positions, as `FEN: stored X, successors say Y`.
    pub examples: Vec<String>,
}

/// How many mismatching positions a report shows.
const EXAMPLES: usize = 5;

/// Checks every block checksum of a material's win/draw/loss, distance-to-win and rule tables,
/// then every position: no legal move must be a loss (in 0), otherwise the value is the best of
/// the negated values of the successors, the distance the quickest win or the longest loss, and
/// the rule-aware value the one [`RuleValue::from_successors`] gives from the successors' rule
/// values and whether each move resets the counter. Distances and rule values are stored for
/// the positions with White to move that are not drawn; the others are derived from their
/// moves by the [material walk](rafle_probe::walk), as a probe derives them, before the stored
/// ones are checked.
///
/// `advance` is called with the number of positions done as work goes on: three times the
/// material's positions in all (the win/draw/loss table walked, then the distance and rule
/// tables together, then the check).
///
/// # Errors
///
/// A [`ProbeError`] reading this table or one it depends on, [`ProbeError::Corrupted`] for an
/// invalid code.
pub fn verify_table(
    tablebase: &Tablebase,
    variant: Variant,
    material: Material,
    advance: &(dyn Fn(u64) + Sync),
) -> Result<VerifyReport, ProbeError> {
    let values = Values::read(tablebase, variant, material, advance)?;
    let positions = values.index.size();
    const CHUNK: u64 = 1 << 14;
    let captures = AtomicU64::new(0);
    let mismatches = AtomicU64::new(0);
    let examples = Mutex::new(Vec::new());
    (0..positions.div_ceil(CHUNK))
        .into_par_iter()
        .try_for_each(|c| {
            let range = c * CHUNK..((c + 1) * CHUNK).min(positions);
            let len = range.end - range.start;
            let mut cursor = values.index.cursor(range.start);
            for i in range {
                let pos = cursor.position();
                cursor.advance();
                if values.captures.contains(i as usize) {
                    captures.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                if let Some(example) = values.check(tablebase, &pos, i as usize)? {
                    mismatches.fetch_add(1, Ordering::Relaxed);
                    let mut list = examples.lock().unwrap_or_else(PoisonError::into_inner);
                    if list.len() < EXAMPLES {
                        list.push(example);
                    }
                }
            }
            advance(len);
            Ok::<(), ProbeError>(())
        })?;
    let mut examples = examples
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    examples.sort();
    Ok(VerifyReport {
        positions,
        capture_positions: captures.into_inner(),
        mismatches: mismatches.into_inner(),
        examples,
    })
}

/// A position's three values.
type Triple = (Wdl, Dtw, RuleValue);

/// The values of every position of a material, those its tables leave out derived.
struct Values<'a> {
    index: &'a PositionIndex,
    captures: Captures,
    wdl: Vec<u8>,
    /// The distance and draw-rule codes of each position.
    pairs: Vec<(u16, u8)>,
    bits: u8,
    /// The material's draw-rule limit.
    limit: u8,
}

impl<'a> Values<'a> {
    /// Reads the material's three tables (every block checksum checked) and completes them.
    fn read(
        tablebase: &'a Tablebase,
        variant: Variant,
        material: Material,
        advance: &(dyn Fn(u64) + Sync),
    ) -> Result<Values<'a>, ProbeError> {
        let table = tablebase.table(variant, material)?;
        let packed = table.read_all()?;
        let dtw_table = tablebase.table_of(TableKind::Dtw, variant, material)?;
        let rules_table = tablebase.table_of(TableKind::DrawRules, variant, material)?;
        let limits = tablebase
            .limits(variant)?
            .ok_or_else(|| ProbeError::Corrupted {
                path: rules_table.path().to_path_buf(),
                reason: "a rule table without limits".to_string(),
            })?;
        let index = table.index();
        let n = index.size() as usize;
        let walk = Walk::new(index, &packed, Some(limits), table.path());
        let mut wdl: Vec<u8> = unpack(&packed, 2, n);
        let captures =
            walk.complete::<WdlCodec, _, _>(&mut wdl, 2, |p| tablebase.probe_wdl(p), advance)?;
        let bits = dtw_table.header().bits;
        let pairs = walk.distances_and_rules(tablebase, dtw_table, rules_table, advance)?;
        Ok(Values {
            index,
            captures,
            wdl,
            pairs,
            bits,
            limit: walk.limit,
        })
    }

    /// Position `i`'s three values; the distance and rule value are those of a draw where the
    /// tables do not hold them.
    fn at(&self, i: usize, holds: bool) -> Triple {
        let wdl = WdlCodec::decode(u16::from(self.wdl[i]), 2).unwrap_or(Wdl::Draw);
        if !holds {
            return (wdl, DtwCodec::DRAW, DrawRulesCodec::DRAW);
        }
        let (distance, rule) = self.pairs[i];
        (
            wdl,
            DtwCodec::decode(distance, self.bits).unwrap_or(Dtw::Draw),
            DrawRulesCodec::decode(u16::from(rule), 8).unwrap_or(RuleValue::DRAW),
        )
    }

    /// The values of a successor, from this material's values or probed: all three when
    /// `full`, else the win/draw/loss alone (the others those of a draw).
    fn successor(
        &self,
        tablebase: &Tablebase,
        next: &Position,
        full: bool,
    ) -> Result<Triple, ProbeError> {
        if Material::of(next) == self.index.material() {
            return Ok(self.at(self.index.rank(next) as usize, full));
        }
        let wdl = tablebase.probe_wdl(next)?;
        if !full {
            return Ok((wdl, DtwCodec::DRAW, DrawRulesCodec::DRAW));
        }
        let rule = tablebase.probe_draw_rules(next, Counters::FRESH)?.value;
        Ok((wdl, tablebase.probe_dtw(next)?, rule))
    }

    /// Checks position `i`, `pos`, which need not capture: its stored values against those its
    /// successors give. Returns the example of a mismatch.
    fn check(
        &self,
        tablebase: &Tablebase,
        pos: &Position,
        i: usize,
    ) -> Result<Option<String>, ProbeError> {
        let wdl = WdlCodec::decode(u16::from(self.wdl[i]), 2).unwrap_or(Wdl::Draw);
        // Every position's win/draw/loss is stored; its distance and rule value only with
        // White to move and not drawn.
        let n = self.index.size() as usize;
        let holds = TableKind::Dtw.holds(Entry::at_index(i, n, false, wdl == Wdl::Draw));
        let (stored, stored_dtw, stored_rule) = self.at(i, holds);
        let mut expected = Wdl::Loss;
        let mut distances = Vec::new();
        let mut rules = Vec::new();
        for mv in &pos.legal_moves() {
            let next = pos.play(mv);
            let (wdl, dtw, rule) = self.successor(tablebase, &next, holds)?;
            expected = expected.max(-wdl);
            distances.push((dtw, false));
            rules.push((rule, resets_counter(pos, mv, &next)));
        }
        let (expected_dtw, expected_rule) = if holds {
            (
                DtwCodec::from_successors(self.limit, distances),
                DrawRulesCodec::from_successors(self.limit, rules),
            )
        } else {
            (DtwCodec::DRAW, DrawRulesCodec::DRAW)
        };
        if (stored, stored_dtw, stored_rule) == (expected, expected_dtw, expected_rule) {
            return Ok(None);
        }
        Ok(Some(format!(
            "{}: stored {stored} ({stored_dtw}; {stored_rule}), successors say {expected} \
             ({expected_dtw}; {expected_rule})",
            pos.to_fen()
        )))
    }
}
