//! Cross-check of the crate's bitboard move generator against an independent reference.
//!
//! The reference (`cross_check/reference.rs`) is written from docs/rules.md alone, with nothing in
//! common with the crate: a 2D grid of `(row, column)` cells, diagonal direction vectors, a
//! recursion that lists every complete capture path, then the majority filter and the merging of
//! paths with the same start, end and captured set. It has its own "play". Its correctness is
//! anchored by perft of the published reference positions and a few hand-made cases.
//!
//! The two generators then meet only at the boundary, through square numbers: on many random
//! positions of both variants (random placements biased to many captures, and every position of
//! random playouts from the start) the test compares the sets of legal moves, checks the crate
//! lists no move twice, and compares the position after each move.

#[path = "cross_check/reference.rs"]
mod reference;

use std::collections::BTreeSet;
use std::fmt::Write;

use rafle_draughts::{Color, Move, Piece, Position, Role, Square, Variant};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use reference::{Board, RefMove, Side, Stone};

/// Random placements checked per variant.
const RANDOM_POSITIONS: usize = 100_000;
/// Random playouts per variant; every position along them is checked.
const PLAYOUTS: usize = 2_000;
/// Longest playout, in plies.
const MAX_PLAYOUT_PLIES: usize = 60;

// ---------------------------------------------------------------------------------------------
// The boundary between the crate and the reference: square numbers only.

fn size_of(variant: Variant) -> usize {
    usize::from(variant.board_size())
}

fn square(variant: Variant, number: usize) -> Square {
    u8::try_from(number)
        .ok()
        .and_then(|n| Square::new(variant, n))
        .unwrap_or_else(|| panic!("square {number} does not exist in {variant}"))
}

fn to_board(pos: &Position) -> Board {
    let variant = pos.variant();
    let to_move = match pos.turn() {
        Color::White => Side::White,
        Color::Black => Side::Black,
    };
    let mut board = Board::empty(size_of(variant), to_move);
    for number in 1..=board.square_count() {
        let stone = pos.piece_at(square(variant, number)).map(|piece| Stone {
            side: match piece.color {
                Color::White => Side::White,
                Color::Black => Side::Black,
            },
            king: piece.role == Role::King,
        });
        board.set(number, stone);
    }
    board
}

fn to_position(variant: Variant, board: &Board) -> Position {
    let color = |side| match side {
        Side::White => Color::White,
        Side::Black => Color::Black,
    };
    let mut pos = Position::empty(variant, color(board.to_move));
    for number in 1..=board.square_count() {
        if let Some(stone) = board.get(number) {
            let role = if stone.king { Role::King } else { Role::Man };
            pos.put(
                square(variant, number),
                Piece {
                    color: color(stone.side),
                    role,
                },
            )
            .unwrap_or_else(|e| panic!("cannot place square {number}: {e}"));
        }
    }
    pos
}

fn key_of(mv: &Move) -> RefMove {
    RefMove {
        from: usize::from(mv.from().number()),
        to: usize::from(mv.to().number()),
        captured: mv
            .captured()
            .into_iter()
            .map(|sq| usize::from(sq.number()))
            .collect(),
    }
}

fn describe(mv: &RefMove) -> String {
    if mv.captured.is_empty() {
        format!("{}-{}", mv.from, mv.to)
    } else {
        let captured: Vec<String> = mv.captured.iter().map(ToString::to_string).collect();
        format!("{}x{} (captures {})", mv.from, mv.to, captured.join(","))
    }
}

fn describe_all<'a>(moves: impl IntoIterator<Item = &'a RefMove>) -> String {
    let mut text = String::new();
    for mv in moves {
        let _ = write!(text, "\n    {}", describe(mv));
    }
    if text.is_empty() {
        text.push_str(" none");
    }
    text
}

/// What a checked position showed, for the coverage assertions.
#[derive(Default)]
struct Coverage {
    positions: usize,
    with_capture: usize,
    king_multi_captures: usize,
    longest_capture: usize,
    circular_captures: usize,
}

/// Compares the two generators on `pos` and returns the reference's moves.
fn check(pos: &Position, coverage: &mut Coverage) -> BTreeSet<RefMove> {
    let fen = pos.to_fen();
    let board = to_board(pos);
    assert_eq!(
        to_position(pos.variant(), &board),
        *pos,
        "{fen}: the grid does not round-trip"
    );
    assert_eq!(
        Board::from_fen(board.size, &fen),
        board,
        "{fen}: the reference reads the crate's FEN differently"
    );

    let expected = board.moves();
    let crate_list = pos.legal_moves();
    let listed: Vec<RefMove> = crate_list.iter().map(key_of).collect();
    let actual: BTreeSet<RefMove> = listed.iter().cloned().collect();
    if actual != expected || listed.len() != actual.len() {
        panic!(
            "{} {fen}: move lists differ\n  only in the crate:{}\n  only in the reference:{}\n  \
             listed more than once by the crate:{}",
            pos.variant(),
            describe_all(actual.difference(&expected)),
            describe_all(expected.difference(&actual)),
            describe_all(
                listed
                    .iter()
                    .filter(|mv| listed.iter().filter(|m| m == mv).count() > 1)
            ),
        );
    }

    for mv in crate_list.iter() {
        let key = key_of(mv);
        let after = pos.play(mv);
        let wanted = board.play(&key);
        assert!(
            to_board(&after) == wanted,
            "{} {fen}: after {} the crate gives {} but the reference gives {}",
            pos.variant(),
            describe(&key),
            after.to_fen(),
            wanted.to_fen(),
        );
    }

    coverage.positions += 1;
    if let Some(mv) = expected.iter().next() {
        let length = mv.captured.len();
        if length > 0 {
            coverage.with_capture += 1;
            coverage.longest_capture = coverage.longest_capture.max(length);
            let by_king = expected
                .iter()
                .any(|m| board.get(m.from).is_some_and(|s| s.king));
            if length >= 2 && by_king {
                coverage.king_multi_captures += 1;
            }
        }
    }
    coverage.circular_captures += usize::from(
        expected
            .iter()
            .any(|mv| mv.from == mv.to && !mv.captured.is_empty()),
    );
    expected
}

// ---------------------------------------------------------------------------------------------
// Position sources.

/// A random legal placement: 1 to 12 pieces a side (8 on the small board), kings at a random
/// rate averaging 0.3, no man on its own promotion row, either side to move.
fn random_position(variant: Variant, rng: &mut SmallRng) -> Position {
    let size = size_of(variant);
    let max_per_side = if size == 10 { 12 } else { 8 };
    let to_move = if rng.gen_bool(0.5) {
        Side::White
    } else {
        Side::Black
    };
    let king_rate = rng.gen_range(0.0..0.6);
    let mut board = Board::empty(size, to_move);
    for side in [Side::White, Side::Black] {
        let count = rng.gen_range(1..=max_per_side);
        let mut placed = 0;
        while placed < count {
            let number = rng.gen_range(1..=board.square_count());
            let king = rng.gen_bool(king_rate);
            let on_promotion_row = board.coord_of(number).0 == board.promotion_row(side);
            if board.get(number).is_some() || (!king && on_promotion_row) {
                continue;
            }
            board.set(number, Some(Stone { side, king }));
            placed += 1;
        }
    }
    to_position(variant, &board)
}

fn cross_check_variant(variant: Variant, seed: u64) -> Coverage {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut coverage = Coverage::default();
    for _ in 0..RANDOM_POSITIONS {
        check(&random_position(variant, &mut rng), &mut coverage);
    }
    let start = Position::from_fen(variant, variant.start_fen()).expect("start FEN parses");
    for _ in 0..PLAYOUTS {
        let plies = rng.gen_range(0..=MAX_PLAYOUT_PLIES);
        let mut pos = start;
        for ply in 0..=plies {
            let moves = check(&pos, &mut coverage);
            if ply == plies || moves.is_empty() {
                break;
            }
            let choice = rng.gen_range(0..moves.len());
            let key = moves.iter().nth(choice).expect("index in range");
            let mv = pos
                .legal_moves()
                .iter()
                .find(|mv| key_of(mv) == *key)
                .copied()
                .expect("the checked lists agree");
            pos = pos.play(&mv);
        }
    }
    coverage
}

fn assert_coverage(variant: Variant, coverage: &Coverage) {
    let enough = coverage.positions / 4;
    assert!(
        coverage.with_capture >= enough,
        "{variant}: only {} of {} positions had a capture",
        coverage.with_capture,
        coverage.positions
    );
    assert!(
        coverage.king_multi_captures >= 100,
        "{variant}: too few multiple king captures"
    );
    assert!(
        coverage.longest_capture >= 5,
        "{variant}: no capture longer than {}",
        coverage.longest_capture
    );
    assert!(
        coverage.circular_captures >= 1,
        "{variant}: no circular capture was met"
    );
}

#[test]
fn international_matches_reference() {
    let coverage = cross_check_variant(Variant::International, 0x5eed_0010);
    assert_coverage(Variant::International, &coverage);
}

#[test]
fn brazilian_matches_reference() {
    let coverage = cross_check_variant(Variant::Brazilian, 0x5eed_0008);
    assert_coverage(Variant::Brazilian, &coverage);
}

// ---------------------------------------------------------------------------------------------
// Checks of the reference itself.

fn reference_perft(size: usize, fen: &str, expected: &[u64]) {
    let board = Board::from_fen(size, fen);
    for (depth, &nodes) in (1..).zip(expected) {
        assert_eq!(
            board.perft(depth),
            nodes,
            "reference perft({depth}) of {fen}"
        );
    }
}

fn single_move(size: usize, fen: &str) -> (RefMove, Board) {
    let board = Board::from_fen(size, fen);
    let moves = board.moves();
    assert_eq!(
        moves.len(),
        1,
        "{fen}: expected one move, got {}",
        describe_all(&moves)
    );
    let mv = moves.into_iter().next().expect("one move");
    let after = board.play(&mv);
    (mv, after)
}

#[test]
fn reference_numbering() {
    let ten = Board::empty(10, Side::White);
    assert_eq!(ten.coord_of(1), (0, 1));
    assert_eq!(ten.coord_of(5), (0, 9));
    assert_eq!(ten.coord_of(6), (1, 0));
    assert_eq!(ten.coord_of(46), (9, 0));
    assert_eq!(ten.coord_of(50), (9, 8));
    let eight = Board::empty(8, Side::White);
    assert_eq!(eight.coord_of(1), (0, 1));
    assert_eq!(eight.coord_of(29), (7, 0));
    assert_eq!(eight.coord_of(32), (7, 6));
    for variant in Variant::ALL {
        let board = Board::empty(size_of(variant), Side::White);
        for number in 1..=board.square_count() {
            let (row, column) = board.coord_of(number);
            assert_eq!(board.number_of((row, column)), number);
            let sq = square(variant, number);
            assert_eq!(
                (
                    usize::from(sq.row(variant)),
                    usize::from(sq.column(variant))
                ),
                (row, column)
            );
        }
    }
}

#[test]
fn reference_perft_of_start_positions() {
    assert_eq!(Board::start(10), Board::from_fen(10, "W:W31-50:B1-20"));
    assert_eq!(Board::start(8), Board::from_fen(8, "W:W21-32:B1-12"));
    reference_perft(10, "W:W31-50:B1-20", &[9, 81, 658, 4265]);
    reference_perft(8, "W:W21-32:B1-12", &[7, 49, 302, 1469, 7473]);
}

#[test]
fn reference_perft_of_special_positions() {
    reference_perft(
        10,
        "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46",
        &[14, 55, 1168, 5432],
    );
    reference_perft(
        10,
        "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38",
        &[6, 12, 30, 73, 215, 590],
    );
    reference_perft(
        10,
        "W:WK31,K32,K33,K34,K35,K36,K37,K38,K39,K40,K41,K42,K43,K44,K45,K46,K47,K48,K49,K50:\
         BK1,K2,K3,K4,K5,K6,K7,K8,K9,K10,K11,K12,K13,K14,K15,K16,K17,K18,K19,K20",
        &[17, 79, 352],
    );
    reference_perft(10, "W:W6,7,8,9,10:B41,42,43,44,45", &[9, 81, 795, 7578]);
}

#[test]
fn reference_hand_made_cases() {
    // Capturing is compulsory.
    let (mv, _) = single_move(10, "W:W28:B23");
    assert_eq!(
        mv,
        RefMove {
            from: 28,
            to: 19,
            captured: vec![23]
        }
    );

    // A man crosses the back row mid-capture: it stays a man.
    let (mv, after) = single_move(10, "W:W11:B7,8");
    assert_eq!(
        mv,
        RefMove {
            from: 11,
            to: 13,
            captured: vec![7, 8]
        }
    );
    assert_eq!(after, Board::from_fen(10, "B:W13:B"));
    assert_eq!(after.to_fen(), "B:W13:B");

    // Ending on the back row crowns it; a black man captures backwards.
    let (_, after) = single_move(10, "W:W11:B7");
    assert_eq!(after, Board::from_fen(10, "B:WK2:B"));
    let (mv, _) = single_move(8, "B:W14:B18");
    assert_eq!(
        mv,
        RefMove {
            from: 18,
            to: 9,
            captured: vec![14]
        }
    );

    // Majority: the king's single capture 46x37 gives way to the man's double one.
    let (mv, _) = single_move(10, "W:WK46,32:B41,27,17");
    assert_eq!(
        mv,
        RefMove {
            from: 32,
            to: 12,
            captured: vec![17, 27]
        }
    );

    // A flying king lands on any empty square behind the captured piece.
    let board = Board::from_fen(10, "W:WK46:B28");
    let targets: Vec<usize> = board.moves().iter().map(|mv| mv.to).collect();
    assert_eq!(targets, vec![5, 10, 14, 19, 23]);

    // Own pieces are never jumped, nor a piece with no empty square behind it.
    assert!(Board::from_fen(10, "W:WK46,37:B28")
        .moves()
        .iter()
        .all(|mv| mv.captured.is_empty()));
    assert!(Board::from_fen(10, "W:W28:B23,19")
        .moves()
        .iter()
        .all(|mv| mv.captured.is_empty()));

    // A man whose forward squares are blocked has no move.
    assert!(Board::from_fen(8, "B:W9,14:B5").moves().is_empty());
}
