//! What tests that call the C functions from Rust share: an open handle, the last error
//! text, and the C codes the Rust values stand for. Used by the C library's tests and the
//! root package's soak test.

// Each test file uses its own part of this module.
#![allow(dead_code)]

use std::ffi::{c_int, CStr, CString};
use std::path::Path;

use rafle::{
    rafle_close, rafle_last_error, rafle_open, RafleRules, RafleTablebase,
    RAFLE_CLASS_BLESSED_LOSS, RAFLE_CLASS_CURSED_WIN, RAFLE_CLASS_DRAW, RAFLE_CLASS_LOSS,
    RAFLE_CLASS_WIN, RAFLE_DRAW, RAFLE_LOSS, RAFLE_WIN,
};
use rafle_probe::{RuleClass, RuleOutcome, Wdl};

/// An open handle, closed when dropped; shared by threads as the header allows.
pub struct Handle(pub *mut RafleTablebase);

// SAFETY: the C interface documents handles as usable from any number of threads at once
// (the Rust `Tablebase` behind it is Send + Sync); only closing needs exclusive access, which
// `Drop` has.
unsafe impl Send for Handle {}
// SAFETY: as above.
unsafe impl Sync for Handle {}

impl Handle {
    /// Opens `dir` with a cache of `cache` bytes (0: the default).
    pub fn open(dir: &Path, cache: usize) -> Handle {
        let path = CString::new(dir.to_str().expect("a UTF-8 path")).expect("no NUL");
        // SAFETY: a valid NUL-terminated string.
        let tb = unsafe { rafle_open(path.as_ptr(), cache) };
        assert!(!tb.is_null(), "{}", last_error());
        Handle(tb)
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: opened by rafle_open, closed once, nobody else uses it any more.
        unsafe { rafle_close(self.0) }
    }
}

/// The last error text, which must be a NUL-terminated UTF-8 string.
pub fn last_error() -> String {
    // SAFETY: rafle_last_error never returns null and the text is NUL-terminated.
    let text = unsafe { CStr::from_ptr(rafle_last_error()) };
    text.to_str().expect("the last error is UTF-8").to_string()
}

/// The C code of a win/draw/loss.
pub fn wdl_code(wdl: Wdl) -> c_int {
    match wdl {
        Wdl::Win => RAFLE_WIN,
        Wdl::Draw => RAFLE_DRAW,
        Wdl::Loss => RAFLE_LOSS,
    }
}

/// What `rafle_probe_rules` writes for the outcome the Rust probe gives.
pub fn rules_of(o: &RuleOutcome) -> RafleRules {
    RafleRules {
        result: wdl_code(o.result),
        rule_class: match o.value.class() {
            RuleClass::Win => RAFLE_CLASS_WIN,
            RuleClass::CursedWin => RAFLE_CLASS_CURSED_WIN,
            RuleClass::Draw => RAFLE_CLASS_DRAW,
            RuleClass::BlessedLoss => RAFLE_CLASS_BLESSED_LOSS,
            RuleClass::Loss => RAFLE_CLASS_LOSS,
        },
        count: o.value.count().map_or(-1, c_int::from),
        rule: o
            .category
            .article()
            .replace('.', "")
            .parse()
            .expect("a number"),
        limit: c_int::from(o.limit),
    }
}
