//! Checks of the reference for distance to win and the draw rules 6.2–6.4 in
//! `support/naive_rules.rs`: hand-worked positions, the DTW equations and agreement with the
//! WDL solver of `support/naive.rs` on whole materials, and the property the rule-aware tables
//! rely on: for every position, one (class, count) answers every value of the live counter
//! (docs/rules.md §5.3), with the real limits and with tight ones.
//!
//! The whole sets solved are: Brazilian and international, men and kings, 2–3 pieces; Brazilian
//! kings only, 2–4 pieces. Each is solved once per test binary, through [`OnceLock`]s.

use crate::naive;
use crate::naive_rules;

use std::collections::HashMap;
use std::sync::OnceLock;

use naive_rules::{
    category, result, Category, Class, Counters, Dtw, Graph, Limits, RuleValue, RuleValues, Wdl,
};
use rafle_probe::draughts::{Position, Role, Variant};

/// Limits far below the real ones, so that the counters bite in tiny materials. The category
/// limits stay below the 6.2 limit, as with the real ones (see the module documentation).
const TIGHT: Limits = Limits {
    king_plies: 4,
    category_3: 3,
    category_4: 2,
};

/// A whole set of positions solved by the tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Set {
    /// Brazilian, men and kings, 2–3 pieces.
    Brazilian3,
    /// International, men and kings, 2–3 pieces.
    International3,
    /// Brazilian, kings only, 2–4 pieces: 6.2 (KKvKK) and 6.3 (KKKvK) at work.
    BrazilianKings4,
}

const SETS: [Set; 3] = [Set::Brazilian3, Set::International3, Set::BrazilianKings4];

impl Set {
    fn variant(self) -> Variant {
        match self {
            Set::Brazilian3 | Set::BrazilianKings4 => Variant::Brazilian,
            Set::International3 => Variant::International,
        }
    }

    fn pieces_and_roles(self) -> (u32, &'static [Role]) {
        match self {
            Set::Brazilian3 | Set::International3 => (3, &[Role::Man, Role::King]),
            Set::BrazilianKings4 => (4, &[Role::King]),
        }
    }

    fn slot(self) -> usize {
        self as usize
    }
}

/// A set's graph and its values with the rules ignored.
struct Solved {
    graph: Graph,
    dtw: Vec<Dtw>,
}

fn solved(set: Set) -> &'static Solved {
    static CELLS: [OnceLock<Solved>; 3] = [const { OnceLock::new() }; 3];
    CELLS[set.slot()].get_or_init(|| {
        let (pieces, roles) = set.pieces_and_roles();
        let graph = Graph::enumerate(set.variant(), pieces, roles);
        let dtw = graph.dtw();
        Solved { graph, dtw }
    })
}

/// A set's values under the rules, with the real limits (`tight == false`) or [`TIGHT`].
fn rules(set: Set, tight: bool) -> &'static RuleValues<'static> {
    static CELLS: [OnceLock<RuleValues<'static>>; 6] = [const { OnceLock::new() }; 6];
    CELLS[2 * set.slot() + usize::from(tight)].get_or_init(|| {
        let limits = if tight {
            TIGHT
        } else {
            Limits::of(set.variant())
        };
        solved(set).graph.rules(limits)
    })
}

fn pos(variant: Variant, fen: &str) -> Position {
    Position::from_fen(variant, fen).expect("valid FEN")
}

fn dtw_of(variant: Variant, fen: &str) -> Dtw {
    let p = pos(variant, fen);
    let graph = Graph::reachable_from(p);
    graph.dtw()[graph.index_of(&p).expect("the start is listed")]
}

fn used(plies: u32) -> Counters {
    Counters {
        king_plies: plies,
        category_plies: plies,
    }
}

fn category_used(plies: u32) -> Counters {
    Counters {
        king_plies: 0,
        category_plies: plies,
    }
}

fn king_used(plies: u32) -> Counters {
    Counters {
        king_plies: plies,
        category_plies: 0,
    }
}

#[test]
fn categories_and_limits_follow_the_rules() {
    let i = Variant::International;
    let b = Variant::Brazilian;
    let cases = [
        (i, "W:WK1,K2,K3:BK50", Category::Rule63),
        (i, "W:WK1,K2,30:BK50", Category::Rule63),
        (i, "W:WK1,30,31:BK50", Category::Rule63),
        (i, "B:WK50:BK1,K2,K3", Category::Rule63),
        (i, "W:WK1,K2:BK50", Category::Rule64),
        (i, "W:WK1,30:BK50", Category::Rule64),
        (i, "B:WK1:BK50", Category::Rule64),
        (i, "W:W30,31:BK50", Category::Outside),
        (i, "W:WK1,K2,K3,K4:BK50", Category::Outside),
        (i, "W:WK1,K2:BK49,K50", Category::Outside),
        (i, "W:WK1:B20", Category::Outside),
        (i, "W:WK1,K2:B20", Category::Outside),
        (b, "W:WK1,K2,K3:BK32", Category::Rule63),
        (b, "W:WK1,K2,20:BK32", Category::Outside),
        (b, "W:WK1,20,21:BK32", Category::Outside),
        (b, "W:WK1,K2:BK32", Category::Rule64),
        (b, "W:WK1,20:BK32", Category::Rule64),
        (b, "W:WK1:BK32", Category::Rule64),
        (b, "W:W20:BK32", Category::Outside),
        (b, "W:WK1,K2:BK31,K32", Category::Outside),
    ];
    for (v, fen, expected) in cases {
        assert_eq!(category(&pos(v, fen)), expected, "{v} {fen}");
    }
    assert_eq!(
        Limits::of(i),
        Limits {
            king_plies: 50,
            category_3: 32,
            category_4: 10
        }
    );
    assert_eq!(
        Limits::of(b),
        Limits {
            king_plies: 50,
            category_3: 40,
            category_4: 10
        }
    );
    assert_eq!(Counters::FRESH, Counters::default());
    assert_eq!(
        Counters {
            king_plies: 7,
            category_plies: 3
        }
        .live(Category::Outside),
        7
    );
    assert_eq!(
        Counters {
            king_plies: 7,
            category_plies: 3
        }
        .live(Category::Rule64),
        3
    );
}

/// The brute-force count finds thresholds and refuses what no (class, count) can express, so
/// the property tests below can fail.
#[test]
fn class_and_count_from_results() {
    use Wdl::{Draw, Loss, Win};
    let value = |class, count| Some(RuleValue { class, count });
    assert_eq!(
        RuleValue::from_results(Win, &[Win, Win, Draw]),
        value(Class::Win, 1)
    );
    assert_eq!(
        RuleValue::from_results(Win, &[Win, Draw, Draw]),
        value(Class::Win, 2)
    );
    assert_eq!(
        RuleValue::from_results(Loss, &[Loss, Loss, Loss]),
        value(Class::Loss, 0)
    );
    assert_eq!(
        RuleValue::from_results(Win, &[Draw, Draw, Draw]),
        value(Class::CursedWin, 0)
    );
    assert_eq!(
        RuleValue::from_results(Loss, &[Draw, Draw, Draw]),
        value(Class::BlessedLoss, 0)
    );
    assert_eq!(
        RuleValue::from_results(Draw, &[Draw, Draw, Draw]),
        value(Class::Draw, 0)
    );
    assert_eq!(RuleValue::from_results(Win, &[Draw, Win, Draw]), None);
    assert_eq!(RuleValue::from_results(Win, &[Win, Draw, Win]), None);
    assert_eq!(RuleValue::from_results(Win, &[Win, Loss, Draw]), None);
    assert_eq!(RuleValue::from_results(Loss, &[Loss, Loss, Win]), None);
    let win_in_two = RuleValue {
        class: Class::Win,
        count: 2,
    };
    assert_eq!(win_in_two.probe(0, 10), Win);
    assert_eq!(win_in_two.probe(8, 10), Win);
    assert_eq!(win_in_two.probe(9, 10), Draw);
    assert_eq!(win_in_two.probe(10, 10), Draw);
}

/// DTW of positions worked out by hand (docs/rules.md §5.2).
#[test]
fn dtw_of_hand_checked_positions() {
    let i = Variant::International;
    let b = Variant::Brazilian;
    // Black's man on 45 can only go to 50, where White's man stands, and cannot capture it
    // (nothing beyond): no legal move, a loss in 0.
    assert_eq!(dtw_of(i, "B:W50:B45"), Dtw::Loss(0));
    // 28x19 is compulsory and takes Black's last piece: a win in 1.
    assert_eq!(dtw_of(i, "W:W28:B23"), Dtw::Win(1));
    // Black's king in the corner a1 (29) has only the long diagonal 29-25-22-18-15-11-8-4 and
    // cannot be captured there (nothing beyond the corner). With White's king on h8 (4) and
    // Black to move, every move of Black's king (to 25, 22, 18, 15, 11 or 8) stops on the
    // diagonal with empty squares between it and 4 and behind it, and 4 captures it: a loss in
    // 2 (capturing 4 from 29 is impossible: nothing beyond the other corner).
    assert_eq!(dtw_of(b, "B:WK4:BK29"), Dtw::Loss(2));
    // White's king on g7 (8) cannot capture the king in the corner; 8-4 reaches the position
    // above: a win in 3, and no move wins at once (Black always keeps a move).
    assert_eq!(dtw_of(b, "W:WK8:BK29"), Dtw::Win(3));
    // White's man on c7 (6) against Black's man on b8 (1). White's only move is 6-2, crowning.
    // Black then plays 1-6, which the new king takes at once (2x9), or 1-5: a man on the edge
    // a7 (5) cannot be captured, and its only move is 5-9. White answers with 2-6 (b6 stays
    // free for the black man, a5 behind it stays free), Black must play 5-9 and 6x13 takes the
    // last piece: 6-2, 1-5, 2-6, 5-9, 6x13 is a win in 5, and no shorter win exists as Black
    // keeps 1-5.
    assert_eq!(dtw_of(b, "W:W6:B1"), Dtw::Win(5));
    // 15x4 is White's only move (compulsory) and leaves the corner position above, Black to
    // move with a second white king on b8 (1) that changes nothing.
    assert_eq!(dtw_of(b, "W:WK15,K1:BK8,K29"), Dtw::Win(3));
}

/// The DTW equations hold at every position of the whole sets, wins are odd and losses even,
/// and WDL agrees with the solver of `support/naive.rs`.
#[test]
fn dtw_equations_and_naive_wdl_on_whole_sets() {
    // The other way round from the rule tests, so that they solve different sets at once.
    for set in SETS.into_iter().rev() {
        let Solved { graph, dtw } = solved(set);
        let (pieces, roles) = set.pieces_and_roles();
        let naive = naive::solve_with_roles(set.variant(), pieces, roles);
        assert_eq!(naive.len(), graph.positions().len(), "{set:?}");
        let mut wrong = Vec::new();
        let mut longest = 0;
        for (i, p) in graph.positions().iter().enumerate() {
            let next: Vec<Dtw> = p
                .legal_moves()
                .iter()
                .map(|mv| {
                    let q = p.play(mv);
                    if q.side_pieces(q.turn()).is_empty() {
                        Dtw::Loss(0)
                    } else {
                        dtw[graph.index_of(&q).expect("successor listed")]
                    }
                })
                .collect();
            let fastest_loss = next
                .iter()
                .filter_map(|d| match d {
                    Dtw::Loss(n) => Some(*n),
                    _ => None,
                })
                .min();
            let expected = if let Some(n) = fastest_loss {
                Dtw::Win(n + 1)
            } else if next.iter().all(|d| matches!(d, Dtw::Win(_))) {
                Dtw::Loss(
                    next.iter()
                        .filter_map(|d| d.plies())
                        .max()
                        .map_or(0, |n| n + 1),
                )
            } else {
                Dtw::Draw
            };
            let parity_ok = match dtw[i] {
                Dtw::Win(n) => n % 2 == 1,
                Dtw::Loss(n) => n % 2 == 0,
                Dtw::Draw => true,
            };
            let same_wdl = matches!(
                (dtw[i], naive[p]),
                (Dtw::Win(_), naive::Wdl::Win)
                    | (Dtw::Draw, naive::Wdl::Draw)
                    | (Dtw::Loss(_), naive::Wdl::Loss)
            );
            if dtw[i] != expected || !parity_ok || !same_wdl {
                wrong.push(format!(
                    "{}: {:?}, successors give {expected:?}, naive {:?}",
                    p.to_fen(),
                    dtw[i],
                    naive[p]
                ));
            }
            longest = longest.max(dtw[i].plies().unwrap_or(0));
        }
        assert!(
            wrong.is_empty(),
            "{set:?}: {} wrong, {:?}",
            wrong.len(),
            &wrong[..wrong.len().min(5)]
        );
        assert!(longest >= 9, "{set:?}: longest DTW {longest}");
    }
}

/// Checks the rule-aware values of a whole set and counts the classes.
///
/// For every position: some (class, count) answers every value of the live counter (the
/// property of docs/rules.md §5.3); the class agrees with the value with the rules ignored; the
/// count is 0 exactly for the positions without a move; and a win or loss whose DTW fits in
/// every limit is a win or loss under the rules with a count of at most its DTW (playing the
/// DTW line, no counter can reach its limit before the game ends).
fn check_rule_values(set: Set, values: &RuleValues<'_>) -> HashMap<Class, usize> {
    let Solved { graph, dtw } = solved(set);
    let limits = values.limits();
    let shortest = limits
        .king_plies
        .min(limits.category_3)
        .min(limits.category_4);
    let mut classes = HashMap::new();
    let mut wrong = Vec::new();
    for (i, p) in graph.positions().iter().enumerate() {
        let unlimited = dtw[i];
        let Some(value) = values.rule_value(p, unlimited.wdl()) else {
            wrong.push(format!(
                "{}: no count fits, results {:?}, unlimited {unlimited:?}",
                p.to_fen(),
                values.results(p)
            ));
            continue;
        };
        *classes.entry(value.class).or_insert(0) += 1;
        let consistent = match value.class {
            Class::Win | Class::CursedWin => unlimited.wdl() == Wdl::Win,
            Class::Loss | Class::BlessedLoss => unlimited.wdl() == Wdl::Loss,
            Class::Draw => unlimited.wdl() == Wdl::Draw,
        };
        let decided = matches!(value.class, Class::Win | Class::Loss);
        let count_zero_ok = !decided || ((value.count == 0) == p.legal_moves().is_empty());
        let fits = match unlimited {
            Dtw::Win(n) | Dtw::Loss(n) if n <= shortest => decided && value.count <= n,
            _ => true,
        };
        if !consistent || !count_zero_ok || !fits {
            wrong.push(format!(
                "{}: {value:?}, unlimited {unlimited:?}",
                p.to_fen()
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{set:?} with {limits:?}: {} wrong, {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(5)]
    );
    classes
}

/// With the real limits every position of the sets has a (class, count), and none is cursed or
/// blessed. The wins there are short next to the limits (longest DTW 8 in KKvK, 9 in KMvK, 9 in
/// KKvKK, 26 in Brazilian KKKvK), and below 4 pieces the 6.2 count never passes 1 outside the
/// categories (there one side has only men, and each of its plies moves a man).
#[test]
fn class_and_count_exist_with_the_real_limits() {
    for set in SETS {
        let classes = check_rule_values(set, rules(set, false));
        for class in [Class::Win, Class::Draw, Class::Loss] {
            assert!(
                classes.get(&class).copied().unwrap_or(0) > 0,
                "{set:?}: {classes:?}"
            );
        }
        for class in [Class::CursedWin, Class::BlessedLoss] {
            assert_eq!(classes.get(&class), None, "{set:?}: {classes:?}");
        }
    }
}

/// With tight limits every position still has a (class, count), and cursed wins and blessed
/// losses appear in every set.
#[test]
fn class_and_count_exist_with_tight_limits() {
    for set in SETS {
        let classes = check_rule_values(set, rules(set, true));
        for class in [
            Class::Win,
            Class::CursedWin,
            Class::Draw,
            Class::BlessedLoss,
            Class::Loss,
        ] {
            assert!(
                classes.get(&class).copied().unwrap_or(0) > 0,
                "{set:?}: {classes:?}"
            );
        }
    }
    let graph = &solved(Set::Brazilian3).graph;
    for limits in [
        Limits {
            king_plies: 1,
            category_3: 1,
            category_4: 1,
        },
        Limits {
            king_plies: 3,
            category_3: 2,
            category_4: 1,
        },
        Limits {
            king_plies: 7,
            category_3: 5,
            category_4: 3,
        },
        Limits {
            king_plies: 12,
            category_3: 11,
            category_4: 6,
        },
    ] {
        check_rule_values(Set::Brazilian3, &graph.rules(limits));
    }
}

/// A KvK win that needs more plies than 6.4 allows is a cursed win; with the real limit it
/// wins until the live counter leaves fewer plies than it needs, a move winning on the last
/// allowed ply included.
#[test]
fn cursed_win_in_the_category() {
    let b = Variant::Brazilian;
    // DTW 3 (see dtw_of_hand_checked_positions): 8-4, Black's forced king move, the capture.
    // No other line ends sooner and nothing resets the category count (no man, and the only
    // capture ends the game).
    let p = pos(b, "W:WK8:BK29");
    let real = rules(Set::Brazilian3, false);
    assert_eq!(real.result(&p, Counters::FRESH), Wdl::Win);
    // 3 plies left: the capture is the 10th ply of the category, the last allowed: a win.
    assert_eq!(real.result(&p, category_used(7)), Wdl::Win);
    // 2 plies left: after 8-4 and Black's reply the count reaches 10 and the game goes on.
    assert_eq!(real.result(&p, category_used(8)), Wdl::Draw);
    assert_eq!(real.result(&p, category_used(10)), Wdl::Draw);
    // Inside a category the 6.2 count is ignored (docs/rules.md §4, third reading).
    assert_eq!(real.result(&p, king_used(49)), Wdl::Win);
    assert_eq!(
        real.rule_value(&p, Wdl::Win),
        Some(RuleValue {
            class: Class::Win,
            count: 3
        })
    );
    // With 6.4 at 2 plies it can never be forced.
    let tight = rules(Set::Brazilian3, true);
    assert_eq!(tight.result(&p, Counters::FRESH), Wdl::Draw);
    assert_eq!(
        tight.rule_value(&p, Wdl::Win),
        Some(RuleValue {
            class: Class::CursedWin,
            count: 0
        })
    );
    // The same values from the states reachable from the position alone, for all of them.
    assert_eq!(result(&p, category_used(7), Limits::of(b)), Wdl::Win);
    let small = Graph::reachable_from(p);
    for limits in [Limits::of(b), TIGHT] {
        let whole = if limits == TIGHT { tight } else { real };
        let reached = small.rules(limits);
        for q in small.positions() {
            assert_eq!(
                reached.results(q),
                whole.results(q),
                "{} with {limits:?}",
                q.to_fen()
            );
        }
    }
}

/// A loss in 2 inside 6.4: lost with 2 plies left (White's capture on the last allowed ply
/// still wins), drawn with 1; with 6.4 at 1 ply it is a blessed loss.
#[test]
fn blessed_loss_in_the_category() {
    let b = Variant::Brazilian;
    let p = pos(b, "B:WK4:BK29");
    let tight = rules(Set::Brazilian3, true);
    assert_eq!(tight.result(&p, Counters::FRESH), Wdl::Loss);
    assert_eq!(tight.result(&p, category_used(1)), Wdl::Draw);
    assert_eq!(
        tight.rule_value(&p, Wdl::Loss),
        Some(RuleValue {
            class: Class::Loss,
            count: 2
        })
    );
    let one = Limits {
        king_plies: 4,
        category_3: 1,
        category_4: 1,
    };
    assert_eq!(result(&p, Counters::FRESH, one), Wdl::Draw);
    let graph = Graph::reachable_from(p);
    let values = graph.rules(one);
    assert_eq!(
        values.rule_value(&p, Wdl::Loss),
        Some(RuleValue {
            class: Class::BlessedLoss,
            count: 0
        })
    );
    // A position without a move is lost whatever the counters (the previous ply won on the
    // last allowed ply).
    let stuck = pos(Variant::International, "B:W50:B45");
    assert_eq!(
        result(&stuck, used(50), Limits::of(Variant::International)),
        Wdl::Loss
    );
}

/// Inside 6.4 a man move, even a promotion (KMvK → KKvK), does not restart the count.
#[test]
fn man_move_inside_the_category_keeps_the_count() {
    // White's man on c7 (6) crowns on 1 or 2, off the long diagonal; then Black's king in the
    // corner must step onto the diagonal and 4 takes it: a win in 3, all inside 6.4.
    let p = pos(Variant::Brazilian, "W:WK4,6:BK29");
    assert_eq!(dtw_of(Variant::Brazilian, "W:WK4,6:BK29"), Dtw::Win(3));
    let real = rules(Set::Brazilian3, false);
    assert_eq!(
        real.rule_value(&p, Wdl::Win),
        Some(RuleValue {
            class: Class::Win,
            count: 3
        })
    );
    assert_eq!(real.result(&p, category_used(8)), Wdl::Draw);
    let tight = rules(Set::Brazilian3, true);
    assert_eq!(
        tight.rule_value(&p, Wdl::Win),
        Some(RuleValue {
            class: Class::CursedWin,
            count: 0
        })
    );
}

/// Outside the categories a man move resets the 6.2 count: with one ply left on it, the only
/// winning move is the man move.
#[test]
fn man_move_resets_the_king_count() {
    // Brazilian KKMvK is in no category (6.3 is only KKKvK there). White: kings on h8 (4) and
    // b8 (1), man on a5 (13); Black: the king in the corner a1 (29), White to move.
    let p = pos(Variant::Brazilian, "W:WK4,K1,13:BK29");
    assert_eq!(category(&p), Category::Outside);
    let graph = Graph::reachable_from(p);
    let values = graph.rules(TIGHT);
    // 3 of the 4 plies of 6.2 used. 13-9 resets the count; Black's king must then step onto
    // the long diagonal and 4 takes it (the man on b6 (9) and the king on b8 are off the
    // diagonal): a win. Any king move instead brings the count to 4 without ending the game
    // (Black's king keeps a move: no single move fills both 25 and 22): a draw.
    assert_eq!(values.result(&p, king_used(3)), Wdl::Win);
    assert_eq!(values.result(&p, king_used(4)), Wdl::Draw);
    for mv in p.legal_moves().iter() {
        let q = p.play(mv);
        let man_move = p.piece_at(mv.from()).map(|piece| piece.role) == Some(Role::Man);
        if man_move {
            assert_eq!(values.result(&q, king_used(0)), Wdl::Loss, "{mv:?}");
        } else {
            assert_eq!(values.result(&q, king_used(4)), Wdl::Draw, "{mv:?}");
        }
    }
    // Fresh, the count is 1 (the man move, one ply away), not the DTW of 3.
    assert_eq!(
        values.rule_value(&p, Wdl::Win),
        Some(RuleValue {
            class: Class::Win,
            count: 1
        })
    );
    assert_eq!(
        graph.dtw()[graph.index_of(&p).expect("listed")],
        Dtw::Win(3)
    );
}

/// A capture from outside into 6.4, and one from 6.3 to 6.4, start the category count fresh.
#[test]
fn capture_starts_a_new_category_fresh() {
    let b = Variant::Brazilian;
    let tight = rules(Set::BrazilianKings4, true);
    // KKvKK (no category), 3 of the 4 plies of 6.2 used. 15x4 is compulsory and White's only
    // move; it leaves B:WK4,K1:BK29 (KKvK, 6.4, count 0), where Black's king must step onto
    // the long diagonal and 4 takes it on the 2nd ply of the category, the last allowed.
    let p = pos(b, "W:WK15,K1:BK8,K29");
    assert_eq!(tight.result(&p, king_used(3)), Wdl::Win);
    assert_eq!(
        tight.rule_value(&p, Wdl::Win),
        Some(RuleValue {
            class: Class::Win,
            count: 1
        })
    );
    let q = pos(b, "B:WK4,K1:BK29");
    assert_eq!(category(&q), Category::Rule64);
    assert_eq!(tight.result(&q, Counters::FRESH), Wdl::Loss);
    assert_eq!(tight.result(&q, category_used(1)), Wdl::Draw);
    // KKKvK (6.3), Black to move with 2 of the 3 plies of 6.3 used. Black's king must take
    // c3 (22) and land on 18, 15, 11 or 8 (a7 (5), on the edge, cannot be taken; no second
    // capture from any landing square). That is KKvK, 6.4 with a fresh count, and 4 takes the
    // black king at once. Were the 6.3 count to go on, it would reach 3 with Black's capture:
    // a draw.
    let r = pos(b, "B:WK22,K4,K5:BK29");
    assert_eq!(category(&r), Category::Rule63);
    assert_eq!(tight.result(&r, category_used(2)), Wdl::Loss);
    assert_eq!(tight.result(&r, category_used(3)), Wdl::Draw);
    assert_eq!(
        tight.rule_value(&r, Wdl::Loss),
        Some(RuleValue {
            class: Class::Loss,
            count: 1
        })
    );
    let real = rules(Set::BrazilianKings4, false);
    assert_eq!(real.result(&r, category_used(39)), Wdl::Loss);
}
