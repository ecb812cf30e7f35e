//! What checking one position needs: the materials involved (the one verified and those its
//! captures reach), each with its tables, index, draw-rule limit and pages; the values of a
//! position's successors (from pages, or through [`Outside`]); and the comparison of a position's
//! stored values with those its successors give.

use rafle_probe::codec::{Codec, DrawRulesCodec, DtwCodec, Entry, WdlCodec};
use rafle_probe::format::TableKind;
use rafle_probe::{
    resets_counter, Category, Counters, Dtw, Limits, Material, Move, Position, PositionIndex,
    ProbeError, RuleValue, Table, Tablebase, Variant, Wdl,
};

use super::outside::{Local, Outside};
use super::pages::Layout;
use super::rank::{Pieces, Ranker};
use super::walker::Walker;

/// The code of a drawn position in the 16-bit distance codes kept in memory.
pub(super) const DTW_DRAW: u16 = u16::MAX;

/// A position's three values as kept in memory: the win/draw/loss code, the draw-rule code and
/// the distance code (always 16 bits wide, whatever the table's width, so that a derived
/// distance never meets the draw code of an 8-bit table), in 4 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub(super) struct Codes {
    /// [`Wdl::code`]; an invalid code reads as a draw, as the probe of a successor would have
    /// failed on it while the position itself is reported when it is checked.
    pub wdl: u8,
    /// [`RuleValue::code`]; an invalid code reads as a draw, as for `wdl`.
    pub rule: u8,
    /// The distance in plies, [`DTW_DRAW`] for a draw.
    pub dtw: u16,
}

impl Codes {
    /// Every code zero: what a page holds before it is read.
    pub const ZERO: Codes = Codes {
        wdl: 0,
        rule: 0,
        dtw: 0,
    };

    /// The codes of a drawn position.
    pub const DRAW: Codes = Codes {
        wdl: 0,
        rule: 0,
        dtw: DTW_DRAW,
    };

    /// The codes of `values`.
    pub fn of(values: Values) -> Codes {
        Codes {
            wdl: values.wdl.code(),
            rule: values.rule.code(),
            dtw: DtwCodec::encode(values.dtw, 16),
        }
    }

    /// The values.
    #[inline]
    pub fn values(self) -> Values {
        Values {
            wdl: WdlCodec::decode(u16::from(self.wdl), 2).unwrap_or(Wdl::Draw),
            dtw: DtwCodec::decode(self.dtw, 16).unwrap_or(Dtw::Draw),
            rule: RuleValue::from_code(self.rule).unwrap_or(RuleValue::DRAW),
        }
    }
}

/// A distance code of a table `bits` wide as a 16-bit code.
#[inline]
pub(super) fn widen_dtw(code: u16, bits: u8) -> u16 {
    if code == DtwCodec::draw_code(bits) {
        DTW_DRAW
    } else {
        code
    }
}

/// A position's value in each table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Values {
    /// Win, draw or loss.
    pub wdl: Wdl,
    /// Distance to win.
    pub dtw: Dtw,
    /// Class and count under the draw rules.
    pub rule: RuleValue,
}

impl Values {
    /// A drawn position's values.
    pub const DRAW: Values = Values {
        wdl: Wdl::Draw,
        dtw: Dtw::Draw,
        rule: RuleValue::DRAW,
    };

    /// The values of a position whose side to move has no piece: lost at once.
    pub const NO_PIECE: Values = Values {
        wdl: Wdl::Loss,
        dtw: Dtw::Loss(0),
        rule: RuleValue::NO_MOVE,
    };
}

/// A successor's values and whether the move to it resets the draw-rule counter.
pub(super) type Successor = (Values, bool);

/// Where a capture leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    /// To a position whose side to move has no piece left.
    NoPiece,
    /// To the position of this index of this part; whether the capture resets the counter.
    At(usize, u64, bool),
    /// To a material with no part.
    Elsewhere,
}

/// One material whose pages the walk makes: the one verified, or one its captures reach.
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
    /// Its pages.
    pub layout: Layout,
    /// The number of its first page among the pages of every part.
    pub first_page: u32,
    /// Whether a man move that stays in the material resets the counter: outside the 6.3 and
    /// 6.4 categories (inside, only leaving the category does).
    man_moves_reset: bool,
}

impl<'a> Part<'a> {
    /// Opens `material`'s three tables (header and block index checked), its pages numbered
    /// from `first_page`.
    fn open(
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
        Ok(Part {
            material,
            index,
            ranker: Ranker::new(variant, material),
            wdl,
            dtw,
            rules,
            limit: limits.of(category),
            half: index.size() / 2,
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
    /// is `wdl`, has its distance and rule value stored: White to move and not drawn.
    #[inline]
    pub fn holds(&self, i: u64, wdl: Wdl) -> bool {
        let positions = self.index.size() as usize;
        TableKind::Dtw.holds(Entry::at_index(
            i as usize,
            positions,
            false,
            wdl == Wdl::Draw,
        ))
    }

    /// The values successors give: the best of their negated values, the quickest win or
    /// longest loss, and the rule value under the material's limit; only the first when not
    /// `full` (the others those of a draw).
    pub fn combine(&self, successors: &[Successor], full: bool) -> Values {
        let wdl =
            WdlCodec::from_successors(self.limit, successors.iter().map(|&(v, r)| (v.wdl, r)));
        if !full {
            return Values {
                wdl,
                ..Values::DRAW
            };
        }
        Values {
            wdl,
            dtw: DtwCodec::from_successors(self.limit, successors.iter().map(|&(v, r)| (v.dtw, r))),
            rule: DrawRulesCodec::from_successors(
                self.limit,
                successors.iter().map(|&(v, r)| (v.rule, r)),
            ),
        }
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
        let wdl = WdlCodec::decode(u16::from(stored.wdl), 2).ok_or_else(|| {
            ProbeError::invalid_code(TableKind::Wdl, self.wdl.path(), u16::from(stored.wdl))
        })?;
        let holds = self.holds(i, wdl);
        let stored = if holds {
            let rule = RuleValue::from_code(stored.rule).ok_or_else(|| {
                ProbeError::invalid_code(
                    TableKind::DrawRules,
                    self.rules.path(),
                    u16::from(stored.rule),
                )
            })?;
            Values {
                wdl,
                dtw: DtwCodec::decode(stored.dtw, 16).unwrap_or(Dtw::Draw),
                rule,
            }
        } else {
            Values {
                wdl,
                ..Values::DRAW
            }
        };
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

/// The material verified and those its captures reach.
#[derive(Debug)]
pub(super) struct Context<'a> {
    /// Every table, for the successors in no part.
    pub tables: &'a Tablebase,
    /// The values of the successors in no part.
    pub outside: Outside<'a>,
    /// The material verified first, then those captures from it reach (one capture or more),
    /// each once, by decreasing number of pieces.
    pub parts: Vec<Part<'a>>,
    /// The board.
    variant: Variant,
    /// Squares on the board.
    squares: u32,
    /// The promotion rows, numbered bitboards: White's, then Black's.
    promotion: [u64; 2],
}

impl<'a> Context<'a> {
    /// Opens `material`'s tables, and with `targets` those of the materials its captures
    /// reach, directly or through other captures (header and block index checked).
    ///
    /// # Errors
    ///
    /// A [`ProbeError`] opening a table, [`ProbeError::Corrupted`] if the variant's rule tables
    /// record no limits.
    pub fn open(
        tables: &'a Tablebase,
        variant: Variant,
        material: Material,
        targets: bool,
    ) -> Result<Context<'a>, ProbeError> {
        let limits = tables.limits(variant)?.ok_or_else(|| {
            let path = tables.table_of(TableKind::DrawRules, variant, material);
            ProbeError::Corrupted {
                path: path.map_or_else(|_| tables.dir().to_path_buf(), |t| t.path().to_path_buf()),
                reason: "a rule table without limits".to_string(),
            }
        })?;
        // Every material captures lead to, however many captures away, the material verified
        // first and then by fewer pieces: a page's captures lie in later parts.
        let mut materials = vec![material];
        let mut k = 0;
        while targets && k < materials.len() {
            for target in capture_targets(materials[k]) {
                // A missing table is reported when a capture reaches it, as the probe does.
                if !materials.contains(&target) && tables.table(variant, target).is_ok() {
                    materials.push(target);
                }
            }
            k += 1;
        }
        materials[1..].sort_by_key(|m| (std::cmp::Reverse(m.pieces()), *m));
        let mut parts: Vec<Part> = Vec::with_capacity(materials.len());
        for m in materials {
            let first_page = parts.last().map_or(0, |p| p.first_page + p.layout.pages());
            parts.push(Part::open(tables, variant, m, limits, first_page)?);
        }
        let squares = u32::from(variant.square_count());
        let row = u32::from(variant.squares_per_row());
        let first_row = (1u64 << row) - 1;
        Ok(Context {
            tables,
            outside: Outside::new(tables, limits),
            parts,
            variant,
            squares,
            promotion: [first_row, first_row << (squares - row)],
        })
    }

    /// The material verified.
    pub fn main(&self) -> &Part<'a> {
        &self.parts[0]
    }

    /// Pages of every part.
    pub fn pages(&self) -> u32 {
        self.parts
            .last()
            .map_or(0, |p| p.first_page + p.layout.pages())
    }

    /// The part holding page `page` (numbered among every part's pages) and the page's number
    /// in it.
    pub fn part_of_page(&self, page: u32) -> (usize, u32) {
        let k = self
            .parts
            .partition_point(|p| p.first_page <= page)
            .saturating_sub(1);
        (k, page - self.parts[k].first_page)
    }

    /// Where the capture `mv` of the position of `part` with bitboards `pieces` leads: the
    /// position's part (one of the targets, in its stored orientation) and index, or no part.
    /// The same as playing the move and ranking the result, on the bitboards alone.
    pub fn capture_target(&self, part: &Part, pieces: &Pieces, mv: &Move) -> Target {
        let from = 1u64 << (mv.from().number() - 1);
        let to = 1u64 << (mv.to().number() - 1);
        let taken = mv.captured().to_numbered_bits();
        let black = pieces.black_to_move;
        let mut next = *pieces;
        next.black_to_move = !black;
        let (own_men, own_kings, opp_men, opp_kings) = if black {
            (
                &mut next.black_men,
                &mut next.black_kings,
                &mut next.white_men,
                &mut next.white_kings,
            )
        } else {
            (
                &mut next.white_men,
                &mut next.white_kings,
                &mut next.black_men,
                &mut next.black_kings,
            )
        };
        let man = *own_men & from != 0;
        let crowned = man && to & self.promotion[usize::from(black)] != 0;
        // Off the start square first: a circular capture ends where it began.
        if man {
            *own_men &= !from;
        } else {
            *own_kings &= !from;
        }
        if man && !crowned {
            *own_men |= to;
        } else {
            *own_kings |= to;
        }
        let (men_gone, kings_gone) = (
            (*opp_men & taken).count_ones(),
            (*opp_kings & taken).count_ones(),
        );
        *opp_men &= !taken;
        *opp_kings &= !taken;
        if *opp_men | *opp_kings == 0 {
            return Target::NoPiece;
        }
        let mut m = part.material;
        let (own, opp) = if black {
            (
                (&mut m.black_men, &mut m.black_kings),
                (&mut m.white_men, &mut m.white_kings),
            )
        } else {
            (
                (&mut m.white_men, &mut m.white_kings),
                (&mut m.black_men, &mut m.black_kings),
            )
        };
        if crowned {
            *own.0 -= 1;
            *own.1 += 1;
        }
        *opp.0 -= men_gone as u8;
        *opp.1 -= kings_gone as u8;
        let resets = self.category(m) != self.category(part.material)
            || self.category(part.material) == Category::Outside;
        if !m.is_canonical() {
            m = m.mirrored();
            let flip = |bits: u64| bits.reverse_bits() >> (64 - self.squares);
            next = Pieces {
                white_men: flip(next.black_men),
                white_kings: flip(next.black_kings),
                black_men: flip(next.white_men),
                black_kings: flip(next.white_kings),
                black_to_move: !next.black_to_move,
            };
        }
        match self.parts.iter().position(|p| p.material == m) {
            Some(k) => Target::At(k, self.parts[k].ranker.rank(&next), resets),
            None => Target::Elsewhere,
        }
    }

    /// The category of a material on the board of the parts.
    fn category(&self, m: Material) -> Category {
        Category::of(self.variant, m)
    }

    /// The values of `next`, a position of another material, through [`Outside`]: all three
    /// when `full`, else the win/draw/loss alone (the others those of a draw).
    fn other(&self, next: &Position, full: bool, local: &mut Local) -> Result<Values, ProbeError> {
        if full {
            self.outside.values(next, local)
        } else {
            let wdl = self.tables.probe_wdl(next)?;
            Ok(Values {
                wdl,
                ..Values::DRAW
            })
        }
    }

    /// The values of `next`, through the probe: all three when `full`, else the win/draw/loss
    /// alone (the others those of a draw).
    pub fn probe(&self, next: &Position, full: bool) -> Result<Values, ProbeError> {
        let wdl = self.tables.probe_wdl(next)?;
        if !full {
            return Ok(Values {
                wdl,
                ..Values::DRAW
            });
        }
        Ok(Values {
            wdl,
            dtw: self.tables.probe_dtw(next)?,
            rule: self.tables.probe_draw_rules(next, Counters::FRESH)?.value,
        })
    }

    /// The successors of `pos`, the position of `part` at `walker`, whose side to move must
    /// capture, through its `moves` (all captures, so all leaving the material), into `out`
    /// (cleared first): from the pages of the targets when `pages` is given (it returns the
    /// codes at a page and offset, `None` for a page not made), else through [`Outside`].
    ///
    /// Returns `false` when a page was missing: `out` is then incomplete, and `missing` has
    /// every page lacking.
    #[allow(clippy::too_many_arguments)]
    pub fn captures(
        &self,
        part: &Part,
        walker: &Walker,
        pos: &Position,
        moves: &[Move],
        pages: Option<&dyn Fn(u32, usize) -> Option<Codes>>,
        local: &mut Local,
        missing: &mut Vec<u32>,
        out: &mut Vec<Successor>,
    ) -> Result<bool, ProbeError> {
        out.clear();
        let mut complete = true;
        for mv in moves {
            let target = match pages {
                Some(_) => self.capture_target(part, walker.pieces(), mv),
                None => Target::Elsewhere,
            };
            let (values, resets) = match (target, pages) {
                (Target::NoPiece, _) => (Values::NO_PIECE, true),
                (Target::At(k, j, resets), Some(lookup)) => {
                    let (page, offset) = self.parts[k].locate(j);
                    match lookup(page, offset) {
                        Some(codes) => (codes.values(), resets),
                        None => {
                            missing.push(page);
                            complete = false;
                            continue;
                        }
                    }
                }
                _ if complete => {
                    let next = pos.play(mv);
                    (
                        self.other(&next, true, local)?,
                        resets_counter(pos, mv, &next),
                    )
                }
                _ => continue,
            };
            if complete {
                out.push((values, resets));
            }
        }
        Ok(complete)
    }

    /// The successors of `pos`, the position of `part` at `walker`, whose side to move need
    /// not capture, through its `moves`, into `out` (cleared first): those in the material from
    /// `inside` (given their index), the promotions through [`Outside`]; the distance and rule
    /// values only when `full`.
    ///
    /// Returns `false` when `inside` had no codes for a successor: `out` is then incomplete, but
    /// `inside` has still been asked about every successor in the material, so that it can note
    /// all it lacks at once.
    #[allow(clippy::too_many_arguments)]
    pub fn quiet(
        &self,
        part: &Part,
        walker: &Walker,
        pos: &Position,
        moves: &[Move],
        full: bool,
        inside: &mut impl FnMut(u64) -> Option<Codes>,
        local: &mut Local,
        out: &mut Vec<Successor>,
    ) -> Result<bool, ProbeError> {
        out.clear();
        let pieces = walker.pieces();
        let black = pieces.black_to_move;
        let (men, promotion) = if black {
            (pieces.black_men, self.promotion[1])
        } else {
            (pieces.white_men, self.promotion[0])
        };
        let mut complete = true;
        for mv in moves {
            let from = 1u64 << (mv.from().number() - 1);
            let to = 1u64 << (mv.to().number() - 1);
            let man = men & from != 0;
            if man && to & promotion != 0 {
                if complete {
                    let next = pos.play(mv);
                    let values = self.other(&next, full, local)?;
                    out.push((values, resets_counter(pos, mv, &next)));
                }
                continue;
            }
            match inside(walker.successor(from, to, man)) {
                Some(codes) if complete => {
                    out.push((codes.values(), man && part.man_moves_reset));
                }
                Some(_) => {}
                None => complete = false,
            }
        }
        Ok(complete)
    }
}

/// The canonical materials one capture from `material` reaches: some of the opponent's pieces
/// gone (men and kings in any number, at least one), the capturing man perhaps crowned.
fn capture_targets(material: Material) -> Vec<Material> {
    let mut found = Vec::new();
    let m = material;
    for white_captures in [true, false] {
        let (own_men, opp_men, opp_kings) = if white_captures {
            (m.white_men, m.black_men, m.black_kings)
        } else {
            (m.black_men, m.white_men, m.white_kings)
        };
        for men_gone in 0..=opp_men {
            for kings_gone in 0..=opp_kings {
                if men_gone + kings_gone == 0 || men_gone + kings_gone == opp_men + opp_kings {
                    continue;
                }
                for crowned in 0..=u8::from(own_men > 0) {
                    let mut t = m;
                    if white_captures {
                        t.black_men -= men_gone;
                        t.black_kings -= kings_gone;
                        t.white_men -= crowned;
                        t.white_kings += crowned;
                    } else {
                        t.white_men -= men_gone;
                        t.white_kings -= kings_gone;
                        t.black_men -= crowned;
                        t.black_kings += crowned;
                    }
                    let t = t.canonical();
                    if !found.contains(&t) {
                        found.push(t);
                    }
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate, NoProgress, Plan};

    /// The target of every capture, found on the bitboards, is where playing the move and
    /// ranking the result in its stored orientation leads.
    #[test]
    fn capture_targets_as_played() {
        let dir = tempfile::tempdir().unwrap();
        let variant = Variant::Brazilian;
        generate(&Plan::new(variant, 3, dir.path()).unwrap(), &NoProgress).unwrap();
        let tables = Tablebase::open(dir.path()).unwrap();
        let mut captures = 0;
        for name in ["KMvK", "MMvK", "KKvM", "KMvM", "MMvM"] {
            let material: Material = name.parse().unwrap();
            let ctx = Context::open(&tables, variant, material, true).unwrap();
            let main = ctx.main();
            for i in 0..main.index.size() {
                let walker = Walker::new(&main.ranker, i);
                let pos = main.position(&walker).unwrap();
                for mv in pos.legal_moves().iter().filter(|m| m.is_capture()) {
                    captures += 1;
                    let next = pos.play(mv);
                    let expected = if next.side_pieces(next.turn()).is_empty() {
                        Target::NoPiece
                    } else {
                        let (oriented, m) = next.canonical();
                        let k = ctx.parts.iter().position(|p| p.material == m).unwrap();
                        let resets = resets_counter(&pos, mv, &next);
                        Target::At(k, ctx.parts[k].index.rank(&oriented), resets)
                    };
                    let found = ctx.capture_target(main, walker.pieces(), mv);
                    assert_eq!(found, expected, "{name} {}", pos.to_fen());
                }
            }
        }
        assert!(captures > 10_000, "{captures}");
    }
}
