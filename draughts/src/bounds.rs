//! What every entry point (the command line, Python, C, HTTP) takes from a caller, and how it
//! quotes what it refuses: the ranges of the counts a caller gives ([`IntRange`]), checked
//! in one place so that each entry point refuses the same values with the same words, and
//! the bounded excerpt ([`excerpt`]) a message quotes of any input, however long.

use std::fmt;

use crate::{printable, MAX_COUNTER};

/// The most characters [`excerpt`] quotes of an input: every FEN of a real position and
/// every path of a real machine whole, and a runaway input does not make a runaway message.
pub const EXCERPT_CHARS: usize = 200;

/// Characters of the start and of the end an excerpt of a longer input keeps.
const EXCERPT_HEAD: usize = 100;
const EXCERPT_TAIL: usize = 80;

/// `text` as a message quotes it: [`printable`] (control characters escaped), whole when it
/// is at most [`EXCERPT_CHARS`] characters, else its start and its end around an ellipsis
/// that gives the length of the whole, so that a megabyte of input makes a line of message.
///
/// ```
/// use rafle_draughts::excerpt;
/// assert_eq!(excerpt("W:W31:B\u{1b}"), "W:W31:B\\u{1b}");
/// let long = format!("W:W{}", ",1".repeat(500_000));
/// let shown = excerpt(&long);
/// assert!(shown.starts_with("W:W,1,1") && shown.ends_with(",1,1"));
/// assert!(shown.contains("…(1000003 characters)…") && shown.chars().count() < 230);
/// ```
pub fn excerpt(text: &str) -> String {
    // Escapes grow a character to at most ten: the prefix checked is bounded too.
    let fits = {
        let mut shown = 0;
        text.chars().all(|c| {
            shown += escaped_len(c);
            shown <= EXCERPT_CHARS
        })
    };
    if fits {
        return printable(text);
    }
    let mut head = String::new();
    let mut head_end = 0;
    for (i, c) in text.char_indices() {
        if head.chars().count() + escaped_len(c) > EXCERPT_HEAD {
            break;
        }
        head.push_str(&printable(c.encode_utf8(&mut [0; 4])));
        head_end = i + c.len_utf8();
    }
    let mut tail_chars = Vec::new();
    let mut tail_len = 0;
    for (i, c) in text.char_indices().rev() {
        if i < head_end || tail_len + escaped_len(c) > EXCERPT_TAIL {
            break;
        }
        tail_len += escaped_len(c);
        tail_chars.push(c);
    }
    let tail: String = tail_chars.into_iter().rev().collect();
    format!(
        "{head}…({} characters)…{}",
        text.chars().count(),
        printable(&tail)
    )
}

/// Characters `c` takes once [`printable`].
fn escaped_len(c: char) -> usize {
    printable(c.encode_utf8(&mut [0; 4])).chars().count()
}

/// The range of a count a caller gives (worker threads, pieces, a counter, a budget), with the
/// name its messages give it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntRange {
    /// What the count is, as messages name it (`threads`, `king_plies (rule 6.2)`).
    pub name: &'static str,
    /// The least value taken.
    pub min: u64,
    /// The greatest value taken.
    pub max: u64,
    /// What one of it counts, after the number (`" plies"`, `" bytes"`), or empty.
    pub unit: &'static str,
}

/// The most worker threads a generation (or a comparison) starts.
pub const MAX_THREADS: u64 = 1024;

impl IntRange {
    /// Worker threads: from 1 to [`MAX_THREADS`].
    pub const THREADS: IntRange = IntRange {
        name: "threads",
        min: 1,
        max: MAX_THREADS,
        unit: "",
    };
    /// The plies of king moves of rule 6.2's counter: from 0 to [`MAX_COUNTER`].
    pub const KING_PLIES: IntRange = IntRange {
        name: "king_plies (K, rule 6.2)",
        min: 0,
        max: MAX_COUNTER as u64,
        unit: " plies",
    };
    /// The plies in the category of rules 6.3 and 6.4: from 0 to [`MAX_COUNTER`].
    pub const CATEGORY_PLIES: IntRange = IntRange {
        name: "category_plies (C, rules 6.3/6.4)",
        min: 0,
        max: MAX_COUNTER as u64,
        unit: " plies",
    };
    /// The bytes of a cache of decompressed blocks (0 keeps none).
    pub const CACHE_BYTES: IntRange = IntRange {
        name: "cache_bytes",
        min: 0,
        max: usize::MAX as u64,
        unit: " bytes",
    };
    /// A memory budget in bytes.
    pub const MEMORY: IntRange = IntRange {
        name: "memory",
        min: 1,
        max: u64::MAX,
        unit: " bytes",
    };

    /// A range of the same bounds under another name.
    pub const fn named(self, name: &'static str) -> IntRange {
        IntRange { name, ..self }
    }

    /// `value` if it is in the range.
    ///
    /// # Errors
    ///
    /// [`OutOfRange`] naming the range and the value.
    pub fn check(self, value: u64) -> Result<u64, OutOfRange> {
        if (self.min..=self.max).contains(&value) {
            Ok(value)
        } else {
            Err(self.refuse(&value.to_string()))
        }
    }

    /// `value` if it is in the range, for a caller's signed number.
    ///
    /// # Errors
    ///
    /// [`OutOfRange`] naming the range and the value.
    pub fn check_signed(self, value: i128) -> Result<u64, OutOfRange> {
        u64::try_from(value)
            .map_err(|_| self.refuse(&value.to_string()))
            .and_then(|v| self.check(v))
    }

    /// Reads a decimal number in the range (surrounding white space allowed).
    ///
    /// # Errors
    ///
    /// [`OutOfRange`] for text that is not a number in the range, quoting an excerpt of it.
    pub fn parse(self, text: &str) -> Result<u64, OutOfRange> {
        let trimmed = text.trim();
        let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if trimmed.strip_prefix('-').is_some_and(number) {
            // A negative number is below every range.
            return Err(self.refuse(trimmed));
        }
        let digits = trimmed.strip_prefix('+').unwrap_or(trimmed);
        if !number(digits) {
            return Err(OutOfRange {
                range: self,
                value: format!("'{}'", excerpt(text)),
            });
        }
        // All digits: a number past u64 is past every range.
        match digits.parse::<u64>() {
            Ok(value) => self.check(value),
            Err(_) => Err(self.refuse(&excerpt(digits))),
        }
    }

    /// The error for `shown`, a value out of the range as the caller gave it (an excerpt).
    pub fn refuse(self, shown: &str) -> OutOfRange {
        OutOfRange {
            range: self,
            value: excerpt(shown),
        }
    }
}

/// A count out of its range: "`threads must be from 1 to 1024, not 2147483648`".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfRange {
    /// The range it is out of.
    pub range: IntRange,
    /// The value given, as text (an [`excerpt`] of it).
    pub value: String,
}

impl fmt::Display for OutOfRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let IntRange {
            name,
            min,
            max,
            unit,
        } = self.range;
        write!(
            f,
            "{name} must be from {min} to {max}{unit}, not {}",
            self.value
        )
    }
}

impl std::error::Error for OutOfRange {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_inputs_are_quoted_whole_and_long_ones_bounded() {
        assert_eq!(excerpt(""), "");
        let exact = "a".repeat(EXCERPT_CHARS);
        assert_eq!(excerpt(&exact), exact);
        let over = "a".repeat(EXCERPT_CHARS + 1);
        let shown = excerpt(&over);
        assert!(shown.contains("…(201 characters)…"), "{shown}");
        let long = format!("{}{}", "x".repeat(1 << 20), "\u{1b}end");
        let shown = excerpt(&long);
        assert!(shown.chars().count() <= EXCERPT_CHARS + 30, "{shown}");
        assert!(shown.ends_with("\\u{1b}end"), "{shown}");
        assert!(shown.contains(&format!("({} characters)", (1 << 20) + 4)));
    }

    #[test]
    fn escapes_count_towards_the_bound() {
        let controls = "\u{1}".repeat(1000);
        let shown = excerpt(&controls);
        assert!(shown.chars().count() <= EXCERPT_CHARS + 30, "{shown}");
        assert!(shown.starts_with("\\u{1}\\u{1}"));
        // Multi-byte characters are cut on their boundaries.
        let wide = "é".repeat(1000);
        assert!(excerpt(&wide).starts_with("éé"));
    }

    #[test]
    fn ranges_refuse_with_one_message() {
        assert_eq!(IntRange::THREADS.check(1024), Ok(1024));
        assert_eq!(
            IntRange::THREADS.check(1025).unwrap_err().to_string(),
            "threads must be from 1 to 1024, not 1025"
        );
        assert_eq!(
            IntRange::THREADS.check_signed(-1).unwrap_err().to_string(),
            "threads must be from 1 to 1024, not -1"
        );
        assert_eq!(IntRange::KING_PLIES.parse(" 12 "), Ok(12));
        assert_eq!(
            IntRange::KING_PLIES.parse("-3").unwrap_err().to_string(),
            "king_plies (K, rule 6.2) must be from 0 to 10000 plies, not -3"
        );
        assert_eq!(
            IntRange::THREADS
                .parse("99999999999999999999999")
                .unwrap_err()
                .to_string(),
            "threads must be from 1 to 1024, not 99999999999999999999999"
        );
        assert_eq!(
            IntRange::THREADS.parse("two").unwrap_err().to_string(),
            "threads must be from 1 to 1024, not 'two'"
        );
        let huge = "9".repeat(100_000);
        assert!(IntRange::MEMORY.parse(&huge).unwrap_err().to_string().len() < 300);
    }
}
