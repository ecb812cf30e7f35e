//! Rule-aware values (class and count, docs/rules.md §5.3) of whole small materials compared with an
//! independent solver that plays the counters out explicitly (`support/naive_rules.rs`), with
//! the real limits and with tight ones, in both variants; and the generated tables verified.

use crate::naive_rules;

use rafle_generator::{generate, verify_table, NoProgress, Plan};
use rafle_probe::{
    draughts::{Category, Counters, Limits, Position, Role, Variant},
    Dtw, RuleClass, RuleValue, Tablebase, Wdl,
};

fn naive_limits(l: Limits) -> naive_rules::Limits {
    naive_rules::Limits {
        king_plies: u32::from(l.rule_6_2),
        category_3: u32::from(l.rule_6_3),
        category_4: u32::from(l.rule_6_4),
    }
}

fn naive_wdl(w: Wdl) -> naive_rules::Wdl {
    match w {
        Wdl::Win => naive_rules::Wdl::Win,
        Wdl::Draw => naive_rules::Wdl::Draw,
        Wdl::Loss => naive_rules::Wdl::Loss,
    }
}

fn naive_class(c: RuleClass) -> naive_rules::Class {
    match c {
        RuleClass::Win => naive_rules::Class::Win,
        RuleClass::CursedWin => naive_rules::Class::CursedWin,
        RuleClass::Draw => naive_rules::Class::Draw,
        RuleClass::BlessedLoss => naive_rules::Class::BlessedLoss,
        RuleClass::Loss => naive_rules::Class::Loss,
    }
}

/// Generates `variant` up to `pieces` with `limits`, compares every position of the given
/// roles with the reference and verifies every table; returns how many positions fell in each
/// class.
fn compare(variant: Variant, pieces: u32, roles: &[Role], limits: Limits) -> [u64; 5] {
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan::new(variant, pieces, dir.path())
        .unwrap()
        .with_limits(limits);
    generate(&plan, &NoProgress).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    assert_eq!(tb.limits(variant).unwrap(), Some(limits));
    let graph = naive_rules::Graph::enumerate(variant, pieces, roles);
    let reference = graph.rules(naive_limits(limits));
    let mut classes = [0u64; 5];
    for pos in graph.positions() {
        let ours = tb.probe_draw_rules(pos, Counters::FRESH).unwrap().value;
        let unlimited = naive_wdl(tb.probe_wdl(pos).unwrap());
        let theirs = reference
            .rule_value(pos, unlimited)
            .unwrap_or_else(|| panic!("{}: no count describes it", pos.to_fen()));
        let same = naive_class(ours.class()) == theirs.class
            && ours.count().map_or(0, u32::from) == theirs.count;
        assert!(
            same,
            "{variant} {limits}: {}: ours {ours}, reference {theirs:?}",
            pos.to_fen()
        );
        classes[ours.class() as usize] += 1;
    }
    for material in tb.materials(variant) {
        let report = verify_table(&tb, variant, material, &|_| {}).unwrap();
        assert_eq!(
            report.mismatches, 0,
            "{variant} {material}: {:?}",
            report.examples
        );
    }
    classes
}

#[test]
fn every_value_up_to_three_pieces_with_the_real_limits() {
    for v in Variant::ALL {
        let classes = compare(v, 3, &[Role::Man, Role::King], Limits::fmjd(v));
        assert!(classes[RuleClass::Win as usize] > 1000, "{v}: {classes:?}");
        assert!(classes[RuleClass::Loss as usize] > 1000, "{v}: {classes:?}");
    }
}

#[test]
fn every_value_up_to_three_pieces_with_tight_limits() {
    for v in Variant::ALL {
        let limits = Limits::parse(v, "6.2=6,6.3=4,6.4=3").unwrap();
        let classes = compare(v, 3, &[Role::Man, Role::King], limits);
        assert!(
            classes[RuleClass::CursedWin as usize] > 100,
            "{v}: {classes:?}"
        );
        assert!(
            classes[RuleClass::BlessedLoss as usize] > 100,
            "{v}: {classes:?}"
        );
    }
}

/// The kings-only materials of Brazilian draughts up to 4 pieces, where 6.3 (3 kings against
/// 1) and 6.2 (2 kings against 2) both apply, with tight limits that make them bind.
#[test]
fn brazilian_kings_up_to_four_pieces_with_tight_limits() {
    let v = Variant::Brazilian;
    let limits = Limits::parse(v, "6.2=8,6.3=6,6.4=4").unwrap();
    let classes = compare(v, 4, &[Role::King], limits);
    assert!(classes[RuleClass::CursedWin as usize] > 1000, "{classes:?}");
}

/// Tables generated once per set of limits for the hand-checked positions.
fn tables(variant: Variant, pieces: u32, limits: Limits) -> (tempfile::TempDir, Tablebase) {
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan::new(variant, pieces, dir.path())
        .unwrap()
        .with_limits(limits);
    generate(&plan, &NoProgress).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    (dir, tb)
}

fn counters(king_plies: u16, category_plies: u16) -> Counters {
    Counters {
        king_plies,
        category_plies,
    }
}

/// Our result with live counters, checked against the reference solving the same position's
/// reachable states.
fn result(tb: &Tablebase, pos: &Position, live: Counters, limits: Limits) -> Wdl {
    let ours = tb.probe_draw_rules(pos, live).unwrap().result;
    let theirs = naive_rules::result(
        pos,
        naive_rules::Counters {
            king_plies: u32::from(live.king_plies),
            category_plies: u32::from(live.category_plies),
        },
        naive_limits(limits),
    );
    assert_eq!(naive_wdl(ours), theirs, "{} with {live:?}", pos.to_fen());
    ours
}

#[test]
fn hand_checked_positions_with_tight_limits() {
    let v = Variant::International;
    let (_dir, tb) = tables(v, 3, Limits::parse(v, "6.2=6,6.3=4,6.4=3").unwrap());
    let limits = tb.limits(v).unwrap().unwrap();
    let pos = |fen| Position::from_fen(v, fen).unwrap();

    // King and man against king is 6.4, 3 plies here. White wins in 5 plies, more than the
    // category allows: a cursed win, drawn under the rules.
    let p = pos("W:WK1,6:BK50");
    assert_eq!(tb.probe_dtw(&p).unwrap(), Dtw::Win(5));
    let outcome = tb.probe_draw_rules(&p, Counters::FRESH).unwrap();
    assert_eq!(outcome.value.class(), RuleClass::CursedWin);
    assert_eq!((outcome.category, outcome.limit), (Category::Rule64, 3));
    assert_eq!(result(&tb, &p, Counters::FRESH, limits), Wdl::Draw);

    // Man against man is under 6.2 (6 plies here). White wins in 7 plies, but its first move
    // promotes (a man move), which starts the count again: one ply left is enough.
    let p = pos("W:W6:B3");
    assert_eq!(tb.probe_dtw(&p).unwrap(), Dtw::Win(7));
    let outcome = tb.probe_draw_rules(&p, Counters::FRESH).unwrap();
    assert_eq!(outcome.value, RuleValue::win(1));
    assert_eq!(outcome.category, Category::Outside);
    assert_eq!(result(&tb, &p, counters(5, 0), limits), Wdl::Win);
    assert_eq!(result(&tb, &p, counters(6, 0), limits), Wdl::Draw);
}

#[test]
fn hand_checked_positions_with_the_real_limits() {
    let v = Variant::Brazilian;
    let (_dir, tb) = tables(v, 4, Limits::fmjd(v));
    let limits = Limits::fmjd(v);
    let pos = |fen| Position::from_fen(v, fen).unwrap();

    // King and man against king (6.4, 10 plies): a win in 7 plies, all of them counted. With
    // 3 plies used it still fits; with 4 used the count runs out first: a draw.
    let p = pos("W:W5,K6:BK28");
    assert_eq!(tb.probe_dtw(&p).unwrap(), Dtw::Win(7));
    assert_eq!(
        tb.probe_draw_rules(&p, Counters::FRESH).unwrap().value,
        RuleValue::win(7)
    );
    assert_eq!(result(&tb, &p, counters(0, 3), limits), Wdl::Win);
    assert_eq!(result(&tb, &p, counters(0, 4), limits), Wdl::Draw);

    // Three kings against one (6.3, 40 plies), the lone king to move with one ply left on the
    // count: it must take a king, which passes to 6.4 and starts the count afresh, so White
    // still wins, 8 plies later.
    let p = pos("B:WK1,K2,K10:BK6");
    assert_eq!(Category::of_position(&p), Category::Rule63);
    assert_eq!(tb.probe_dtw(&p).unwrap(), Dtw::Loss(8));
    assert_eq!(result(&tb, &p, counters(0, 39), limits), Wdl::Loss);

    // Two kings against two (6.2) with 49 plies of king moves used: White must capture, which
    // enters 6.4 afresh, and wins 7 plies later.
    let p = pos("W:WK1,K2:BK6,K28");
    assert_eq!(Category::of_position(&p), Category::Outside);
    assert_eq!(tb.probe_dtw(&p).unwrap(), Dtw::Win(7));
    assert_eq!(
        tb.probe_draw_rules(&p, Counters::FRESH).unwrap().value,
        RuleValue::win(1)
    );
    assert_eq!(result(&tb, &p, counters(49, 0), limits), Wdl::Win);
}
