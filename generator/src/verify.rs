//! Checking tables independently of how they were made: every position's stored value against
//! its successors' values, found by forward move generation and read back through the probe.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use rafle_probe::codec::{read_code, Codec, DtwCodec};
use rafle_probe::format::TableKind;
use rafle_probe::{
    resets_counter, Category, Counters, Dtw, Material, Position, ProbeError, RuleClass, RuleValue,
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

/// Checks every block checksum of a material's win/draw/loss, distance-to-win and rule tables,
/// then every position: no legal move must be a loss (in 0), otherwise the value is the best of
/// the negated values of the successors, the distance the quickest win or the longest loss, and
/// the rule-aware value the one [`RuleValue::from_successors`] gives from the successors' rule
/// values and whether each move resets the counter. Distances and rule values are stored for
/// the positions with White to move that are not drawn; the others are derived from their
/// moves, as a probe derives them, before the stored ones are checked.
///
/// `advance` is called with the number of positions checked as work goes on.
///
/// # Errors
///
/// A [`ProbeError`] reading this table or one it depends on.
pub fn verify_table(
    tablebase: &Tablebase,
    variant: Variant,
    material: Material,
    advance: &(dyn Fn(u64) + Sync),
) -> Result<VerifyReport, ProbeError> {
    let table = tablebase.table(variant, material)?;
    // The table under test, decompressed once (every block checksum checked on the way):
    // most successors of its positions are its own positions.
    let mut packed = Vec::new();
    for b in 0..table.header().blocks {
        packed.extend_from_slice(&table.read_block(b)?);
    }
    let index = table.index();
    let corrupted = |code: u8| ProbeError::Corrupted {
        path: table.path().to_path_buf(),
        reason: format!("invalid value code {code}"),
    };
    let own = |pos: &Position| -> Result<Wdl, ProbeError> {
        let code = read_code(&packed, 2, index.rank(pos) as usize) as u8;
        Wdl::from_code(code).ok_or_else(|| corrupted(code))
    };
    // The distance-to-win table of the same material, likewise.
    let dtw_table = tablebase.table_of(TableKind::Dtw, variant, material)?;
    let bits = dtw_table.header().bits;
    let mut distances = Vec::new();
    for b in 0..dtw_table.header().blocks {
        distances.extend_from_slice(&dtw_table.read_block(b)?);
    }
    let own_dtw = |pos: &Position| -> Dtw {
        DtwCodec::read(&distances, bits, index.rank(pos) as usize).unwrap_or(Dtw::Draw)
    };
    // And the rule table.
    let draw_rules_table = tablebase.table_of(TableKind::DrawRules, variant, material)?;
    let mut codes = Vec::new();
    for b in 0..draw_rules_table.header().blocks {
        codes.extend_from_slice(&draw_rules_table.read_block(b)?);
    }
    let own_rule = |pos: &Position| -> Result<RuleValue, ProbeError> {
        let code = codes[index.rank(pos) as usize];
        RuleValue::from_code(code).ok_or_else(|| ProbeError::Corrupted {
            path: draw_rules_table.path().to_path_buf(),
            reason: format!("invalid rule value code {code}"),
        })
    };
    let limits = tablebase
        .limits(variant)?
        .ok_or_else(|| ProbeError::Corrupted {
            path: draw_rules_table.path().to_path_buf(),
            reason: "a rule table without limits".to_string(),
        })?;
    let limit = limits.of(Category::of(variant, material));
    let positions = index.size();
    let half = positions / 2;

    // Distances and rule values are stored for White to move only: those of Black to move
    // are derived from their moves first, as the probe would, then every stored value is
    // checked against its successors, which are mostly positions with Black to move.
    type Values = (Dtw, RuleValue);
    type Lookup<'a> = &'a dyn Fn(&Position) -> Result<(Wdl, Values), ProbeError>;
    let drawn = (Dtw::Draw, RuleValue::uncounted(RuleClass::Draw));
    let outside = |pos: &Position| -> Result<Values, ProbeError> {
        Ok((
            tablebase.probe_dtw(pos)?,
            tablebase.probe_draw_rules(pos, Counters::FRESH)?.value,
        ))
    };
    let combine = |pos: &Position, look: Lookup| -> Result<(Wdl, Values), ProbeError> {
        let mut expected = Wdl::Loss;
        let mut distances = Vec::new();
        let mut rules = Vec::new();
        for mv in &pos.legal_moves() {
            let next = pos.play(mv);
            let (wdl, (dtw, rule)) = look(&next)?;
            expected = expected.max(-wdl);
            distances.push(dtw);
            rules.push((rule, resets_counter(pos, mv, &next)));
        }
        Ok((
            expected,
            (
                Dtw::from_successors(distances),
                RuleValue::from_successors(limit, rules),
            ),
        ))
    };
    let elsewhere = |pos: &Position| -> Result<(Wdl, Values), ProbeError> {
        Ok((tablebase.probe_wdl(pos)?, outside(pos)?))
    };
    const CHUNK: u64 = 1 << 14;
    let black: Vec<Option<Values>> = (half..positions)
        .into_par_iter()
        .map(|i| {
            let pos = index.unrank(i);
            if pos.must_capture() || own(&pos)? == Wdl::Draw {
                return Ok(None);
            }
            let look = |next: &Position| -> Result<(Wdl, Values), ProbeError> {
                if Material::of(next) != material || next.must_capture() {
                    return elsewhere(next);
                }
                match own(next)? {
                    Wdl::Draw => Ok((Wdl::Draw, drawn)),
                    wdl => Ok((wdl, (own_dtw(next), own_rule(next)?))),
                }
            };
            Ok(Some(combine(&pos, &look)?.1))
        })
        .collect::<Result<_, ProbeError>>()?;
    advance(positions - half);

    let captures = AtomicU64::new(0);
    let mismatches = AtomicU64::new(0);
    let examples = Mutex::new(Vec::new());
    (0..positions.div_ceil(CHUNK))
        .into_par_iter()
        .try_for_each(|c| {
            let range = c * CHUNK..((c + 1) * CHUNK).min(positions);
            let len = range.end - range.start;
            let mut cursor = index.cursor(range.start);
            for i in range {
                let pos = cursor.position();
                cursor.advance();
                if pos.must_capture() {
                    captures.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                let stored = own(&pos)?;
                // Every position's win/draw/loss is stored; its distance and rule value only
                // with White to move and not drawn.
                let holds_values = i < half && stored != Wdl::Draw;
                let look = |next: &Position| -> Result<(Wdl, Values), ProbeError> {
                    if Material::of(next) != material || next.must_capture() {
                        return elsewhere(next);
                    }
                    let wdl = own(next)?;
                    let j = index.rank(next);
                    let values = if j >= half {
                        black[(j - half) as usize].unwrap_or(drawn)
                    } else if wdl == Wdl::Draw {
                        drawn
                    } else {
                        (own_dtw(next), own_rule(next)?)
                    };
                    Ok((wdl, values))
                };
                let (expected, (expected_dtw, expected_rule)) = if holds_values {
                    combine(&pos, &look)?
                } else {
                    let mut best = Wdl::Loss;
                    for mv in &pos.legal_moves() {
                        best = best.max(-look(&pos.play(mv))?.0);
                    }
                    (best, drawn)
                };
                let (stored_dtw, stored_rule) = if holds_values {
                    (own_dtw(&pos), own_rule(&pos)?)
                } else {
                    drawn
                };
                if stored != expected || stored_dtw != expected_dtw || stored_rule != expected_rule
                {
                    mismatches.fetch_add(1, Ordering::Relaxed);
                    let mut list = examples
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    if list.len() < 5 {
                        list.push(format!(
                            "{}: stored {stored} ({stored_dtw}; {stored_rule}), successors say \
                             {expected} ({expected_dtw}; {expected_rule})",
                            pos.to_fen()
                        ));
                    }
                }
            }
            advance(len / 2);
            Ok::<(), ProbeError>(())
        })?;
    let mut examples = examples
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    examples.sort();
    Ok(VerifyReport {
        positions,
        capture_positions: captures.into_inner(),
        mismatches: mismatches.into_inner(),
        examples,
    })
}
