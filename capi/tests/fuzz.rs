//! Random arguments to the C functions, called from Rust: FEN strings of any bytes (invalid
//! UTF-8, very long, near misses of valid ones), square lists, bitboards, counters, buffer
//! capacities, table kinds and variants, directory paths, and null pointers wherever the
//! header allows one. Nothing crashes; every status is one the header documents, and the one
//! the Rust API implies; results are those of the Rust API, outputs are left untouched on
//! error, texts are NUL-terminated within their buffers, and the last error says something.
//! The probes themselves and table availability are in `fuzz_probes.rs`.
//!
//! The property tests run a few hundred cases each; for a longer run:
//!
//! ```text
//! PROPTEST_CASES=20000 cargo test --release -p rafle-capi --test fuzz --test fuzz_probes
//! ```
//!
//! Using a handle after `rafle_close` is undefined behaviour by the header's contract (the
//! handle is freed), so it is not exercised.

use std::ffi::{c_int, CString};
use std::path::Path;
use std::ptr::{null, null_mut};

use proptest::collection::vec;
use proptest::prelude::*;
use rafle::*;
use rafle_probe::{
    draughts::{Position, Variant},
    Tablebase,
};

mod bridge;
mod fuzzing;
use bridge::{last_error, Handle};
use fuzzing::*;

#[test]
fn fen_strings_read_as_the_rust_api_reads_them() {
    let strategy = (
        variant_code(),
        fen_bytes(),
        prop::bool::weighted(0.05),
        prop::bool::weighted(0.05),
    );
    run(1000, strategy, |(variant, bytes, null_fen, null_out)| {
        let fen = CString::new(bytes.clone()).expect("no NUL");
        let mut out = UNTOUCHED;
        let fen_ptr = if null_fen { null() } else { fen.as_ptr() };
        let out_ptr: *mut RaflePosition = if null_out { null_mut() } else { &mut out };
        // SAFETY: a NUL-terminated string or null, an output or null.
        let status = unsafe { rafle_position_from_fen(variant, fen_ptr, out_ptr) };
        let what = format!(
            "FEN {:?} of variant {variant}",
            String::from_utf8_lossy(&bytes)
        );
        let expected = match variant_of(variant) {
            None => Err(vec![RAFLE_ERR_ARGUMENT]),
            Some(_) if null_fen => Err(vec![RAFLE_ERR_NULL]),
            Some(v) => match std::str::from_utf8(&bytes).map(|text| Position::from_fen(v, text)) {
                Ok(Ok(pos)) if !null_out => Ok(pos),
                Ok(Ok(_)) => Err(vec![RAFLE_ERR_NULL]),
                Ok(Err(_)) | Err(_) if null_out => Err(vec![RAFLE_ERR_POSITION, RAFLE_ERR_NULL]),
                Ok(Err(_)) | Err(_) => Err(vec![RAFLE_ERR_POSITION]),
            },
        };
        match expected {
            Ok(pos) => {
                assert_eq!(status, RAFLE_OK, "{what}: {}", last_error());
                assert_eq!(out, RaflePosition::from_position(&pos), "{what}");
                // SAFETY: a position on the stack.
                assert_eq!(unsafe { rafle_check_position(&out) }, RAFLE_OK, "{what}");
            }
            Err(allowed) => {
                failed(&what, status, &allowed);
                assert_eq!(out, UNTOUCHED, "{what}: output written on error");
            }
        }
    });
}

#[test]
fn square_lists_become_bitboards_or_are_refused() {
    let square = prop_oneof![8 => -2..60, 1 => any::<c_int>()];
    let strategy = (
        variant_code(),
        vec(square, 0..64),
        prop::bool::weighted(0.05),
        prop::bool::weighted(0.05),
    );
    run(
        1000,
        strategy,
        |(variant, squares, null_squares, null_bits)| {
            let mut bits = 0xdead_beef_u64;
            let list = if null_squares {
                null()
            } else {
                squares.as_ptr()
            };
            let out: *mut u64 = if null_bits { null_mut() } else { &mut bits };
            // SAFETY: `squares` holds `len` ints (or is null), `bits` is an output or null.
            let status = unsafe { rafle_squares_to_bits(variant, list, squares.len(), out) };
            let what = format!("squares {squares:?} of variant {variant}");
            let Some(v) = variant_of(variant) else {
                failed(&what, status, &[RAFLE_ERR_ARGUMENT]);
                return;
            };
            let last = c_int::from(v.square_count());
            let off_board = squares.iter().any(|s| !(1..=last).contains(s));
            let mut allowed = Vec::new();
            if null_squares && !squares.is_empty() {
                allowed.push(RAFLE_ERR_NULL);
            } else if off_board {
                allowed.push(RAFLE_ERR_ARGUMENT);
            }
            if null_bits {
                allowed.push(RAFLE_ERR_NULL);
            }
            if allowed.is_empty() {
                let expected = squares.iter().fold(0u64, |b, &s| b | 1 << (s - 1));
                assert_eq!((status, bits), (RAFLE_OK, expected), "{what}");
            } else {
                failed(&what, status, &allowed);
                assert_eq!(bits, 0xdead_beef, "{what}: output written on error");
            }
        },
    );
}

#[test]
fn bitboards_are_checked_as_the_rust_api_checks_them() {
    run(2000, c_position(), |pos| {
        // SAFETY: a position on the stack.
        let status = unsafe { rafle_check_position(&pos) };
        match rust_position(&pos) {
            Ok(rust) => {
                assert_eq!(status, RAFLE_OK, "{pos:?}: {}", last_error());
                assert_eq!(RaflePosition::from_position(&rust), pos);
            }
            Err(expected) => failed(&format!("{pos:?}"), status, &[expected]),
        }
    });
}

#[test]
fn status_names_are_never_null() {
    run(1000, any::<c_int>(), |status| {
        let expected = if DOCUMENTED.contains(&status) {
            name(status)
        } else {
            "unknown".to_string()
        };
        assert_eq!(name(status), expected);
        assert_eq!(name(status) != "unknown", DOCUMENTED.contains(&status));
    });
}

/// Directory paths: the tables' own directory with something appended, one of its files,
/// any bytes, very long names.
fn path_bytes(dir: &Path) -> impl Strategy<Value = Vec<u8>> {
    let base = dir.to_str().expect("a UTF-8 path").as_bytes().to_vec();
    let suffix = prop_oneof![
        Just(Vec::new()),
        Just(b"/".to_vec()),
        Just(b"/brazilian".to_vec()),
        Just(b"/brazilian/KvK.wdl".to_vec()),
        Just(b"/international".to_vec()),
        Just(b"/..".to_vec()),
        vec(1..=255u8, 1..16),
    ];
    prop_oneof![
        3 => suffix.prop_map(move |s| [base.clone(), s].concat()),
        2 => vec(1..=255u8, 0..64),
        1 => (1..5000usize).prop_map(|n| "a/".repeat(n).into_bytes()),
        1 => (1..10_000usize).prop_map(|n| vec![b'x'; n]),
    ]
}

#[test]
fn any_path_opens_as_the_rust_api_opens_it() {
    let dir = tables();
    run(500, path_bytes(dir.path()), |bytes| {
        let path = CString::new(bytes.clone()).expect("no NUL");
        let what = format!("{:?}", String::from_utf8_lossy(&bytes));
        // SAFETY: a NUL-terminated string.
        let tb = unsafe { rafle_open(path.as_ptr(), 4096) };
        let rust = {
            use std::os::unix::ffi::OsStrExt;
            Tablebase::open(std::ffi::OsStr::from_bytes(&bytes))
        };
        match rust {
            Ok(rust) => {
                assert!(!tb.is_null(), "{what}: {}", last_error());
                let handle = Handle(tb);
                // SAFETY: a live handle.
                let most = unsafe { rafle_max_pieces(handle.0, RAFLE_BRAZILIAN, RAFLE_TABLE_WDL) };
                assert_eq!(most, rust.max_pieces(Variant::Brazilian) as c_int, "{what}");
            }
            Err(e) => {
                assert!(tb.is_null(), "{what} opens; the Rust API says {e}");
                assert!(!last_error().is_empty());
            }
        }
    });
    // SAFETY: null is refused.
    assert!(unsafe { rafle_open(null(), 0) }.is_null());
    assert_eq!(last_error(), "dir is a null pointer");
    // SAFETY: null is ignored by both.
    unsafe {
        assert_eq!(rafle_cache_bytes(null()), 0);
        rafle_close(null_mut());
    }
}

/// Found by `availability_answers_as_the_rust_api_or_refuses`: counts summing past 255
/// overflowed `Material`'s `u8` arithmetic, a panic reported as `RAFLE_ERR_INTERNAL` (with
/// overflow checks; without them the sum wrapped).
#[test]
fn a_material_of_more_pieces_than_squares_has_no_table() {
    let dir = tables();
    let tb = Handle::open(dir.path(), 1 << 20);
    for (white_men, white_kings, black_kings) in [(62, 194, 0), (255, 255, 255), (17, 0, 16)] {
        let material = RafleMaterial {
            white_men,
            white_kings,
            black_men: 0,
            black_kings,
        };
        for variant in [RAFLE_INTERNATIONAL, RAFLE_BRAZILIAN] {
            // SAFETY: a live handle and a material on the stack.
            let status = unsafe { rafle_has_table(tb.0, variant, RAFLE_TABLE_WDL, &material) };
            assert_eq!(status, 0, "{material:?}: {}", last_error());
        }
    }
    let kk_k = RafleMaterial {
        white_kings: 2,
        black_kings: 1,
        ..RafleMaterial::default()
    };
    // SAFETY: as above.
    let status = unsafe { rafle_has_table(tb.0, RAFLE_BRAZILIAN, RAFLE_TABLE_RULES, &kk_k) };
    assert_eq!(status, 1);
}
