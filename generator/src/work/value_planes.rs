//! How a compressed chunk of full values (a band file's chunk, a packed file's block, both of
//! [`Kept::Full`](crate::work::values::Kept::Full)) lays out its positions before
//! compression: in three byte planes of one byte a position each, so that each plane holds
//! bytes alike and zstd finds long runs in it.
//!
//! - The *low plane*: the low 7 bits of the position's distance number (0 a draw, else the
//!   distance code plus 1), and the capture mark in the top bit.
//! - The *high plane*: the distance number's bits from the eighth on. Distance codes are at
//!   most [`MAX_DISTANCE`], so the number fits 15 bits; below 127 plies (every win of the sets
//!   up to 6 pieces) this plane is all zeros.
//! - The *rule plane*: the rule code exclusive-ored with the most frequent rule code of the
//!   position's kind (a draw's 0, a win in a count of 1's 3, a loss in a count of 1's 6; see
//!   [`RuleValue::code`](rafle_probe::RuleValue::code)), so that most of it is zeros.
//!
//! Each plane maps its values one to one, so whatever the values, they read back exactly; the
//! layout only decides how well they compress. Measured on the values of the Brazilian
//! materials up to 5 pieces packed by a run (26 million positions, zstd level 3, chunks of
//! 16,384 positions): 0.38 bytes a position with the capture marks and 0.34 without, against
//! 0.57 for the layout of a raw work file (little-endian distance codes, then rule codes).

use std::ops::Range;

use crate::work::values::{CAPTURE, DRAW};

#[cfg(doc)]
use crate::work::values::MAX_DISTANCE;

/// Whether a chunk keeps its positions' capture marks: a band file's does (its material's
/// tables are written from it), a packed file's does not (the materials that read it never
/// need them, and they take about a tenth of its bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Captures {
    Kept,
    Dropped,
}

/// The low plane's bit for the capture mark.
const CAPTURE_BIT: u8 = 0x80;

/// The most frequent rule code of a distance code's kind, exclusive-ored into the rule plane:
/// a draw's 0, a win's 3, a loss's 6. Without branches: the kinds of neighbouring positions
/// follow no pattern a branch predictor could learn.
#[inline(always)]
fn usual_rule_code(distance: u16) -> u8 {
    let odd = (distance & 1) as u8;
    (6 - 3 * odd) * u8::from(distance != DRAW)
}

/// Appends the layout of `codes` (distance codes with their capture marks) and their `rules`
/// to `out`: three planes of `codes.len()` bytes.
pub(crate) fn lay_out(codes: &[u16], rules: &[u8], captures: Captures, out: &mut Vec<u8>) {
    debug_assert_eq!(codes.len(), rules.len());
    let n = codes.len();
    let start = out.len();
    out.resize(start + 3 * n, 0);
    let (low, rest) = out[start..].split_at_mut(n);
    let (high, rule) = rest.split_at_mut(n);
    for (k, (&code, &rule_code)) in codes.iter().zip(rules).enumerate() {
        let distance = code & !CAPTURE;
        // A draw 0, a distance d (at most DRAW - 1) d + 1: at most 15 bits.
        let number = if distance == DRAW { 0 } else { distance + 1 };
        let mark = if captures == Captures::Kept && code & CAPTURE != 0 {
            CAPTURE_BIT
        } else {
            0
        };
        low[k] = (number & 0x7f) as u8 | mark;
        high[k] = (number >> 7) as u8;
        rule[k] = rule_code ^ usual_rule_code(distance);
    }
}

/// The distance code (with its capture mark, if kept) of position `at` of a chunk laid out by
/// [`lay_out`].
///
/// # Panics
///
/// If `at` is not a position of the chunk (its length was checked when it was read).
#[inline(always)]
pub(crate) fn code(chunk: &[u8], at: usize) -> u16 {
    let n = chunk.len() / 3;
    let (low, high) = (chunk[at], chunk[n + at]);
    decode(low, high)
}

/// The distance code of a low plane's byte and a high plane's byte.
#[inline(always)]
fn decode(low: u8, high: u8) -> u16 {
    let number = u16::from(low & !CAPTURE_BIT) | u16::from(high) << 7;
    // A draw's 0 wraps to DRAW.
    let distance = number.wrapping_sub(1) & !CAPTURE;
    distance | u16::from(low & CAPTURE_BIT) << 8
}

/// The distance code (as [`code`] gives it) and rule code of position `at` of a chunk laid out
/// by [`lay_out`].
///
/// # Panics
///
/// As [`code`].
#[inline(always)]
pub(crate) fn codes(chunk: &[u8], at: usize) -> (u16, u8) {
    let code = code(chunk, at);
    let rule = chunk[2 * (chunk.len() / 3) + at] ^ usual_rule_code(code & !CAPTURE);
    (code, rule)
}

/// Appends the distance codes (as [`code`] gives them) and rule codes of the positions `range`
/// of a chunk laid out by [`lay_out`] to `codes` and `rules`: a run read plane by plane, as
/// writing a table reads every position.
///
/// # Panics
///
/// If `range` is not within the chunk (its length was checked when it was read).
pub(crate) fn extend(chunk: &[u8], range: Range<usize>, codes: &mut Vec<u16>, rules: &mut Vec<u8>) {
    let n = chunk.len() / 3;
    let low = &chunk[range.clone()];
    let high = &chunk[n + range.start..n + range.end];
    let rule = &chunk[2 * n + range.start..2 * n + range.end];
    let start = codes.len();
    codes.extend(low.iter().zip(high).map(|(&low, &high)| decode(low, high)));
    rules.extend(
        codes[start..]
            .iter()
            .zip(rule)
            .map(|(&code, &r)| r ^ usual_rule_code(code & !CAPTURE)),
    );
}

/// Clears every position of `chunk` (laid out with [`Captures::Kept`]) whose side to move
/// need not capture to the zeros of a draw: what a band file keeps of the side to move its
/// material's tables store, whose other values are read from those tables
/// (`crate::work::bands::from_tables`). Only the captures' values, which the tables leave out,
/// are left, and the long runs of zeros compress to almost nothing.
pub(crate) fn keep_captures_alone(chunk: &mut [u8]) {
    keep_alone(chunk, |_, low| low & CAPTURE_BIT != 0);
}

/// Clears every position `k` of `chunk` (laid out with [`Captures::Kept`]) for which
/// `keep(k, low)` is false, `low` its byte of the low plane, to the zeros of a draw, its
/// capture mark cleared too.
pub(crate) fn keep_alone(chunk: &mut [u8], mut keep: impl FnMut(usize, u8) -> bool) {
    let n = chunk.len() / 3;
    let (low, rest) = chunk.split_at_mut(n);
    let (high, rule) = rest.split_at_mut(n);
    for k in 0..n {
        if !keep(k, low[k]) {
            (low[k], high[k], rule[k]) = (0, 0, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::work::values::MAX_DISTANCE;

    #[test]
    fn every_code_reads_back_as_laid_out() {
        // Every distance code with and without the capture mark, each with a run of rule codes.
        let distances: Vec<u16> = (0..=MAX_DISTANCE).chain([DRAW]).collect();
        let codes: Vec<u16> = distances.iter().flat_map(|&d| [d, d | CAPTURE]).collect();
        let rules: Vec<u8> = (0..codes.len()).map(|k| (k % 256) as u8).collect();
        let mut chunk = vec![0xAA];
        lay_out(&codes, &rules, Captures::Kept, &mut chunk);
        let chunk = &chunk[1..];
        assert_eq!(chunk.len(), 3 * codes.len());
        for (at, (&c, &r)) in codes.iter().zip(&rules).enumerate() {
            assert_eq!(super::codes(chunk, at), (c, r), "position {at}");
            assert_eq!(code(chunk, at), c);
        }
        // A run read whole, from a position inside the chunk.
        let (mut run_codes, mut run_rules) = (vec![7], vec![9]);
        extend(chunk, 5..codes.len(), &mut run_codes, &mut run_rules);
        assert_eq!(run_codes[1..], codes[5..]);
        assert_eq!(run_rules[1..], rules[5..]);
        assert_eq!((run_codes[0], run_rules[0]), (7, 9));
        let mut dropped = Vec::new();
        lay_out(&codes, &rules, Captures::Dropped, &mut dropped);
        for (at, (&c, &r)) in codes.iter().zip(&rules).enumerate() {
            assert_eq!(
                super::codes(&dropped, at),
                (c & !CAPTURE, r),
                "position {at}"
            );
        }
    }

    #[test]
    fn keeping_the_captures_alone_leaves_their_values_and_draws_the_rest() {
        let codes = [5, 7 | CAPTURE, 2, DRAW | CAPTURE, 300];
        let rules = [9, 11, 8, 0, 3];
        let mut chunk = Vec::new();
        lay_out(&codes, &rules, Captures::Kept, &mut chunk);
        keep_captures_alone(&mut chunk);
        let read: Vec<_> = (0..codes.len())
            .map(|at| super::codes(&chunk, at))
            .collect();
        assert_eq!(
            read,
            [
                (DRAW, 0),
                (7 | CAPTURE, 11),
                (DRAW, 0),
                (DRAW | CAPTURE, 0),
                (DRAW, 0)
            ]
        );
    }

    #[test]
    fn the_usual_values_lay_out_as_zeros() {
        // A draw, a win in 1 and a loss in 0 with their usual rule codes: zeros but the low
        // plane's distance numbers (and, kept, the capture mark).
        let codes = [DRAW, 1, 0, 1 | CAPTURE];
        let rules = [0, 3, 6, 3];
        let mut chunk = Vec::new();
        lay_out(&codes, &rules, Captures::Kept, &mut chunk);
        assert_eq!(chunk, [0, 2, 1, 0x82, 0, 0, 0, 0, 0, 0, 0, 0]);
        // A distance of 127 plies and more reaches the high plane.
        let mut long = Vec::new();
        lay_out(&[127, 300], &[255, 1], Captures::Dropped, &mut long);
        assert_eq!(long, [0, 45, 1, 2, 255 ^ 3, 1 ^ 6]);
    }
}
