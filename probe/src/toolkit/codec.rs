//! One codec per table kind: which positions a table holds a value for, in which orientation,
//! how a value is written into a block and read back, and how a left-out position's value
//! follows from its successors. The writer (generator), the readers (probe, verify, stats) and
//! the material walk all go through here, so the format's rules are stated once.
//!
//! A table holds a value of its own for a position when [`TableKind::holds`] says so; every other
//! position repeats the code before it (the first of a block repeats code 0), which lengthens
//! the runs zstd compresses, and a block with no such position is not stored at all. Those
//! positions are found as follows:
//! - the side to move must capture (every kind): from the captures, which lead to smaller
//!   materials;
//! - the side to move is not the one the material's tables store (its [`StoredHalf`], the same
//!   for its three kinds): from its moves, one ply away, which reach the stored side to move of
//!   the same material, captures or other materials. A symmetric material stores White to move
//!   and reads Black to move from the mirror image instead (see [`table_orientation`]);
//! - drawn (distance and draw-rule tables): the win/draw/loss table tells it.

use std::fmt;

use crate::format::{StoredHalf, TableKind};
use crate::{Color, Dtw, Material, Position, RuleValue, Wdl};

/// What decides whether a table holds a position's own value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The side to move must capture.
    pub capture: bool,
    /// The position is drawn with the draw rules ignored.
    pub drawn: bool,
    /// The side to move (in the table's orientation) is the one the table stores.
    pub stored_side: bool,
}

impl Entry {
    /// The entry of position `i` of a material's index of `positions` positions, which puts
    /// those with White to move (in the table's orientation) in its first half, in a table
    /// storing `stored`.
    #[inline]
    pub fn at_index(
        i: usize,
        positions: usize,
        stored: StoredHalf,
        capture: bool,
        drawn: bool,
    ) -> Entry {
        Entry {
            capture,
            drawn,
            stored_side: stored.contains(i, positions),
        }
    }
}

impl TableKind {
    /// Every kind, in the order of their discriminants.
    pub const ALL: [TableKind; 3] = [TableKind::Wdl, TableKind::Dtw, TableKind::DrawRules];

    /// Whether a table of this kind holds the position's own value (see the module
    /// documentation for how the others are found).
    #[inline]
    pub fn holds(self, entry: Entry) -> bool {
        match self {
            TableKind::Wdl => !entry.capture && entry.stored_side,
            TableKind::Dtw | TableKind::DrawRules => {
                !entry.capture && !entry.drawn && entry.stored_side
            }
        }
    }
}

/// A position and its material as the tables store them: the canonical colour orientation and,
/// for a symmetric material, White to move (the mirror image of a position with Black to move).
#[inline]
pub fn table_orientation(pos: &Position) -> (Position, Material) {
    let (pos, material) = pos.canonical();
    if material.is_symmetric() && pos.turn() == Color::Black {
        (pos.mirrored(), material)
    } else {
        (pos, material)
    }
}

/// Whether a position, in the orientation the tables store it, has White to move.
#[inline]
pub fn white_to_move_in_table(pos: &Position) -> bool {
    let material = Material::of(pos);
    material.is_symmetric() || (pos.turn() == Color::White) == material.is_canonical()
}

/// The encoding of one table kind's values.
pub trait Codec {
    /// What a position's entry means.
    type Value: Copy + PartialEq + fmt::Debug + fmt::Display + Send + Sync;

    /// The kind of table.
    const KIND: TableKind;

    /// The value of a drawn position.
    const DRAW: Self::Value;

    /// The value of a position whose side to move has no piece: lost, at once.
    const NO_PIECE: Self::Value;

    /// The code of a value in a table of `bits` bits a position.
    fn encode(value: Self::Value, bits: u8) -> u16;

    /// The value of a code, `None` for a code no valid table holds.
    fn decode(code: u16, bits: u8) -> Option<Self::Value>;

    /// A position's value from those of all its legal moves, each given as the value for the
    /// side to move after the move and whether the move resets the draw-rule counter, under a
    /// draw rule of limit `limit` (only the draw-rule values use the last two).
    fn from_successors(
        limit: u8,
        successors: impl IntoIterator<Item = (Self::Value, bool)>,
    ) -> Self::Value;

    /// Value `i` of a decompressed block of `bits` bits a position, `None` for an invalid code.
    #[inline]
    fn read(block: &[u8], bits: u8, i: usize) -> Option<Self::Value> {
        Self::decode(read_code(block, bits, i), bits)
    }

    /// Whether the positions a table leaves out between two different values take the first
    /// up to the most aligned position of the gap and the second from there (see
    /// [`Codec::pack`]), rather than all the first.
    const FILL_ALIGNED: bool = false;

    /// Packs consecutive entries into a block of `bits` bits a position: `Some` for a value the
    /// table holds, `None` for a position it leaves out. A left-out position repeats the code
    /// before it (code 0 at the start of a block); with [`Codec::FILL_ALIGNED`], a run of them
    /// takes the code after it from its position with the most trailing zero bits (the start
    /// of a block counts as before a run of the first code held). Only the writer chooses: a
    /// reader never reads those positions. Returns the block and whether it holds any value.
    fn pack(entries: impl IntoIterator<Item = Option<Self::Value>>, bits: u8) -> (Vec<u8>, bool) {
        let codes: Vec<Option<u16>> = entries
            .into_iter()
            .map(|entry| entry.map(|value| Self::encode(value, bits)))
            .collect();
        let any = codes.iter().any(Option::is_some);
        let filled = if Self::FILL_ALIGNED {
            fill_aligned(&codes)
        } else {
            fill_previous(&codes)
        };
        let mut block = Vec::new();
        for (i, code) in filled.into_iter().enumerate() {
            write_code(&mut block, bits, i, code);
        }
        (block, any)
    }
}

/// Win/draw/loss tables: 2 bits a position, [`Wdl::code`].
#[derive(Debug, Clone, Copy)]
pub struct WdlCodec;

impl Codec for WdlCodec {
    type Value = Wdl;
    const KIND: TableKind = TableKind::Wdl;
    /// Measured on version-2 tables: 4–6% smaller win/draw/loss tables; the distance and rule
    /// tables come out larger with it.
    const FILL_ALIGNED: bool = true;
    const DRAW: Wdl = Wdl::Draw;
    const NO_PIECE: Wdl = Wdl::Loss;

    #[inline]
    fn encode(value: Wdl, _bits: u8) -> u16 {
        u16::from(value.code())
    }

    #[inline]
    fn decode(code: u16, _bits: u8) -> Option<Wdl> {
        u8::try_from(code).ok().and_then(Wdl::from_code)
    }

    fn from_successors(_limit: u8, successors: impl IntoIterator<Item = (Wdl, bool)>) -> Wdl {
        let mut best = Wdl::Loss;
        for (next, _) in successors {
            best = best.max(-next);
            if best == Wdl::Win {
                break;
            }
        }
        best
    }
}

/// Distance-to-win tables: 8 or 16 bits a position, the distance in plies, the largest value
/// of the width meaning a draw.
#[derive(Debug, Clone, Copy)]
pub struct DtwCodec;

impl DtwCodec {
    /// The width a table needs for distances up to `longest` plies: 8 bits when every distance
    /// stays below the 8-bit draw marker, 16 otherwise.
    pub fn bits_for(longest: u16) -> u8 {
        if longest < u16::from(u8::MAX) {
            8
        } else {
            16
        }
    }

    /// The code of a draw in a table of `bits` bits a position.
    pub fn draw_code(bits: u8) -> u16 {
        if bits == 8 {
            u16::from(u8::MAX)
        } else {
            u16::MAX
        }
    }
}

impl Codec for DtwCodec {
    type Value = Dtw;
    const KIND: TableKind = TableKind::Dtw;
    const DRAW: Dtw = Dtw::Draw;
    const NO_PIECE: Dtw = Dtw::Loss(0);

    #[inline]
    fn encode(value: Dtw, bits: u8) -> u16 {
        value.plies().unwrap_or(DtwCodec::draw_code(bits))
    }

    #[inline]
    fn decode(code: u16, bits: u8) -> Option<Dtw> {
        Some(if code == DtwCodec::draw_code(bits) {
            Dtw::Draw
        } else if code % 2 == 1 {
            Dtw::Win(code)
        } else {
            Dtw::Loss(code)
        })
    }

    fn from_successors(_limit: u8, successors: impl IntoIterator<Item = (Dtw, bool)>) -> Dtw {
        Dtw::from_successors(successors.into_iter().map(|(next, _)| next))
    }
}

/// Draw-rule tables: a byte a position, [`RuleValue::code`].
#[derive(Debug, Clone, Copy)]
pub struct DrawRulesCodec;

impl Codec for DrawRulesCodec {
    type Value = RuleValue;
    const KIND: TableKind = TableKind::DrawRules;
    const DRAW: RuleValue = RuleValue::DRAW;
    const NO_PIECE: RuleValue = RuleValue::NO_MOVE;

    #[inline]
    fn encode(value: RuleValue, _bits: u8) -> u16 {
        u16::from(value.code())
    }

    #[inline]
    fn decode(code: u16, _bits: u8) -> Option<RuleValue> {
        u8::try_from(code).ok().and_then(RuleValue::from_code)
    }

    fn from_successors(
        limit: u8,
        successors: impl IntoIterator<Item = (RuleValue, bool)>,
    ) -> RuleValue {
        RuleValue::from_successors(limit, successors)
    }
}

/// Left-out positions (`None`) given the code before them, 0 at the start.
fn fill_previous(codes: &[Option<u16>]) -> Vec<u16> {
    let mut last = 0;
    codes
        .iter()
        .map(|code| {
            last = code.unwrap_or(last);
            last
        })
        .collect()
}

/// Left-out positions given the code before them up to the most aligned position of their run
/// (the most trailing zero bits, the first such) and the code after them from there; a run at
/// the start takes the first code held, a run at the end the last.
fn fill_aligned(codes: &[Option<u16>]) -> Vec<u16> {
    let mut filled = Vec::with_capacity(codes.len());
    let mut before: Option<u16> = None;
    let mut gap_start = 0;
    for (i, code) in codes.iter().enumerate() {
        let Some(code) = *code else {
            continue;
        };
        let from = before.unwrap_or(code);
        // The positions gap_start..i are left out; the change from `from` to `code` goes at
        // the position of the gap (or `i` itself) with the most trailing zeros.
        let change = if from == code {
            gap_start
        } else {
            (gap_start..=i)
                .max_by_key(|&k| (k.trailing_zeros(), std::cmp::Reverse(k)))
                .unwrap_or(i)
        };
        filled.extend((gap_start..i).map(|k| if k < change { from } else { code }));
        filled.push(code);
        before = Some(code);
        gap_start = i + 1;
    }
    let last = before.unwrap_or(0);
    filled.extend((gap_start..codes.len()).map(|_| last));
    filled
}

/// Code `i` of a decompressed block of `bits` (2, 8 or 16) bits a position.
#[inline]
pub fn read_code(block: &[u8], bits: u8, i: usize) -> u16 {
    match bits {
        2 => u16::from((block[i / 4] >> (2 * (i % 4))) & 3),
        8 => u16::from(block[i]),
        _ => u16::from_le_bytes([block[2 * i], block[2 * i + 1]]),
    }
}

/// Writes code `i` of a block of `bits` bits a position, growing it as needed; codes are
/// written in order.
fn write_code(block: &mut Vec<u8>, bits: u8, i: usize, code: u16) {
    match bits {
        2 => {
            if i.is_multiple_of(4) {
                block.push(0);
            }
            block[i / 4] |= (code as u8 & 3) << (2 * (i % 4));
        }
        8 => block.push(code as u8),
        _ => block.extend_from_slice(&code.to_le_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Header;
    use crate::Variant;

    #[test]
    fn aligned_fill_changes_at_the_most_aligned_position_of_a_gap() {
        let (a, b) = (Some(1), Some(2));
        // Gap 1..=6 between a 1 and a 2: position 4 has the most trailing zeros.
        let codes = [a, None, None, None, None, None, None, b];
        assert_eq!(fill_aligned(&codes), [1, 1, 1, 1, 2, 2, 2, 2]);
        // Equal ends fill the gap with that code; the start takes the first code held, the
        // end the last.
        assert_eq!(fill_aligned(&[None, a, None, a, None]), [1, 1, 1, 1, 1]);
        assert_eq!(fill_aligned(&[None, None, b, None]), [2, 2, 2, 2]);
        assert_eq!(fill_aligned(&[None, None]), [0, 0]);
        // A change with no gap stays where it is.
        assert_eq!(fill_aligned(&[a, b, a]), [1, 2, 1]);
        assert_eq!(fill_previous(&[None, a, None, b]), [0, 1, 1, 2]);
    }

    #[test]
    fn left_out_positions_repeat_the_code_before_them() {
        let entries = [
            Some(Wdl::Win),
            None,
            None,
            Some(Wdl::Loss),
            None,
            Some(Wdl::Draw),
        ];
        let (block, any) = DrawRulesCodec::pack(entries.map(|e| e.map(rule_of)), 8);
        assert!(any);
        assert_eq!(block.len(), Header::block_len(6, 8));
        let read: Vec<Wdl> = (0..6)
            .map(|i| wdl_of(DrawRulesCodec::read(&block, 8, i).unwrap()))
            .collect();
        use Wdl::{Draw, Loss, Win};
        assert_eq!(read, [Win, Win, Win, Loss, Loss, Draw]);
        // The win/draw/loss codec puts each change at the most aligned position of its gap:
        // from win to loss at 2, from loss to draw at 4.
        let (block, _) = WdlCodec::pack(entries, 2);
        let read: Vec<Wdl> = (0..6)
            .map(|i| WdlCodec::read(&block, 2, i).unwrap())
            .collect();
        assert_eq!(read, [Win, Win, Loss, Loss, Draw, Draw]);
        // A block that starts with a left-out position repeats code 0.
        let block = DtwCodec::pack([None, Some(Dtw::Win(3))], 16);
        assert_eq!(block, (vec![0, 0, 3, 0], true));
        assert_eq!(DtwCodec::pack([None, None], 8), (vec![0, 0], false));
    }

    fn rule_of(wdl: Wdl) -> RuleValue {
        match wdl {
            Wdl::Win => RuleValue::win(1),
            Wdl::Loss => RuleValue::loss(1),
            Wdl::Draw => RuleValue::DRAW,
        }
    }

    fn wdl_of(rule: RuleValue) -> Wdl {
        [Wdl::Win, Wdl::Loss, Wdl::Draw]
            .into_iter()
            .find(|&w| rule_of(w) == rule)
            .unwrap()
    }

    #[test]
    fn codes_round_trip() {
        for bits in [8, 16] {
            for value in [
                Dtw::Draw,
                Dtw::Win(1),
                Dtw::Loss(0),
                Dtw::Loss(254),
                Dtw::Win(253),
            ] {
                let code = DtwCodec::encode(value, bits);
                assert_eq!(
                    DtwCodec::decode(code, bits),
                    Some(value),
                    "{value} at {bits}"
                );
            }
        }
        assert_eq!(DtwCodec::encode(Dtw::Draw, 8), 255);
        assert_eq!(DtwCodec::encode(Dtw::Draw, 16), u16::MAX);
        assert_eq!((DtwCodec::bits_for(254), DtwCodec::bits_for(255)), (8, 16));
        assert_eq!(WdlCodec::decode(3, 2), None);
        assert_eq!(DrawRulesCodec::decode(255, 8), None);
        let value = RuleValue::win(7);
        assert_eq!(
            DrawRulesCodec::read(&DrawRulesCodec::pack([Some(value)], 8).0, 8, 0),
            Some(value)
        );
    }

    #[test]
    fn which_positions_each_kind_holds() {
        let plain = Entry {
            capture: false,
            drawn: false,
            stored_side: true,
        };
        for kind in TableKind::ALL {
            assert!(kind.holds(plain));
            for left_out in [
                Entry {
                    capture: true,
                    ..plain
                },
                Entry {
                    stored_side: false,
                    ..plain
                },
            ] {
                assert!(!kind.holds(left_out));
            }
        }
        let drawn = Entry {
            drawn: true,
            ..plain
        };
        assert!(TableKind::Wdl.holds(drawn));
        assert!(!TableKind::Dtw.holds(drawn));
        assert!(!TableKind::DrawRules.holds(drawn));
        let n = 10;
        let at = |i, stored| Entry::at_index(i, n, stored, false, false).stored_side;
        assert!(at(4, StoredHalf::White) && !at(5, StoredHalf::White));
        assert!(!at(4, StoredHalf::Black) && at(5, StoredHalf::Black));
        assert!(at(0, StoredHalf::Both) && at(9, StoredHalf::Both));
    }

    #[test]
    fn orientation_of_symmetric_and_asymmetric_materials() {
        let v = Variant::Brazilian;
        // KvK is symmetric: Black to move is stored as its mirror image.
        let pos = Position::from_fen(v, "B:WK1:BK32").unwrap();
        assert!(white_to_move_in_table(&pos));
        assert_eq!(table_orientation(&pos).0.turn(), Color::White);
        // KvKK is stored as KKvK, colours swapped: Black to move there is White to move in it.
        let pos = Position::from_fen(v, "B:WK1:BK32,K31").unwrap();
        assert!(white_to_move_in_table(&pos));
        assert!(!white_to_move_in_table(
            &Position::from_fen(v, "W:WK1:BK32,K31").unwrap()
        ));
        let (stored, material) = table_orientation(&pos);
        assert_eq!(
            (stored.turn(), material.to_string()),
            (Color::White, "KKvK".into())
        );
    }
}
