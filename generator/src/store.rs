//! The values of solved materials as the materials solved after them read them: from their
//! work files, memory-mapped; and a material's distances in memory when its tables are read
//! back.

use std::sync::Arc;

use rafle_probe::codec::{Codec, DtwCodec};
use rafle_probe::{Dtw, Material, Position, PositionIndex, RuleValue};

use crate::values::{distance, rule_value, ValuesFile};

/// Distances of one material: a byte a position where every distance fits, two otherwise;
/// the largest value of the width marks a draw.
#[derive(Debug)]
pub(crate) enum Distances {
    Narrow(Vec<u8>),
    Wide(Vec<u16>),
}

impl Distances {
    /// Bits a position in a DTW table of these distances.
    pub(crate) fn bits(&self) -> u8 {
        match self {
            Distances::Narrow(_) => 8,
            Distances::Wide(_) => 16,
        }
    }

    /// The stored value of position `i`: the draw marker or a distance.
    pub(crate) fn raw(&self, i: usize) -> u16 {
        match self {
            Distances::Narrow(v) => u16::from(v[i]),
            Distances::Wide(v) => v[i],
        }
    }

    /// Value and distance of position `i`: odd distances are wins, even ones losses.
    pub(crate) fn get(&self, i: usize) -> Dtw {
        DtwCodec::decode(self.raw(i), self.bits()).unwrap_or(Dtw::Draw)
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Distances::Narrow(v) => v.len(),
            Distances::Wide(v) => v.len(),
        }
    }
}

/// One solved material's work file.
#[derive(Debug)]
struct Held {
    index: PositionIndex,
    values: ValuesFile,
}

/// The values of the solved materials a material reads, from their work files (see
/// [`crate::values`]), looked up by material; the material being solved is among them, for its
/// finished slices.
#[derive(Debug)]
pub(crate) struct Store {
    slots: Vec<Option<Arc<Held>>>,
}

fn slot(m: Material) -> usize {
    usize::from(m.white_men)
        | usize::from(m.white_kings) << 4
        | usize::from(m.black_men) << 8
        | usize::from(m.black_kings) << 12
}

impl Store {
    pub(crate) fn new() -> Store {
        Store {
            slots: vec![None; 1 << 16],
        }
    }

    /// Makes the values of `index`'s material readable.
    pub(crate) fn insert(&mut self, index: PositionIndex, values: ValuesFile) {
        let key = slot(index.material());
        self.slots[key] = Some(Arc::new(Held { index, values }));
    }

    /// Forgets a material's values (its work file can then be removed).
    pub(crate) fn remove(&mut self, material: Material) {
        self.slots[slot(material)] = None;
    }

    /// The work file of a material, if held.
    pub(crate) fn values(&self, material: Material) -> Option<&ValuesFile> {
        self.slots[slot(material)].as_ref().map(|held| &held.values)
    }

    /// Value and distance to win, and rule-aware value, of any position of a solved material,
    /// or of a position where the side to move has no piece left (lost in 0).
    ///
    /// # Panics
    ///
    /// If the position's material is not held: generation follows dependency order, so this
    /// is a bug.
    #[inline]
    pub(crate) fn value(&self, pos: &Position) -> (Dtw, RuleValue) {
        if pos.side_pieces(pos.turn()).is_empty() {
            return (Dtw::Loss(0), RuleValue::loss(0));
        }
        let (held, i) = self.locate(pos);
        (
            distance(held.values.distance_code(i)),
            rule_value(held.values.rule_code(i)),
        )
    }

    /// The distance to win of [`Store::value`].
    pub(crate) fn dtw(&self, pos: &Position) -> Dtw {
        self.value(pos).0
    }

    /// The rule-aware value of [`Store::value`].
    pub(crate) fn rule(&self, pos: &Position) -> RuleValue {
        self.value(pos).1
    }

    /// Gives the pages read so far back to the system (see [`ValuesFile::release`]).
    pub(crate) fn release(&self) {
        for held in self.slots.iter().flatten() {
            held.values.release();
        }
    }

    /// The held material of a position and the position's index there.
    #[inline]
    fn locate(&self, pos: &Position) -> (&Held, u64) {
        let (pos, material) = pos.canonical();
        let held = self.slots[slot(material)]
            .as_ref()
            .unwrap_or_else(|| panic!("{material} is needed before it is solved"));
        (held, held.index.rank(&pos))
    }
}
