//! The HTTP server of `rafle serve`, and the probe answer it shares with `rafle probe`.
//!
//! - [`answer`]: a position's values and every legal move's, from one probe path
//!   ([`rafle_probe::Tablebase::probe_moves_all`]), and the best-first order of the moves.
//! - [`json`]: that answer in JSON, as `rafle probe --json` prints it and as the API sends it.
//! - [`router`]: the versioned JSON API (`/api/v1/...`) and the explorer page, on one shared
//!   [`rafle_probe::Tablebase`]; tests drive it without a socket.
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

pub mod answer;
mod api;
mod assets;
mod connections;
mod error;
pub mod json;
pub mod serve;
mod state;
mod tables;

pub use answer::{rule_limits, Answer, AnswerError, Options};
pub use api::router;
pub use error::ApiError;
pub use serve::{run, ServeError};
pub use state::{AppState, Bounds};
