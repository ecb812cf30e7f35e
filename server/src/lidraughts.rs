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
use rafle_probe::{
    draughts::{Counters, FenPosition, GameOver, Variant, MAX_COUNTER},
    Dtw, RuleClass, RuleValue, Tablebase, Wdl,
};
use serde::Serialize;

use crate::error::ApiError;
use crate::query::{answer_or_unknown, json_response, to_json, Parameters, ProbeQuery};
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
    let read = query.position(variant)?;
    let counters = halfmove_clock(query.fen()).and_then(|clock| {
        let board = match &read {
            FenPosition::Whole(pos) => *pos,
            FenPosition::CaptureUnderWay(cap) => cap.board(),
        };
        Counters::from_lidraughts_clock(&board, clock)
    });
    let body = state
        .probe(move |tables: &Tablebase| {
            // Without rule tables the clock cannot be used: answered as without it.
            let counters = counters.filter(|_| matches!(tables.limits(variant), Ok(Some(_))));
            let answer = answer_or_unknown(tables, &read, counters, false)
                .map_err(|e| ApiError::from_answer(&e))?;
            to_json(&TablebaseData::of(&answer))
        })
        .await?;
    Ok(json_response(body))
}

/// Lidraughts' halfmove clock, the `H` field of its FEN (`W:W31:B19:H7:F30`), at most
/// [`MAX_COUNTER`]; `None` without one. The FEN has been read already, so its fields are
/// well formed.
fn halfmove_clock(fen: &str) -> Option<u16> {
    fen.split(':').find_map(|field| {
        let digits = field
            .trim()
            .trim_end_matches(['"', '.'])
            .trim_end()
            .strip_prefix(['H', 'h'])?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let clock = digits.parse::<u64>().unwrap_or(u64::MAX);
        Some(u16::try_from(clock.min(u64::from(MAX_COUNTER))).unwrap_or(MAX_COUNTER))
    })
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
    fn of(over: Option<GameOver>) -> GameEnd {
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
/// tables; with the live counters, a win or a loss that they turn into a draw is a cursed win
/// or a blessed loss, as chess' 50-move rule makes one); `dtm` the distance to win in plies,
/// positive when the side to move wins, negative when it loses, 0 for a draw; `dtz` the rule
/// count (plies to the next counter reset) signed the same way, 0 for a draw, none where rafle
/// has no count (a cursed win, a blessed loss, a win or loss without rule tables).
struct Numbers {
    wdl: i8,
    dtz: Option<i32>,
    dtm: Option<i32>,
}

impl Numbers {
    fn of(wdl: Wdl, dtw: Dtw, rules: Option<RuleValue>, result: Option<Wdl>) -> Numbers {
        let class = match (
            rules.map_or(RuleClass::of_wdl(wdl), RuleValue::class),
            result,
        ) {
            (RuleClass::Win, Some(Wdl::Draw)) => RuleClass::CursedWin,
            (RuleClass::Loss, Some(Wdl::Draw)) => RuleClass::BlessedLoss,
            (class, _) => class,
        };
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
        let numbers = answer.values.map(|v| {
            Numbers::of(
                v.wdl,
                v.dtw,
                v.rules.map(|r| r.value),
                v.rules.and_then(|r| r.result),
            )
        });
        TablebaseData {
            fen: answer.fen(),
            wdl: numbers.as_ref().map(|n| n.wdl),
            dtz: numbers.as_ref().and_then(|n| n.dtz),
            dtm: numbers.as_ref().and_then(|n| n.dtm),
            // Mid-capture the game goes on: the capture has a completion.
            end: GameEnd::of(
                answer
                    .capture
                    .is_none()
                    .then(|| answer.position.game_over())
                    .flatten(),
            ),
            moves: answer
                .moves
                .iter()
                .map(|m| TablebaseMove::of(answer, m))
                .collect(),
        }
    }
}

impl TablebaseMove {
    fn of(answer: &Answer, m: &MoveAnswer) -> TablebaseMove {
        let numbers = m
            .values
            .map(|v| Numbers::of(v.wdl, v.dtw, v.rules.map(|(after, _)| after), v.result));
        TablebaseMove {
            uci: answer.move_uci(m),
            // Lidraughts writes a capture from start to end, the whole path only where two
            // legal moves share both: the PDN text the answer already has.
            san: m.text.clone(),
            wdl: numbers.as_ref().map(|n| n.wdl),
            dtz: numbers.as_ref().and_then(|n| n.dtz),
            dtm: numbers.as_ref().and_then(|n| n.dtm),
            zeroing: m.resets,
            end: GameEnd::of(m.next.game_over()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_halfmove_clock_is_read_from_its_field() {
        assert_eq!(halfmove_clock("W:W31:B19:H7:F30"), Some(7));
        assert_eq!(halfmove_clock(" \"W:W31:B19:H12\". "), Some(12));
        assert_eq!(halfmove_clock("W:W31:B19"), None);
        assert_eq!(halfmove_clock("W:W31:B19:F30"), None);
        assert_eq!(
            halfmove_clock("W:W31:B19:H99999999999999999999999"),
            Some(MAX_COUNTER)
        );
    }

    #[test]
    fn values_map_to_lidraughts_numbers() {
        let win = RuleValue::win(7);
        let n = Numbers::of(Wdl::Win, Dtw::Win(9), Some(win), None);
        assert_eq!((n.wdl, n.dtz, n.dtm), (2, Some(7), Some(9)));
        let loss = RuleValue::loss(4);
        let n = Numbers::of(Wdl::Loss, Dtw::Loss(10), Some(loss), None);
        assert_eq!((n.wdl, n.dtz, n.dtm), (-2, Some(-4), Some(-10)));
        let cursed = RuleValue::uncounted(RuleClass::CursedWin);
        let n = Numbers::of(Wdl::Win, Dtw::Win(61), Some(cursed), None);
        assert_eq!((n.wdl, n.dtz, n.dtm), (1, None, Some(61)));
        let blessed = RuleValue::uncounted(RuleClass::BlessedLoss);
        let n = Numbers::of(Wdl::Loss, Dtw::Loss(60), Some(blessed), None);
        assert_eq!((n.wdl, n.dtz, n.dtm), (-1, None, Some(-60)));
        let draw = RuleValue::uncounted(RuleClass::Draw);
        let n = Numbers::of(Wdl::Draw, Dtw::Draw, Some(draw), None);
        assert_eq!((n.wdl, n.dtz, n.dtm), (0, Some(0), Some(0)));
        // Without rule tables: no count, the class from win/draw/loss.
        let n = Numbers::of(Wdl::Win, Dtw::Win(3), None, None);
        assert_eq!((n.wdl, n.dtz, n.dtm), (2, None, Some(3)));
        let n = Numbers::of(Wdl::Draw, Dtw::Draw, None, None);
        assert_eq!((n.wdl, n.dtz, n.dtm), (0, Some(0), Some(0)));
        // A win or a loss the live counters turn into a draw: cursed, blessed, no count.
        let n = Numbers::of(Wdl::Win, Dtw::Win(9), Some(win), Some(Wdl::Draw));
        assert_eq!((n.wdl, n.dtz, n.dtm), (1, None, Some(9)));
        let n = Numbers::of(Wdl::Loss, Dtw::Loss(10), Some(loss), Some(Wdl::Draw));
        assert_eq!((n.wdl, n.dtz, n.dtm), (-1, None, Some(-10)));
        let n = Numbers::of(Wdl::Win, Dtw::Win(9), Some(win), Some(Wdl::Win));
        assert_eq!((n.wdl, n.dtz, n.dtm), (2, Some(7), Some(9)));
    }
}
