//! A position's query (`fen=FEN[&counters=K,C]`), its answer and the JSON body that carries
//! it: what the API's routes and lidraughts' share.

use axum::http::header;
use axum::response::{IntoResponse, Response};
use rafle_probe::answer::{Answer, AnswerError, Options};
use rafle_probe::{
    draughts::{excerpt, Counters, FenPosition, Variant},
    Tablebase,
};
use serde::Serialize;

use crate::error::ApiError;

/// The query of a position: `fen=FEN[&counters=K,C]`.
pub(crate) struct ProbeQuery {
    fen: String,
    counters: Option<Counters>,
}

/// Which parameters a position's query may have besides `fen`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Parameters {
    /// `fen` and `counters`: the API's.
    FenAndCounters,
    /// `fen` alone: lidraughts' routes.
    Fen,
}

impl ProbeQuery {
    /// Reads `query`, refusing any parameter besides `fen` and those `allowed`.
    pub(crate) fn parse(query: Option<&str>, allowed: Parameters) -> Result<ProbeQuery, ApiError> {
        let mut fen = None;
        let mut counters = None;
        for (key, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
            let twice = || ApiError::bad_request(format!("query parameter '{key}' given twice"));
            match key.as_ref() {
                "fen" => {
                    if fen.replace(value.into_owned()).is_some() {
                        return Err(twice());
                    }
                }
                "counters" if allowed == Parameters::FenAndCounters => {
                    if counters.replace(parse_counters(&value)?).is_some() {
                        return Err(twice());
                    }
                }
                other => {
                    return Err(ApiError::bad_request(format!(
                        "unknown query parameter '{}' (expected {})",
                        excerpt(other),
                        match allowed {
                            Parameters::FenAndCounters => "fen and counters",
                            Parameters::Fen => "fen",
                        }
                    )))
                }
            }
        }
        let fen = fen.ok_or_else(|| {
            ApiError::bad_request("missing query parameter 'fen' (like ?fen=W:W31-50:B1-20)")
        })?;
        Ok(ProbeQuery { fen, counters })
    }

    /// The counters given, if any.
    pub(crate) fn counters(&self) -> Option<Counters> {
        self.counters
    }

    /// The FEN as given.
    pub(crate) fn fen(&self) -> &str {
        &self.fen
    }

    /// What the FEN holds: a position, or a capture under way (ghost pieces).
    pub(crate) fn position(&self, variant: Variant) -> Result<FenPosition, ApiError> {
        FenPosition::from_fen(variant, &self.fen).map_err(|e| ApiError::bad_request(e.to_string()))
    }
}

/// The counters of `counters=K,C`.
pub(crate) fn parse_counters(text: &str) -> Result<Counters, ApiError> {
    text.parse()
        .map_err(|e: rafle_probe::draughts::BadCounters| {
            ApiError::bad_request(format!("counters: {e}"))
        })
}

/// A JSON body.
pub(crate) fn json_response(body: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `value` as a JSON body.
pub(crate) fn to_json(value: &impl Serialize) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec(value).map_err(|e| ApiError::internal(format!("writing JSON: {e}")))
}

/// A position's answer (or a capture under way's) with its moves best first, and its line if
/// asked; past the tables' reach, its legal moves without values (a line cannot be played
/// there).
pub(crate) fn answer_or_unknown(
    tables: &Tablebase,
    pos: &FenPosition,
    counters: Option<Counters>,
    line: bool,
) -> Result<Answer, AnswerError> {
    match Answer::probe_fen(tables, pos, Options { counters, line }) {
        Ok(mut answer) => {
            answer.order_best_first();
            Ok(answer)
        }
        Err(e) if !line && e.is_too_many_pieces() => Ok(Answer::unknown_fen(tables, pos, counters)),
        Err(e) => Err(e),
    }
}
