//! The routes: the versioned JSON API, the explorer page and lidraughts' tablebase routes.
//!
//! | route | answer |
//! |---|---|
//! | `GET /api/v1/{variant}?fen=FEN[&counters=K,C]` | the position and its moves, best first |
//! | `GET /api/v1/{variant}/line?fen=FEN[&counters=K,C]` | the same, and the game to its end |
//! | `POST /api/v1/{variant}/batch` `{"fens":[...],"counters":"K,C"}` | `{"results":[...]}` |
//! | `GET /api/v1/tables` | per variant: most pieces, limits, each material's table sizes |
//! | `GET /`, `/explorer.js`, `/explorer.css` | the explorer page |
//! | `GET /standard?fen=FEN`, `/fromPosition`, `/brazilian` | lidraughts' tablebase answer (`lidraughts.rs`) |

use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Request, State};
use axum::http::{header, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use rafle_probe::{
    draughts::{excerpt, FenPosition, Variant},
    Tablebase,
};
use serde::Deserialize;
use tower_http::cors::{Any, CorsLayer};

use rafle_probe::answer::json::{JsonAnswer, JsonError};
use rafle_probe::answer::rule_limits;

use crate::error::ApiError;
use crate::query::{answer_or_unknown, json_response, parse_counters, to_json};
use crate::query::{Parameters, ProbeQuery};
use crate::state::AppState;
use crate::{assets, lidraughts, tables};

/// The server's routes on `state`: the API under `/api/v1`, the explorer page at `/`,
/// lidraughts' tablebase routes, a JSON 404 elsewhere, CORS open to any origin for GET (and
/// POST of a batch).
pub fn router(state: AppState) -> Router {
    let cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST])
        .allow_headers([header::CONTENT_TYPE]);
    Router::new()
        .route("/api/v1/tables", get(tables_route))
        .route("/api/v1/{variant}", get(position_route))
        .route("/api/v1/{variant}/line", get(line_route))
        .route("/api/v1/{variant}/batch", post(batch_route))
        .route("/", get(assets::index))
        .route("/explorer.js", get(assets::script))
        .route("/explorer.css", get(assets::style))
        .merge(lidraughts::routes())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(state.clone(), bound_query))
        .layer(cors)
        .with_state(state)
}

/// Refuses a query string over the bound with 414 before anything reads it.
async fn bound_query(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let max = state.bounds().max_query_bytes;
    let length = request.uri().query().map_or(0, str::len);
    if length > max {
        return ApiError::new(
            StatusCode::URI_TOO_LONG,
            format!("the query is {length} bytes long; at most {max} are accepted"),
        )
        .into_response();
    }
    next.run(request).await
}

async fn not_found(uri: Uri) -> ApiError {
    ApiError::not_found(format!(
        "no such path: {} (the API is under /api/v1/)",
        uri.path()
    ))
}

async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("{method} is not allowed on {}", excerpt(uri.path())),
    )
}

/// The variant of the path, 404 if there is no such variant.
fn variant(path: Result<Path<String>, PathRejection>) -> Result<Variant, ApiError> {
    let Path(name) = path.map_err(|e| ApiError::bad_request(format!("the path: {e}")))?;
    name.parse().map_err(|_| {
        ApiError::not_found(format!(
            "unknown variant '{}' (expected 'international' or 'brazilian')",
            excerpt(&name)
        ))
    })
}

async fn position_route(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    uri: Uri,
) -> Result<Response, ApiError> {
    answer_route(&state, path, &uri, false).await
}

async fn line_route(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    uri: Uri,
) -> Result<Response, ApiError> {
    answer_route(&state, path, &uri, true).await
}

/// The answer to `?fen=FEN[&counters=K,C]` in the variant of the path, with the line or not.
async fn answer_route(
    state: &AppState,
    path: Result<Path<String>, PathRejection>,
    uri: &Uri,
    line: bool,
) -> Result<Response, ApiError> {
    let variant = variant(path)?;
    let query = ProbeQuery::parse(uri.query(), Parameters::FenAndCounters)?;
    let pos = query.position(variant)?;
    let work = move |tables: &Tablebase| {
        let answer = answer_or_unknown(tables, &pos, query.counters(), line)
            .map_err(|e| ApiError::from_answer(&e))?;
        to_json(&JsonAnswer::for_api(&answer))
    };
    // A line plays the game to its end, a probe per ply: long work, off the async workers.
    let body = if line {
        state.probe_long(work).await?
    } else {
        state.probe(work).await?
    };
    Ok(json_response(body))
}

/// The body of a batch.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchRequest {
    fens: Vec<String>,
    #[serde(default)]
    counters: Option<String>,
}

async fn batch_route(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    request: Request<Body>,
) -> Result<Response, ApiError> {
    let variant = variant(path)?;
    let bounds = state.bounds();
    let bytes = tokio::time::timeout(
        bounds.body_timeout,
        read_body(request, bounds.max_body_bytes),
    )
    .await
    .map_err(|_| {
        ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the body did not arrive within {} s",
                bounds.body_timeout.as_secs_f64()
            ),
        )
    })??;
    let batch: BatchRequest = serde_json::from_slice(&bytes).map_err(|e| {
        ApiError::bad_request(format!(
            "the body is not a batch {{\"fens\":[FEN, ...], \"counters\":\"K,C\"}}: {e}"
        ))
    })?;
    if batch.fens.len() > bounds.max_batch {
        return Err(ApiError::too_large(format!(
            "the batch has {} positions; at most {} are accepted",
            batch.fens.len(),
            bounds.max_batch
        )));
    }
    let counters = batch.counters.as_deref().map(parse_counters).transpose()?;
    // Up to a thousand positions: long work, off the async workers.
    let body = state
        .probe_long(move |tables| {
            // Refused as a whole rather than item by item: no position can be answered.
            rule_limits(tables, variant, counters.is_some())
                .map_err(|e| ApiError::from_answer(&e))?;
            let mut out = Vec::with_capacity(64 + 1024 * batch.fens.len());
            out.extend_from_slice(b"{\"results\":[");
            for (n, fen) in batch.fens.iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                let answer = FenPosition::from_fen(variant, fen)
                    .map_err(|e| e.to_string())
                    .and_then(|pos| {
                        answer_or_unknown(tables, &pos, counters, false).map_err(|e| e.to_string())
                    });
                let written = match answer {
                    Ok(answer) => serde_json::to_writer(&mut out, &JsonAnswer::for_api(&answer)),
                    Err(error) => {
                        // The answers come in order: an excerpt is enough to recognise it.
                        let fen = &excerpt(fen);
                        serde_json::to_writer(&mut out, &JsonError { fen, error })
                    }
                };
                written.map_err(|e| ApiError::internal(format!("writing JSON: {e}")))?;
            }
            out.extend_from_slice(b"]}");
            Ok(out)
        })
        .await?;
    Ok(json_response(body))
}

/// The request's body, refused with 413 past `max` bytes (from its declared length when it
/// has one, before reading anything).
async fn read_body(request: Request<Body>, max: usize) -> Result<axum::body::Bytes, ApiError> {
    let too_large = || ApiError::too_large(format!("the body is over {max} bytes"));
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(too_large());
    }
    let limited = http_body_util::Limited::new(request.into_body(), max);
    match http_body_util::BodyExt::collect(limited).await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Err(e) => Err(ApiError::bad_request(format!("reading the body: {e}"))),
    }
}

async fn tables_route(State(state): State<AppState>) -> Result<Response, ApiError> {
    let body = state
        // It opens every table on first use: long work, off the async workers.
        .probe_long(|tables| to_json(&tables::listing(tables)?))
        .await?;
    Ok(json_response(body))
}
