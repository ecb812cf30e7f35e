//! Random probes through the C functions, called from Rust: positions as an engine might pass
//! them, live counters, null pointers wherever the header allows one, table kinds and
//! materials. Every answer is the Rust API's or a status the header documents; outputs are
//! left untouched on error. `PROPTEST_CASES` sets the cases, as for `fuzz.rs`.

use std::ffi::{c_char, c_int};
use std::ptr::{null, null_mut};

use proptest::prelude::*;
use rafle::*;
use rafle_probe::toolkit::format::TableKind;
use rafle_probe::{
    draughts::{Counters, Material, Position, SquareStyle, Variant},
    Dtw, ProbeError, RuleValue, Tablebase, Wdl,
};

mod bridge;
mod fuzzing;
use bridge::{last_error, rules_of, wdl_code, Handle};
use fuzzing::*;

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
        // Past the range, the rule probes refuse them (below): these are not used.
        Counters::from_plies(live.king_plies.into(), live.category_plies.into())
            .unwrap_or(Counters::FRESH)
    };
    let problems = argument_problems(nulls, &pos, &[nulls.out]);
    // The rule probes also refuse counters past MAX_COUNTER, as every entry point does.
    let mut rule_problems = problems.clone();
    let past = |plies: u32| plies > u32::from(rafle_probe::draughts::MAX_COUNTER);
    if !nulls.counters && (past(live.king_plies) || past(live.category_plies)) {
        rule_problems.push(RAFLE_ERR_ARGUMENT);
    }
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
    judge(
        &what("rules"),
        status,
        out,
        untouched,
        &rule_problems,
        expected,
    );
    let mut out = untouched;
    let status = unsafe { rafle_probe_rules_cached(handle, p, c, ptr_mut(nulls.out, &mut out)) };
    if rule_problems.is_empty() && status == RAFLE_NOT_CACHED {
        assert_eq!(out, untouched, "{}", what("cached rules"));
    } else {
        judge(
            &what("cached rules"),
            status,
            out,
            untouched,
            &rule_problems,
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

/// FENs with lidraughts' ghost pieces, as sent between the jumps of a capture, and near
/// misses of them: ghosts of either side, capturing pieces that cannot be told.
fn ghost_fen_bytes() -> impl Strategy<Value = Vec<u8>> {
    const GHOSTS: [&str; 6] = [
        "W:WK20:B16,P27",
        "W:WK20:B16,G27",
        "B:WK46:BG7,K5:H0:F1",
        "W:W21,22:BG27,17,18,5",
        "B:W10,P14:BK1",
        "W:W20:B16,G24",
    ];
    let edit = prop::sample::select("GPKWB:,0123456789".chars().collect::<Vec<char>>());
    (
        prop::sample::select(GHOSTS.to_vec()),
        prop::collection::vec((any::<prop::sample::Index>(), 0..3u8, edit), 0..3),
    )
        .prop_map(|(fen, edits)| edited(fen, &edits).into_bytes())
}

/// `rafle_probe_fen` on any FEN, ghosts or not: the Rust API's answer (a capture under way
/// worth its best completion), or a documented status with the outputs untouched.
#[test]
fn probe_fen_answers_as_the_rust_api_or_refuses() {
    use rafle_probe::answer::{Answer, Options};
    use rafle_probe::draughts::FenPosition;
    let dir = tables();
    let tb = Handle::open(dir.path(), 1 << 20);
    let rust = Tablebase::open(dir.path()).expect("tables open");
    let strategy = (
        prop_oneof![1 => 0..2, 4 => Just(RAFLE_BRAZILIAN)],
        prop_oneof![fen_bytes(), ghost_fen_bytes()],
        c_counters(),
        prop::bool::weighted(0.3),
        prop::bool::weighted(0.3),
    );
    run(
        500,
        strategy,
        |(variant, bytes, live, null_counters, null_rules)| {
            let fen = std::ffi::CString::new(bytes.clone()).expect("no NUL");
            let (mut wdl, mut plies) = (7, 7);
            let mut rules = RafleRules {
                result: 7,
                ..RafleRules::default()
            };
            // SAFETY: a live handle, a NUL-terminated string, counters and outputs or null.
            let status = unsafe {
                rafle_probe_fen(
                    tb.0,
                    variant,
                    fen.as_ptr(),
                    ptr(null_counters, &live),
                    &mut wdl,
                    &mut plies,
                    ptr_mut(null_rules, &mut rules),
                )
            };
            let what = format!(
                "FEN {:?} of variant {variant}",
                String::from_utf8_lossy(&bytes)
            );
            let untouched = (wdl, plies, rules.result) == (7, 7, 7);
            // Counters past MAX_COUNTER are refused, as every entry point refuses them (the
            // header does not say which of several problems is reported).
            let past = |plies: u32| plies > u32::from(rafle_probe::draughts::MAX_COUNTER);
            if !null_counters && (past(live.king_plies) || past(live.category_plies)) {
                failed(&what, status, &[RAFLE_ERR_ARGUMENT, RAFLE_ERR_POSITION]);
                assert!(untouched, "{what}: written on error");
                return;
            }
            let v = variant_of(variant).expect("a variant");
            let read = std::str::from_utf8(&bytes)
                .ok()
                .and_then(|text| FenPosition::from_fen(v, text).ok());
            let Some(read) = read else {
                failed(&what, status, &[RAFLE_ERR_POSITION]);
                assert_eq!(
                    (wdl, plies, rules.result),
                    (7, 7, 7),
                    "{what}: written on error"
                );
                return;
            };
            let counters = (!null_counters).then(|| {
                Counters::from_plies(live.king_plies.into(), live.category_plies.into())
                    .expect("within the range")
            });
            let asked = (!null_rules).then(|| counters.unwrap_or(Counters::FRESH));
            let options = Options {
                counters: asked,
                line: false,
            };
            match Answer::probe_fen(&rust, &read, options) {
                Ok(answer) => {
                    let values = answer.values.expect("a probed answer has values");
                    assert_eq!(status, RAFLE_OK, "{what}: {}", last_error());
                    let expected_plies = values.dtw.plies().map_or(-1, c_int::from);
                    assert_eq!(
                        (wdl, plies),
                        (wdl_code(values.wdl), expected_plies),
                        "{what}"
                    );
                    match answer.rule_outcome() {
                        Some(outcome) => assert_eq!(rules, rules_of(&outcome), "{what}"),
                        None => assert_eq!(rules.result, 7, "{what}: rules written unasked"),
                    }
                }
                Err(e) => {
                    assert_ne!(
                        status, RAFLE_OK,
                        "{what}: answered where Rust fails with {e}"
                    );
                    assert_ne!(status, RAFLE_ERR_INTERNAL, "{what}: {}", last_error());
                    assert_eq!(
                        (wdl, plies, rules.result),
                        (7, 7, 7),
                        "{what}: written on error"
                    );
                }
            }
        },
    );
}
