//! Status codes, the thread's last error text, and the guard that keeps panics and errors from
//! crossing into C.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use rafle_probe::answer::AnswerError;
use rafle_probe::ProbeError;

/// Success.
pub const RAFLE_OK: c_int = 0;
/// A cache-only probe found a block it needs outside the cache (not an error).
pub const RAFLE_NOT_CACHED: c_int = 1;
/// The game is over: the side to move has no legal move or the opponent no piece (not an
/// error).
pub const RAFLE_NO_MOVE: c_int = 2;
/// A pointer that must not be null was null.
pub const RAFLE_ERR_NULL: c_int = -1;
/// An argument out of its range: an unknown variant, side or table kind, a bad square
/// number, a directory name that is not a path.
pub const RAFLE_ERR_ARGUMENT: c_int = -2;
/// A position that cannot be: pieces overlapping, a square past the board, a man on its own
/// promotion row, or a FEN that does not read.
pub const RAFLE_ERR_POSITION: c_int = -3;
/// More pieces than the tables of the variant cover.
pub const RAFLE_ERR_TOO_MANY_PIECES: c_int = -4;
/// The table of the position's material (or of a material its captures reach) is not in the
/// directory.
pub const RAFLE_ERR_MISSING_TABLE: c_int = -5;
/// A table file is damaged, truncated, or holds another table than its name says.
pub const RAFLE_ERR_BAD_TABLE: c_int = -6;
/// The directory's rule tables were computed with different draw-rule limits.
pub const RAFLE_ERR_MIXED_LIMITS: c_int = -7;
/// The operating system refused to read a file or directory.
pub const RAFLE_ERR_IO: c_int = -8;
/// A bug in rafle (it panicked); the call had no effect.
pub const RAFLE_ERR_INTERNAL: c_int = -9;

/// Why a call failed: the status it returns and the text `rafle_last_error` gives.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: c_int,
    pub(crate) message: String,
}

// Failures are built only on the error paths: `cold` keeps them out of the probes' fast path.
impl Failure {
    #[cold]
    pub(crate) fn new(status: c_int, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }

    #[cold]
    pub(crate) fn null(what: &str) -> Failure {
        Failure::new(RAFLE_ERR_NULL, format!("{what} is a null pointer"))
    }
}

impl From<ProbeError> for Failure {
    fn from(e: ProbeError) -> Failure {
        let status = match e {
            ProbeError::TooManyPieces { .. } => RAFLE_ERR_TOO_MANY_PIECES,
            ProbeError::MissingTable { .. } => RAFLE_ERR_MISSING_TABLE,
            ProbeError::Corrupted { .. }
            | ProbeError::Truncated { .. }
            | ProbeError::WrongTable { .. }
            | ProbeError::OldFormat { .. }
            | ProbeError::MixedHalves { .. } => RAFLE_ERR_BAD_TABLE,
            ProbeError::MixedLimits { .. } => RAFLE_ERR_MIXED_LIMITS,
            ProbeError::Io { .. } => RAFLE_ERR_IO,
            _ => RAFLE_ERR_INTERNAL,
        };
        Failure::new(status, e.to_string())
    }
}

impl From<AnswerError> for Failure {
    fn from(e: AnswerError) -> Failure {
        match e {
            AnswerError::Probe(probe) => probe.into(),
            AnswerError::NoRuleTables { .. } => {
                Failure::new(RAFLE_ERR_MISSING_TABLE, e.to_string())
            }
            _ => Failure::new(RAFLE_ERR_INTERNAL, e.to_string()),
        }
    }
}

thread_local! {
    /// The text of the last failure on this thread, kept until the next one.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

pub(crate) fn set_last_error(message: &str) {
    // A C string cannot hold a NUL; none of rafle's messages has one, but a path could.
    let text = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = text);
}

/// Runs the body of an exported function: a failure becomes its status code with its text
/// kept for `rafle_last_error`, and a panic, which must not unwind into C, becomes
/// [`RAFLE_ERR_INTERNAL`].
pub(crate) fn guard(body: impl FnOnce() -> Result<c_int, Failure>) -> c_int {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(status)) => status,
        Ok(Err(failure)) => {
            set_last_error(&failure.message);
            failure.status
        }
        Err(_) => {
            set_last_error("internal error: rafle panicked (please report it); nothing was done");
            RAFLE_ERR_INTERNAL
        }
    }
}

/// The text of the last failure on the calling thread: what went wrong and where (the file,
/// the square, the material). Empty if no call has failed on this thread yet.
///
/// The text belongs to the library and stays valid until the next failing call on the same
/// thread; successful calls leave it as it is. Never null.
#[no_mangle]
pub extern "C" fn rafle_last_error() -> *const c_char {
    // The pointer outlives this borrow: the CString's buffer is only freed when the next
    // failure replaces it, which is what the documentation promises.
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// The name of a status code as written in rafle.h (`"RAFLE_ERR_IO"`), or `"unknown"`.
/// Never null; the text is static.
#[no_mangle]
pub extern "C" fn rafle_status_name(status: c_int) -> *const c_char {
    let name: &'static CStr = match status {
        RAFLE_OK => c"RAFLE_OK",
        RAFLE_NOT_CACHED => c"RAFLE_NOT_CACHED",
        RAFLE_NO_MOVE => c"RAFLE_NO_MOVE",
        RAFLE_ERR_NULL => c"RAFLE_ERR_NULL",
        RAFLE_ERR_ARGUMENT => c"RAFLE_ERR_ARGUMENT",
        RAFLE_ERR_POSITION => c"RAFLE_ERR_POSITION",
        RAFLE_ERR_TOO_MANY_PIECES => c"RAFLE_ERR_TOO_MANY_PIECES",
        RAFLE_ERR_MISSING_TABLE => c"RAFLE_ERR_MISSING_TABLE",
        RAFLE_ERR_BAD_TABLE => c"RAFLE_ERR_BAD_TABLE",
        RAFLE_ERR_MIXED_LIMITS => c"RAFLE_ERR_MIXED_LIMITS",
        RAFLE_ERR_IO => c"RAFLE_ERR_IO",
        RAFLE_ERR_INTERNAL => c"RAFLE_ERR_INTERNAL",
        _ => c"unknown",
    };
    name.as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last() -> String {
        // SAFETY: rafle_last_error returns a valid NUL-terminated string owned by this thread.
        unsafe { CStr::from_ptr(rafle_last_error()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn failures_set_the_text_and_successes_keep_it() {
        assert_eq!(guard(|| Err(Failure::null("pos"))), RAFLE_ERR_NULL);
        assert_eq!(last(), "pos is a null pointer");
        assert_eq!(guard(|| Ok(RAFLE_OK)), RAFLE_OK);
        assert_eq!(last(), "pos is a null pointer");
        set_last_error("a\0b");
        assert_eq!(last(), "a\\0b");
    }

    #[test]
    fn a_panic_becomes_a_status() {
        let status = guard(|| -> Result<c_int, Failure> { panic!("boom") });
        assert_eq!(status, RAFLE_ERR_INTERNAL);
        assert!(last().starts_with("internal error"));
    }

    #[test]
    fn every_status_has_a_name() {
        for status in -9..=2 {
            // SAFETY: rafle_status_name returns a static NUL-terminated string.
            let name = unsafe { CStr::from_ptr(rafle_status_name(status)) };
            assert!(name.to_str().unwrap().starts_with("RAFLE_"), "{status}");
        }
    }
}
