//! Endgame tablebase probing for international (10x10) and Brazilian (8x8) draughts, as played
//! under the FMJD rules: win/draw/loss, distance to win, and the class and count under the draw
//! rules 6.2–6.4, from the tables `rafle generate` writes.
//!
//! This is the crate an engine links. What it needs is at the root:
//!
//! - [`Tablebase`]: opens a table directory (memory-mapped, with a cache of decompressed
//!   blocks bounded in bytes and shared by every thread), tells which tables it holds
//!   ([`Tablebase::materials`], [`Tablebase::has_table`] of a [`TableKind`]) and probes a
//!   position:
//!   [`Tablebase::probe_wdl`], [`Tablebase::probe_dtw`], [`Tablebase::probe_draw_rules`]
//!   (with the game's live counters), every legal move with its values
//!   ([`Tablebase::probe_moves_all`], [`MoveValues`]), the best move
//!   ([`Tablebase::best_move`]) and the game played out ([`Tablebase::play_line`], [`Line`]);
//!   deep in a search, from cached blocks alone ([`Tablebase::probe_wdl_cached`]).
//! - The values: [`Wdl`], [`Dtw`], and under the draw rules [`RuleValue`], [`RuleClass`] and
//!   [`RuleOutcome`].
//! - The errors: [`ProbeError`] (and [`LineError`], [`AnswerError`]).
//! - [`answer`]: a position's whole answer as `rafle probe` and `rafle serve` give it; its
//!   JSON, `answer::json`, comes with the `json` feature (serde), which an engine can leave off.
//! - [`draughts`]: the game (positions, PDN FEN, legal moves, move text, perft, the draw-rule
//!   counters), re-exported whole from `rafle-draughts` so one dependency is enough.
//!
//! ```
//! use rafle_probe::draughts::{perft, Position, SquareStyle, Variant};
//!
//! let pos = Position::from_fen(Variant::International, "W:W28:B23")?;
//! let moves = pos.legal_moves();
//! assert_eq!(moves.len(), 1); // capturing is compulsory
//! assert_eq!(pos.move_text(&moves[0], SquareStyle::Numeric), "28x19");
//!
//! assert_eq!(perft(&Position::start(Variant::Brazilian), 5), 7473);
//! # Ok::<(), rafle_probe::draughts::FenError>(())
//! ```
//!
//! Probing a table directory (`<dir>/<variant>/<material>.wdl`):
//!
//! ```no_run
//! use rafle_probe::draughts::{Position, Variant};
//! use rafle_probe::{Tablebase, Wdl};
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
//! The table format, its codecs, the index and the data directory's layout, which the
//! generator, the verifier and the server share, are in a toolkit module that is left out of
//! this documentation and carries no promise of stability.

#![warn(missing_docs)]

pub mod answer;
mod dtw;
mod error;
mod rule_value;
mod tablebase;
#[doc(hidden)]
pub mod toolkit;
mod wdl;

/// The game: positions, moves, FEN, notation, perft and the draw-rule counters, from
/// `rafle-draughts` (re-exported whole, so an engine needs this one dependency).
pub use rafle_draughts as draughts;

pub use answer::{Answer, AnswerError};
pub use dtw::Dtw;
pub use error::ProbeError;
pub use rule_value::{RuleClass, RuleOutcome, RuleValue};
pub use tablebase::{
    Line, LineEnd, LineError, MoveValues, Ply, Tablebase, DEFAULT_CACHE_BYTES, MAX_LINE_PLIES,
    MAX_TABLE_PIECES,
};
/// Which table of a material: win/draw/loss, distance to win or draw rules.
pub use toolkit::format::TableKind;
pub use wdl::Wdl;

// Short paths for the crate's own modules (`crate::Position`, `crate::format`), out of the
// engine's view.
use rafle_draughts::{
    excerpt, printable, resets_counter, CaptureUnderWay, Category, Color, Counters, FenPosition,
    GameOver, Limits, Material, Move, MoveList, Position, Role, Square, SquareStyle, Variant,
    MAX_LIMIT,
};
use toolkit::{
    cache, codec, file, format, index, layout, listing_order, open_table_file, printable_path,
    table, walk, DataDir, PositionIndex, SliceMoves, Table, MAX_GENERATED_PIECES,
};

/// The crate's README, whose examples run as tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
