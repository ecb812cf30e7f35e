//! The library's answers as the plain tuples `rafle._native` returns (their layout is in
//! `python/rafle/_native.pyi`, and the Python half names each field).

use rafle_probe::answer::{MoveAnswer, MoveValues};
use rafle_probe::{
    draughts::{Color, Counters, Limits, Position, Square},
    Dtw, Line, LineEnd, RuleOutcome, RuleValue, Wdl,
};

use crate::numbers;

/// A position's values for its side to move: wdl, signed dtw, rule class, count and the
/// result with the counters asked (each of the last three `None` when not known).
pub type ValuesTuple = (i8, Option<i32>, Option<i8>, Option<u8>, Option<i8>);

/// A move: text, from, to, path, captured, FEN after, resets, the values for the side
/// playing it, the values for the side to move after it, the counters after it.
pub type MoveTuple = (
    String,
    u8,
    u8,
    Vec<u8>,
    Vec<u8>,
    String,
    bool,
    ValuesTuple,
    ValuesTuple,
    Option<(u16, u16)>,
);

/// The rule-aware answer: class, count, result with the counters, the live rule, its limit,
/// the three limits, the counters.
pub type RulesTuple = (
    i8,
    Option<u8>,
    i8,
    &'static str,
    u8,
    (u8, u8, u8),
    (u16, u16),
);

/// One ply of a line: text, from, to, path, captured, FEN after, side to move after, the
/// counters after, the values for the side to move after.
pub type PlyTuple = (
    String,
    u8,
    u8,
    Vec<u8>,
    Vec<u8>,
    String,
    &'static str,
    (u16, u16),
    ValuesTuple,
);

/// How a line ends: kind, winner, rule, limit, plies, the sentence `rafle probe --line`
/// prints.
pub type EndTuple = (
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
    Option<u8>,
    Option<usize>,
    String,
);

fn pair(c: Counters) -> (u16, u16) {
    (c.king_plies, c.category_plies)
}

fn color(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn rule_parts(value: Option<RuleValue>) -> (Option<i8>, Option<u8>) {
    (
        value.map(|v| v.class().score()),
        value.and_then(RuleValue::count),
    )
}

/// The values a move leads to, for the side to move there, as the tables store them.
fn after(values: &MoveValues) -> ValuesTuple {
    let (class, count) = rule_parts(values.rules.map(|(after, _)| after));
    (
        values.wdl.signum(),
        values.dtw.signed_plies(),
        class,
        count,
        values.result.map(Wdl::signum),
    )
}

/// What a move is worth to the side playing it: the position's value were it its only move
/// (the distance one ply longer, the rule value counted from before the move).
fn for_mover(values: &MoveValues) -> ValuesTuple {
    let (class, count) = rule_parts(values.rules.map(|(_, mover)| mover));
    (
        -values.wdl.signum(),
        Dtw::from_successors([values.dtw]).signed_plies(),
        class,
        count,
        values.result.map(|r| -r.signum()),
    )
}

/// A move of an answer, with its values (an answer of a position the tables cover has them).
pub fn move_tuple(path: Vec<Square>, m: &MoveAnswer) -> Option<MoveTuple> {
    let values = m.values.as_ref()?;
    Some((
        m.text.clone(),
        m.mv.from().number(),
        m.mv.to().number(),
        numbers(path),
        numbers(m.mv.captured()),
        m.next.to_fen(),
        m.resets,
        for_mover(values),
        after(values),
        m.counters_after.map(pair),
    ))
}

/// A rule-aware outcome with the limits it was read under and the counters asked.
pub fn rules_tuple(outcome: &RuleOutcome, limits: Limits, counters: Counters) -> RulesTuple {
    let (class, count) = rule_parts(Some(outcome.value));
    (
        class.unwrap_or(0),
        count,
        outcome.result.signum(),
        outcome.category.article(),
        outcome.limit,
        (limits.rule_6_2, limits.rule_6_3, limits.rule_6_4),
        pair(counters),
    )
}

/// A played line: each ply with the position it reaches, and how it ends.
pub fn line_tuple(start: &Position, line: &Line) -> (Vec<PlyTuple>, EndTuple) {
    let mut pos = *start;
    let plies = line
        .plies
        .iter()
        .map(|ply| {
            let path = numbers(pos.move_path(&ply.mv));
            pos = pos.play(&ply.mv);
            let (class, count) = rule_parts(Some(ply.outcome.value));
            (
                ply.text.clone(),
                ply.mv.from().number(),
                ply.mv.to().number(),
                path,
                numbers(ply.mv.captured()),
                pos.to_fen(),
                color(ply.turn),
                pair(ply.counters),
                (
                    ply.dtw.wdl().signum(),
                    ply.dtw.signed_plies(),
                    class,
                    count,
                    Some(ply.outcome.result.signum()),
                ),
            )
        })
        .collect();
    (plies, end_tuple(&line.end))
}

fn end_tuple(end: &LineEnd) -> EndTuple {
    let text = end.to_string();
    match *end {
        LineEnd::NoPieceLeft { winner } => {
            ("no_piece_left", Some(color(winner)), None, None, None, text)
        }
        LineEnd::NoMove { winner } => ("no_move", Some(color(winner)), None, None, None, text),
        LineEnd::DrawRule { category, limit } => (
            "draw_rule",
            None,
            Some(category.article()),
            Some(limit),
            None,
            text,
        ),
        LineEnd::Stopped { plies } => ("stopped", None, None, None, Some(plies), text),
    }
}
