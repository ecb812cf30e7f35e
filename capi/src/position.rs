//! Positions as engines hold them: four bitboards in the numbering of docs/rules.md (bit `n - 1` is
//! square `n`), read and checked, and the helpers that build them from square lists or a FEN.

use std::ffi::{c_char, c_int, CStr};

use rafle_probe::draughts::{Color, Position, Role, Variant};

use crate::error::{guard, Failure, RAFLE_ERR_ARGUMENT, RAFLE_ERR_POSITION, RAFLE_OK};

/// International draughts, 10x10, squares 1..50.
pub const RAFLE_INTERNATIONAL: c_int = 0;
/// Brazilian draughts, 8x8, squares 1..32.
pub const RAFLE_BRAZILIAN: c_int = 1;
/// White to move.
pub const RAFLE_WHITE: c_int = 0;
/// Black to move.
pub const RAFLE_BLACK: c_int = 1;

/// `rafle_position`: a position as four bitboards, bit `n - 1` for square `n`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RaflePosition {
    /// `RAFLE_INTERNATIONAL` or `RAFLE_BRAZILIAN`.
    pub variant: c_int,
    /// `RAFLE_WHITE` or `RAFLE_BLACK`: the side to move.
    pub turn: c_int,
    /// White's men.
    pub white_men: u64,
    /// White's kings.
    pub white_kings: u64,
    /// Black's men.
    pub black_men: u64,
    /// Black's kings.
    pub black_kings: u64,
}

impl RaflePosition {
    /// The C form of a position.
    pub fn from_position(pos: &Position) -> RaflePosition {
        RaflePosition {
            variant: variant_code(pos.variant()),
            turn: match pos.turn() {
                Color::White => RAFLE_WHITE,
                Color::Black => RAFLE_BLACK,
            },
            white_men: pos.numbered_bits(Color::White, Role::Man),
            white_kings: pos.numbered_bits(Color::White, Role::King),
            black_men: pos.numbered_bits(Color::Black, Role::Man),
            black_kings: pos.numbered_bits(Color::Black, Role::King),
        }
    }
}

pub(crate) fn variant_code(variant: Variant) -> c_int {
    match variant {
        Variant::International => RAFLE_INTERNATIONAL,
        Variant::Brazilian => RAFLE_BRAZILIAN,
    }
}

pub(crate) fn variant(code: c_int) -> Result<Variant, Failure> {
    match code {
        RAFLE_INTERNATIONAL => Ok(Variant::International),
        RAFLE_BRAZILIAN => Ok(Variant::Brazilian),
        _ => Err(Failure::new(
            RAFLE_ERR_ARGUMENT,
            format!(
                "unknown variant {code} (expected RAFLE_INTERNATIONAL = 0 or RAFLE_BRAZILIAN = 1)"
            ),
        )),
    }
}

/// The position a `rafle_position` describes, checked.
#[inline]
pub(crate) fn read(pos: &RaflePosition) -> Result<Position, Failure> {
    // Every probe passes here: the good case is a few operations, inlined; the reasons for a
    // refusal are worked out apart, only when needed.
    let variant = match pos.variant {
        RAFLE_INTERNATIONAL => Variant::International,
        RAFLE_BRAZILIAN => Variant::Brazilian,
        _ => return Err(refusal(pos)),
    };
    let turn = match pos.turn {
        RAFLE_WHITE => Color::White,
        RAFLE_BLACK => Color::Black,
        _ => return Err(refusal(pos)),
    };
    Position::from_numbered_bits(
        variant,
        turn,
        pos.white_men,
        pos.white_kings,
        pos.black_men,
        pos.black_kings,
    )
    .ok_or_else(|| refusal(pos))
}

/// Why `read` refuses a position.
#[cold]
#[inline(never)]
fn refusal(pos: &RaflePosition) -> Failure {
    let variant = match variant(pos.variant) {
        Ok(v) => v,
        Err(failure) => return failure,
    };
    if pos.turn != RAFLE_WHITE && pos.turn != RAFLE_BLACK {
        return Failure::new(
            RAFLE_ERR_ARGUMENT,
            format!(
                "unknown side to move {} (expected RAFLE_WHITE = 0 or RAFLE_BLACK = 1)",
                pos.turn
            ),
        );
    }
    let sets = [
        pos.white_men,
        pos.white_kings,
        pos.black_men,
        pos.black_kings,
    ];
    Failure::new(RAFLE_ERR_POSITION, what_is_wrong(variant, sets))
}

/// Why four bitboards are not a position.
fn what_is_wrong(variant: Variant, sets: [u64; 4]) -> String {
    const NAMES: [&str; 4] = ["white men", "white kings", "black men", "black kings"];
    let squares = u32::from(variant.square_count());
    let first = |bits: u64| bits.trailing_zeros() + 1;
    let board = u64::MAX >> (64 - squares);
    for (bits, name) in sets.iter().zip(NAMES) {
        let past = bits & !board;
        if past != 0 {
            return format!(
                "{name}: bit {} is square {}, past the last square of the {variant} board ({squares})",
                past.trailing_zeros(),
                first(past),
            );
        }
    }
    for i in 0..4 {
        for j in i + 1..4 {
            let both = sets[i] & sets[j];
            if both != 0 {
                return format!(
                    "square {} is in both {} and {}",
                    first(both),
                    NAMES[i],
                    NAMES[j]
                );
            }
        }
    }
    let per_row = u32::from(variant.squares_per_row());
    let first_row = (1u64 << per_row) - 1;
    let last_row = first_row << (squares - per_row);
    if sets[0] & first_row != 0 {
        return format!(
            "a white man on square {}, White's promotion row (1..{per_row}): it would be a king",
            first(sets[0] & first_row)
        );
    }
    if sets[2] & last_row != 0 {
        return format!(
            "a black man on square {}, Black's promotion row ({}..{squares}): it would be a king",
            first(sets[2] & last_row),
            squares - per_row + 1
        );
    }
    "the bitboards are not a position".to_string()
}

/// The text of a FEN given by C.
///
/// # Safety
///
/// `fen` must be null or a NUL-terminated string that outlives the text.
pub(crate) unsafe fn fen_text<'a>(fen: *const c_char) -> Result<&'a str, Failure> {
    if fen.is_null() {
        return Err(Failure::null("fen"));
    }
    // SAFETY: not null, and the caller promises a NUL-terminated string.
    let text = unsafe { CStr::from_ptr(fen) };
    text.to_str()
        .map_err(|_| Failure::new(RAFLE_ERR_POSITION, "the FEN is not UTF-8"))
}

/// Reads a PDN FEN (`"W:W31-50:B1-20"`; Brazilian squares may be algebraic) into `*out`.
///
/// # Safety
///
/// `fen` must be null or a NUL-terminated string, `out` null or valid for writing a
/// `rafle_position`.
#[no_mangle]
pub unsafe extern "C" fn rafle_position_from_fen(
    variant_code: c_int,
    fen: *const c_char,
    out: *mut RaflePosition,
) -> c_int {
    guard(|| {
        let variant = variant(variant_code)?;
        // SAFETY: the caller's promise.
        let text = unsafe { fen_text(fen) }?;
        let pos = Position::from_fen(variant, text)
            .map_err(|e| Failure::new(RAFLE_ERR_POSITION, e.to_string()))?;
        // SAFETY: the caller promises `out` is null or valid for writing.
        let out = unsafe { out.as_mut() }.ok_or_else(|| Failure::null("out"))?;
        *out = RaflePosition::from_position(&pos);
        Ok(RAFLE_OK)
    })
}

/// Sets in `*bits` the bits of `count` squares (numbers 1..50 or 1..32), for an engine that
/// keeps its pieces as square lists. `squares` may be null when `count` is 0.
///
/// # Safety
///
/// `squares` must be valid for reading `count` ints, `bits` null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn rafle_squares_to_bits(
    variant_code: c_int,
    squares: *const c_int,
    count: usize,
    bits: *mut u64,
) -> c_int {
    guard(|| {
        let variant = variant(variant_code)?;
        let list: &[c_int] = if count == 0 {
            &[]
        } else if squares.is_null() {
            return Err(Failure::null("squares"));
        } else {
            // SAFETY: not null, and the caller promises `count` readable ints.
            unsafe { std::slice::from_raw_parts(squares, count) }
        };
        let last = c_int::from(variant.square_count());
        let mut set = 0u64;
        for &square in list {
            if !(1..=last).contains(&square) {
                return Err(Failure::new(
                    RAFLE_ERR_ARGUMENT,
                    format!("square {square} is not on the {variant} board (1..{last})"),
                ));
            }
            set |= 1 << (square - 1);
        }
        // SAFETY: the caller promises `bits` is null or valid for writing.
        let bits = unsafe { bits.as_mut() }.ok_or_else(|| Failure::null("bits"))?;
        *bits = set;
        Ok(RAFLE_OK)
    })
}

/// Checks a position: `RAFLE_OK`, or why it is not one (`rafle_last_error` says where).
///
/// # Safety
///
/// `pos` must be null or point to a `rafle_position`.
#[no_mangle]
pub unsafe extern "C" fn rafle_check_position(pos: *const RaflePosition) -> c_int {
    guard(|| {
        // SAFETY: the caller promises `pos` is null or valid for reading.
        let pos = unsafe { pos.as_ref() }.ok_or_else(|| Failure::null("pos"))?;
        read(pos).map(|_| RAFLE_OK)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{rafle_last_error, RAFLE_ERR_NULL};

    fn last() -> String {
        // SAFETY: a valid NUL-terminated string owned by this thread.
        unsafe { CStr::from_ptr(rafle_last_error()) }
            .to_string_lossy()
            .into_owned()
    }

    fn check(pos: RaflePosition) -> (c_int, String) {
        // SAFETY: a valid position on the stack.
        let status = unsafe { rafle_check_position(&pos) };
        (status, last())
    }

    #[test]
    fn bitboards_round_trip() {
        for (variant, fen) in [
            (Variant::International, "B:W31,K46,12:BK5,20,45"),
            (Variant::Brazilian, "W:W21,K4:B9,K29"),
        ] {
            let pos = Position::from_fen(variant, fen).unwrap();
            let c = RaflePosition::from_position(&pos);
            assert_eq!(read(&c).unwrap(), pos);
            let mut from_fen = RaflePosition::default();
            let text = std::ffi::CString::new(fen).unwrap();
            // SAFETY: valid string and output.
            let status = unsafe {
                rafle_position_from_fen(variant_code(variant), text.as_ptr(), &mut from_fen)
            };
            assert_eq!(status, RAFLE_OK);
            assert_eq!(from_fen, c);
        }
    }

    #[test]
    fn bad_positions_say_what_is_wrong() {
        let base = RaflePosition {
            variant: RAFLE_BRAZILIAN,
            turn: RAFLE_WHITE,
            white_men: 1 << 20,
            white_kings: 0,
            black_men: 0,
            black_kings: 1 << 8,
        };
        assert_eq!(check(base).0, RAFLE_OK);
        let cases = [
            (
                RaflePosition { variant: 7, ..base },
                RAFLE_ERR_ARGUMENT,
                "unknown variant 7",
            ),
            (
                RaflePosition { turn: 2, ..base },
                RAFLE_ERR_ARGUMENT,
                "side to move 2",
            ),
            (
                RaflePosition {
                    black_kings: 1 << 32,
                    ..base
                },
                RAFLE_ERR_POSITION,
                "black kings: bit 32 is square 33, past the last square",
            ),
            (
                RaflePosition {
                    white_kings: 1 << 20,
                    ..base
                },
                RAFLE_ERR_POSITION,
                "square 21 is in both white men and white kings",
            ),
            (
                RaflePosition {
                    white_men: 1 << 2,
                    ..base
                },
                RAFLE_ERR_POSITION,
                "a white man on square 3",
            ),
            (
                RaflePosition {
                    black_men: 1 << 30,
                    ..base
                },
                RAFLE_ERR_POSITION,
                "a black man on square 31",
            ),
        ];
        for (pos, status, text) in cases {
            let (got, message) = check(pos);
            assert_eq!(got, status, "{pos:?}");
            assert!(message.contains(text), "{message:?} lacks {text:?}");
        }
        // SAFETY: null is allowed and reported.
        assert_eq!(
            unsafe { rafle_check_position(std::ptr::null()) },
            RAFLE_ERR_NULL
        );
        let international = RaflePosition {
            variant: RAFLE_INTERNATIONAL,
            white_men: 1 << 49,
            ..base
        };
        assert_eq!(check(international).0, RAFLE_OK);
        let (status, message) = check(RaflePosition {
            white_men: 1 << 50,
            ..international
        });
        assert_eq!(status, RAFLE_ERR_POSITION);
        assert!(message.contains("square 51"), "{message}");
    }

    #[test]
    fn square_lists_become_bitboards() {
        let mut bits = 0;
        let squares = [1, 5, 32];
        // SAFETY: valid array and output.
        let status =
            unsafe { rafle_squares_to_bits(RAFLE_BRAZILIAN, squares.as_ptr(), 3, &mut bits) };
        assert_eq!((status, bits), (RAFLE_OK, 1 | 1 << 4 | 1 << 31));
        // SAFETY: as above.
        let status = unsafe { rafle_squares_to_bits(RAFLE_BRAZILIAN, [33].as_ptr(), 1, &mut bits) };
        assert_eq!(status, RAFLE_ERR_ARGUMENT);
        assert!(last().contains("square 33"));
        // SAFETY: no square to read.
        let status =
            unsafe { rafle_squares_to_bits(RAFLE_INTERNATIONAL, std::ptr::null(), 0, &mut bits) };
        assert_eq!((status, bits), (RAFLE_OK, 0));
        let fen = c"W:W99:B1";
        let mut pos = RaflePosition::default();
        // SAFETY: valid string and output.
        let status =
            unsafe { rafle_position_from_fen(RAFLE_INTERNATIONAL, fen.as_ptr(), &mut pos) };
        assert_eq!(status, RAFLE_ERR_POSITION);
        assert!(last().contains("column"), "{}", last());
    }
}
