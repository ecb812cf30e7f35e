//! Solved tables kept in memory, 2 bits a position with every value true (capture positions
//! included), for the lookups of materials solved later.

use std::sync::Arc;

use rafle_probe::format::packed_code;
use rafle_probe::{Material, Position, PositionIndex, Wdl};

/// One solved material.
#[derive(Debug)]
pub(crate) struct Solved {
    pub(crate) index: PositionIndex,
    /// 2-bit codes, four positions a byte, lowest bits first: the layout of a table block.
    pub(crate) packed: Vec<u8>,
}

impl Solved {
    pub(crate) fn value(&self, index: u64) -> Wdl {
        let code = packed_code(&self.packed, index as usize);
        Wdl::from_code(code).unwrap_or(Wdl::Draw)
    }
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

    /// The value of any position of a solved material, or of a position where a side has no
    /// piece left.
    ///
    /// # Panics
    ///
    /// If the position's material has not been solved: generation follows dependency order,
    /// so this is a bug.
    pub(crate) fn wdl(&self, pos: &Position) -> Wdl {
        if pos.side_pieces(pos.turn()).is_empty() {
            return Wdl::Loss;
        }
        if pos.side_pieces(pos.turn().opposite()).is_empty() {
            return Wdl::Win;
        }
        let material = Material::of(pos);
        let (pos, material) = if material.is_canonical() {
            (*pos, material)
        } else {
            (pos.mirrored(), material.mirrored())
        };
        let solved = self.slots[slot(material)]
            .as_ref()
            .unwrap_or_else(|| panic!("{material} is needed before it is solved"));
        solved.value(solved.index.rank(&pos))
    }
}
