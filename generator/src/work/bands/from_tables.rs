//! The side to move a finished material's tables store, read from those tables instead of its
//! band files.
//!
//! Once a material's tables are written and checked, its `.wdl`, `.dtw` and `.rules` tables
//! hold the values of every position of one side to move (the *stored side*) whose side to
//! move need not capture. Its band files, kept for the materials that read it, then keep of
//! that side only the positions that must capture (the tables leave them out); every other
//! position of it is cleared to zeros
//! ([`crate::work::value_planes::keep_captures_alone`]), which compress to almost nothing,
//! and the files take an identity of their own ([`identity_from_tables`]). A read of such a
//! position finds no capture mark in its chunk and reads the tables instead, their blocks
//! kept decompressed in the same cache as the band files' chunks: its `.wdl` code, and unless
//! drawn its `.dtw` and `.rules` codes.
//!
//! Every table block is checked (crc32, length) as it is read, and a value no code has is an
//! error, never a value; a band file with this identity is opened only with its material's
//! tables storing the side it names.

use std::sync::atomic::Ordering;

use rafle_probe::toolkit::cache::block_key;
use rafle_probe::toolkit::codec::{read_code, Codec, DrawRulesCodec, DtwCodec, WdlCodec};
use rafle_probe::toolkit::format::{StoredHalf, TableKind};
use rafle_probe::toolkit::{PositionIndex, Table, VariantDir};
use rafle_probe::{Dtw, ProbeError, Wdl};

use super::NEXT_VALUES;
use crate::work::packed::{read_cached, SharedCache};
use crate::work::sides::Sides;
use crate::work::values::{distance_code, DRAW};
use crate::GenerateError;

/// The identity of band files of the request `identity` whose side `white` (White to move,
/// else Black) is read from the material's tables.
pub(crate) fn identity_from_tables(identity: &str, white: bool) -> String {
    let side = if white { "white" } else { "black" };
    format!("{identity}, {side} to move from its tables")
}

/// The values of the side to move a finished material's tables store, for its positions that
/// need not capture, read from those tables.
#[derive(Debug)]
pub(crate) struct StoredSide {
    /// Whether the side is White to move (the first half of the index).
    white: bool,
    /// Positions of a side to move: half the index.
    half: u64,
    /// Positions of a table block, the same in the three tables.
    per_block: u64,
    wdl: Table,
    dtw: Table,
    rules: Table,
    /// Its numbers in the cache's keys: this one for the `.wdl` table's blocks, the next
    /// for the `.dtw` table's and the one after for the `.rules` table's.
    id: u32,
}

impl StoredSide {
    /// The side the tables of `index`'s material in `tables` store, if they store one side
    /// to move in the `.dtw` and `.rules` tables and it or both in the `.wdl` table (a
    /// symmetric material's tables store White to move).
    ///
    /// # Errors
    ///
    /// [`GenerateError::Table`] if one of the three tables cannot be opened, is damaged or
    /// stores another side than the others.
    pub(crate) fn open(
        tables: &VariantDir,
        index: &PositionIndex,
    ) -> Result<StoredSide, GenerateError> {
        let (variant, material) = (index.variant(), index.material());
        let failed = |source| GenerateError::Table {
            variant,
            material,
            source,
        };
        let open = |kind| Table::open(&tables.table(material, kind), kind, variant, material);
        let (wdl, dtw, rules) = (
            open(TableKind::Wdl).map_err(failed)?,
            open(TableKind::Dtw).map_err(failed)?,
            open(TableKind::DrawRules).map_err(failed)?,
        );
        let stored = dtw.header().stored;
        let white = match stored {
            StoredHalf::White => true,
            StoredHalf::Black => false,
            StoredHalf::Both => return Err(failed(mixed(&dtw, &wdl))),
        };
        let wdl_stored = wdl.header().stored;
        if rules.header().stored != stored
            || !(wdl_stored == stored || wdl_stored == StoredHalf::Both)
        {
            return Err(failed(mixed(&wdl, &rules)));
        }
        let per_block = dtw.header().positions_per_block;
        if let Some(other) = [&wdl, &dtw, &rules].into_iter().find(|t| {
            t.header().positions != index.size() || t.header().positions_per_block != per_block
        }) {
            return Err(failed(ProbeError::Corrupted {
                path: other.path().to_path_buf(),
                reason: format!(
                    "not {} positions in blocks of {per_block} as {} holds",
                    index.size(),
                    dtw.path().display()
                ),
            }));
        }
        Ok(StoredSide {
            white,
            half: index.size() / 2,
            per_block: u64::from(per_block),
            wdl,
            dtw,
            rules,
            id: NEXT_VALUES.fetch_add(3, Ordering::Relaxed),
        })
    }

    /// The side to move its values are of.
    pub(crate) fn side(&self) -> Sides {
        if self.white {
            Sides::WHITE
        } else {
            Sides::BLACK
        }
    }

    /// Whether position `i` is of the stored side.
    #[inline(always)]
    pub(crate) fn holds(&self, i: u64) -> bool {
        (i < self.half) == self.white
    }

    /// Its numbers in the cache's keys: one for each table.
    pub(crate) fn ids(&self) -> std::ops::Range<u32> {
        self.id..self.id + 3
    }

    /// The distance code and rule code of position `i`, of the stored side, whose side to
    /// move need not capture: a draw from the `.wdl` table alone (the other two leave draws
    /// out).
    ///
    /// # Errors
    ///
    /// [`GenerateError::Table`] if a block of the tables is damaged or holds a code no value
    /// has at `i`.
    #[inline]
    pub(crate) fn codes(&self, i: u64, cache: &SharedCache) -> Result<(u16, u8), GenerateError> {
        let Some(distance) = self.distance(i, cache)? else {
            return Ok((DRAW, 0));
        };
        let code = self.code(&self.rules, 2, i, cache)?;
        match DrawRulesCodec::decode(code, self.rules.header().bits) {
            Some(rule) => Ok((distance_code(distance), rule.code())),
            None => Err(self.no_value(i)),
        }
    }

    /// The distance code of position `i` alone, as [`StoredSide::codes`] gives it.
    ///
    /// # Errors
    ///
    /// As [`StoredSide::codes`].
    #[inline]
    pub(crate) fn distance_code(&self, i: u64, cache: &SharedCache) -> Result<u16, GenerateError> {
        Ok(self.distance(i, cache)?.map_or(DRAW, distance_code))
    }

    /// The distance to win of position `i`, `None` for a draw.
    #[inline]
    fn distance(&self, i: u64, cache: &SharedCache) -> Result<Option<Dtw>, GenerateError> {
        let wdl = WdlCodec::decode(self.code(&self.wdl, 0, i, cache)?, self.wdl.header().bits);
        match wdl {
            Some(Wdl::Draw) => Ok(None),
            Some(_) => {
                let code = self.code(&self.dtw, 1, i, cache)?;
                match DtwCodec::decode(code, self.dtw.header().bits) {
                    Some(Dtw::Draw) | None => Err(self.no_value(i)),
                    Some(distance) => Ok(Some(distance)),
                }
            }
            None => Err(self.no_value(i)),
        }
    }

    /// The code of position `i` in `table`, the `kind`th of the three: its block read
    /// through `cache` (checked and decompressed when it is not there).
    #[inline(always)]
    fn code(
        &self,
        table: &Table,
        kind: u32,
        i: u64,
        cache: &SharedCache,
    ) -> Result<u16, GenerateError> {
        let block = (i / self.per_block) as u32;
        let at = (i % self.per_block) as usize;
        let bits = table.header().bits;
        read_cached(
            block_key(self.id + kind, block),
            cache,
            || table.read_block(block).map_err(|e| failed(table, e)),
            |block| read_code(block, bits, at),
        )
    }

    /// The error for position `i`, whose codes in the tables decode to no value.
    #[cold]
    fn no_value(&self, i: u64) -> GenerateError {
        let source = ProbeError::Corrupted {
            path: self.dtw.path().to_path_buf(),
            reason: format!("no value at position {i}"),
        };
        failed(&self.dtw, source)
    }
}

/// The error for `table`, of the material whose values are read, failing with `source`.
#[cold]
fn failed(table: &Table, source: ProbeError) -> GenerateError {
    GenerateError::Table {
        variant: table.header().variant,
        material: table.header().material,
        source,
    }
}

/// The error for tables of one material that store different sides (or a `.dtw` table that
/// stores both, which none does).
fn mixed(one: &Table, other: &Table) -> ProbeError {
    let header = one.header();
    ProbeError::MixedHalves {
        variant: header.variant,
        material: header.material,
        first: (one.path().to_path_buf(), header.stored),
        second: (other.path().to_path_buf(), other.header().stored),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::work::bands::{open_finished, Kept};
    use crate::work::values::{distance, CAPTURE};
    use crate::{generate, GenerateError, Plan, Progress};
    use rafle_probe::draughts::{Counters, Material, Variant};
    use rafle_probe::Tablebase;
    use std::sync::atomic::AtomicBool;

    /// Stops a run as `material` starts: the band files the run keeps for later readers of
    /// the materials before it are left as they are.
    struct StopAt(&'static str, AtomicBool);

    impl Progress for StopAt {
        fn material_started(&self, _: Variant, material: Material, _: u64) {
            if material.to_string() == self.0 {
                self.1.store(true, Ordering::SeqCst);
            }
        }

        fn should_stop(&self) -> bool {
            self.1.load(Ordering::SeqCst)
        }
    }

    #[test]
    fn band_files_read_their_stored_side_from_the_tables_as_the_probe_finds_it() {
        let dir = tempfile::tempdir().unwrap();
        let variant = Variant::Brazilian;
        // Stopped halfway through Brazilian up to 5, many materials with men and kings wait
        // for their readers.
        let mut plan = Plan::new(variant, 5, dir.path()).unwrap();
        plan.stored_side_from_pieces = 4;
        let halfway = &plan.materials[plan.materials.len() / 2];
        let halfway = halfway.material.to_string().leak();
        let err = generate(&plan, &StopAt(halfway, AtomicBool::new(false))).unwrap_err();
        assert!(matches!(err, GenerateError::Stopped), "{err}");
        let tables = Tablebase::open(dir.path()).unwrap();
        let (mut from_tables, mut checked) = (0, 0u64);
        for m in &plan.materials {
            let index = PositionIndex::new(variant, m.material);
            let Some(values) = open_finished(
                &index,
                &plan.packed_identity(m),
                Kept::Full,
                &plan.directory().work_files(m.material, plan.tables),
                || crate::solve::bands(&index).len(),
                Sides::NONE,
                &plan.directory(),
            ) else {
                continue;
            };
            let Some(stored) = values.stored_side() else {
                continue;
            };
            from_tables += 1;
            let held = values.held_sides();
            assert!(held.contains(stored.side()), "{}", m.material);
            let cache = SharedCache::new(1 << 24);
            // Some 100,000 positions of each, spread over the whole index.
            let step = (index.size() / 100_000).max(1) | 1;
            for i in (0..index.size()).step_by(step as usize) {
                let pos = index.unrank(i);
                let white = i < index.size() / 2;
                if !held.contains(if white { Sides::WHITE } else { Sides::BLACK }) {
                    continue;
                }
                let (code, rule) = values.codes(i, &cache).unwrap();
                assert_eq!(code & CAPTURE != 0, pos.must_capture(), "{}", pos.to_fen());
                assert_eq!(values.distance_code(i, &cache).unwrap(), code);
                let expected = (
                    tables.probe_dtw(&pos).unwrap(),
                    tables
                        .probe_draw_rules(&pos, Counters::FRESH)
                        .unwrap()
                        .value
                        .code(),
                );
                assert_eq!(
                    (distance(code), rule),
                    expected,
                    "{} {}",
                    m.material,
                    pos.to_fen()
                );
                checked += 1;
            }
        }
        // Several materials kept for later readers, their stored side read from the tables.
        assert!(from_tables >= 3, "{from_tables}");
        assert!(checked > 100_000, "{checked}");
    }
}
