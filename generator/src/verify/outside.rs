//! The values of positions no page holds (a promotion whose material's pages are not made, a
//! material whose tables could not be opened), all three at once and remembered per thread.
//!
//! The probe answers one table kind per call, each call checking for captures, reading the
//! win/draw/loss value and, for a position its distance and rule tables leave out, going
//! through its successors again: three times the work when all three values are wanted, and
//! the same successors gone through again and again, since many moves of a material lead to
//! the same positions of another. Here the three values come from one pass with the probe's own
//! rules (see `rafle_probe::toolkit::codec`), each table read through [`Tablebase::stored_wdl`] and its
//! siblings, and every answer is remembered in a table per thread.

use std::hash::{Hash, Hasher};
use std::sync::{Mutex, MutexGuard, PoisonError};

use rafle_probe::{
    draughts::{resets_counter, Category, Limits, Move, Position},
    Dtw, ProbeError, RuleValue, Tablebase, Wdl,
};

use super::codes::{Codes, Successor};
use crate::probed::{self, Values};

/// Answers remembered per thread: a power of two.
const REMEMBERED: usize = 1 << 16;

/// The values of a position whose opponent has no piece: won at once.
fn opponent_gone() -> Values {
    Values {
        wdl: Wdl::Win,
        dtw: Dtw::Win(0),
        rule: RuleValue::win(0),
    }
}

/// What one thread keeps.
#[derive(Debug)]
pub(super) struct Local {
    /// Positions resolved, at the slot their hash gives (the last one there).
    remembered: Vec<Option<(Position, Values)>>,
}

impl Local {
    fn new() -> Local {
        Local {
            remembered: vec![None; REMEMBERED],
        }
    }
}

/// The resolver of positions of other materials, with what each thread keeps.
#[derive(Debug)]
pub(super) struct Outside<'a> {
    tables: &'a Tablebase,
    limits: Limits,
    /// One per thread of rayon's pool, and one for any other thread.
    locals: Vec<Mutex<Local>>,
}

impl<'a> Outside<'a> {
    /// A resolver reading `tables`, whose rule tables have `limits`.
    pub fn new(tables: &'a Tablebase, limits: Limits) -> Outside<'a> {
        let threads = rayon::current_num_threads() + 1;
        Outside {
            tables,
            limits,
            locals: (0..threads).map(|_| Mutex::new(Local::new())).collect(),
        }
    }

    /// What the current thread keeps, for as long as the guard lives. Each of rayon's threads
    /// has its own, so the lock is not contended (unless the pool was resized meanwhile).
    pub fn local(&self) -> MutexGuard<'_, Local> {
        let last = self.locals.len() - 1;
        let k = rayon::current_thread_index().map_or(last, |k| k.min(last));
        // A poisoned lock only means a thread panicked while holding it: what it remembered
        // is still right (answers are stored whole).
        self.locals[k]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The values of `pos` for the side to move, as the probe gives them: the win/draw/loss
    /// value, the distance to win and the rule value with fresh counters.
    ///
    /// # Errors
    ///
    /// A [`ProbeError`] reading a table, as the probe would report it.
    pub fn values(&self, pos: &Position, local: &mut Local) -> Result<Values, ProbeError> {
        if pos.side_pieces(pos.turn()).is_empty() {
            return Ok(Values::NO_PIECE);
        }
        if pos.side_pieces(pos.turn().opposite()).is_empty() {
            return Ok(opponent_gone());
        }
        let slot = slot_of(pos);
        if let Some((seen, values)) = local.remembered[slot] {
            if seen == *pos {
                return Ok(values);
            }
        }
        let values = self.resolve(pos, local)?;
        local.remembered[slot] = Some((*pos, values));
        Ok(values)
    }

    /// The successor of `pos` through `mv`, through the probe's rules: its codes and whether
    /// the move resets the draw-rule counter.
    ///
    /// # Errors
    ///
    /// A [`ProbeError`] reading a table, as [`Outside::values`].
    pub fn successor(
        &self,
        pos: &Position,
        mv: &Move,
        local: &mut Local,
    ) -> Result<Successor, ProbeError> {
        let next = pos.play(mv);
        let values = self.values(&next, local)?;
        Ok((Codes::of(values), resets_counter(pos, mv, &next)))
    }

    /// The values of `pos`, whose sides both have pieces, from its tables and successors.
    fn resolve(&self, pos: &Position, local: &mut Local) -> Result<Values, ProbeError> {
        if let Some(values) = probed::stored(self.tables, pos, pos.must_capture())? {
            return Ok(values);
        }
        let limit = self.limits.of(Category::of_position(pos));
        probed::through_moves(pos, limit, |next| self.values(next, local))
    }
}

/// The slot of a position in the table of remembered answers.
fn slot_of(pos: &Position) -> usize {
    let mut hasher = Mix(0);
    pos.hash(&mut hasher);
    (hasher.finish() >> 40) as usize & (REMEMBERED - 1)
}

/// A fast hash for a few words: multiply and rotate, as rustc's own FxHasher.
struct Mix(u64);

impl Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u8(&mut self, x: u8) {
        self.write_u64(u64::from(x));
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }

    fn write_isize(&mut self, x: isize) {
        self.write_u64(x as u64);
    }
}
