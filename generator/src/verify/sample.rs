//! The check of a random sample of a material's positions, for a quick look: each position
//! drawn is checked as the full walk checks it, its successors' values probed one by one.
//!
//! The probe gives a successor with Black to move in a symmetric material the value its table
//! stores for the mirror image, where the full walk derives it from the successor's own moves;
//! the two agree unless the table is wrong at that mirror image, which the full walk reports there.

use std::collections::HashSet;

use rafle_probe::toolkit::codec::{Codec, DtwCodec};
use rafle_probe::{
    draughts::{resets_counter, Material, Variant},
    ProbeError,
};
use rayon::prelude::*;

use super::codes::{Codes, Successor};
use super::context::Context;
use super::Tally;

/// Positions checked per unit of parallel work.
const BATCH: usize = 64;

/// Checks `count` positions of `ctx`'s material (fewer than it holds), drawn without repeats
/// by a generator seeded from `seed` and the material, calling `advance` with the number of
/// positions done as work goes on.
pub(super) fn verify(
    ctx: &Context,
    count: u64,
    seed: u64,
    advance: &(dyn Fn(u64) + Sync),
) -> Result<Tally, ProbeError> {
    let main = &ctx.parts[0];
    let variant = main.index.variant();
    let drawn = draw(main.index.size(), count, seed ^ key(variant, main.material));
    let tallies = drawn
        .par_chunks(BATCH)
        .map(|list| {
            let mut tally = Tally::default();
            let mut successors = Vec::new();
            for &i in list {
                check(ctx, i, &mut successors, &mut tally)?;
            }
            advance(list.len() as u64);
            Ok(tally)
        })
        .collect::<Result<Vec<_>, ProbeError>>()?;
    let mut tally = Tally::default();
    for t in tallies {
        tally.merge(t);
    }
    Ok(tally)
}

/// Checks position `i`: its stored values against its successors' probed values.
fn check(
    ctx: &Context,
    i: u64,
    successors: &mut Vec<Successor>,
    tally: &mut Tally,
) -> Result<(), ProbeError> {
    let main = &ctx.parts[0];
    let pos = main.index.unrank(i);
    let moves = pos.legal_moves();
    if moves.first().is_some_and(|m| m.is_capture()) {
        tally.capture();
        return Ok(());
    }
    // Nothing is stored for the other half: its values are what its successors give.
    if !main.in_stored_half(i) && !main.wdl_both {
        tally.quiet(i, None);
        return Ok(());
    }
    // The position is in its table's orientation, so the stored values read are its own.
    let wdl = ctx.tables.stored_wdl(&pos)?;
    let full = main.holds(i, wdl);
    let stored = if full {
        Codes {
            wdl: wdl.code(),
            dtw: DtwCodec::encode(ctx.tables.stored_dtw(&pos)?, 16),
            rule: ctx.tables.stored_draw_rules(&pos)?.code(),
        }
    } else {
        Codes {
            wdl: wdl.code(),
            ..Codes::DRAW
        }
    };
    successors.clear();
    for mv in &moves {
        let next = pos.play(mv);
        let values = ctx.probe(&next, full)?;
        successors.push((Codes::of(values), resets_counter(&pos, mv, &next)));
    }
    let mismatch = main.compare(i, &pos, stored, successors)?;
    tally.quiet(i, mismatch);
    Ok(())
}

/// A number telling materials and variants apart, so that each draws its own positions.
fn key(variant: Variant, m: Material) -> u64 {
    let counts = [m.white_men, m.white_kings, m.black_men, m.black_kings];
    let packed = counts
        .iter()
        .fold(variant.ordinal() as u64, |acc, &c| acc << 8 | u64::from(c));
    splitmix(packed)
}

/// One step of SplitMix64: a well mixed function of `x`.
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `count` distinct indices below `n` (`count <= n`), in increasing order, drawn from `seed`
/// (Floyd's algorithm: one draw per index, whatever the repeats).
fn draw(n: u64, count: u64, seed: u64) -> Vec<u64> {
    let mut state = seed;
    let mut chosen = HashSet::with_capacity(count as usize);
    for j in n - count..n {
        state = splitmix(state);
        // A number in 0..=j, by the high half of a 128-bit product.
        let t = ((u128::from(state) * (u128::from(j) + 1)) >> 64) as u64;
        if !chosen.insert(t) {
            chosen.insert(j);
        }
    }
    let mut drawn: Vec<u64> = chosen.into_iter().collect();
    drawn.sort_unstable();
    drawn
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_distinct_indices_deterministically() {
        let a = draw(1000, 300, 7);
        assert_eq!(a.len(), 300);
        assert!(a.windows(2).all(|w| w[0] < w[1]) && a[299] < 1000);
        assert_eq!(a, draw(1000, 300, 7));
        assert_ne!(a, draw(1000, 300, 8));
        assert_eq!(draw(10, 10, 1), (0..10).collect::<Vec<_>>());
    }
}
