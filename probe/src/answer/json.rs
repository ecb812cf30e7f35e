//! The JSON of an [`Answer`]: the objects `rafle probe --json` prints, and the API's, which
//! add fields to the same objects (the field names and values are the contract of
//! docs/cli.md and docs/api.md). Only with the crate's `json` feature.

use std::borrow::Cow;

use serde::Serialize;

use super::{category, line_positions, Answer, MoveAnswer, UNKNOWN};
use crate::{Category, Color, Square};

/// A position's answer in JSON: serialize it (`serde_json::to_writer`). Fields the command
/// line leaves out are skipped; a value the tables cannot give is `null`.
///
/// The variant comes first, in both forms: a reader knows which board the rest is about
/// before it reads a square.
#[derive(Debug, Serialize)]
pub struct JsonAnswer<'a> {
    variant: &'static str,
    fen: Cow<'a, str>,
    /// For a capture under way: the square of the capturing piece.
    #[serde(skip_serializing_if = "Option::is_none")]
    capturing: Option<u8>,
    /// For a capture under way: the squares of the ghosts, the pieces already taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    ghosts: Option<Vec<u8>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    turn: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    game_over: Option<bool>,
    wdl: Option<&'static str>,
    dtw: Option<u16>,
    class: Option<&'static str>,
    count: Option<u8>,
    rule: &'static str,
    limits: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    king_plies: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    category_plies: Option<u16>,
    /// Present with counters; `null` inside when the tables cannot tell.
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Option<&'static str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    category: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pieces: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_pieces: Option<u32>,
    moves: Vec<JsonMove<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<Vec<JsonPly<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<String>,
}

/// One move of a [`JsonAnswer`], with the values for the side to move after it.
#[derive(Debug, Serialize)]
pub struct JsonMove<'a> {
    #[serde(rename = "move")]
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    from: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    to: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    captures: Option<Vec<u8>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fen: Option<String>,
    wdl: Option<&'static str>,
    dtw: Option<u16>,
    class: Option<&'static str>,
    count: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    category: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resets: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    king_plies: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    category_plies: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Option<&'static str>>,
}

/// One ply of a line: the move, the counters after it and the values for the side to move
/// then (the API adds the FEN after it).
#[derive(Debug, Serialize)]
pub struct JsonPly<'a> {
    #[serde(rename = "move")]
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    fen: Option<String>,
    king_plies: u16,
    category_plies: u16,
    result: &'static str,
    class: &'static str,
    count: Option<u8>,
    dtw: Option<u16>,
}

/// A position that could not be answered, in a batch: the FEN as given and why.
#[derive(Debug, Serialize)]
pub struct JsonError<'a> {
    /// The FEN as given.
    pub fen: &'a str,
    /// What is wrong, and where.
    pub error: String,
}

impl<'a> JsonAnswer<'a> {
    /// The answer as `rafle probe --json` prints it, `fen` being the FEN as given.
    pub fn for_cli(answer: &'a Answer, fen: &'a str) -> JsonAnswer<'a> {
        json_answer(answer, fen.into(), false)
    }

    /// The answer as the API sends it: the normalised FEN, whose turn it is, whether the game
    /// is over, the category, the piece counts, and each move's squares, FEN and category.
    pub fn for_api(answer: &'a Answer) -> JsonAnswer<'a> {
        json_answer(answer, answer.fen().into(), true)
    }
}

/// Writes `value` as one line of JSON, as `rafle probe --json` writes each answer (or
/// [`JsonError`]): a program reading answers one at a time splits them on newlines.
///
/// # Errors
///
/// The error of writing to `out`.
pub fn write_line(out: &mut impl std::io::Write, value: &impl Serialize) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(std::io::Error::from)?;
    writeln!(out)
}

/// The JSON of `answer` with `fen` as its FEN; `api` adds the API's fields.
fn json_answer<'a>(answer: &'a Answer, fen: Cow<'a, str>, api: bool) -> JsonAnswer<'a> {
    let pos = &answer.position;
    let values = answer.values.as_ref();
    let rules = values.and_then(|v| v.rules.as_ref());
    let line = answer.line.as_ref().map(|line| {
        let after = if api {
            line_positions(pos, &line.plies)
        } else {
            Vec::new()
        };
        line.plies
            .iter()
            .enumerate()
            .map(|(n, p)| JsonPly {
                text: &p.text,
                fen: after.get(n).map(|next| next.to_fen()),
                king_plies: p.counters.king_plies,
                category_plies: p.counters.category_plies,
                result: p.outcome.result.name(),
                class: p.outcome.value.class().name(),
                count: p.outcome.value.count(),
                dtw: p.dtw.plies(),
            })
            .collect()
    });
    JsonAnswer {
        variant: pos.variant().name(),
        fen,
        capturing: answer.capture.map(|cap| cap.capturer().number()),
        ghosts: answer
            .capture
            .map(|cap| cap.ghosts().into_iter().map(Square::number).collect()),
        turn: api.then(|| turn_name(pos.turn())),
        game_over: api.then(|| answer.game_over()),
        wdl: values.map(|v| v.wdl.name()),
        dtw: values.and_then(|v| v.dtw.plies()),
        class: rules.map(|r| r.value.class().name()),
        count: rules.and_then(|r| r.value.count()),
        rule: Category::of_position(pos).article(),
        limits: rules.map(|r| r.limits.to_string()),
        king_plies: answer.counters.map(|c| c.king_plies),
        category_plies: answer.counters.map(|c| c.category_plies),
        result: answer
            .counters
            .map(|_| rules.and_then(|r| r.result).map(|w| w.name())),
        category: api.then(|| match values {
            Some(v) => category(v.wdl, v.rules.map(|r| r.value)),
            None => UNKNOWN,
        }),
        pieces: api.then(|| pos.piece_count()),
        max_pieces: api.then_some(answer.max_pieces),
        moves: answer.moves.iter().map(|m| json_move(m, api)).collect(),
        line,
        end: answer.line.as_ref().map(|l| l.end.to_string()),
    }
}

fn json_move(m: &MoveAnswer, api: bool) -> JsonMove<'_> {
    let values = m.values.as_ref();
    let after = values.and_then(|v| v.rules).map(|(after, _)| after);
    JsonMove {
        text: &m.text,
        from: api.then(|| m.mv.from().number()),
        to: api.then(|| m.mv.to().number()),
        captures: api.then(|| m.mv.captured().into_iter().map(Square::number).collect()),
        fen: api.then(|| m.next.to_fen()),
        wdl: values.map(|v| v.wdl.name()),
        dtw: values.and_then(|v| v.dtw.plies()),
        class: after.map(|a| a.class().name()),
        count: after.and_then(|a| a.count()),
        category: api.then(|| match values {
            Some(v) => category(v.wdl, after),
            None => UNKNOWN,
        }),
        resets: api.then_some(m.resets),
        king_plies: m.counters_after.map(|c| c.king_plies),
        category_plies: m.counters_after.map(|c| c.category_plies),
        result: m
            .counters_after
            .map(|_| values.and_then(|v| v.result).map(|w| w.name())),
    }
}

/// `"white"` or `"black"`.
fn turn_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::tests::brazilian_two;
    use crate::answer::Options;
    use crate::{Position, Variant};

    #[test]
    fn both_forms_name_the_variant_first() {
        let (_dir, tables) = brazilian_two();
        let pos = Position::from_fen(Variant::Brazilian, "B:WK1:BK28").unwrap();
        let answer = Answer::probe(&tables, &pos, Options::default()).unwrap();
        let cli = serde_json::to_value(JsonAnswer::for_cli(&answer, "B:WK1:BK28")).unwrap();
        let api = serde_json::to_value(JsonAnswer::for_api(&answer)).unwrap();
        assert_eq!(cli["variant"], "brazilian");
        assert_eq!(api["variant"], "brazilian");
        // The command line's form leaves out what the API adds.
        for added in ["turn", "game_over", "category", "pieces", "max_pieces"] {
            assert!(
                cli.get(added).is_none() && api.get(added).is_some(),
                "{added}"
            );
        }
        // First in the text (a `Value` sorts its keys, so the text is read).
        let cli = serde_json::to_string(&JsonAnswer::for_cli(&answer, "B:WK1:BK28")).unwrap();
        assert!(
            cli.starts_with(r#"{"variant":"brazilian","fen":"B:WK1:BK28","#),
            "{cli}"
        );
        let api = serde_json::to_string(&JsonAnswer::for_api(&answer)).unwrap();
        assert!(
            api.starts_with(r#"{"variant":"brazilian","fen":"B:WK1:BK28","#),
            "{api}"
        );
    }

    #[test]
    fn each_answer_is_one_line() {
        let mut out = Vec::new();
        let error = JsonError {
            fen: "W:W33",
            error: "a\nb".into(),
        };
        write_line(&mut out, &error).unwrap();
        write_line(&mut out, &error).unwrap();
        let text = String::from_utf8(out).unwrap();
        let line = r#"{"fen":"W:W33","error":"a\nb"}"#;
        assert_eq!(text, format!("{line}\n{line}\n"));
    }

    #[test]
    fn a_finished_game_is_over_with_no_moves_in_json() {
        let (_dir, tables) = brazilian_two();
        let pos = Position::from_fen(Variant::Brazilian, "W:W28:B").unwrap();
        let answer = Answer::probe(&tables, &pos, Options::default()).unwrap();
        let api = serde_json::to_value(JsonAnswer::for_api(&answer)).unwrap();
        assert_eq!(api["game_over"], true);
        assert_eq!(api["moves"], serde_json::json!([]));
        let pos = Position::from_fen(Variant::Brazilian, "W:W28:B1").unwrap();
        let answer = Answer::probe(&tables, &pos, Options::default()).unwrap();
        let api = serde_json::to_value(JsonAnswer::for_api(&answer)).unwrap();
        assert_eq!(api["game_over"], false);
        assert!(!api["moves"].as_array().unwrap().is_empty());
    }
}
