//! Errors as the API answers them: a status and `{"error":"..."}` saying what and where.

use std::fmt;

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use rafle_probe::{AnswerError, ProbeError};

/// A refused or failed request: its HTTP status and the message of its `{"error":...}` body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What went wrong, and where.
    pub message: String,
}

impl ApiError {
    /// An error of `status` saying `message`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    /// 400: the request is malformed (a FEN, counters, the query, the body).
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// 404: no such variant or path.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }

    /// 413: the body or the batch is over its bound.
    pub fn too_large(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, message)
    }

    /// 503: no probe could start within the queue timeout.
    pub fn busy() -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is busy: no probe could start in time, try again",
        )
    }

    /// 500: a failure of the server itself.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    /// The status of a failed answer: 422 for a question out of the tables' reach (a line
    /// of a position with more pieces than they cover), 503 for tables that are not there (a
    /// missing table, no rule tables), 500 for tables that cannot be read (damaged,
    /// truncated, misplaced, mixed limits, contradicting each other). The message names the
    /// file.
    pub fn from_answer(err: &AnswerError) -> ApiError {
        let status = if err.is_too_many_pieces() {
            StatusCode::UNPROCESSABLE_ENTITY
        } else {
            match err {
                AnswerError::NoRuleTables { .. } => StatusCode::SERVICE_UNAVAILABLE,
                AnswerError::LineOfCapture => StatusCode::BAD_REQUEST,
                _ => match err.probe_error() {
                    Some(ProbeError::MissingTable { .. }) => StatusCode::SERVICE_UNAVAILABLE,
                    _ => StatusCode::INTERNAL_SERVER_ERROR,
                },
            }
        };
        ApiError::new(status, err.to_string())
    }

    /// The JSON body: `{"error":"..."}`.
    pub fn body(&self) -> String {
        serde_json::json!({ "error": self.message }).to_string()
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status, self.message)
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = self.body();
        (
            self.status,
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response()
    }
}
