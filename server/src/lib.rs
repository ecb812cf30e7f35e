//! The HTTP server of `rafle serve`. A position's answer and its JSON, which the API shares
//! with `rafle probe`, are [`rafle_probe::answer`]'s; this crate only serves them.
//!
//! - [`router`]: the versioned JSON API (`/api/v1/...`) and the explorer page, on one shared
//!   [`rafle_probe::Tablebase`]; tests drive it without a socket.
//! - `lidraughts`: the routes lidraughts' analysis board asks a tablebase (`/standard`,
//!   `/brazilian`), answering in its JSON from the same answers.
//! - [`serve`]: the process around the router: binding, connections bounded in number and in
//!   the time to send a request's head, one log line per request, graceful shutdown on Ctrl-C
//!   and SIGTERM.
//!
//! ```no_run
//! use rafle_probe::Tablebase;
//! use rafle_server::{router, AppState, Bounds};
//!
//! let state = AppState::new(Tablebase::open("data")?, Bounds::default());
//! let app: axum::Router = router(state);
//! # Ok::<(), rafle_probe::ProbeError>(())
//! ```

#![warn(missing_docs)]

mod api;
mod assets;
mod connections;
mod error;
mod lidraughts;
mod query;
pub mod serve;
mod state;
mod tables;

pub use api::router;
pub use error::ApiError;
pub use serve::{run, ServeError};
pub use state::{AppState, Bounds};
