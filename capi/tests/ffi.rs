//! The C functions called from Rust: the same answers as the Rust API on a batch of positions
//! (every position of two materials and random ones of all), their error codes and texts,
//! null pointers refused, availability, the cache bound, and one handle shared by threads.

use std::ffi::{c_int, CStr, CString};
use std::ptr::{null, null_mut};

use rafle::*;
use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::toolkit::format::TableKind;
use rafle_probe::{
    draughts::{Counters, Material, Position, SquareStyle, Variant},
    toolkit::PositionIndex,
    ProbeError, RuleClass, Tablebase,
};
use tempfile::TempDir;

mod bridge;
use bridge::{last_error, wdl_code, Handle};

fn tables() -> TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for variant in Variant::ALL {
        let plan = Plan::new(variant, 3, dir.path()).expect("plan");
        generate(&plan, &NoProgress).expect("tables generate");
    }
    dir
}

fn status(e: &ProbeError) -> c_int {
    match e {
        ProbeError::TooManyPieces { .. } => RAFLE_ERR_TOO_MANY_PIECES,
        ProbeError::MissingTable { .. } => RAFLE_ERR_MISSING_TABLE,
        _ => RAFLE_ERR_BAD_TABLE,
    }
}

/// Checks every probe of the C interface against the Rust API on one position.
fn compare(tb: &Handle, rust: &Tablebase, pos: &Position, counters: Counters) {
    let c = RaflePosition::from_position(pos);
    let live = RafleCounters {
        king_plies: u32::from(counters.king_plies),
        category_plies: u32::from(counters.category_plies),
    };
    // SAFETY (all the calls below): a live handle, valid positions and outputs on the stack.
    let mut wdl = 7;
    let got = unsafe { rafle_probe_wdl(tb.0, &c, &mut wdl) };
    match rust.probe_wdl(pos) {
        Ok(w) => assert_eq!((got, wdl), (RAFLE_OK, wdl_code(w)), "{pos:?}"),
        Err(e) => {
            assert_eq!((got, wdl), (status(&e), 7), "{pos:?}");
            assert_eq!(last_error(), e.to_string());
        }
    }
    let (mut wdl, mut plies) = (7, 7);
    let got = unsafe { rafle_probe_dtw(tb.0, &c, &mut wdl, &mut plies) };
    match rust.probe_dtw(pos) {
        Ok(d) => {
            let expected = (
                RAFLE_OK,
                wdl_code(d.wdl()),
                d.plies().map_or(-1, c_int::from),
            );
            assert_eq!((got, wdl, plies), expected, "{pos:?}");
        }
        Err(e) => assert_eq!(got, status(&e), "{pos:?}"),
    }
    let mut rules = RafleRules::default();
    let got = unsafe { rafle_probe_rules(tb.0, &c, &live, &mut rules) };
    match rust.probe_draw_rules(pos, counters) {
        Ok(o) => {
            assert_eq!(got, RAFLE_OK);
            assert_eq!(rules.result, wdl_code(o.result), "{pos:?} {counters:?}");
            let class = match o.value.class() {
                RuleClass::Win => RAFLE_CLASS_WIN,
                RuleClass::CursedWin => RAFLE_CLASS_CURSED_WIN,
                RuleClass::Draw => RAFLE_CLASS_DRAW,
                RuleClass::BlessedLoss => RAFLE_CLASS_BLESSED_LOSS,
                RuleClass::Loss => RAFLE_CLASS_LOSS,
            };
            assert_eq!(rules.rule_class, class);
            assert_eq!(rules.count, o.value.count().map_or(-1, c_int::from));
            assert_eq!(rules.limit, c_int::from(o.limit));
            let article = o.category.article().replace('.', "");
            assert_eq!(rules.rule.to_string(), article);
            let mut cached = RafleRules::default();
            let hit = unsafe { rafle_probe_rules_cached(tb.0, &c, &live, &mut cached) };
            assert_eq!((hit, cached), (RAFLE_OK, rules));
        }
        Err(e) => assert_eq!(got, status(&e), "{pos:?}"),
    }
    let mut best = RafleMove::default();
    let got = unsafe { rafle_best_move(tb.0, &c, &mut best) };
    match rust.best_move(pos) {
        Ok(Some((mv, value))) => {
            assert_eq!(got, RAFLE_OK);
            let text = unsafe { CStr::from_ptr(best.text.as_ptr()) };
            assert_eq!(
                text.to_str(),
                Ok(pos.move_text(&mv, SquareStyle::Numeric).as_str())
            );
            assert_eq!(best.from, c_int::from(mv.from().number()));
            assert_eq!(best.to, c_int::from(mv.to().number()));
            assert_eq!(best.captured, mv.captured().to_numbered_bits());
            assert_eq!(best.wdl, wdl_code(value.wdl()));
            assert_eq!(best.plies, value.plies().map_or(-1, c_int::from));
        }
        Ok(None) => assert_eq!((got, best.text[0]), (RAFLE_NO_MOVE, 0), "{pos:?}"),
        Err(e) => assert_eq!(got, status(&e), "{pos:?}"),
    }
    let mut cached = 7;
    let got = unsafe { rafle_probe_wdl_cached(tb.0, &c, &mut cached) };
    match rust.probe_wdl(pos) {
        Ok(w) => assert_eq!((got, cached), (RAFLE_OK, wdl_code(w)), "{pos:?}"),
        Err(_) => assert_eq!((got, cached), (RAFLE_NOT_CACHED, 7), "{pos:?}"),
    }
}

#[test]
fn the_c_interface_answers_as_the_rust_api() {
    let dir = tables();
    let tb = Handle::open(dir.path(), 0);
    let rust = Tablebase::open(dir.path()).expect("tables open");
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut count = 0;
    for variant in Variant::ALL {
        for material in rust.materials(variant) {
            let index = PositionIndex::new(variant, material);
            let whole = material.to_string() == "KMvK" && variant == Variant::Brazilian;
            let picks: Vec<u64> = if whole {
                (0..index.size()).step_by(7).collect()
            } else {
                (0..150).map(|_| next() % index.size()).collect()
            };
            for i in picks {
                let counters = Counters {
                    king_plies: (next() % 60) as u16,
                    category_plies: (next() % 12) as u16,
                };
                compare(&tb, &rust, &index.unrank(i), counters);
                count += 1;
            }
        }
        for fen in ["W:W21,22:B9,10", "B:W29:B", "W:W29:B"] {
            let pos = Position::from_fen(variant, fen).expect("FEN");
            compare(&tb, &rust, &pos, Counters::FRESH);
        }
    }
    assert!(count > 8000, "{count}");
}

#[test]
fn availability_and_limits() {
    let dir = tables();
    let tb = Handle::open(dir.path(), 1 << 20);
    let rust = Tablebase::open(dir.path()).expect("tables open");
    // SAFETY (all the calls below): a live handle, valid pointers or deliberate nulls.
    unsafe {
        for (code, variant) in [
            (RAFLE_INTERNATIONAL, Variant::International),
            (RAFLE_BRAZILIAN, Variant::Brazilian),
        ] {
            for (kind_code, kind) in [
                (RAFLE_TABLE_WDL, TableKind::Wdl),
                (RAFLE_TABLE_DTW, TableKind::Dtw),
                (RAFLE_TABLE_RULES, TableKind::DrawRules),
            ] {
                assert_eq!(rafle_max_pieces(tb.0, code, kind_code), 3);
                let total = rafle_materials(tb.0, code, kind_code, null_mut(), 0);
                let list = rust.materials_of(kind, variant);
                assert_eq!(total, list.len() as c_int);
                let mut out = vec![RafleMaterial::default(); 4];
                assert_eq!(
                    rafle_materials(tb.0, code, kind_code, out.as_mut_ptr(), 4),
                    total
                );
                for (c, m) in out.iter().zip(&list) {
                    let back = Material {
                        white_men: c.white_men,
                        white_kings: c.white_kings,
                        black_men: c.black_men,
                        black_kings: c.black_kings,
                    };
                    assert_eq!(back, *m);
                    let mirrored = RafleMaterial {
                        white_men: c.black_men,
                        white_kings: c.black_kings,
                        black_men: c.white_men,
                        black_kings: c.white_kings,
                    };
                    assert_eq!(rafle_has_table(tb.0, code, kind_code, &mirrored), 1);
                }
            }
            let four = RafleMaterial {
                white_men: 2,
                white_kings: 0,
                black_men: 2,
                black_kings: 0,
            };
            assert_eq!(rafle_has_table(tb.0, code, RAFLE_TABLE_WDL, &four), 0);
            let mut limits = RafleLimits::default();
            assert_eq!(rafle_rule_limits(tb.0, code, &mut limits), RAFLE_OK);
            let rust_limits = rust.limits(variant).expect("one set").expect("rule tables");
            assert_eq!(limits.rule_6_2, c_int::from(rust_limits.rule_6_2));
            assert_eq!(limits.rule_6_3, c_int::from(rust_limits.rule_6_3));
            assert_eq!(limits.rule_6_4, c_int::from(rust_limits.rule_6_4));
        }
        assert_eq!(
            rafle_max_pieces(tb.0, 5, RAFLE_TABLE_WDL),
            RAFLE_ERR_ARGUMENT
        );
        assert_eq!(
            rafle_max_pieces(tb.0, RAFLE_BRAZILIAN, 9),
            RAFLE_ERR_ARGUMENT
        );
        assert!(last_error().contains("table kind 9"));
        let version = CStr::from_ptr(rafle_version()).to_str().expect("UTF-8");
        assert_eq!(version, env!("CARGO_PKG_VERSION"));
    }
}

#[test]
fn errors_have_codes_and_texts() {
    let dir = tables();
    // SAFETY (all the calls below): valid pointers, live handles, or deliberate nulls.
    unsafe {
        assert!(rafle_open(null(), 0).is_null());
        assert!(last_error().contains("dir is a null pointer"));
        let nowhere =
            CString::new(dir.path().join("nowhere").to_str().expect("UTF-8")).expect("no NUL");
        assert!(rafle_open(nowhere.as_ptr(), 0).is_null());
        assert!(last_error().contains("nowhere"), "{}", last_error());
        rafle_close(null_mut());

        let material = |name: &str| dir.path().join("brazilian").join(name);
        std::fs::remove_file(material("KMvK.wdl")).expect("removed");
        let bytes = std::fs::read(material("KKvK.wdl")).expect("read");
        let mut damaged = bytes.clone();
        let last = damaged.len() - 10;
        damaged[last] ^= 0xff;
        std::fs::write(material("KKvK.wdl"), damaged).expect("written");

        let tb = Handle::open(dir.path(), 0);
        let pos = |fen: &str| {
            let mut p = RaflePosition::default();
            let fen = CString::new(fen).expect("no NUL");
            assert_eq!(
                rafle_position_from_fen(RAFLE_BRAZILIAN, fen.as_ptr(), &mut p),
                RAFLE_OK
            );
            p
        };
        let mut wdl = 0;
        let kmk = pos("W:WK1,5:BK32");
        assert_eq!(
            rafle_probe_wdl(tb.0, &kmk, &mut wdl),
            RAFLE_ERR_MISSING_TABLE
        );
        assert!(last_error().contains("KMvK"), "{}", last_error());
        let kkk = pos("W:WK1,K5:BK32");
        assert_eq!(rafle_probe_wdl(tb.0, &kkk, &mut wdl), RAFLE_ERR_BAD_TABLE);
        assert!(last_error().contains("KKvK.wdl"), "{}", last_error());
        let four = pos("W:W21,22:B9,10");
        assert_eq!(
            rafle_probe_wdl(tb.0, &four, &mut wdl),
            RAFLE_ERR_TOO_MANY_PIECES
        );
        assert!(last_error().contains("4 pieces"), "{}", last_error());
        assert_eq!(
            rafle_probe_wdl_cached(tb.0, &four, &mut wdl),
            RAFLE_NOT_CACHED
        );

        let ok = pos("B:W29:B25,22");
        let bad = RaflePosition {
            white_kings: ok.white_men,
            ..ok
        };
        let mut plies = 0;
        let mut rules = RafleRules::default();
        let mut best = RafleMove::default();
        assert_eq!(rafle_probe_wdl(tb.0, &bad, &mut wdl), RAFLE_ERR_POSITION);
        assert!(last_error().contains("square 29 is in both"));
        assert_eq!(rafle_probe_wdl(null(), &ok, &mut wdl), RAFLE_ERR_NULL);
        assert_eq!(rafle_probe_wdl(tb.0, null(), &mut wdl), RAFLE_ERR_NULL);
        assert_eq!(rafle_probe_wdl(tb.0, &ok, null_mut()), RAFLE_ERR_NULL);
        assert_eq!(
            rafle_probe_wdl_cached(tb.0, &ok, null_mut()),
            RAFLE_ERR_NULL
        );
        assert_eq!(
            rafle_probe_dtw(tb.0, &ok, &mut wdl, null_mut()),
            RAFLE_ERR_NULL
        );
        assert_eq!(
            rafle_probe_dtw(tb.0, &ok, null_mut(), &mut plies),
            RAFLE_ERR_NULL
        );
        assert_eq!(
            rafle_probe_rules(tb.0, &ok, null(), null_mut()),
            RAFLE_ERR_NULL
        );
        assert_eq!(
            rafle_probe_rules(null(), &ok, null(), &mut rules),
            RAFLE_ERR_NULL
        );
        assert_eq!(rafle_best_move(tb.0, &ok, null_mut()), RAFLE_ERR_NULL);
        assert_eq!(rafle_best_move(tb.0, null(), &mut best), RAFLE_ERR_NULL);
        assert_eq!(rafle_max_pieces(null(), 0, 0), RAFLE_ERR_NULL);
        assert_eq!(rafle_has_table(tb.0, 0, 0, null()), RAFLE_ERR_NULL);
        assert_eq!(rafle_materials(tb.0, 0, 0, null_mut(), 3), RAFLE_ERR_NULL);
        assert_eq!(rafle_rule_limits(tb.0, 0, null_mut()), RAFLE_ERR_NULL);
        assert_eq!(rafle_cache_bytes(null()), 0);

        // A cache-only probe answers once the full probe has read the blocks.
        assert_eq!(
            rafle_probe_wdl_cached(tb.0, &ok, &mut wdl),
            RAFLE_NOT_CACHED
        );
        assert_eq!(
            rafle_probe_rules_cached(tb.0, &ok, null(), &mut rules),
            RAFLE_NOT_CACHED
        );
        assert_eq!(rafle_probe_wdl(tb.0, &ok, &mut wdl), RAFLE_OK);
        assert_eq!(rafle_probe_rules(tb.0, &ok, null(), &mut rules), RAFLE_OK);
        let mut cached = 9;
        assert_eq!(rafle_probe_wdl_cached(tb.0, &ok, &mut cached), RAFLE_OK);
        assert_eq!((wdl, cached), (RAFLE_WIN, RAFLE_WIN));
        assert_eq!(
            (rules.rule_class, rules.result),
            (RAFLE_CLASS_WIN, RAFLE_WIN)
        );
        // Counters used up: the same win becomes a draw under the rules.
        let late = RafleCounters {
            king_plies: 50,
            category_plies: 0,
        };
        assert_eq!(rafle_probe_rules(tb.0, &ok, &late, &mut rules), RAFLE_OK);
        assert_eq!(
            (rules.rule_class, rules.result),
            (RAFLE_CLASS_WIN, RAFLE_DRAW)
        );
        assert!(rafle_cache_bytes(tb.0) > 0);

        // The game is over: no move.
        for (fen, value) in [("B:W29:B", RAFLE_LOSS), ("W:W29:B", RAFLE_WIN)] {
            assert_eq!(rafle_best_move(tb.0, &pos(fen), &mut best), RAFLE_NO_MOVE);
            assert_eq!((best.wdl, best.plies, best.text[0]), (value, 0, 0), "{fen}");
        }
    }
}

#[test]
fn threads_share_a_handle_within_its_budget() {
    let dir = tables();
    let budget = 200 << 10;
    let tb = Handle::open(dir.path(), budget);
    let rust = Tablebase::open(dir.path()).expect("tables open");
    let index = PositionIndex::new(Variant::International, "KKvK".parse().expect("material"));
    let positions: Vec<Position> = (0..index.size())
        .step_by(13)
        .map(|i| index.unrank(i))
        .collect();
    let expected: Vec<c_int> = positions
        .iter()
        .map(|p| wdl_code(rust.probe_wdl(p).expect("probe")))
        .collect();
    std::thread::scope(|scope| {
        for t in 0..3 {
            let (tb, positions, expected) = (&tb, &positions, &expected);
            scope.spawn(move || {
                for (i, pos) in positions.iter().enumerate().skip(t) {
                    let c = RaflePosition::from_position(pos);
                    let mut dtw = (0, 0);
                    let mut wdl = 0;
                    // SAFETY: a live handle shared as documented, valid position and outputs.
                    unsafe {
                        assert_eq!(rafle_probe_wdl(tb.0, &c, &mut wdl), RAFLE_OK);
                        assert_eq!(rafle_probe_dtw(tb.0, &c, &mut dtw.0, &mut dtw.1), RAFLE_OK);
                        assert!(rafle_cache_bytes(tb.0) <= budget);
                    }
                    assert_eq!((wdl, dtw.0), (expected[i], expected[i]));
                }
            });
        }
    });
}

#[test]
fn finished_games_answer_alike_everywhere_before_any_table() {
    let dir = tables();
    let tb = Handle::open(dir.path(), 0);
    let white_kings: Vec<String> = (1..=32).map(|s| format!("K{s}")).collect();
    let all_kings = format!("W:W{}:B", white_kings.join(","));
    // The side to move without pieces has lost, even on an empty board; the side whose
    // opponent has none has won, however many pieces it has; a blocked side has lost, beyond
    // the tables too (3 pieces here).
    let cases = [
        (RAFLE_BRAZILIAN, "W:W:B", RAFLE_LOSS),
        (RAFLE_BRAZILIAN, "B:W:B", RAFLE_LOSS),
        (RAFLE_BRAZILIAN, all_kings.as_str(), RAFLE_WIN),
        (RAFLE_INTERNATIONAL, "W:W6,16:B1,7,11,17", RAFLE_LOSS),
    ];
    for (variant, fen, expected) in cases {
        let text = CString::new(fen).expect("no NUL");
        let mut pos = RaflePosition::default();
        // SAFETY (the calls below): valid pointers and a live handle.
        unsafe {
            assert_eq!(
                rafle_position_from_fen(variant, text.as_ptr(), &mut pos),
                RAFLE_OK
            );
            let mut wdl = 0;
            assert_eq!(
                rafle_probe_wdl(tb.0, &pos, &mut wdl),
                RAFLE_OK,
                "{fen}: {}",
                last_error()
            );
            assert_eq!(wdl, expected, "{fen}");
            let mut plies = -1;
            assert_eq!(
                rafle_probe_dtw(tb.0, &pos, &mut wdl, &mut plies),
                RAFLE_OK,
                "{fen}"
            );
            assert_eq!((wdl, plies), (expected, 0), "{fen}");
            let mut rules = RafleRules::default();
            assert_eq!(
                rafle_probe_rules(tb.0, &pos, null(), &mut rules),
                RAFLE_OK,
                "{fen}: {}",
                last_error()
            );
            assert_eq!((rules.result, rules.count), (expected, 0), "{fen}");
            let mut best = RafleMove::default();
            let code = rafle_best_move(tb.0, &pos, &mut best);
            assert_eq!(best.wdl, expected, "{fen}");
            // Only the won side with pieces on a board has moves left; the game is over all the same.
            if expected == RAFLE_LOSS {
                assert_eq!(code, RAFLE_NO_MOVE, "{fen}");
            }
        }
    }
}

#[test]
fn an_empty_directory_path_is_named() {
    let empty = CString::new("").expect("no NUL");
    // SAFETY: a valid NUL-terminated string.
    assert!(unsafe { rafle_open(empty.as_ptr(), 0) }.is_null());
    assert_eq!(last_error(), "the table directory is an empty path");
}

/// Brazilian tables up to 2 pieces of the kinds `tables` says.
fn brazilian_two(tables: rafle_generator::Tables) -> TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let plan = Plan::new(Variant::Brazilian, 2, dir.path())
        .expect("plan")
        .with_tables(tables);
    generate(&plan, &NoProgress).expect("tables generate");
    dir
}

/// A FEN as a C position.
fn c_position(variant: c_int, fen: &str) -> RaflePosition {
    let text = CString::new(fen).expect("no NUL");
    let mut pos = RaflePosition::default();
    // SAFETY: a valid NUL-terminated string and an output on the stack.
    let status = unsafe { rafle_position_from_fen(variant, text.as_ptr(), &mut pos) };
    assert_eq!(status, RAFLE_OK, "{fen}: {}", last_error());
    pos
}

/// Found by hostile testing: in a set built without rule tables, `rafle_probe_rules` refused a
/// finished game that `rafle_probe_wdl` and `rafle_probe_dtw` answer from the rules alone.
#[test]
fn a_finished_game_is_answered_by_every_probe_without_rule_tables() {
    let dir = brazilian_two(rafle_generator::Tables::Wdl);
    let tb = Handle::open(dir.path(), 0);
    let mut limits = RafleLimits::default();
    // SAFETY: a live handle and an output on the stack.
    let status = unsafe { rafle_rule_limits(tb.0, RAFLE_BRAZILIAN, &mut limits) };
    assert_eq!(status, RAFLE_ERR_MISSING_TABLE, "{}", last_error());
    for (fen, expected) in [
        ("W:W:BK28", RAFLE_LOSS),
        ("B:WK1,K2,K3:B", RAFLE_LOSS),
        ("W:WK1,K2,K3:B", RAFLE_WIN),
    ] {
        let pos = c_position(RAFLE_BRAZILIAN, fen);
        let mut wdl = 7;
        let mut rules = RafleRules::default();
        // SAFETY: a live handle, a position and outputs on the stack.
        unsafe {
            assert_eq!(rafle_probe_wdl(tb.0, &pos, &mut wdl), RAFLE_OK, "{fen}");
            assert_eq!(wdl, expected, "{fen}");
            let status = rafle_probe_rules(tb.0, &pos, null(), &mut rules);
            assert_eq!(status, RAFLE_OK, "{fen}: {}", last_error());
        }
        assert_eq!((rules.result, rules.count), (expected, 0), "{fen}");
        assert_eq!((rules.rule, rules.limit), (62, 50), "{fen}");
    }
    // A game still going needs the rule tables all the same.
    let pos = c_position(RAFLE_BRAZILIAN, "W:WK1:BK28");
    let mut rules = RafleRules::default();
    // SAFETY: as above.
    let status = unsafe { rafle_probe_rules(tb.0, &pos, null(), &mut rules) };
    assert!(status < 0, "{status}");
}

/// Found by hostile testing: with every rule table damaged the C library, like the command
/// line, took the set for one without rule tables.
#[test]
fn every_rule_table_damaged_is_a_bad_table_not_a_missing_one() {
    let dir = brazilian_two(rafle_generator::Tables::All);
    let place = dir.path().join("brazilian");
    let mut rules: Vec<_> = std::fs::read_dir(&place)
        .expect("the tables")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rules"))
        .collect();
    rules.sort();
    assert!(rules.len() > 1);
    for (i, path) in rules.iter().enumerate() {
        // Damaged two ways: emptied, or a directory in the file's place.
        std::fs::remove_file(path).expect("removed");
        if i % 2 == 0 {
            std::fs::write(path, b"").expect("emptied");
        } else {
            std::fs::create_dir(path).expect("a directory");
        }
    }
    let tb = Handle::open(dir.path(), 0);
    let mut limits = RafleLimits::default();
    // SAFETY: a live handle and an output on the stack.
    let status = unsafe { rafle_rule_limits(tb.0, RAFLE_BRAZILIAN, &mut limits) };
    let error = last_error();
    // The first in material order, KvK, was emptied.
    assert_eq!(status, RAFLE_ERR_BAD_TABLE, "{error}");
    assert_eq!(
        error,
        format!(
            "table {} is truncated: 0 bytes instead of 64",
            place.join("KvK.rules").display()
        )
    );
    let pos = c_position(RAFLE_BRAZILIAN, "W:WK1:BK28");
    let mut out = RafleRules::default();
    // SAFETY: as above.
    let status = unsafe { rafle_probe_rules(tb.0, &pos, null(), &mut out) };
    assert_eq!((status, last_error()), (RAFLE_ERR_BAD_TABLE, error));
}

/// Lidraughts' ghost pieces (`G7`, `P9`: pieces a capture under way has taken) were read as
/// the squares g7 and so on, answering for another position; the C library reads positions
/// between moves, and refuses them naming the ghost, as the Rust API does.
#[test]
fn ghost_pieces_are_refused_never_read_as_squares() {
    for (variant, code, fen) in [
        (
            Variant::International,
            RAFLE_INTERNATIONAL,
            "B:WK46:BG7,K5:H0:F1",
        ),
        (Variant::International, RAFLE_INTERNATIONAL, "W:WG1,K50:B10"),
        (
            Variant::International,
            RAFLE_INTERNATIONAL,
            "W:WK32:BG37,28",
        ),
        (Variant::Brazilian, RAFLE_BRAZILIAN, "W:W21:BG7,K5"),
        (Variant::Brazilian, RAFLE_BRAZILIAN, "W:WK20:B16,2,P27"),
    ] {
        let mut pos = RaflePosition::default();
        let text = CString::new(fen).expect("no NUL");
        // SAFETY: a NUL-terminated string and a position to write.
        let status = unsafe { rafle_position_from_fen(code, text.as_ptr(), &mut pos) };
        assert_eq!(status, RAFLE_ERR_POSITION, "{fen}");
        let expected = Position::from_fen(variant, fen).unwrap_err().to_string();
        assert_eq!(last_error(), expected, "{fen}");
        assert!(expected.contains("is a ghost piece"), "{expected}");
        assert_eq!(pos, RaflePosition::default(), "{fen}: nothing written");
    }
}

/// What `rafle_probe_fen` answers: status, win/draw/loss, plies and the rule answer (when
/// asked), the outputs as they were left.
fn probe_fen(
    tb: &Handle,
    variant: c_int,
    fen: &str,
    counters: Option<RafleCounters>,
    with_rules: bool,
) -> (c_int, c_int, c_int, Option<RafleRules>) {
    let text = CString::new(fen).expect("no NUL");
    let (mut wdl, mut plies) = (7, 7);
    let mut rules = RafleRules {
        result: 7,
        ..RafleRules::default()
    };
    let live = counters
        .as_ref()
        .map_or(null(), |c| c as *const RafleCounters);
    let out = if with_rules {
        &mut rules as *mut RafleRules
    } else {
        null_mut()
    };
    // SAFETY: a live handle, a NUL-terminated string, counters and outputs on the stack or null.
    let status = unsafe {
        rafle_probe_fen(
            tb.0,
            variant,
            text.as_ptr(),
            live,
            &mut wdl,
            &mut plies,
            out,
        )
    };
    (status, wdl, plies, with_rules.then_some(rules))
}

/// `rafle_probe_fen` of a FEN between moves answers as `rafle_probe_dtw` and
/// `rafle_probe_rules` of the position `rafle_position_from_fen` reads.
#[test]
fn probe_fen_of_a_position_between_moves_is_the_position_probes() {
    let dir = tables();
    let tb = Handle::open(dir.path(), 0);
    for (code, fen) in [
        (RAFLE_BRAZILIAN, "B:W29:B25,22"),
        (RAFLE_BRAZILIAN, "W:WK1,K2:BK28"),
        (RAFLE_INTERNATIONAL, "W:WK28,K33:BK1"),
        (RAFLE_INTERNATIONAL, "W:W45:B5,6"),
    ] {
        let pos = c_position(code, fen);
        for live in [None, Some((0, 0)), Some((12, 3)), Some((49, 9))] {
            let counters = live.map(|(k, c)| RafleCounters {
                king_plies: k,
                category_plies: c,
            });
            let (mut wdl, mut plies, mut rules) = (0, 0, RafleRules::default());
            let live_ptr = counters
                .as_ref()
                .map_or(null(), |c| c as *const RafleCounters);
            // SAFETY: a live handle, a valid position, outputs on the stack.
            unsafe {
                assert_eq!(rafle_probe_dtw(tb.0, &pos, &mut wdl, &mut plies), RAFLE_OK);
                assert_eq!(
                    rafle_probe_rules(tb.0, &pos, live_ptr, &mut rules),
                    RAFLE_OK
                );
            }
            let got = probe_fen(&tb, code, fen, counters, true);
            assert_eq!(got, (RAFLE_OK, wdl, plies, Some(rules)), "{fen} {live:?}");
            let got = probe_fen(&tb, code, fen, counters, false);
            assert_eq!(got, (RAFLE_OK, wdl, plies, None), "{fen} {live:?}");
        }
    }
}

/// Lidraughts sends a capture under way with the pieces already taken as ghosts (`P27`);
/// `rafle_position_from_fen` cannot hold it, `rafle_probe_fen` answers it: worth the whole
/// move from the position before the capture, with and without the draw rules.
#[test]
fn probe_fen_answers_a_capture_under_way_as_the_whole_move() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let plan = Plan::new(Variant::Brazilian, 4, dir.path()).expect("plan");
    generate(&plan, &NoProgress).expect("tables generate");
    let tb = Handle::open(dir.path(), 0);
    // The king on 31 takes the king on 27, then the man on 16 (to 11 or 7): the first jump
    // made, the king stands on 20 and the king on 27 is a ghost.
    let (before, mid) = ("W:WK31:B16,2,K27", "W:WK20:B16,2,P27");
    let mut results = Vec::new();
    for live in [
        None,
        Some((0, 0)),
        Some((0, 40)),
        Some((49, 0)),
        Some((50, 0)),
    ] {
        let counters = live.map(|(k, c)| RafleCounters {
            king_plies: k,
            category_plies: c,
        });
        let whole = probe_fen(&tb, RAFLE_BRAZILIAN, before, counters, true);
        let under_way = probe_fen(&tb, RAFLE_BRAZILIAN, mid, counters, true);
        assert_eq!(whole.0, RAFLE_OK, "{}", last_error());
        assert_eq!(under_way, whole, "{live:?}");
        assert_eq!((whole.1, whole.2), (RAFLE_WIN, 9));
        results.push(whole.3.expect("asked").result);
        let no_rules = probe_fen(&tb, RAFLE_BRAZILIAN, mid, counters, false);
        assert_eq!(no_rules, (RAFLE_OK, RAFLE_WIN, 9, None));
    }
    // The counters are used: at the 6.2 limit the win is drawn by the rules.
    assert!(
        results.contains(&RAFLE_WIN) && results.contains(&RAFLE_DRAW),
        "{results:?}"
    );
}

/// A ghost FEN that is no capture under way rafle can answer is refused with the text the
/// Rust API gives, the outputs untouched; so are null pointers.
#[test]
fn probe_fen_refuses_what_it_cannot_read() {
    let dir = tables();
    let tb = Handle::open(dir.path(), 0);
    for (variant, code, fen) in [
        (
            Variant::International,
            RAFLE_INTERNATIONAL,
            "B:WK46:BG7,K5:H0:F1",
        ),
        (Variant::Brazilian, RAFLE_BRAZILIAN, "W:W21,22:BG27,17,18,5"),
        (Variant::Brazilian, RAFLE_BRAZILIAN, "W:WK20:BG1"),
        (Variant::Brazilian, RAFLE_BRAZILIAN, "W:W33:B1"),
    ] {
        let got = probe_fen(&tb, code, fen, None, true);
        let expected = rafle_probe::draughts::FenPosition::from_fen(variant, fen)
            .unwrap_err()
            .to_string();
        let untouched = RafleRules {
            result: 7,
            ..RafleRules::default()
        };
        assert_eq!(got, (RAFLE_ERR_POSITION, 7, 7, Some(untouched)), "{fen}");
        assert_eq!(last_error(), expected, "{fen}");
    }
    let fen = c"W:WK20:B16,P27";
    let mut wdl = 0;
    // SAFETY: null pointers where the header says they are refused.
    unsafe {
        let status = rafle_probe_fen(
            tb.0,
            RAFLE_BRAZILIAN,
            fen.as_ptr(),
            null(),
            &mut wdl,
            null_mut(),
            null_mut(),
        );
        assert_eq!(
            (status, last_error().as_str()),
            (RAFLE_ERR_NULL, "plies is a null pointer")
        );
        let status = rafle_probe_fen(
            tb.0,
            RAFLE_BRAZILIAN,
            null(),
            null(),
            &mut wdl,
            &mut wdl,
            null_mut(),
        );
        assert_eq!(
            (status, last_error().as_str()),
            (RAFLE_ERR_NULL, "fen is a null pointer")
        );
        let status = rafle_probe_fen(
            null(),
            RAFLE_BRAZILIAN,
            fen.as_ptr(),
            null(),
            &mut wdl,
            &mut wdl,
            null_mut(),
        );
        assert_eq!(status, RAFLE_ERR_NULL);
        let status = rafle_probe_fen(
            tb.0,
            5,
            fen.as_ptr(),
            null(),
            &mut wdl,
            &mut wdl,
            null_mut(),
        );
        assert_eq!(status, RAFLE_ERR_ARGUMENT);
    }
    assert_eq!(wdl, 0, "nothing written on failure");
    // Counters past their range are refused as by rafle_probe_rules.
    let too_many = RafleCounters {
        king_plies: 10_001,
        category_plies: 0,
    };
    let got = probe_fen(&tb, RAFLE_BRAZILIAN, "W:WK20:B16,P27", Some(too_many), true);
    assert_eq!(got.0, RAFLE_ERR_ARGUMENT);
    assert_eq!(
        last_error(),
        "king_plies (K, rule 6.2) must be from 0 to 10000 plies, not 10001"
    );
}

#[test]
fn counters_past_their_range_and_long_inputs_are_refused_with_bounded_texts() {
    let dir = tables();
    let tb = Handle::open(dir.path(), 0);
    let mut ok = RaflePosition::default();
    let mut rules = RafleRules::default();
    // SAFETY (all the calls below): valid pointers and a live handle.
    unsafe {
        assert_eq!(
            rafle_position_from_fen(RAFLE_BRAZILIAN, c"W:WK1:BK28".as_ptr(), &mut ok),
            RAFLE_OK
        );
        let at_most = RafleCounters {
            king_plies: 10_000,
            category_plies: 0,
        };
        assert_eq!(rafle_probe_rules(tb.0, &ok, &at_most, &mut rules), RAFLE_OK);
        for (king_plies, category_plies, expected) in [
            (
                10_001,
                0,
                "king_plies (K, rule 6.2) must be from 0 to 10000 plies, not 10001",
            ),
            (
                0,
                u32::MAX,
                "category_plies (C, rules 6.3/6.4) must be from 0 to 10000 plies, not 4294967295",
            ),
        ] {
            let live = RafleCounters {
                king_plies,
                category_plies,
            };
            assert_eq!(
                rafle_probe_rules(tb.0, &ok, &live, &mut rules),
                RAFLE_ERR_ARGUMENT
            );
            assert_eq!(last_error(), expected);
            assert_eq!(
                rafle_probe_rules_cached(tb.0, &ok, &live, &mut rules),
                RAFLE_ERR_ARGUMENT
            );
        }
        // A 200 KB path and a 1 MB FEN are quoted as excerpts.
        let long = CString::new(format!("{}end", "d/".repeat(100_000))).expect("no NUL");
        assert!(rafle_open(long.as_ptr(), 0).is_null());
        let text = last_error();
        assert!(text.len() < 1_000, "{} bytes", text.len());
        assert!(
            text.contains("(200003 characters)…") && text.contains("d/end"),
            "{text}"
        );
        let fen = CString::new(format!("W:WK1:BK28,{}", "9".repeat(1 << 20))).expect("no NUL");
        let mut pos = RaflePosition::default();
        assert_eq!(
            rafle_position_from_fen(RAFLE_BRAZILIAN, fen.as_ptr(), &mut pos),
            RAFLE_ERR_POSITION
        );
        assert!(last_error().len() < 1_000, "{} bytes", last_error().len());
    }
}
