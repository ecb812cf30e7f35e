//! What the property tests of the C functions share: the runner, the tables they read, the
//! strategies for variants, FEN bytes and positions, and how a status is judged.

// Each fuzz file uses its own part of this module.
#![allow(dead_code)]

use std::ffi::{c_int, CStr};

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use rafle::*;
use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::draughts::{Color, Position, Variant};
use tempfile::TempDir;

use crate::bridge::last_error;

/// Cases per property test: `PROPTEST_CASES` if set.
pub fn runner(cases: u32) -> TestRunner {
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
pub fn run<S: Strategy>(cases: u32, strategy: S, property: impl Fn(S::Value)) {
    let result = runner(cases).run(&strategy, |value| {
        property(value);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}

/// Brazilian tables up to 3 pieces (none for the international board).
pub fn tables() -> TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let plan = Plan::new(Variant::Brazilian, 3, dir.path()).expect("plan");
    generate(&plan, &NoProgress).expect("tables generate");
    dir
}

/// Every status rafle.h defines.
pub const DOCUMENTED: [c_int; 12] = [
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
pub fn failed(what: &str, status: c_int, allowed: &[c_int]) {
    assert!(
        allowed.contains(&status),
        "{what}: status {status} ({}), expected one of {allowed:?}",
        name(status)
    );
    assert!(!last_error().is_empty(), "{what}: no error text");
}

pub fn name(status: c_int) -> String {
    // SAFETY: rafle_status_name returns a static NUL-terminated string.
    unsafe { CStr::from_ptr(rafle_status_name(status)) }
        .to_string_lossy()
        .into_owned()
}

pub fn variant_of(code: c_int) -> Option<Variant> {
    match code {
        RAFLE_INTERNATIONAL => Some(Variant::International),
        RAFLE_BRAZILIAN => Some(Variant::Brazilian),
        _ => None,
    }
}

/// A variant code: mostly the two defined, sometimes anything.
pub fn variant_code() -> impl Strategy<Value = c_int> {
    prop_oneof![4 => 0..2, 1 => -2..4, 1 => any::<c_int>()]
}

/// FEN texts worth trying, and the pieces near misses are made of.
pub const FENS: [&str; 8] = [
    "W:W31-50:B1-20",
    "B:BK17,K24:W6,9,10,K31",
    "W:W21,22,K1:B5,K32",
    "W:Wa3,c3,Kb8:Ba7,Kg1",
    " \"W:W31-33:B1,2\". ",
    "W:W31, 32 :B1:H0:F1",
    "W:WK1-K3:B10",
    "B:W29:B25,22",
];
pub const FEN_CHARS: &str = "WBwbKkHhFf:,-\". 0123456789abcdefgh\u{e9}\u{feff}";

/// `fen` with `edits` made in turn: each at its index, 0 inserting its character, 1 replacing
/// the one there, 2 removing it (past the end, the character is appended).
pub fn edited(fen: &str, edits: &[(prop::sample::Index, u8, char)]) -> String {
    let mut chars: Vec<char> = fen.chars().collect();
    for &(ref at, how, c) in edits {
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
    chars.into_iter().collect()
}

/// Byte strings without NUL: anything, near misses of valid FENs, FEN-like noise, and very
/// long ones.
pub fn fen_bytes() -> impl Strategy<Value = Vec<u8>> {
    let fen_char = prop::sample::select(FEN_CHARS.chars().collect::<Vec<char>>());
    let noise = vec(fen_char.clone(), 0..60).prop_map(|cs| cs.into_iter().collect::<String>());
    let near_miss = (
        prop::sample::select(FENS.to_vec()),
        vec((any::<prop::sample::Index>(), 0..3u8, fen_char), 1..4),
    )
        .prop_map(|(fen, edits)| edited(fen, &edits));
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
pub const UNTOUCHED: RaflePosition = RaflePosition {
    variant: 77,
    turn: 77,
    white_men: 7,
    white_kings: 7,
    black_men: 7,
    black_kings: 7,
};

/// A position as an engine might pass one: mostly a few pieces on the board (which may still
/// overlap or stand on a promotion row), sometimes any bits, any variant or side.
pub fn c_position() -> impl Strategy<Value = RaflePosition> {
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
pub fn position_of(variant: c_int, turn: c_int, sets: [u64; 4]) -> RaflePosition {
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
pub fn rust_position(pos: &RaflePosition) -> Result<Position, c_int> {
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
