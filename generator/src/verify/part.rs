//! One material of a verification (a [`Part`]): its tables, index, draw-rule limit and pages,
//! and the comparison of a position's stored values with those its successors give.

use rafle_probe::toolkit::codec::{Codec, DrawRulesCodec, DtwCodec, Entry, WdlCodec};
use rafle_probe::toolkit::format::{StoredHalf, TableKind};
use rafle_probe::{
    draughts::{Category, Limits, Material, Position, Variant},
    toolkit::{PositionIndex, Table},
    Dtw, ProbeError, RuleValue, Tablebase, Wdl,
};

use super::codes::{Codes, Successor};
use super::pages::Layout;
use super::rank::Ranker;
use super::walker::Walker;
use crate::probed::Values;

/// One material whose pages the walk makes.
#[derive(Debug)]
pub(super) struct Part<'a> {
    /// The material, in its stored orientation.
    pub material: Material,
    /// Its index.
    pub index: &'a PositionIndex,
    /// Its index from bitboards.
    pub ranker: Ranker,
    /// Its win/draw/loss table.
    pub wdl: &'a Table,
    /// Its distance-to-win table.
    pub dtw: &'a Table,
    /// Its draw-rule table.
    pub rules: &'a Table,
    /// The draw-rule limit of its category.
    pub limit: u8,
    /// Positions with White to move: the first half of the index.
    pub half: u64,
    /// The half of the index its distance and rule tables store; the other is derived from it.
    pub stored: StoredHalf,
    /// Whether its win/draw/loss table stores both halves (else the same as the others).
    pub wdl_both: bool,
    /// Its pages.
    pub layout: Layout,
    /// The number of its first page among the pages of every part.
    pub first_page: u32,
    /// Whether a man move that stays in the material resets the counter: outside the 6.3 and
    /// 6.4 categories (inside, only leaving the category does).
    pub man_moves_reset: bool,
}

impl<'a> Part<'a> {
    /// Opens `material`'s three tables (header and block index checked), its pages numbered
    /// from `first_page`.
    pub fn open(
        tables: &'a Tablebase,
        variant: Variant,
        material: Material,
        limits: Limits,
        first_page: u32,
    ) -> Result<Part<'a>, ProbeError> {
        let wdl = tables.table(variant, material)?;
        let dtw = tables.table_of(TableKind::Dtw, variant, material)?;
        let rules = tables.table_of(TableKind::DrawRules, variant, material)?;
        let category = Category::of(variant, material);
        let index = wdl.index();
        let stored = dtw.header().stored;
        let wdl_both = wdl.header().stored == StoredHalf::Both;
        for table in [wdl, rules] {
            let other = table.header().stored;
            if other != stored && !(wdl_both && table.header().kind == TableKind::Wdl) {
                return Err(ProbeError::Corrupted {
                    path: table.path().to_path_buf(),
                    reason: format!("stores {other}, its distance table {stored}"),
                });
            }
        }
        Ok(Part {
            material,
            index,
            ranker: Ranker::new(variant, material),
            wdl,
            dtw,
            rules,
            limit: limits.of(category),
            half: index.size() / 2,
            stored,
            wdl_both,
            layout: Layout::new(index.size()),
            first_page,
            man_moves_reset: category == Category::Outside,
        })
    }

    /// The position at `walker`, one of this part's.
    ///
    /// # Errors
    ///
    /// [`ProbeError::Corrupted`] if the index names no position, which cannot happen for an
    /// index below the table's size.
    pub fn position(&self, walker: &Walker) -> Result<Position, ProbeError> {
        walker.position().ok_or_else(|| ProbeError::Corrupted {
            path: self.wdl.path().to_path_buf(),
            reason: format!("index {} names no position", walker.index()),
        })
    }

    /// The page of position `i` among the pages of every part, and its offset there.
    #[inline]
    pub fn locate(&self, i: u64) -> (u32, usize) {
        let (page, offset) = self.layout.locate(i);
        (self.first_page + page, offset)
    }

    /// Whether position `i`, whose side to move need not capture and whose win/draw/loss value
    /// is `wdl`, has its distance and rule value stored: of the stored half and not drawn.
    #[inline]
    pub fn holds(&self, i: u64, wdl: Wdl) -> bool {
        let positions = self.index.size() as usize;
        TableKind::Dtw.holds(Entry::at_index(
            i as usize,
            positions,
            self.stored,
            false,
            wdl == Wdl::Draw,
        ))
    }

    /// Whether position `i` is of the half of the index the tables store.
    #[inline]
    pub fn in_stored_half(&self, i: u64) -> bool {
        self.stored.contains(i as usize, self.index.size() as usize)
    }

    /// Whether page `page` (numbered within this part) holds positions of the stored half.
    #[inline]
    pub fn is_stored_page(&self, page: u32) -> bool {
        self.layout.is_white(page) != (self.stored == StoredHalf::Black)
    }

    /// The pages of the stored half and of the derived one, numbered within this part.
    pub fn stored_and_derived_pages(&self) -> (std::ops::Range<u32>, std::ops::Range<u32>) {
        let white = 0..self.layout.white;
        let black = self.layout.white..self.layout.pages();
        if self.stored == StoredHalf::Black {
            (black, white)
        } else {
            (white, black)
        }
    }

    /// The values successors give: the best of their negated values, the quickest win or
    /// longest loss, and the rule value under the material's limit; only the first when not
    /// `full` (the others those of a draw).
    pub fn combine(&self, successors: &[Successor], full: bool) -> Values {
        let limit = self.limit;
        let wdl = WdlCodec::from_successors(limit, successors.iter().map(|&(c, r)| (c.wdl(), r)));
        if !full {
            return Values {
                wdl,
                ..Values::DRAW
            };
        }
        Values {
            wdl,
            dtw: DtwCodec::from_successors(limit, successors.iter().map(|&(c, r)| (c.dtw(), r))),
            rule: DrawRulesCodec::from_successors(
                limit,
                successors.iter().map(|&(c, r)| (c.rule(), r)),
            ),
        }
    }

    /// The values position `i`, whose side to move need not capture, stores as `stored` holds
    /// its codes, and whether it holds a distance and a rule value ([`Part::holds`]); those of
    /// a draw when it does not.
    ///
    /// # Errors
    ///
    /// [`ProbeError::Corrupted`] for a stored code no table holds.
    pub fn stored_values(&self, i: u64, stored: Codes) -> Result<(Values, bool), ProbeError> {
        let wdl = WdlCodec::decode(u16::from(stored.wdl), 2).ok_or_else(|| {
            ProbeError::invalid_code(TableKind::Wdl, self.wdl.path(), u16::from(stored.wdl))
        })?;
        if !self.holds(i, wdl) {
            let values = Values {
                wdl,
                ..Values::DRAW
            };
            return Ok((values, false));
        }
        let rule = RuleValue::from_code(stored.rule).ok_or_else(|| {
            ProbeError::invalid_code(
                TableKind::DrawRules,
                self.rules.path(),
                u16::from(stored.rule),
            )
        })?;
        let values = Values {
            wdl,
            dtw: DtwCodec::decode(stored.dtw, 16).unwrap_or(Dtw::Draw),
            rule,
        };
        Ok((values, true))
    }

    /// Checks position `i`, `pos`, whose side to move need not capture: `stored` are its codes
    /// as its tables hold them (the distance and rule codes only read with White to move and not
    /// drawn, where the tables hold them) and `successors` all its successors (with the distance
    /// and rule values when those are read). Returns the example of a mismatch.
    ///
    /// # Errors
    ///
    /// [`ProbeError::Corrupted`] for a stored code no table holds.
    pub fn compare(
        &self,
        i: u64,
        pos: &Position,
        stored: Codes,
        successors: &[Successor],
    ) -> Result<Option<String>, ProbeError> {
        let (stored, holds) = self.stored_values(i, stored)?;
        let expected = self.combine(successors, holds);
        if stored == expected {
            return Ok(None);
        }
        Ok(Some(format!(
            "{}: stored {} ({}; {}), successors say {} ({}; {})",
            pos.to_fen(),
            stored.wdl,
            stored.dtw,
            stored.rule,
            expected.wdl,
            expected.dtw,
            expected.rule
        )))
    }
}
