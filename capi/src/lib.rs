//! The C interface of rafle: `librafle` (a shared library) and its header `include/rafle.h`,
//! for engines written in C or C++ (or anything with a C foreign-function interface).
//!
//! Every function of the header is here, `extern "C"`, with the same name. The rules they
//! follow:
//!
//! - Positions are [`RaflePosition`]s: the variant, the side to move and four bitboards
//!   (white men, white kings, black men, black kings) in the numbering of docs/rules.md, bit
//!   `n - 1` for square `n`. Every probe checks them (overlaps, squares past the board, men on
//!   their promotion row) and answers [`RAFLE_ERR_POSITION`] rather than guessing.
//! - Functions return a status: [`RAFLE_OK`], a positive status that is an answer rather than
//!   an error ([`RAFLE_NOT_CACHED`], [`RAFLE_NO_MOVE`]), or a negative error code; results go
//!   through pointers. After an error, [`rafle_last_error`] gives its text on the same thread.
//! - Null pointers give [`RAFLE_ERR_NULL`]; no Rust panic ever crosses into C (it would be
//!   [`RAFLE_ERR_INTERNAL`]).
//! - A handle from [`rafle_open`] may be used by any number of threads at once; only
//!   [`rafle_close`] must wait until they are done. The probes on blocks already in the cache
//!   allocate nothing.
//!
//! The Rust types keep Rust names (`RaflePosition` is `rafle_position` in C); their layout is
//! `#[repr(C)]`, field for field as in the header.
//!
//! ```
//! use rafle::*;
//! # use rafle_probe::draughts::Variant;
//! # let dir = tempfile::tempdir()?;
//! # let plan = rafle_generator::Plan::new(Variant::Brazilian, 3, dir.path())?;
//! # rafle_generator::generate(&plan, &rafle_generator::NoProgress)?;
//! let path = std::ffi::CString::new(dir.path().to_str().unwrap())?;
//! // SAFETY: valid strings, positions and outputs; the handle is closed once, at the end.
//! unsafe {
//!     let tb = rafle_open(path.as_ptr(), 1 << 20);
//!     assert!(!tb.is_null());
//!     let mut pos = RaflePosition::default();
//!     assert_eq!(rafle_position_from_fen(RAFLE_BRAZILIAN, c"B:W29:B25,22".as_ptr(), &mut pos), RAFLE_OK);
//!     let mut wdl = 0;
//!     assert_eq!(rafle_probe_wdl(tb, &pos, &mut wdl), RAFLE_OK);
//!     assert_eq!(wdl, RAFLE_WIN);
//!     rafle_close(tb);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod error;
mod fen_probe;
mod position;
mod probe;

pub use error::{
    rafle_last_error, rafle_status_name, RAFLE_ERR_ARGUMENT, RAFLE_ERR_BAD_TABLE,
    RAFLE_ERR_INTERNAL, RAFLE_ERR_IO, RAFLE_ERR_MISSING_TABLE, RAFLE_ERR_MIXED_LIMITS,
    RAFLE_ERR_NULL, RAFLE_ERR_POSITION, RAFLE_ERR_TOO_MANY_PIECES, RAFLE_NOT_CACHED, RAFLE_NO_MOVE,
    RAFLE_OK,
};
pub use fen_probe::rafle_probe_fen;
pub use position::{
    rafle_check_position, rafle_position_from_fen, rafle_squares_to_bits, RaflePosition,
    RAFLE_BLACK, RAFLE_BRAZILIAN, RAFLE_INTERNATIONAL, RAFLE_WHITE,
};
pub use probe::{
    rafle_best_move, rafle_cache_bytes, rafle_close, rafle_has_table, rafle_materials,
    rafle_max_pieces, rafle_open, rafle_probe_dtw, rafle_probe_rules, rafle_probe_rules_cached,
    rafle_probe_wdl, rafle_probe_wdl_cached, rafle_rule_limits, RafleCounters, RafleLimits,
    RafleMaterial, RafleMove, RafleRules, RafleTablebase, RAFLE_CLASS_BLESSED_LOSS,
    RAFLE_CLASS_CURSED_WIN, RAFLE_CLASS_DRAW, RAFLE_CLASS_LOSS, RAFLE_CLASS_WIN, RAFLE_DRAW,
    RAFLE_LOSS, RAFLE_TABLE_DTW, RAFLE_TABLE_RULES, RAFLE_TABLE_WDL, RAFLE_WIN,
};

/// The library's version, `"0.1.0"` (static, NUL-terminated).
#[no_mangle]
pub extern "C" fn rafle_version() -> *const std::ffi::c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
