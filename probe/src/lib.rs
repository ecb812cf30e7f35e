//! Rules, move generation and tablebase probing for international (10x10) and Brazilian (8x8)
//! draughts, as played under the FMJD rules: flying kings, compulsory majority capture, men
//! capturing backwards, promotion only at the end of a move.
//!
//! This is the crate an engine links. It reads positions in PDN FEN, lists legal moves (one
//! per start, end and captured set, as the perft references count them), writes and reads move
//! text, counts move trees, and answers win/draw/loss from the tables `rafle generate` writes.
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

#![warn(missing_docs)]

mod cache;
mod diagram;
mod dtw;
mod error;
mod fen;
pub mod format;
mod geometry;
mod index;
mod material;
mod movegen;
mod notation;
mod position;
mod retro;
mod rules;
mod square;
mod table;
mod tablebase;
mod variant;
mod wdl;

pub use dtw::Dtw;
pub use error::ProbeError;
pub use fen::{FenError, FenErrorKind};
pub use index::{IndexCursor, PositionIndex};
pub use material::{BadMaterialName, Material};
pub use movegen::{Move, MoveList};
pub use notation::MoveError;
pub use position::{Color, Piece, PlacementError, Position, Role};
pub use rules::{
    resets_counter, BadLimits, Category, Counters, Limits, RuleClass, RuleOutcome, RuleValue,
    MAX_LIMIT,
};
pub use square::{parse_square, Square, SquareError, SquareIter, SquareSet, SquareStyle};
pub use table::Table;
pub use tablebase::{table_path, Tablebase, DEFAULT_CACHE_BYTES};
pub use variant::{UnknownVariant, Variant};
pub use wdl::Wdl;

/// Number of leaves of the legal move tree `depth` plies deep (`perft(pos, 0)` is 1).
///
/// Generates moves at every node but the last ply, whose moves are only counted.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    movegen::perft(pos, depth)
}
