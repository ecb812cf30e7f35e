//! Retrograde generation of draughts endgame tablebases.
//!
//! A run goes through these stages, each a module:
//!
//! | stage | what | principal types |
//! |---|---|---|
//! | `plan` | the materials of a request in dependency order (a capture leads to fewer pieces, a promotion to fewer men), the memory and disk they need, the units of work of a cluster | [`PlanRequest`], [`Plan`], [`MaterialPlan`], [`DiskEstimate`], [`Unit`] |
//! | `work` | the work files a material keeps between its solving and the materials that read it: raw values and their journal, band files, packed files and their block cache, seed files | `ValuesFile`, `BandedValues`, `PackedValues` |
//! | `solve` | one material slice by slice by parallel retrograde analysis on rayon's threads, under the rules of [`rafle_probe`] (majority capture included), with and without the draw rules 6.2–6.4 (their limits set by [`Plan::with_limits`]); the values of the materials it reads | `MaterialSolver`, `Propagation`, `Store` |
//! | `write` | its zstd-compressed tables, which [`rafle_probe::Tablebase`] reads, the counts kept beside them, and reading them back | [`KeptCounts`] |
//! | `generate` | the run: each material reused, solved or resumed, then written | [`generate()`], [`MaterialSummary`], [`Progress`] |
//! | `verify` | a check of every table against its successors by forward move generation, within a memory budget, whole or sampled, resumable | [`verify_table`], [`Verifier`], [`VerifyBudget`], [`VerifiedRecord`]; a directory's check as `rafle verify` runs it: [`SetCheck`] |
//!
//! Beside them, [`compare`] checks that two table directories hold the same values on every
//! position, through the probe alone.
//!
//! ```no_run
//! use rafle_generator::{generate, NoProgress, Plan};
//! use rafle_probe::{Tablebase, Wdl, draughts::{Position, Variant}};
//!
//! let plan = Plan::new(Variant::Brazilian, 3, "data".as_ref())?;
//! generate(&plan, &NoProgress)?;
//! let tables = Tablebase::open("data")?;
//! let pos = Position::from_fen(Variant::Brazilian, "W:WK1,K2:BK32")?;
//! assert_eq!(tables.probe_wdl(&pos)?, Wdl::Win);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

// The stages: `plan` the request, `solve` each material into its `work` files, `write` its
// tables; `generate` is the run that takes them in that order, `verify` checks the tables.
mod generate;
mod plan;
mod solve;
mod verify;
mod work;
mod write;

// Beside the stages: two sets of tables compared through the probe.
pub mod compare;
// And what a directory's tables hold, as `rafle stats` counts it.
pub mod stats;

// What every stage uses.
mod error;
mod files;
mod memory;
mod probed;
mod progress;

pub use error::{human_bytes, GenerateError, VerifyError};
pub use files::{create_temporary, temporary_path, write_replacing};
pub use generate::{generate, MaterialSummary};
pub use memory::{available_memory, default_budget, peak_resident_memory, resident_memory};
pub use plan::{
    check_directory, parse_memory, BadUnitName, DiskEstimate, DiskParts, MaterialPlan, Plan,
    PlanRequest, Scope, Unit, UnitName, UnitState, MAX_PIECES, PIECES,
};
pub use progress::{NoProgress, Progress, UNITS_PER_POSITION};
/// Which tables a run writes, and the name of the work directory: the table directory's
/// layout ([`rafle_probe::toolkit::layout`]) is the prober's.
pub use rafle_probe::toolkit::layout::{Tables, WORK_DIR};
pub use verify::{
    check_block_checksums, verify_table, CheckEvent, CheckSelection, CheckTotals, SetCheck,
    VerifiedRecord, Verifier, VerifyBudget, VerifyReport,
};
pub use write::counts::{kept_counts, KeptCounts};
pub use write::COMPRESSION_LEVEL;
