//! The table toolkit under [`crate::Tablebase`]: the file format, the codecs, the position
//! index, the data directory's layout, file opening, the block cache and the walks over a
//! table's stored values.
//!
//! The generator, the verifier, `rafle stats`, the server and the C library share these, so
//! each rule of the format is written once. An engine needs none of it: it is hidden from the
//! crate's documentation and carries no promise of stability between versions.

pub mod cache;
pub mod codec;
pub(crate) mod file;
pub mod format;
pub(crate) mod index;
pub mod layout;
pub(crate) mod slice_moves;
pub mod stats;
pub(crate) mod table;
pub mod walk;

pub use crate::error::{printable_path, PrintablePath};
pub use file::{broken_link, open_regular, open_regular_with, open_table_file};
pub use index::{binomial, IndexCursor, KingSlice, PositionIndex};
pub use layout::{table_path, DataDir, Tables, VariantDir, WorkFiles};
pub use slice_moves::SliceMoves;
pub use table::Table;

pub use crate::tablebase::listing_order;

/// The most pieces `rafle generate` builds tables of (the index handles more; memory does
/// not): a position of more is beyond any set.
pub const MAX_GENERATED_PIECES: u32 = 8;
