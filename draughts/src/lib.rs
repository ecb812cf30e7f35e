//! The game of draughts as the FMJD plays it, on the international (10x10) and Brazilian (8x8)
//! boards: flying kings, compulsory majority capture, men capturing backwards, promotion only at
//! the end of a move, and the draw rules 6.2–6.4 with their counters.
//!
//! This crate knows nothing of tables: it reads and writes positions in PDN FEN, lists legal
//! moves (one per start, end and captured set, as the perft references count them) and the
//! quiet moves that lead to a position, writes and reads move text, counts move trees, and
//! tells which draw rule counts in a position. `rafle-probe` builds the tables' indexing and
//! probing on it and re-exports what an engine needs.
//!
//! ```
//! use rafle_draughts::{perft, Category, Counters, Position, SquareStyle, Variant};
//!
//! let pos = Position::from_fen(Variant::International, "W:W28:B23")?;
//! let moves = pos.legal_moves();
//! assert_eq!(moves.len(), 1); // capturing is compulsory
//! assert_eq!(pos.move_text(&moves[0], SquareStyle::Numeric), "28x19");
//!
//! assert_eq!(perft(&Position::start(Variant::Brazilian), 5), 7473);
//!
//! // Two kings against one: the 6.4 endgame, whose counter a king move advances.
//! let ending = Position::from_fen(Variant::Brazilian, "W:WK1,K2:BK28")?;
//! assert_eq!(Category::of_position(&ending).article(), "6.4");
//! let mv = ending.legal_moves()[0];
//! let after = Counters::FRESH.after(&ending, &mv, &ending.play(&mv));
//! assert_eq!(after.category_plies, 1);
//! # Ok::<(), rafle_draughts::FenError>(())
//! ```

#![warn(missing_docs)]

mod bounds;
mod capture;
mod diagram;
pub mod draw_rules;
mod fen;
mod geometry;
pub mod layout;
mod material;
mod movegen;
mod notation;
mod position;
mod retro;
mod square;
mod uci;
mod variant;

pub use bounds::{excerpt, IntRange, OutOfRange, EXCERPT_CHARS, MAX_THREADS};
pub use capture::{CaptureUnderWay, FenPosition};
pub use draw_rules::{
    resets_counter, BadCounters, BadLimits, Category, Counters, Limits, MAX_COUNTER, MAX_LIMIT,
};
pub use fen::{CaptureError, FenError, FenErrorKind};
pub use material::{BadMaterialName, Material};
pub use movegen::{Move, MoveList};
pub use notation::MoveError;
pub use position::{Color, GameOver, Piece, PlacementError, Position, Role};
pub use square::{parse_square, Square, SquareError, SquareIter, SquareSet, SquareStyle};
pub use variant::{UnknownVariant, Variant, VariantRules};

/// The text with control characters and other invisible ones escaped as in Rust (`\0`,
/// `\u{1b}`), for quoting input in messages: a line read from a pipe may hold anything, and
/// echoing a raw escape sequence would drive the user's terminal. Quotes and backslashes are
/// left alone: messages quote with quotes, a FEN may be quoted, and a message that quotes an
/// already printable message must not escape it twice.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '"' | '\'' | '\\') {
            out.push(c);
        } else {
            out.extend(c.escape_debug());
        }
    }
    out
}

/// Number of leaves of the legal move tree `depth` plies deep (`perft(pos, 0)` is 1).
///
/// Generates moves at every node but the last ply, whose moves are only counted.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    movegen::perft(pos, depth)
}

/// The crate's README, whose examples run as tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
