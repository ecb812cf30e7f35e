//! What the API's tests share: the tables they read, the router on them, and requests sent
//! through it without a socket.

#![allow(dead_code)]

use std::path::Path;

use axum::body::Body;
use axum::http::{header, HeaderMap, Request, StatusCode};
use axum::Router;
use rafle_probe::{draughts::Variant, Tablebase};
use rafle_server::{router, AppState, Bounds};
use serde_json::Value;
use tower::ServiceExt;

/// Brazilian and international tables up to 3 pieces in one directory, generated once per
/// run.
pub fn tables_dir() -> &'static Path {
    rafle_testkit::tables_of(&[Variant::Brazilian, Variant::International], 3)
}

pub fn app_on(dir: &Path, bounds: Bounds) -> Router {
    router(AppState::new(
        Tablebase::open(dir).expect("tables open"),
        bounds,
    ))
}

pub fn app() -> Router {
    app_on(tables_dir(), Bounds::default())
}

/// A response: status, headers, body as JSON (or as a string for other bodies).
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
    pub text: String,
}

pub async fn send(app: &Router, request: Request<Body>) -> Reply {
    let response = app.clone().oneshot(request).await.expect("infallible");
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("a body");
    let text = String::from_utf8(bytes.to_vec()).expect("UTF-8");
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    Reply {
        status,
        headers,
        body,
        text,
    }
}

pub async fn get(app: &Router, uri: &str) -> Reply {
    send(app, Request::get(uri).body(Body::empty()).unwrap()).await
}

pub async fn post(app: &Router, uri: &str, body: impl Into<Body>) -> Reply {
    let request = Request::post(uri)
        .header(header::CONTENT_TYPE, "application/json")
        .body(body.into())
        .unwrap();
    send(app, request).await
}

/// `GET` that must answer 200 with JSON.
pub async fn ok(app: &Router, uri: &str) -> Value {
    let reply = get(app, uri).await;
    assert_eq!(reply.status, StatusCode::OK, "{uri}: {}", reply.text);
    assert_eq!(reply.headers[header::CONTENT_TYPE], "application/json");
    reply.body
}

/// An error reply: its status, a JSON `{"error":...}` body and nothing else; the message.
pub async fn error(app: &Router, request: Request<Body>, status: StatusCode) -> String {
    let uri = request.uri().to_string();
    let reply = send(app, request).await;
    assert_eq!(reply.status, status, "{uri}: {}", reply.text);
    assert_eq!(reply.headers[header::CONTENT_TYPE], "application/json");
    let object = reply.body.as_object().expect("a JSON object");
    assert_eq!(object.len(), 1, "{}", reply.text);
    object["error"].as_str().expect("a message").to_string()
}

pub async fn get_error(app: &Router, uri: &str, status: StatusCode) -> String {
    error(app, Request::get(uri).body(Body::empty()).unwrap(), status).await
}

pub fn moves_of(answer: &Value) -> Vec<&str> {
    answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect()
}
