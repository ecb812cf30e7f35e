//! The tablebase routes lidraughts' analysis board asks (`GET {endpoint}/{variant}?fen=FEN`),
//! answering in the JSON its explorer reads (`TablebaseData` of
//! `ui/analyse/src/explorer/interfaces.ts`), so that a lidraughts instance can point its
//! `explorer.tablebase.endpoint` at `rafle serve`.
//!
//! The answer is the API's own ([`answer_or_unknown`]: the same probe, the same values and the
//! same best-first order), only written in lidraughts' shape: its numbers for the values and
//! its uci for the moves (docs/api.md, "lidraughts").

use axum::extract::State;
use axum::http::Uri;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use rafle_probe::answer::{Answer, MoveAnswer};
use rafle_probe::{printable, Dtw, Position, RuleClass, RuleValue, Tablebase, Variant, Wdl};
use serde::Serialize;

use crate::api::{answer_or_unknown, json_response, to_json, Parameters, ProbeQuery};
use crate::error::ApiError;
use crate::state::AppState;

/// Lidraughts' variant keys that rafle has no tables of: asked, they are told which it has.
const OTHER_VARIANTS: [&str; 5] = [
    "russian",
    "antidraughts",
    "frisian",
    "frysk",
    "breakthrough",
];

/// The routes: `/standard` and `/fromPosition` (international; lidraughts' client turns the
/// latter into the former, other clients may not), `/brazilian`, and a 404 naming those for
/// lidraughts' other variants.
pub(crate) fn routes() -> Router<AppState> {
    let mut router = Router::new()
        .route(
            "/standard",
            get(|state, uri| answer(state, uri, Variant::International)),
        )
        .route(
            "/fromPosition",
            get(|state, uri| answer(state, uri, Variant::International)),
        )
        .route(
            "/brazilian",
            get(|state, uri| answer(state, uri, Variant::Brazilian)),
        );
    for key in OTHER_VARIANTS {
        router = router.route(&format!("/{key}"), get(move || other_variant(key)));
    }
    router
}

async fn other_variant(key: &'static str) -> ApiError {
    ApiError::not_found(format!(
        "no tables of lidraughts' variant '{key}': rafle serves 'standard' (and \
         'fromPosition'), international draughts, and 'brazilian'"
    ))
}

async fn answer(
    State(state): State<AppState>,
    uri: Uri,
    variant: Variant,
) -> Result<Response, ApiError> {
    let query = ProbeQuery::parse(uri.query(), Parameters::Fen)?;
    refuse_ghosts(query.fen())?;
    let pos = query.position(variant)?;
    let body = state
        .probe(move |tables: &Tablebase| {
            let answer = answer_or_unknown(tables, &pos, None, false)
                .map_err(|e| ApiError::from_answer(&e))?;
            to_json(&TablebaseData::of(&answer))
        })
        .await?;
    Ok(json_response(body))
}

/// Refuses a FEN with lidraughts' ghost pieces (`G12`, a man, and `P12`, a king, already
/// taken by a capture still under way): the position is between two plies of one move, which
/// no table holds. Leaving the ghosts out would answer for another position, and reading
/// them as squares would too (`G3` is g3 on the 8x8 board).
fn refuse_ghosts(fen: &str) -> Result<(), ApiError> {
    let lists = fen
        .split(':')
        .skip(1)
        .filter_map(|field| field.trim().strip_prefix(['W', 'B', 'w', 'b']));
    for piece in lists.flat_map(|list| list.split(',')).map(str::trim) {
        let mut chars = piece.chars();
        if matches!(chars.next(), Some('G' | 'P'))
            && chars.next().is_some_and(|c| c.is_ascii_digit())
        {
            return Err(ApiError::bad_request(format!(
                "ghost piece '{}' in the FEN: a capture is under way, and the tables answer \
                 only the positions before and after a whole move",
                printable(piece)
            )));
        }
    }
    Ok(())
}

/// Lidraughts' `TablebaseData`: the position's values and every legal move's, best first.
/// Its fields are exactly the interface's: the client checks no more, and TypeScript's check
/// of an object literal refuses any other.
#[derive(Debug, Serialize)]
struct TablebaseData {
    fen: String,
    wdl: Option<i8>,
    dtz: Option<i32>,
    dtm: Option<i32>,
    #[serde(flatten)]
    end: GameEnd,
    moves: Vec<TablebaseMove>,
}

/// Lidraughts' `TablebaseMoveStats`: a move and the values after it, for the side to move
/// there.
#[derive(Debug, Serialize)]
struct TablebaseMove {
    uci: String,
    san: String,
    wdl: Option<i8>,
    dtz: Option<i32>,
    dtm: Option<i32>,
    zeroing: bool,
    #[serde(flatten)]
    end: GameEnd,
}

/// How the game has ended in a position, in lidraughts' (chess-born) flags. A side to move
/// without a piece or a move has lost, which chess calls checkmate; only a position set up by
/// hand has the side to move facing no piece, having won. Draughts has no stalemate, no
/// insufficient material.
#[derive(Debug, Serialize)]
struct GameEnd {
    checkmate: bool,
    stalemate: bool,
    variant_win: bool,
    variant_loss: bool,
    insufficient_material: bool,
}

impl GameEnd {
    fn of(pos: &Position) -> GameEnd {
        let over = pos.game_over();
        GameEnd {
            checkmate: over.is_some_and(|o| !o.side_to_move_wins()),
            stalemate: false,
            variant_win: over.is_some_and(|o| o.side_to_move_wins()),
            variant_loss: false,
            insufficient_material: false,
        }
    }
}

/// A position's values as lidraughts' numbers, for the side to move: `wdl` 2 win, 1 cursed
/// win, 0 draw, -1 blessed loss, -2 loss (the rule class, or win/draw/loss without rule
/// tables); `dtm` the distance to win in plies, positive when the side to move wins, negative
/// when it loses, 0 for a draw; `dtz` the rule count (plies to the next counter reset) signed
/// the same way, 0 for a draw, none where rafle has no count (a cursed win, a blessed loss, a
/// win or loss without rule tables).
struct Numbers {
    wdl: i8,
    dtz: Option<i32>,
    dtm: Option<i32>,
}

impl Numbers {
    fn of(wdl: Wdl, dtw: Dtw, rules: Option<RuleValue>) -> Numbers {
        let class = rules.map_or(RuleClass::of_wdl(wdl), RuleValue::class);
        let count = rules.and_then(RuleValue::count).map(i32::from);
        Numbers {
            wdl: class.score(),
            dtz: match class {
                RuleClass::Win => count,
                RuleClass::Loss => count.map(|n| -n),
                RuleClass::Draw => Some(0),
                RuleClass::CursedWin | RuleClass::BlessedLoss => None,
            },
            dtm: Some(dtw.signed_plies().unwrap_or(0)),
        }
    }
}

impl TablebaseData {
    /// The answer in lidraughts' shape, its moves in the answer's order.
    fn of(answer: &Answer) -> TablebaseData {
        let numbers = answer
            .values
            .map(|v| Numbers::of(v.wdl, v.dtw, v.rules.map(|r| r.value)));
        TablebaseData {
            fen: answer.position.to_fen(),
            wdl: numbers.as_ref().map(|n| n.wdl),
            dtz: numbers.as_ref().and_then(|n| n.dtz),
            dtm: numbers.as_ref().and_then(|n| n.dtm),
            end: GameEnd::of(&answer.position),
            moves: answer
                .moves
                .iter()
                .map(|m| TablebaseMove::of(&answer.position, m))
                .collect(),
        }
    }
}

impl TablebaseMove {
    fn of(pos: &Position, m: &MoveAnswer) -> TablebaseMove {
        let numbers = m
            .values
            .map(|v| Numbers::of(v.wdl, v.dtw, v.rules.map(|(after, _)| after)));
        TablebaseMove {
            uci: pos.move_uci(&m.mv),
            // Lidraughts writes a capture from start to end, the whole path only where two
            // legal moves share both: the PDN text the answer already has.
            san: m.text.clone(),
            wdl: numbers.as_ref().map(|n| n.wdl),
            dtz: numbers.as_ref().and_then(|n| n.dtz),
            dtm: numbers.as_ref().and_then(|n| n.dtm),
            zeroing: m.resets,
            end: GameEnd::of(&m.next),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ghost_pieces_are_refused_and_squares_are_not() {
        for fen in [
            "W:W31,G32:B1:H0:F1",
            "B:WP46,28:B19:H3:F20",
            "W:WG3,K5:B1",
            " W : W 31 , G32 : B1",
        ] {
            let err = refuse_ghosts(fen).unwrap_err();
            assert_eq!(err.status, axum::http::StatusCode::BAD_REQUEST, "{fen}");
            assert!(err.message.starts_with("ghost piece '"), "{fen}: {err}");
        }
        for fen in ["W:W31,32:B1,2:H0:F1", "W:WK46:BK5", "W:Wg3:Bb8", "W:W:B"] {
            assert_eq!(refuse_ghosts(fen), Ok(()), "{fen}");
        }
    }

    #[test]
    fn values_map_to_lidraughts_numbers() {
        let win = RuleValue::win(7);
        let n = Numbers::of(Wdl::Win, Dtw::Win(9), Some(win));
        assert_eq!((n.wdl, n.dtz, n.dtm), (2, Some(7), Some(9)));
        let loss = RuleValue::loss(4);
        let n = Numbers::of(Wdl::Loss, Dtw::Loss(10), Some(loss));
        assert_eq!((n.wdl, n.dtz, n.dtm), (-2, Some(-4), Some(-10)));
        let cursed = RuleValue::uncounted(RuleClass::CursedWin);
        let n = Numbers::of(Wdl::Win, Dtw::Win(61), Some(cursed));
        assert_eq!((n.wdl, n.dtz, n.dtm), (1, None, Some(61)));
        let blessed = RuleValue::uncounted(RuleClass::BlessedLoss);
        let n = Numbers::of(Wdl::Loss, Dtw::Loss(60), Some(blessed));
        assert_eq!((n.wdl, n.dtz, n.dtm), (-1, None, Some(-60)));
        let draw = RuleValue::uncounted(RuleClass::Draw);
        let n = Numbers::of(Wdl::Draw, Dtw::Draw, Some(draw));
        assert_eq!((n.wdl, n.dtz, n.dtm), (0, Some(0), Some(0)));
        // Without rule tables: no count, the class from win/draw/loss.
        let n = Numbers::of(Wdl::Win, Dtw::Win(3), None);
        assert_eq!((n.wdl, n.dtz, n.dtm), (2, None, Some(3)));
        let n = Numbers::of(Wdl::Draw, Dtw::Draw, None);
        assert_eq!((n.wdl, n.dtz, n.dtm), (0, Some(0), Some(0)));
    }
}
