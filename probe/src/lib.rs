//! Endgame tablebase probing for international (10x10) and Brazilian (8x8) draughts, as played
//! under the FMJD rules: win/draw/loss, distance to win, and the class and count under the draw
//! rules 6.2–6.4, from the tables `rafle generate` writes.
//!
//! This is the crate an engine links. The game itself (positions, PDN FEN, legal moves, move
//! text, perft, the draw-rule counters) comes from `rafle-draughts` and is re-exported here, so
//! one dependency is enough.
//!
//! ```
//! use rafle_probe::{perft, Position, SquareStyle, Variant};
//!
//! let pos = Position::from_fen(Variant::International, "W:W28:B23")?;
//! let moves = pos.legal_moves();
//! assert_eq!(moves.len(), 1); // capturing is compulsory
//! assert_eq!(pos.move_text(&moves[0], SquareStyle::Numeric), "28x19");
//!
//! assert_eq!(perft(&Position::start(Variant::Brazilian), 5), 7473);
//! # Ok::<(), rafle_probe::FenError>(())
//! ```
//!
//! Probing a table directory (`<dir>/<variant>/<material>.wdl`):
//!
//! ```no_run
//! use rafle_probe::{Position, Tablebase, Variant, Wdl};
//!
//! let tables = Tablebase::open("data")?;
//! let pos = Position::from_fen(Variant::Brazilian, "W:WK1,K2,K3:BK32")?;
//! match tables.probe_wdl(&pos)? {
//!     Wdl::Win => println!("the side to move wins"),
//!     Wdl::Draw => println!("drawn"),
//!     Wdl::Loss => println!("the side to move loses"),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A position's whole answer (its values, every legal move's, the game played out), as
//! `rafle probe` and `rafle serve` give it, is [`answer`]; its JSON, `answer::json`, comes
//! with the `json` feature (serde), which an engine can leave off.

#![warn(missing_docs)]

/// The most pieces `rafle generate` builds tables of (the index handles more; memory does
/// not): a position of more is beyond any set.
pub const MAX_GENERATED_PIECES: u32 = 8;

pub mod answer;
pub mod cache;
pub mod codec;
mod dtw;
mod error;
mod file;
pub mod format;
mod index;
pub mod layout;
mod rule_value;
mod slice_moves;
pub mod stats;
mod table;
mod tablebase;
pub mod walk;
mod wdl;

/// The game: positions, moves, FEN, notation and the draw-rule counters, from `rafle-draughts`
/// (re-exported here whole, so an engine needs this one dependency).
pub use rafle_draughts as draughts;
pub use rafle_draughts::{
    excerpt, parse_square, perft, printable, resets_counter, BadCounters, BadLimits,
    BadMaterialName, CaptureError, CaptureUnderWay, Category, Color, Counters, FenError,
    FenErrorKind, FenPosition, GameOver, IntRange, Limits, Material, Move, MoveError, MoveList,
    OutOfRange, Piece, PlacementError, Position, Role, Square, SquareError, SquareIter, SquareSet,
    SquareStyle, UnknownVariant, Variant, EXCERPT_CHARS, MAX_COUNTER, MAX_LIMIT, MAX_THREADS,
};

pub use answer::{Answer, AnswerError};
pub use dtw::Dtw;
pub use error::{printable_path, PrintablePath, ProbeError};
pub use file::{broken_link, open_regular, open_regular_with, open_table_file};
pub use index::{binomial, IndexCursor, KingSlice, PositionIndex};
pub use layout::{table_path, DataDir, Tables, VariantDir, WorkFiles};
pub use rule_value::{RuleClass, RuleOutcome, RuleValue};
pub use slice_moves::SliceMoves;
pub use table::Table;
pub use tablebase::{
    listing_order, Line, LineEnd, LineError, MoveValues, Ply, Tablebase, DEFAULT_CACHE_BYTES,
    MAX_LINE_PLIES, MAX_TABLE_PIECES,
};
pub use wdl::Wdl;

/// The crate's README, whose examples run as tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
