//! Solved tables kept in memory for the lookups of materials solved later: the distance to win
//! of every position (capture positions included), whose parity gives the value, and its
//! rule-aware value.

use std::sync::Arc;

use rafle_probe::codec::{Codec, DtwCodec};
use rafle_probe::{Dtw, Material, Position, PositionIndex, RuleValue, Wdl};

/// Distances of one material: a byte a position where every distance fits, two otherwise;
/// the largest value of the width marks a draw.
#[derive(Debug)]
pub(crate) enum Distances {
    Narrow(Vec<u8>),
    Wide(Vec<u16>),
}

impl Distances {
    /// From a solution's values and distances (those of draws meaningless), in the width
    /// [`DtwCodec::bits_for`] their longest needs.
    pub(crate) fn new(wdl: &[Wdl], distances: &[u16]) -> Distances {
        let values = || {
            wdl.iter().zip(distances).map(|(&w, &d)| match w {
                Wdl::Win => Dtw::Win(d),
                Wdl::Draw => Dtw::Draw,
                Wdl::Loss => Dtw::Loss(d),
            })
        };
        let longest = values().filter_map(Dtw::plies).max().unwrap_or(0);
        let bits = DtwCodec::bits_for(longest);
        if bits == 8 {
            Distances::Narrow(values().map(|v| DtwCodec::encode(v, bits) as u8).collect())
        } else {
            Distances::Wide(values().map(|v| DtwCodec::encode(v, bits)).collect())
        }
    }

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

/// One solved material.
#[derive(Debug)]
pub(crate) struct Solved {
    pub(crate) index: PositionIndex,
    pub(crate) distances: Distances,
    /// [`RuleValue::code`] of every position.
    pub(crate) rules: Vec<u8>,
}

/// The solved materials of one variant, looked up by material.
#[derive(Debug, Default)]
pub(crate) struct Store {
    slots: Vec<Option<Arc<Solved>>>,
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

    pub(crate) fn insert(&mut self, solved: Solved) {
        let key = slot(solved.index.material());
        self.slots[key] = Some(Arc::new(solved));
    }

    /// Value and distance to win of any position of a solved material, or of a position where
    /// the side to move has no piece left (lost in 0).
    ///
    /// # Panics
    ///
    /// If the position's material has not been solved: generation follows dependency order,
    /// so this is a bug.
    pub(crate) fn dtw(&self, pos: &Position) -> Dtw {
        if pos.side_pieces(pos.turn()).is_empty() {
            return Dtw::Loss(0);
        }
        let (solved, i) = self.locate(pos);
        solved.distances.get(i)
    }

    /// The rule-aware value of any position of a solved material, or of a position where the
    /// side to move has no piece left (lost, count 0).
    ///
    /// # Panics
    ///
    /// As [`Store::dtw`], and if the stored code is invalid (the solver wrote it).
    pub(crate) fn rule(&self, pos: &Position) -> RuleValue {
        if pos.side_pieces(pos.turn()).is_empty() {
            return RuleValue::loss(0);
        }
        let (solved, i) = self.locate(pos);
        RuleValue::from_code(solved.rules[i]).expect("the solver writes valid codes")
    }

    /// The solved material of a position and the position's index there.
    fn locate(&self, pos: &Position) -> (&Solved, usize) {
        let (pos, material) = pos.canonical();
        let solved = self.slots[slot(material)]
            .as_ref()
            .unwrap_or_else(|| panic!("{material} is needed before it is solved"));
        (solved, solved.index.rank(&pos) as usize)
    }
}
