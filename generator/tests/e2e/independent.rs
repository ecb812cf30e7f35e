//! Every generated value compared with an independent solver (plain forward value iteration
//! over a hash map of positions, `support/naive.rs`) on whole small materials of both variants.

use crate::naive;
use crate::naive_rules;

use rafle_generator::{generate, NoProgress, Plan};
use rafle_probe::{
    draughts::{Role, Variant},
    Dtw, Tablebase, Wdl,
};

fn same(ours: Wdl, theirs: naive::Wdl) -> bool {
    matches!(
        (ours, theirs),
        (Wdl::Win, naive::Wdl::Win) | (Wdl::Draw, naive::Wdl::Draw) | (Wdl::Loss, naive::Wdl::Loss)
    )
}

#[test]
fn every_position_up_to_three_pieces() {
    let dir = tempfile::tempdir().unwrap();
    for v in Variant::ALL {
        generate(&Plan::new(v, 3, dir.path()).unwrap(), &NoProgress).unwrap();
        let tb = Tablebase::open(dir.path()).unwrap();
        let reference = naive::solve(v, 3);
        assert!(
            reference.len() > 100_000,
            "{v}: {} positions",
            reference.len()
        );
        let wrong: Vec<String> = reference
            .iter()
            .filter(|(p, &value)| !same(tb.probe_wdl(p).unwrap(), value))
            .take(5)
            .map(|(p, value)| format!("{}: reference {value:?}", p.to_fen()))
            .collect();
        assert!(wrong.is_empty(), "{v}: {wrong:?}");
    }
}

/// Kings-only endgames of Brazilian draughts up to 4 pieces, and the classic fact about
/// 3 kings against 1: the lone king holding the long diagonal 29-4 draws almost always.
#[test]
fn brazilian_kings_up_to_four_pieces() {
    let v = Variant::Brazilian;
    let dir = tempfile::tempdir().unwrap();
    generate(&Plan::new(v, 4, dir.path()).unwrap(), &NoProgress).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    let reference = naive::solve_with_roles(v, 4, &[Role::King]);
    let mut checked = 0;
    for (p, &value) in &reference {
        assert!(
            same(tb.probe_wdl(p).unwrap(), value),
            "{}: reference {value:?}",
            p.to_fen()
        );
        checked += 1;
    }
    assert!(checked > 1_000_000, "{checked}");

    let diagonal = [29u8, 25, 22, 18, 15, 11, 8, 4];
    let on_diagonal = |set: rafle_probe::draughts::SquareSet| {
        set.into_iter()
            .filter(|s| diagonal.contains(&s.number()))
            .count()
    };
    let (mut draws, mut total) = (0u32, 0u32);
    for p in reference.keys() {
        let material = rafle_probe::draughts::Material::of(p);
        let lone = p.side_pieces(p.turn());
        let strong = p.side_pieces(p.turn().opposite());
        if material.pieces() == 4
            && lone.len() == 1
            && strong.len() == 3
            && on_diagonal(lone) == 1
            && on_diagonal(strong) == 0
        {
            total += 1;
            draws += u32::from(tb.probe_wdl(p).unwrap() == Wdl::Draw);
        }
    }
    assert!(total > 10_000, "{total}");
    let share = f64::from(draws) / f64::from(total);
    assert!(share > 0.95, "{draws} draws of {total}");
}

/// Distances to win of every position up to 3 pieces in both variants, against the
/// independent solver's (ply-by-ply iteration over a hash map of positions).
#[test]
fn every_distance_up_to_three_pieces() {
    let dir = tempfile::tempdir().unwrap();
    for v in Variant::ALL {
        generate(&Plan::new(v, 3, dir.path()).unwrap(), &NoProgress).unwrap();
        let tb = Tablebase::open(dir.path()).unwrap();
        let reference = naive_rules::dtw(v, 3, &[Role::Man, Role::King]);
        assert!(
            reference.len() > 100_000,
            "{v}: {} positions",
            reference.len()
        );
        let mut longest = 0;
        for (p, &theirs) in &reference {
            let ours = tb.probe_dtw(p).unwrap();
            let same = match (ours, theirs) {
                (Dtw::Win(a), naive_rules::Dtw::Win(b))
                | (Dtw::Loss(a), naive_rules::Dtw::Loss(b)) => u32::from(a) == b,
                (Dtw::Draw, naive_rules::Dtw::Draw) => true,
                _ => false,
            };
            assert!(same, "{}: ours {ours:?}, reference {theirs:?}", p.to_fen());
            longest = longest.max(ours.plies().unwrap_or(0));
        }
        assert!(longest > 10, "{v}: longest {longest}");
    }
}
