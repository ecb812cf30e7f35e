//! The HTTP API driven through the router without a socket, one module per concern: every
//! endpoint's answers, captures under way and lidraughts' routes, and every error. One binary,
//! so the suite links once.

#[path = "../common/mod.rs"]
mod common;

mod api;
mod capture;
mod errors;
