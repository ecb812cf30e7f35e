//! Random arguments to the C functions, called from Rust: FEN strings of any bytes (invalid
//! UTF-8, very long, near misses of valid ones), square lists, bitboards, counters, buffer
//! capacities, table kinds and variants, directory paths, and null pointers wherever the
//! header allows one. Nothing crashes; every status is one the header documents, and the one
//! the Rust API implies; results are those of the Rust API, outputs are left untouched on
//! error, texts are NUL-terminated within their buffers, and the last error says something.
//!
//! The property tests run a few hundred cases each; for a longer run:
//!
//! ```text
//! PROPTEST_CASES=20000 cargo test --release -p rafle-capi --test fuzz
//! ```
//!
//! Using a handle after `rafle_close` is undefined behaviour by the header's contract (the
//! handle is freed), so it is not exercised.

use std::ffi::{c_char, c_int, CStr, CString};
use std::path::Path;
use std::ptr::{null, null_mut};

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use rafle::*;
use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::format::TableKind;
use rafle_probe::{
    Color, Counters, Dtw, Material, Position, ProbeError, RuleValue, SquareStyle, Tablebase,
    Variant, Wdl,
};
use tempfile::TempDir;

mod bridge;
use bridge::{last_error, rules_of, wdl_code, Handle};

/// Cases per property test: `PROPTEST_CASES` if set.
fn runner(cases: u32) -> TestRunner {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(cases);
    TestRunner::new(ProptestConfig {
        cases,
        // A failure becomes a named regression test instead.
        failure_persistence: None,
        ..ProptestConfig::default()
    })
}

/// Runs `property` on values of `strategy`; panics with the smallest failing value.
fn run<S: Strategy>(cases: u32, strategy: S, property: impl Fn(S::Value)) {
    let result = runner(cases).run(&strategy, |value| {
        property(value);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}

/// Brazilian tables up to 3 pieces (none for the international board).
fn tables() -> TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let plan = Plan::new(Variant::Brazilian, 3, dir.path()).expect("plan");
    generate(&plan, &NoProgress).expect("tables generate");
    dir
}

/// Every status rafle.h defines.
const DOCUMENTED: [c_int; 12] = [
    RAFLE_OK,
    RAFLE_NOT_CACHED,
    RAFLE_NO_MOVE,
    RAFLE_ERR_NULL,
    RAFLE_ERR_ARGUMENT,
    RAFLE_ERR_POSITION,
    RAFLE_ERR_TOO_MANY_PIECES,
    RAFLE_ERR_MISSING_TABLE,
    RAFLE_ERR_BAD_TABLE,
    RAFLE_ERR_MIXED_LIMITS,
    RAFLE_ERR_IO,
    RAFLE_ERR_INTERNAL,
];

/// What a failed call must leave behind: a status among `allowed` (never
/// `RAFLE_ERR_INTERNAL`, a panic caught), and a text saying what went wrong.
fn failed(what: &str, status: c_int, allowed: &[c_int]) {
    assert!(
        allowed.contains(&status),
        "{what}: status {status} ({}), expected one of {allowed:?}",
        name(status)
    );
    assert!(!last_error().is_empty(), "{what}: no error text");
}

fn name(status: c_int) -> String {
    // SAFETY: rafle_status_name returns a static NUL-terminated string.
    unsafe { CStr::from_ptr(rafle_status_name(status)) }
        .to_string_lossy()
        .into_owned()
}

fn variant_of(code: c_int) -> Option<Variant> {
    match code {
        RAFLE_INTERNATIONAL => Some(Variant::International),
        RAFLE_BRAZILIAN => Some(Variant::Brazilian),
        _ => None,
    }
}

/// A variant code: mostly the two defined, sometimes anything.
fn variant_code() -> impl Strategy<Value = c_int> {
    prop_oneof![4 => 0..2, 1 => -2..4, 1 => any::<c_int>()]
}

/// FEN texts worth trying, and the pieces near misses are made of.
const FENS: [&str; 8] = [
    "W:W31-50:B1-20",
    "B:BK17,K24:W6,9,10,K31",
    "W:W21,22,K1:B5,K32",
    "W:Wa3,c3,Kb8:Ba7,Kg1",
    " \"W:W31-33:B1,2\". ",
    "W:W31, 32 :B1:H0:F1",
    "W:WK1-K3:B10",
    "B:W29:B25,22",
];
const FEN_CHARS: &str = "WBwbKkHhFf:,-\". 0123456789abcdefgh\u{e9}\u{feff}";

/// Byte strings without NUL: anything, near misses of valid FENs, FEN-like noise, and very
/// long ones.
fn fen_bytes() -> impl Strategy<Value = Vec<u8>> {
    let fen_char = prop::sample::select(FEN_CHARS.chars().collect::<Vec<char>>());
    let noise = vec(fen_char.clone(), 0..60).prop_map(|cs| cs.into_iter().collect::<String>());
    let near_miss = (
        prop::sample::select(FENS.to_vec()),
        vec((any::<prop::sample::Index>(), 0..3u8, fen_char), 1..4),
    )
        .prop_map(|(fen, edits)| {
            let mut chars: Vec<char> = fen.chars().collect();
            for (at, how, c) in edits {
                let i = at.index(chars.len() + 1);
                match how {
                    0 => chars.insert(i, c),
                    1 if i < chars.len() => chars[i] = c,
                    _ if i < chars.len() => {
                        chars.remove(i);
                    }
                    _ => chars.push(c),
                }
            }
            chars.into_iter().collect::<String>()
        });
    let long = (
        prop::sample::select(FENS.to_vec()),
        noise.clone(),
        1..20_000usize,
    )
        .prop_map(|(fen, filler, n)| {
            format!(
                "{fen}{}",
                filler.repeat(n.min(200_000 / (filler.len() + 1)))
            )
        });
    prop_oneof![
        2 => vec(1..=255u8, 0..200),
        2 => noise.prop_map(String::into_bytes),
        4 => near_miss.prop_map(String::into_bytes),
        1 => long.prop_map(String::into_bytes),
    ]
}

/// A position no call should write: every field out of range.
const UNTOUCHED: RaflePosition = RaflePosition {
    variant: 77,
    turn: 77,
    white_men: 7,
    white_kings: 7,
    black_men: 7,
    black_kings: 7,
};

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

/// A position as an engine might pass one: mostly a few pieces on the board (which may still
/// overlap or stand on a promotion row), sometimes any bits, any variant or side.
fn c_position() -> impl Strategy<Value = RaflePosition> {
    let plausible =
        (0..2, 0..2, vec((0..4usize, 0..50u32), 0..6)).prop_map(|(variant, turn, pieces)| {
            let squares = if variant == RAFLE_BRAZILIAN { 32 } else { 50 };
            let mut sets = [0u64; 4];
            for (set, square) in pieces {
                sets[set] |= 1 << (square % squares);
            }
            position_of(variant, turn, sets)
        });
    let anything = (
        variant_code(),
        prop_oneof![4 => 0..2, 1 => any::<c_int>()],
        any::<[u64; 4]>(),
    )
        .prop_map(|(variant, turn, sets)| position_of(variant, turn, sets));
    prop_oneof![6 => plausible, 1 => anything]
}

/// The C position of these bitboards: white men, white kings, black men, black kings.
fn position_of(variant: c_int, turn: c_int, sets: [u64; 4]) -> RaflePosition {
    RaflePosition {
        variant,
        turn,
        white_men: sets[0],
        white_kings: sets[1],
        black_men: sets[2],
        black_kings: sets[3],
    }
}

/// The position a `rafle_position` stands for, by the Rust API, or the status refusing it.
fn rust_position(pos: &RaflePosition) -> Result<Position, c_int> {
    let variant = variant_of(pos.variant).ok_or(RAFLE_ERR_ARGUMENT)?;
    let turn = match pos.turn {
        RAFLE_WHITE => Color::White,
        RAFLE_BLACK => Color::Black,
        _ => return Err(RAFLE_ERR_ARGUMENT),
    };
    Position::from_numbered_bits(
        variant,
        turn,
        pos.white_men,
        pos.white_kings,
        pos.black_men,
        pos.black_kings,
    )
    .ok_or(RAFLE_ERR_POSITION)
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

/// Which pointer arguments of a probe are null.
#[derive(Debug, Clone, Copy)]
struct Nulls {
    tb: bool,
    pos: bool,
    out: bool,
    plies: bool,
    counters: bool,
}

fn nulls() -> impl Strategy<Value = Nulls> {
    let rare = || prop::bool::weighted(0.04);
    (rare(), rare(), rare(), rare(), prop::bool::weighted(0.3)).prop_map(
        |(tb, pos, out, plies, counters)| Nulls {
            tb,
            pos,
            out,
            plies,
            counters,
        },
    )
}

/// Live counters: small as in games, or anything a caller might pass.
fn c_counters() -> impl Strategy<Value = RafleCounters> {
    let plies = prop_oneof![4 => 0..120u32, 1 => any::<u32>()];
    (plies.clone(), plies).prop_map(|(king_plies, category_plies)| RafleCounters {
        king_plies,
        category_plies,
    })
}

fn ptr<T>(null: bool, value: &T) -> *const T {
    if null {
        std::ptr::null()
    } else {
        value
    }
}

fn ptr_mut<T>(null: bool, value: &mut T) -> *mut T {
    if null {
        std::ptr::null_mut()
    } else {
        value
    }
}

fn status_of(e: &ProbeError) -> c_int {
    match e {
        ProbeError::TooManyPieces { .. } => RAFLE_ERR_TOO_MANY_PIECES,
        ProbeError::MissingTable { .. } => RAFLE_ERR_MISSING_TABLE,
        ProbeError::MixedLimits { .. } => RAFLE_ERR_MIXED_LIMITS,
        ProbeError::Io { .. } => RAFLE_ERR_IO,
        _ => RAFLE_ERR_BAD_TABLE,
    }
}

/// The statuses of the problems with a probe's arguments (empty if there is none): the
/// header does not say which of several problems is reported, so any of them may be.
fn argument_problems(nulls: Nulls, pos: &RaflePosition, outputs: &[bool]) -> Vec<c_int> {
    let mut problems = Vec::new();
    if nulls.tb || nulls.pos || outputs.iter().any(|&null| null) {
        problems.push(RAFLE_ERR_NULL);
    }
    if !nulls.pos {
        if let Err(status) = rust_position(pos) {
            problems.push(status);
        }
    }
    problems
}

/// Checks one probe's status and output against what the Rust API says: `expected` is the
/// output it should write, or the error; a refused call leaves `out` as `untouched`.
fn judge<T: PartialEq + std::fmt::Debug>(
    what: &str,
    status: c_int,
    out: T,
    untouched: T,
    problems: &[c_int],
    expected: Result<(c_int, T), c_int>,
) {
    if !problems.is_empty() {
        failed(what, status, problems);
        assert_eq!(out, untouched, "{what}: output written on error");
        return;
    }
    match expected {
        Ok((ok, value)) => assert_eq!((status, out), (ok, value), "{what}: {}", last_error()),
        Err(error) => {
            failed(what, status, &[error]);
            assert_eq!(out, untouched, "{what}: output written on error");
        }
    }
}

/// The text of a move: NUL-terminated within its buffer.
fn move_text(text: &[c_char; 128]) -> String {
    let bytes: Vec<u8> = text.iter().map(|&c| c as u8).collect();
    let end = bytes
        .iter()
        .position(|&b| b == 0)
        .expect("the move text is NUL-terminated within its 128 bytes");
    String::from_utf8(bytes[..end].to_vec()).expect("the move text is UTF-8")
}

/// Every probe of the C interface on one set of arguments, checked against the Rust API.
fn probe_all(tb: &Handle, rust: &Tablebase, pos: RaflePosition, live: RafleCounters, nulls: Nulls) {
    let handle = if nulls.tb { null() } else { tb.0.cast_const() };
    let p = ptr(nulls.pos, &pos);
    let c = ptr(nulls.counters, &live);
    let rust_pos = rust_position(&pos);
    let counters = if nulls.counters {
        Counters::FRESH
    } else {
        let plies = |p: u32| u16::try_from(p).unwrap_or(u16::MAX);
        Counters {
            king_plies: plies(live.king_plies),
            category_plies: plies(live.category_plies),
        }
    };
    let problems = argument_problems(nulls, &pos, &[nulls.out]);
    let what = |probe: &str| format!("{probe} of {pos:?} {live:?} {nulls:?}");
    let answer = |f: &dyn Fn(&Position) -> Result<c_int, ProbeError>| match &rust_pos {
        Ok(pos) => f(pos).map_err(|e| status_of(&e)),
        Err(status) => Err(*status),
    };

    let mut wdl = 7;
    // SAFETY (every call below): a live handle or null, arguments on the stack or null.
    let status = unsafe { rafle_probe_wdl(handle, p, ptr_mut(nulls.out, &mut wdl)) };
    let expected = answer(&|pos| rust.probe_wdl(pos).map(wdl_code)).map(|w| (RAFLE_OK, w));
    judge(&what("wdl"), status, wdl, 7, &problems, expected);

    let mut cached = 7;
    let status = unsafe { rafle_probe_wdl_cached(handle, p, ptr_mut(nulls.out, &mut cached)) };
    if problems.is_empty() && status == RAFLE_NOT_CACHED {
        assert_eq!(cached, 7, "{}", what("cached wdl"));
    } else {
        let expected = answer(&|pos| rust.probe_wdl(pos).map(wdl_code)).map(|w| (RAFLE_OK, w));
        judge(&what("cached wdl"), status, cached, 7, &problems, expected);
    }

    let (mut wdl, mut plies) = (7, 7);
    let dtw_problems = argument_problems(nulls, &pos, &[nulls.out, nulls.plies]);
    let status = unsafe {
        rafle_probe_dtw(
            handle,
            p,
            ptr_mut(nulls.out, &mut wdl),
            ptr_mut(nulls.plies, &mut plies),
        )
    };
    let dtw = |pos: &Position| rust.probe_dtw(pos);
    let expected = match &rust_pos {
        Ok(pos) => dtw(pos)
            .map(|d: Dtw| {
                (
                    RAFLE_OK,
                    (wdl_code(d.wdl()), d.plies().map_or(-1, c_int::from)),
                )
            })
            .map_err(|e| status_of(&e)),
        Err(status) => Err(*status),
    };
    judge(
        &what("dtw"),
        status,
        (wdl, plies),
        (7, 7),
        &dtw_problems,
        expected,
    );

    let untouched = RafleRules {
        result: 9,
        rule_class: 9,
        count: 9,
        rule: 9,
        limit: 9,
    };
    let expected = match &rust_pos {
        Ok(pos) => rust
            .probe_draw_rules(pos, counters)
            .map(|o| (RAFLE_OK, rules_of(&o)))
            .map_err(|e| status_of(&e)),
        Err(status) => Err(*status),
    };
    let mut out = untouched;
    let status = unsafe { rafle_probe_rules(handle, p, c, ptr_mut(nulls.out, &mut out)) };
    judge(&what("rules"), status, out, untouched, &problems, expected);
    let mut out = untouched;
    let status = unsafe { rafle_probe_rules_cached(handle, p, c, ptr_mut(nulls.out, &mut out)) };
    if problems.is_empty() && status == RAFLE_NOT_CACHED {
        assert_eq!(out, untouched, "{}", what("cached rules"));
    } else {
        judge(
            &what("cached rules"),
            status,
            out,
            untouched,
            &problems,
            expected,
        );
    }

    let mut best = RafleMove {
        text: [b'#' as c_char; 128],
        ..RafleMove::default()
    };
    let untouched = best;
    let status = unsafe { rafle_best_move(handle, p, ptr_mut(nulls.out, &mut best)) };
    let what = what("best move");
    if !problems.is_empty() {
        failed(&what, status, &problems);
        assert_eq!(best, untouched, "{what}: output written on error");
        return;
    }
    let pos = rust_pos.expect("no problem with the position");
    match rust.best_move(&pos) {
        Ok(Some((mv, value))) => {
            assert_eq!(status, RAFLE_OK, "{what}: {}", last_error());
            assert_eq!(
                move_text(&best.text),
                pos.move_text(&mv, SquareStyle::Numeric)
            );
            assert_eq!(best.from, c_int::from(mv.from().number()), "{what}");
            assert_eq!(best.to, c_int::from(mv.to().number()), "{what}");
            assert_eq!(best.captured, mv.captured().to_numbered_bits(), "{what}");
            assert_eq!(best.wdl, wdl_code(value.wdl()), "{what}");
            assert_eq!(best.plies, value.plies().map_or(-1, c_int::from), "{what}");
        }
        Ok(None) => {
            assert_eq!(status, RAFLE_NO_MOVE, "{what}");
            assert_eq!(move_text(&best.text), "", "{what}");
            // The game is over: its value is the one every probe gives it.
            let wdl = rust.probe_wdl(&pos).expect("a finished game is answered");
            assert_eq!(best.wdl, wdl_code(wdl), "{what}");
        }
        Err(e) => {
            failed(&what, status, &[status_of(&e)]);
            assert_eq!(best, untouched, "{what}: output written on error");
        }
    }
}

#[test]
fn probes_answer_as_the_rust_api_or_refuse() {
    let dir = tables();
    let tb = Handle::open(dir.path(), 1 << 20);
    let rust = Tablebase::open(dir.path()).expect("tables open");
    run(
        1500,
        (c_position(), c_counters(), nulls()),
        |(pos, live, nulls)| probe_all(&tb, &rust, pos, live, nulls),
    );
}

/// A table kind code: mostly the three defined, sometimes anything.
fn kind_code() -> impl Strategy<Value = c_int> {
    prop_oneof![4 => 0..3, 1 => any::<c_int>()]
}

fn kind_of(code: c_int) -> Option<TableKind> {
    match code {
        RAFLE_TABLE_WDL => Some(TableKind::Wdl),
        RAFLE_TABLE_DTW => Some(TableKind::Dtw),
        RAFLE_TABLE_RULES => Some(TableKind::DrawRules),
        _ => None,
    }
}

/// A material: mostly a few pieces, sometimes counts no board holds.
fn c_material() -> impl Strategy<Value = RafleMaterial> {
    let count = prop_oneof![6 => 0..4u8, 1 => any::<u8>()];
    [count.clone(), count.clone(), count.clone(), count].prop_map(|[wm, wk, bm, bk]| {
        RafleMaterial {
            white_men: wm,
            white_kings: wk,
            black_men: bm,
            black_kings: bk,
        }
    })
}

#[test]
fn availability_answers_as_the_rust_api_or_refuses() {
    let dir = tables();
    let tb = Handle::open(dir.path(), 1 << 20);
    let rust = Tablebase::open(dir.path()).expect("tables open");
    let strategy = (
        variant_code(),
        kind_code(),
        c_material(),
        0..24usize,
        nulls(),
    );
    run(
        1500,
        strategy,
        |(variant, kind, material, capacity, nulls)| {
            let handle = if nulls.tb { null() } else { tb.0.cast_const() };
            let what = format!("{variant} {kind} {material:?} {capacity} {nulls:?}");
            let codes = match (variant_of(variant), kind_of(kind)) {
                (Some(v), Some(k)) => Some((v, k)),
                _ => None,
            };
            let mut problems = Vec::new();
            if nulls.tb {
                problems.push(RAFLE_ERR_NULL);
            }
            if codes.is_none() {
                problems.push(RAFLE_ERR_ARGUMENT);
            }

            // SAFETY (every call below): a live handle or null, arguments on the stack or null,
            // and an output array of at least `capacity` materials.
            let status = unsafe { rafle_max_pieces(handle, variant, kind) };
            match codes {
                Some((v, k)) if !nulls.tb => {
                    assert_eq!(status, rust.max_pieces_of(k, v) as c_int, "{what}");
                }
                _ => failed(&what, status, &problems),
            }

            let m = Material {
                white_men: material.white_men,
                white_kings: material.white_kings,
                black_men: material.black_men,
                black_kings: material.black_kings,
            };
            let status =
                unsafe { rafle_has_table(handle, variant, kind, ptr(nulls.out, &material)) };
            let mut has_problems = problems.clone();
            if nulls.out {
                has_problems.push(RAFLE_ERR_NULL);
            }
            match codes {
                Some((v, k)) if has_problems.is_empty() => {
                    // No table has more than 15 pieces of a kind (and summing larger counts in
                    // `u8`, as `Material` does, would overflow).
                    let small = [m.white_men, m.white_kings, m.black_men, m.black_kings]
                        .iter()
                        .all(|&n| n <= 15);
                    let has = small && rust.has_table(k, v, m);
                    assert_eq!(status, c_int::from(has), "{what}: {}", last_error());
                }
                _ => failed(&what, status, &has_problems),
            }

            let filler = RafleMaterial {
                white_men: 99,
                white_kings: 99,
                black_men: 99,
                black_kings: 99,
            };
            let mut list = vec![filler; capacity + 4];
            let out = if nulls.out {
                null_mut()
            } else {
                list.as_mut_ptr()
            };
            let status = unsafe { rafle_materials(handle, variant, kind, out, capacity) };
            let mut list_problems = problems.clone();
            if nulls.out && capacity > 0 {
                list_problems.push(RAFLE_ERR_NULL);
            }
            match codes {
                Some((v, k)) if list_problems.is_empty() => {
                    let all = rust.materials_of(k, v);
                    assert_eq!(status, all.len() as c_int, "{what}");
                    let written = capacity.min(all.len());
                    for (i, got) in list.iter().enumerate() {
                        if i < written && !nulls.out {
                            let m = all[i];
                            let want = RafleMaterial {
                                white_men: m.white_men,
                                white_kings: m.white_kings,
                                black_men: m.black_men,
                                black_kings: m.black_kings,
                            };
                            assert_eq!(*got, want, "{what}: material {i}");
                        } else {
                            assert_eq!(*got, filler, "{what}: written past {written}");
                        }
                    }
                }
                _ => {
                    failed(&what, status, &list_problems);
                    assert!(
                        list.iter().all(|m| *m == filler),
                        "{what}: written on error"
                    );
                }
            }

            let untouched = RafleLimits {
                rule_6_2: 5,
                rule_6_3: 5,
                rule_6_4: 5,
            };
            let mut limits = untouched;
            let status =
                unsafe { rafle_rule_limits(handle, variant, ptr_mut(nulls.out, &mut limits)) };
            let mut limit_problems = Vec::new();
            if nulls.tb || nulls.out {
                limit_problems.push(RAFLE_ERR_NULL);
            }
            let v = variant_of(variant);
            if v.is_none() {
                limit_problems.push(RAFLE_ERR_ARGUMENT);
            }
            match v.map(|v| rust.limits(v).expect("one set of limits")) {
                Some(Some(l)) if limit_problems.is_empty() => {
                    let want = RafleLimits {
                        rule_6_2: c_int::from(l.rule_6_2),
                        rule_6_3: c_int::from(l.rule_6_3),
                        rule_6_4: c_int::from(l.rule_6_4),
                    };
                    assert_eq!((status, limits), (RAFLE_OK, want), "{what}");
                }
                Some(None) if limit_problems.is_empty() => {
                    failed(&what, status, &[RAFLE_ERR_MISSING_TABLE]);
                    assert_eq!(limits, untouched);
                }
                _ => {
                    failed(&what, status, &limit_problems);
                    assert_eq!(limits, untouched);
                }
            }
        },
    );
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

/// Found by `probes_answer_as_the_rust_api_or_refuse`: with a side without pieces and more
/// pieces than the rule tables cover, the rule probe refused the position (too many pieces)
/// while the cache-only probe, documented to answer as it does, gave a value.
#[test]
fn the_cached_and_full_probes_answer_a_finished_game_alike() {
    let dir = tables();
    let tb = Handle::open(dir.path(), 1 << 20);
    let rust = Tablebase::open(dir.path()).expect("tables open");
    // More pieces than the tables cover, but the game is over: Black has none.
    let pos = Position::from_fen(Variant::Brazilian, "W:WK1,5,6,7:B").expect("FEN");
    let full = rust
        .probe_draw_rules(&pos, Counters::FRESH)
        .expect("answered");
    assert_eq!(full.value, RuleValue::win(0));
    assert_eq!(
        rust.probe_draw_rules_cached(&pos, Counters::FRESH),
        Some(full)
    );
    let c = RaflePosition::from_position(&pos);
    let (mut out, mut cached) = (RafleRules::default(), RafleRules::default());
    // SAFETY: a live handle, a position and an output on the stack, fresh counters.
    unsafe {
        assert_eq!(rafle_probe_rules(tb.0, &c, null(), &mut out), RAFLE_OK);
        assert_eq!(
            rafle_probe_rules_cached(tb.0, &c, null(), &mut cached),
            RAFLE_OK
        );
    }
    assert_eq!((out.result, out.count), (RAFLE_WIN, 0));
    assert_eq!((cached.result, cached.count), (RAFLE_WIN, 0));
    assert_eq!(rust.probe_wdl(&pos).ok(), Some(Wdl::Win));
    assert_eq!(rust.probe_wdl_cached(&pos), Some(Wdl::Win));
}
