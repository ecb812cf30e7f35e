//! A deliberately simple win/draw/loss solver, independent of the real generator, for tests to
//! compare against.
//!
//! It lists every legal placement of a few pieces (at least one on each side), both sides to
//! move, keys them in a [`HashMap`], and finds their values by plain forward value iteration:
//!
//! - a position whose side to move has no legal move is a loss;
//! - a position with a move that captures the opponent's last piece is a win (the position after
//!   it, where the side to move has no piece, is a loss and is not listed);
//! - then, pass after pass over the undecided positions, a position becomes a win as soon as one
//!   of its successors is a loss, and a loss as soon as all of them are wins;
//! - when a pass changes nothing, what is still undecided is a draw: neither side can force the
//!   game to end, so play goes on for ever, which docs/rules.md §3 counts as a draw (repetition).
//!
//! No index, no retrograde moves, no symmetry: only [`Position::legal_moves`] and
//! [`Position::play`] from `rafle_probe`. A move never adds a piece, so the successors of a
//! listed position are listed too (the solver panics if one is not).
//!
//! Included by several test binaries, each using a different part of it.
#![allow(dead_code)]

use std::collections::HashMap;

use rafle_probe::draughts::{Color, Piece, Position, Role, Square, Variant};

/// Win, draw or loss for the side to move with perfect play, repetition being a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move loses.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins.
    Win,
}

/// Values of every position with 2..=`max_pieces` pieces, men and kings, at least one piece on
/// each side, either side to move.
pub fn solve(variant: Variant, max_pieces: u32) -> HashMap<Position, Wdl> {
    solve_with_roles(variant, max_pieces, &[Role::Man, Role::King])
}

/// Like [`solve`], but only pieces of the given roles are placed.
///
/// `&[Role::King]` gives the kings-only endgames, which moves never leave. A set whose
/// positions can leave it (men alone promote) makes the solver panic.
pub fn solve_with_roles(
    variant: Variant,
    max_pieces: u32,
    roles: &[Role],
) -> HashMap<Position, Wdl> {
    let positions = enumerate(variant, max_pieces, roles);
    let values = value_iteration(&positions);
    positions.into_iter().zip(values).collect()
}

/// Every legal placement of 2..=`max_pieces` pieces of the given roles with at least one piece
/// of each colour, each with White and with Black to move. Placements `Position::put` refuses
/// (a man on its own promotion row) are left out.
pub fn enumerate(variant: Variant, max_pieces: u32, roles: &[Role]) -> Vec<Position> {
    let mut kinds = Vec::new();
    for color in [Color::White, Color::Black] {
        for &role in roles {
            kinds.push(Piece { color, role });
        }
    }
    let mut out = Vec::new();
    let board = Position::empty(variant, Color::White);
    place(board, 1, max_pieces, &kinds, &mut out);
    out
}

/// Adds pieces on squares numbered `first` and up to `pos`, recording every placement reached.
fn place(pos: Position, first: u8, max_pieces: u32, kinds: &[Piece], out: &mut Vec<Position>) {
    if pos.piece_count() >= 2
        && !pos.side_pieces(Color::White).is_empty()
        && !pos.side_pieces(Color::Black).is_empty()
    {
        out.push(pos.with_turn(Color::White));
        out.push(pos.with_turn(Color::Black));
    }
    if pos.piece_count() == max_pieces {
        return;
    }
    let variant = pos.variant();
    for number in first..=variant.square_count() {
        let square = Square::new(variant, number).expect("square numbers run 1..=count");
        for &piece in kinds {
            let mut next = pos;
            if next.put(square, piece).is_ok() {
                place(next, number + 1, max_pieces, kinds, out);
            }
        }
    }
}

/// The value of each of `positions`, in the same order.
fn value_iteration(positions: &[Position]) -> Vec<Wdl> {
    let index: HashMap<Position, u32> = positions
        .iter()
        .enumerate()
        .map(|(i, &pos)| (pos, u32::try_from(i).expect("fewer than 2^32 positions")))
        .collect();

    // Successors of position i are successors[starts[i]..starts[i + 1]].
    let mut value: Vec<Option<Wdl>> = vec![None; positions.len()];
    let mut starts = Vec::with_capacity(positions.len() + 1);
    let mut successors = Vec::new();
    starts.push(0);
    for (i, pos) in positions.iter().enumerate() {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            value[i] = Some(Wdl::Loss);
        }
        for mv in moves.iter() {
            let next = pos.play(mv);
            if next.side_pieces(next.turn()).is_empty() {
                value[i] = Some(Wdl::Win);
            } else {
                let j = index.get(&next).unwrap_or_else(|| {
                    panic!("{next:?}, reached from {pos:?}, is not among the listed positions")
                });
                successors.push(*j);
            }
        }
        starts.push(successors.len());
    }
    drop(index);

    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..positions.len() {
            if value[i].is_some() {
                continue;
            }
            let next = &successors[starts[i]..starts[i + 1]];
            let of = |j: &u32| value[*j as usize];
            if next.iter().any(|j| of(j) == Some(Wdl::Loss)) {
                value[i] = Some(Wdl::Win);
                changed = true;
            } else if next.iter().all(|j| of(j) == Some(Wdl::Win)) {
                value[i] = Some(Wdl::Loss);
                changed = true;
            }
        }
    }
    value.into_iter().map(|v| v.unwrap_or(Wdl::Draw)).collect()
}
