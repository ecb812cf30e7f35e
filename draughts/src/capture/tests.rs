use super::*;
use crate::geometry::Dir;

const INTL: Variant = Variant::International;
const BRAZ: Variant = Variant::Brazilian;

fn numbers(squares: impl IntoIterator<Item = Square>) -> Vec<u8> {
    squares.into_iter().map(Square::number).collect()
}

fn kind(variant: Variant, fen: &str) -> FenErrorKind {
    CaptureUnderWay::from_fen(variant, fen).unwrap_err().kind
}

#[test]
fn ghosts_are_never_read_as_squares() {
    // G7 is the square g7 on both boards (g1..g9 on 10x10), P is no file at all: each is a
    // ghost, and the plain reader refuses it instead of answering for another position.
    for (variant, fen) in [
        (INTL, "B:WK46:BG7,K5:H0:F1"),
        (INTL, "W:W31,G32:B1"),
        (INTL, "W:WG1,K50:B10"),
        (INTL, "W:WP9,K50:B10"),
        (BRAZ, "W:W21:BG7,K5"),
        (BRAZ, "W:W21:BG3"),
    ] {
        let e = Position::from_fen(variant, fen).unwrap_err();
        assert!(
            matches!(e.kind, FenErrorKind::GhostPiece { .. }),
            "{fen}: {e}"
        );
        assert!(e.to_string().contains("is a ghost piece"), "{e}");
    }
    let e = Position::from_fen(INTL, "B:WK46:BG7,K5:H0:F1").unwrap_err();
    assert_eq!(e.column, 9);
    assert_eq!(
        e.to_string(),
        "invalid FEN at column 9: 'G7' is a ghost piece, a piece already taken by a capture \
         still under way: the FEN is in the middle of a move, which only a probe answers"
    );
    // Lower case g is a file, as it always was.
    assert!(Position::from_fen(BRAZ, "W:Wg3:Bb8").is_ok());
}

#[test]
fn the_capturing_man_is_found_and_completes_the_capture() {
    // 32x21 (over 27) is under way: the man on 21 goes on over 17 to 12.
    let cap = CaptureUnderWay::from_fen(INTL, "W:W21,45:BG27,17,5:H0:F20").unwrap();
    assert_eq!(cap.capturer().number(), 21);
    assert_eq!(cap.capturing_piece().role, Role::Man);
    assert_eq!(numbers(cap.ghosts()), [27]);
    let completions = cap.completions();
    assert_eq!(completions.len(), 1);
    let mv = completions[0];
    assert_eq!(numbers(mv.captured()), [17, 27]);
    assert_eq!(cap.completion_uci(&mv), "2112");
    assert_eq!(
        cap.completion_text(&mv, &completions, SquareStyle::Numeric),
        "21x12"
    );
    assert_eq!(cap.play(&mv).to_fen(), "B:W12,45:B5");
    assert_eq!(cap.to_fen(), "W:W21,45:B5,17,G27");
    assert_eq!(CaptureUnderWay::from_fen(INTL, &cap.to_fen()), Ok(cap));
    assert_eq!(
        FenPosition::from_fen(INTL, "W:W21,45:BG27,17,5"),
        Ok(FenPosition::CaptureUnderWay(cap))
    );
    assert!(matches!(
        FenPosition::from_fen(INTL, "W:W21,45:B27,17,5"),
        Ok(FenPosition::Whole(_))
    ));
}

#[test]
fn ghosts_block_and_are_not_taken_twice() {
    // The king on 23 took 28 (from the long diagonal) and may not take it again, nor jump
    // it: its only way on is over 18.
    let cap = CaptureUnderWay::from_fen(INTL, "W:WK23:BG28,18,4").unwrap();
    assert_eq!(cap.capturer().number(), 23);
    let ends: Vec<(u8, Vec<u8>)> = cap
        .completions()
        .iter()
        .map(|m| (m.to().number(), numbers(m.captured())))
        .collect();
    assert!(!ends.is_empty());
    assert!(ends.iter().all(|(_, c)| c.contains(&18) && c.contains(&28)));
    assert!(ends.iter().all(|(to, _)| *to != 33 && *to != 39));
}

#[test]
fn a_man_passing_its_promotion_row_stays_a_man_and_may_stand_there() {
    // 12x3 (over 8) is under way; the man on 3 goes on over 9 to 14 and stays a man.
    let cap = CaptureUnderWay::from_fen(INTL, "W:W3:BG8,9").unwrap();
    assert_eq!(cap.capturing_piece().role, Role::Man);
    let completions = cap.completions();
    assert_eq!(completions.len(), 1);
    let after = cap.play(&completions[0]);
    assert_eq!(after.to_fen(), "B:W14:B");
    // A white man on its promotion row that is not capturing is refused as it always was.
    assert!(matches!(
        kind(INTL, "W:W3,28:BG23,19,30"),
        FenErrorKind::Placement(crate::PlacementError::ManOnPromotionRow { .. })
    ));
}

#[test]
fn unanswerable_captures_are_refused() {
    assert_eq!(
        kind(INTL, "W:W21:B17,5"),
        FenErrorKind::CaptureUnderWay(CaptureError::NoGhost)
    );
    assert_eq!(
        kind(INTL, "B:WK46:BG7,K5:H0:F1"),
        FenErrorKind::CaptureUnderWay(CaptureError::GhostOfMover(Square::new(INTL, 7).unwrap()))
    );
    // The man on 21 stands past the ghost but has nothing more to take.
    assert_eq!(
        kind(INTL, "W:W21:BG27,5"),
        FenErrorKind::CaptureUnderWay(CaptureError::NoCapturingPiece)
    );
    // Two men stand past the ghost on 27 (one came from 31, the other from 32), each with a
    // piece to take next.
    let e = CaptureUnderWay::from_fen(INTL, "W:W21,22:BG27,17,18,5").unwrap_err();
    assert!(
        matches!(
            &e.kind,
            FenErrorKind::CaptureUnderWay(CaptureError::AmbiguousCapturingPiece(s))
                if numbers(s.iter().copied()) == [21, 22]
        ),
        "{e}"
    );
    assert_eq!(e.column, 11);
    assert!(e.to_string().contains("piece on 21 or on 22"), "{e}");
}

/// The square of `mv`'s captured set between two squares of its path.
fn taken_between(pos: &Position, mv: &Move, a: Square, b: Square) -> u64 {
    let v = pos.variant();
    let goal = b.bit(v);
    for d in Dir::ALL {
        let mut at = a.bit(v);
        let mut taken = 0;
        loop {
            at = step(v, at, d);
            if at == 0 {
                break;
            }
            if at == goal {
                return taken;
            }
            taken |= at & mv.captured_bits();
        }
    }
    panic!("no diagonal from {a} to {b}");
}

/// Every capture of every position below, stopped after each of its plies: the FEN with the
/// pieces taken so far as ghosts is read back as that capture under way (or refused as
/// ambiguous), and its completions reach exactly the positions the whole moves with that
/// beginning reach.
#[test]
fn every_capture_stopped_midway_completes_as_the_whole_moves() {
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let (mut checked, mut ambiguous) = (0, 0);
    for variant in [INTL, BRAZ] {
        let squares = u64::from(variant.square_count());
        let mut tried = 0;
        while tried < 3000 {
            let mut pos = Position::empty(
                variant,
                if next(2) == 0 {
                    Color::White
                } else {
                    Color::Black
                },
            );
            for _ in 0..(4 + next(8)) {
                let sq = Square::new(variant, 1 + next(squares) as u8).unwrap();
                let color = if next(2) == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                let role = if next(4) == 0 { Role::King } else { Role::Man };
                let _ = pos.put(sq, Piece { color, role });
            }
            let legal = pos.legal_moves();
            if legal.first().is_none_or(|m| m.capture_count() < 2) {
                continue;
            }
            tried += 1;
            for mv in legal.iter() {
                for path in pos.move_paths(mv) {
                    let mut ghosts = 0;
                    for k in 1..path.len() - 1 {
                        ghosts |= taken_between(&pos, mv, path[k - 1], path[k]);
                        let mut board = pos;
                        let from = path[0].bit(variant);
                        let at = path[k].bit(variant);
                        let king = pos.kings & from != 0;
                        let own = match pos.turn {
                            Color::White => &mut board.white,
                            Color::Black => &mut board.black,
                        };
                        *own = (*own & !from) | at;
                        board.kings &= !from;
                        if king {
                            board.kings |= at;
                        }
                        let fen = CaptureUnderWay {
                            board,
                            ghosts,
                            capturer: path[k],
                        }
                        .to_fen();
                        let cap = match CaptureUnderWay::from_fen(variant, &fen) {
                            Ok(cap) => cap,
                            Err(FenError {
                                kind:
                                    FenErrorKind::CaptureUnderWay(
                                        CaptureError::AmbiguousCapturingPiece(s),
                                    ),
                                ..
                            }) if s.contains(&path[k]) => {
                                ambiguous += 1;
                                continue;
                            }
                            Err(e) => panic!("{fen} ({pos:?} {mv:?} {path:?}): {e}"),
                        };
                        assert_eq!(cap.capturer(), path[k], "{fen}");
                        let mut reached: Vec<String> = cap
                            .completions()
                            .iter()
                            .map(|c| cap.play(c).to_fen())
                            .collect();
                        let prefix = &path[..=k];
                        let mut wanted: Vec<String> = legal
                            .iter()
                            .filter(|m| {
                                pos.move_paths(m).iter().any(|p| p.starts_with(prefix))
                                    && m.captured_bits() & ghosts == ghosts
                            })
                            .map(|m| pos.play(m).to_fen())
                            .collect();
                        reached.sort();
                        reached.dedup();
                        wanted.sort();
                        wanted.dedup();
                        assert_eq!(reached, wanted, "{fen} from {pos:?}");
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 2000 && ambiguous > 0, "{checked} {ambiguous}");
}
