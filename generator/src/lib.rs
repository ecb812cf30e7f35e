//! Retrograde generation of draughts endgame tablebases.
//!
//! A [`Plan`] lists the materials of a request in dependency order (a capture leads to fewer
//! pieces, a promotion to fewer men) with the memory they need; [`generate()`] solves each by
//! parallel retrograde analysis on rayon's threads, under the rules of [`rafle_probe`]
//! (majority capture included), with and without the draw rules 6.2–6.4 (their limits set by
//! [`Plan::with_limits`]), and writes zstd-compressed tables that
//! [`rafle_probe::Tablebase`] reads. [`verify_table`] checks a table against its successors by
//! forward move generation; a [`Verifier`] does so within a memory budget, for several
//! materials in a row or for a random sample of positions. [`VerifyBudget`] shares a whole
//! check's budget out, and a [`VerifiedRecord`] keeps the materials checked whole, so that a
//! stopped check starts again where it was.
//!
//! ```no_run
//! use rafle_generator::{generate, NoProgress, Plan};
//! use rafle_probe::{Position, Tablebase, Variant, Wdl};
//!
//! let plan = Plan::new(Variant::Brazilian, 3, "data".as_ref())?;
//! generate(&plan, &NoProgress)?;
//! let tables = Tablebase::open("data")?;
//! let pos = Position::from_fen(Variant::Brazilian, "W:WK1,K2:BK32")?;
//! assert_eq!(tables.probe_wdl(&pos)?, Wdl::Win);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod bands;
mod bit_levels;
mod convert;
mod engine;
mod error;
mod files;
mod generate;
mod load;
mod man_moves;
mod memory;
mod packed;
mod plan;
mod progress;
mod resolve;
mod seed_file;
mod seed_part;
mod solve;
mod store;
mod streamed;
mod summary;
mod values;
mod verify;
mod write;

pub use error::{human_bytes, GenerateError, VerifyError};
pub use files::{create_temporary, temporary_path, write_replacing};
pub use generate::{generate, MaterialSummary};
pub use memory::{available_memory, default_budget, peak_resident_memory, resident_memory};
pub use plan::{
    check_directory, parse_memory, DiskEstimate, DiskParts, MaterialPlan, Plan, UnitState,
    MAX_PIECES, PIECES,
};
pub use progress::{NoProgress, Progress, UNITS_PER_POSITION};
/// Which tables a run writes, and the name of the work directory: the table directory's
/// layout ([`rafle_probe::layout`]) is the prober's.
pub use rafle_probe::layout::{Tables, WORK_DIR};
pub use summary::{kept_counts, KeptCounts};
pub use verify::{
    check_block_checksums, verify_table, VerifiedRecord, Verifier, VerifyBudget, VerifyReport,
};
pub use write::COMPRESSION_LEVEL;
