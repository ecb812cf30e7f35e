//! What the tables of a material hold: wins, draws and losses, the classes under the draw
//! rules, and the longest win with a position that reaches it. Every position is counted,
//! those the tables leave out resolved by the [material walk](crate::walk), so the counts are
//! exact.

use crate::codec::{Codec, DrawRulesCodec, DtwCodec};
use crate::format::TableKind;
use crate::walk::{unpack, Walk};
use crate::{Dtw, Limits, Material, ProbeError, RuleClass, Tablebase, Variant};

/// The counts of one material, or of a sum of materials.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MaterialStats {
    /// Positions, both sides to move.
    pub positions: u64,
    /// Positions won for the side to move, the draw rules ignored.
    pub wins: u64,
    /// Positions drawn, the draw rules ignored.
    pub draws: u64,
    /// Positions lost for the side to move, the draw rules ignored.
    pub losses: u64,
    /// Positions of each [`RuleClass`] with fresh counters, in the order win, cursed win,
    /// draw, blessed loss, loss (see [`class_slot`]); `None` without rule tables.
    pub classes: Option<[u64; 5]>,
    /// The longest win in plies and the FEN of the first position in the index reaching it;
    /// `None` without any win.
    pub longest: Option<(u16, String)>,
}

/// The slot of a class in [`MaterialStats::classes`].
pub fn class_slot(class: RuleClass) -> usize {
    match class {
        RuleClass::Win => 0,
        RuleClass::CursedWin => 1,
        RuleClass::Draw => 2,
        RuleClass::BlessedLoss => 3,
        RuleClass::Loss => 4,
    }
}

impl MaterialStats {
    /// Adds the counts of `other`; the longest win is the longer one, the first on a tie. The
    /// classes are kept only if both have them.
    pub fn add(&mut self, other: &MaterialStats) {
        self.positions += other.positions;
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        self.classes = match (self.classes, other.classes) {
            (Some(a), Some(b)) => Some(std::array::from_fn(|i| a[i] + b[i])),
            _ => None,
        };
        if let Some((plies, _)) = &other.longest {
            if self.longest.as_ref().is_none_or(|(mine, _)| plies > mine) {
                self.longest.clone_from(&other.longest);
            }
        }
    }
}

/// Counts one material's positions from its win/draw/loss and distance tables and, when
/// `limits` is given (the limits of the variant's rule tables), its rule table. Positions the
/// tables leave out are resolved from their successors, those of other materials probed.
///
/// `progress` is called with the number of positions done as work goes on: the material's
/// positions in all (the distance and rule tables are walked together).
///
/// # Errors
///
/// A [`ProbeError`] reading these tables or those of the materials they lead to, or
/// [`ProbeError::Corrupted`] if the tables' blocks differ or a code is invalid.
pub fn material_stats(
    tables: &Tablebase,
    variant: Variant,
    material: Material,
    limits: Option<Limits>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<MaterialStats, ProbeError> {
    let wdl_table = tables.table_of(TableKind::Wdl, variant, material)?;
    let dtw_table = tables.table_of(TableKind::Dtw, variant, material)?;
    let rules_table = limits
        .map(|_| tables.table_of(TableKind::DrawRules, variant, material))
        .transpose()?;
    // The walk skips the blocks whose positions follow from other tables; their damage must
    // not go unseen.
    for table in [wdl_table, dtw_table].into_iter().chain(rules_table) {
        table.check_checksums()?;
    }
    let header = dtw_table.header();
    for table in std::iter::once(wdl_table).chain(rules_table) {
        let other = table.header();
        if (other.positions_per_block, other.blocks) != (header.positions_per_block, header.blocks)
        {
            return Err(ProbeError::Corrupted {
                path: table.path().to_path_buf(),
                reason: format!(
                    "its blocks are not those of {}",
                    crate::printable_path(dtw_table.path())
                ),
            });
        }
    }
    let positions = header.positions as usize;
    let index = dtw_table.index();
    let wdl = Walk::complete_wdl(index, wdl_table, tables, &|_| {})?;
    let walk = Walk::new(index, &wdl, limits, dtw_table.path(), header.stored);
    let bits = header.bits;
    let (distances, classes) = match rules_table {
        None => {
            let mut distances: Vec<u16> = unpack(&dtw_table.read_all()?, bits, positions);
            let dtw = |p: &_| tables.probe_dtw(p);
            walk.complete::<DtwCodec, _, ProbeError>(&mut distances, bits, dtw, progress)?;
            (distances, None)
        }
        Some(table) => {
            let pairs = walk.distances_and_rules(tables, dtw_table, table, progress)?;
            let (distances, codes): (Vec<u16>, Vec<u8>) = pairs.into_iter().unzip();
            (distances, Some(count_classes(&codes, table.path())?))
        }
    };
    let (mut stats, longest) = count_distances(&distances, bits);
    stats.positions = header.positions;
    stats.classes = classes;
    stats.longest = longest.map(|(plies, at)| (plies, index.unrank(at as u64).to_fen()));
    Ok(stats)
}

/// The positions of each class of complete draw-rule codes read from `path`.
fn count_classes(codes: &[u8], path: &std::path::Path) -> Result<[u64; 5], ProbeError> {
    let mut classes = [0; 5];
    for &code in codes {
        let value = DrawRulesCodec::decode(u16::from(code), 8)
            .ok_or_else(|| ProbeError::invalid_code(TableKind::DrawRules, path, code.into()))?;
        classes[class_slot(value.class())] += 1;
    }
    Ok(classes)
}

/// The win/draw/loss counts of complete distances, and the longest win with the index of the
/// first position reaching it.
fn count_distances(distances: &[u16], bits: u8) -> (MaterialStats, Option<(u16, usize)>) {
    let mut stats = MaterialStats::default();
    let mut longest: Option<(u16, usize)> = None;
    for (i, &code) in distances.iter().enumerate() {
        match DtwCodec::decode(code, bits) {
            Some(Dtw::Win(plies)) => {
                stats.wins += 1;
                if longest.is_none_or(|(best, _)| plies > best) {
                    longest = Some((plies, i));
                }
            }
            Some(Dtw::Loss(_)) => stats.losses += 1,
            Some(Dtw::Draw) | None => stats.draws += 1,
        }
    }
    (stats, longest)
}
