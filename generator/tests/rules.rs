//! Rule-aware values (class and count, RULES.md §5.3) of whole small materials compared with an
//! independent solver that plays the counters out explicitly (`support/naive_rules.rs`), with
//! the real limits and with tight ones, in both variants; and the generated tables verified.

#[path = "support/naive_rules.rs"]
mod naive_rules;

use rafle_generator::{generate, verify_table, NoProgress, Plan};
use rafle_probe::{Counters, Limits, Role, RuleClass, Tablebase, Variant, Wdl};

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
        let ours = tb.probe_rules(pos, Counters::FRESH).unwrap().value;
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
