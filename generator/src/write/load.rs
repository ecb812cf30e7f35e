//! Reading a material's tables back from disk for the materials solved after it: every checksum
//! checked, and the positions the tables leave out (see [`rafle_probe::toolkit::codec`]) given their
//! values again by the [material walk](rafle_probe::toolkit::walk), from the materials below and from
//! the positions kept.

use rafle_probe::toolkit::codec::{DrawRulesCodec, DtwCodec};
use rafle_probe::toolkit::format::{StoredHalf, TableKind};
use rafle_probe::toolkit::walk::{unpack, Captures, Walk};
use rafle_probe::{draughts::Position, toolkit::Table, Dtw, ProbeError, RuleValue};

use std::path::Path;

use crate::plan::MaterialPlan;
use crate::solve::store::{Distances, Store};
use crate::work::packed;
use crate::work::values::{distance_code, rule_value, Kept, CAPTURE, MAX_DISTANCE};
use crate::write::counts::Counts;
use crate::{GenerateError, Progress};

/// A material's win/draw/loss and distance tables read back, with its rule table if that one
/// is valid too.
pub(crate) struct Loaded {
    pub(crate) distances: Distances,
    pub(crate) captures: Captures,
    /// The rule codes, or why not.
    pub(crate) rules: RuleCodes,
}

/// The rule codes and the rule table's size, or why the rule table must be computed again
/// (`None`: there was none).
pub(crate) type RuleCodes = Result<(Vec<u8>, u64), Option<String>>;

impl Loaded {
    /// The rule codes, if the rule table was read back.
    pub(crate) fn rule_codes(&self) -> Option<&[u8]> {
        self.rules.as_ref().ok().map(|(codes, _)| codes.as_slice())
    }

    /// Writes the values read back as the material's packed work file (see
    /// [`crate::work::packed`]) of the request `identity` names.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`]: a missing rule table is one of kind `NotFound`.
    pub(crate) fn pack(
        &self,
        path: &Path,
        identity: &str,
        kept: Kept,
    ) -> Result<(), GenerateError> {
        let rules = self.rule_codes().ok_or_else(|| GenerateError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no valid rule table"),
        })?;
        let n = self.distances.len() as u64;
        packed::write(path, identity, n, kept, |start, len| {
            let (codes, _) = crate::write::Source::read_range(self, start, len)?;
            let start = start as usize;
            Ok((codes, rules[start..start + len].to_vec()))
        })?;
        Ok(())
    }
}

impl crate::write::Source for Loaded {
    fn read_range(&self, start: u64, len: usize) -> Result<(Vec<u16>, Vec<u8>), GenerateError> {
        let start = start as usize;
        let distances = (start..start + len)
            .map(|i| {
                let capture = if self.captures.contains(i) {
                    CAPTURE
                } else {
                    0
                };
                distance_code(self.distances.get(i)) | capture
            })
            .collect();
        let rules = match self.rule_codes() {
            Some(codes) => codes[start..start + len].to_vec(),
            None => vec![0; len],
        };
        Ok((distances, rules))
    }
}

/// Why a material's values could not be read back from its tables.
pub(crate) enum LoadError {
    /// Its tables are missing or damaged (as this says): it is solved again.
    Table(String),
    /// The values of a material its positions reach could not be read: the run stops.
    Work(GenerateError),
}

impl From<ProbeError> for LoadError {
    fn from(e: ProbeError) -> LoadError {
        LoadError::Table(e.to_string())
    }
}

impl Counts {
    /// The counts of a material read back.
    pub(crate) fn of_loaded(loaded: &Loaded) -> Counts {
        let mut counts = Counts::default();
        let rules = loaded.rule_codes().unwrap_or(&[]);
        for i in 0..loaded.distances.len() {
            let rule = rules.get(i).map_or(RuleValue::DRAW, |&c| rule_value(c));
            counts.add(i as u64, loaded.distances.get(i), rule);
        }
        counts
    }
}

/// Checks a material's complete tables, every checksum, and reads its values back; its rule
/// table is taken only if it has the plan's limits.
pub(crate) fn load_existing(
    m: &MaterialPlan,
    index: &rafle_probe::toolkit::PositionIndex,
    store: &Store,
    progress: &dyn Progress,
    legacy: bool,
) -> Result<Loaded, LoadError> {
    let (variant, material) = (index.variant(), m.material);
    let open = |path, kind| {
        if legacy {
            Table::open_legacy(path, kind, variant, material)
        } else {
            Table::open(path, kind, variant, material)
        }
    };
    let wdl_table = open(&m.path, TableKind::Wdl)?;
    let dtw_table = open(&m.dtw_path, TableKind::Dtw)?;
    let stored = dtw_table.header().stored;
    // A win/draw/loss table may keep both sides to move.
    let wdl_stored = wdl_table.header().stored;
    if wdl_stored != stored && wdl_stored != StoredHalf::Both {
        return Err(LoadError::Table(format!(
            "{} stores {}, {} {stored}",
            m.path.display(),
            wdl_table.header().stored,
            m.dtw_path.display()
        )));
    }
    let outside_wdl = |pos: &Position| store.dtw(pos).map(Dtw::wdl).map_err(LoadError::Work);
    let wdl = Walk::complete_wdl_with(index, &wdl_table, &outside_wdl, &|_| {})?;
    let bytes = dtw_table.read_all()?;
    let walk = Walk::new(index, &wdl, Some(m.limits), &m.dtw_path, stored);
    let outside = |pos: &Position| store.dtw(pos).map_err(LoadError::Work);
    let advance = |n| progress.advance(2 * n);
    let (distances, captures) = if dtw_table.header().bits == 8 {
        let mut codes = bytes;
        let captures = walk.complete::<DtwCodec, u8, _>(&mut codes, 8, outside, &advance)?;
        (Distances::Narrow(codes), captures)
    } else {
        let mut codes: Vec<u16> = unpack(&bytes, 16, index.size() as usize);
        drop(bytes);
        let captures = walk.complete::<DtwCodec, u16, _>(&mut codes, 16, outside, &advance)?;
        // A distance no work file holds cannot be right (a table forged with valid
        // checksums): the table is rebuilt, its values never taken.
        let draw = DtwCodec::draw_code(16);
        if let Some(&bad) = codes.iter().find(|&&c| c != draw && c > MAX_DISTANCE) {
            return Err(LoadError::Table(format!(
                "{}: a distance of {bad} plies, past the longest possible ({MAX_DISTANCE})",
                m.dtw_path.display()
            )));
        }
        (Distances::Wide(codes), captures)
    };
    Ok(Loaded {
        distances,
        captures,
        rules: load_draw_rules(m, &walk, store, progress, legacy)?,
    })
}

/// A valid rule table of the plan's limits, read back complete; else why not (`None` when
/// there is no file).
///
/// # Errors
///
/// [`LoadError::Work`] alone: what is wrong with the rule table is the inner error.
fn load_draw_rules(
    m: &MaterialPlan,
    walk: &Walk,
    store: &Store,
    progress: &dyn Progress,
    legacy: bool,
) -> Result<RuleCodes, LoadError> {
    if !m.draw_rules_path.exists() {
        return Ok(Err(None));
    }
    let (variant, material) = (walk.index.variant(), m.material);
    let rejected = |e: ProbeError| Ok(Err(Some(e.to_string())));
    let opened = if legacy {
        Table::open_legacy(&m.draw_rules_path, TableKind::DrawRules, variant, material)
    } else {
        Table::open(&m.draw_rules_path, TableKind::DrawRules, variant, material)
    };
    let table = match opened {
        Ok(table) => table,
        Err(e) => return rejected(e),
    };
    if table.header().stored != walk.stored {
        return Ok(Err(Some(format!(
            "{} stores {}, the distance table {}",
            m.draw_rules_path.display(),
            table.header().stored,
            walk.stored
        ))));
    }
    if table.header().limits != Some(m.limits) {
        return Ok(Err(Some(format!(
            "{} was computed with other draw-rule limits",
            m.draw_rules_path.display()
        ))));
    }
    let mut codes = match table.read_all() {
        Ok(codes) => codes,
        Err(e) => return rejected(e),
    };
    if let Some(bad) = codes.iter().find(|&&c| RuleValue::from_code(c).is_none()) {
        return Ok(Err(Some(format!(
            "{}: invalid rule value code {bad}",
            m.draw_rules_path.display()
        ))));
    }
    let walk = Walk {
        path: &m.draw_rules_path,
        ..*walk
    };
    match walk.complete::<DrawRulesCodec, u8, _>(
        &mut codes,
        8,
        |pos: &Position| store.rule(pos).map_err(LoadError::Work),
        &|n| progress.advance(n),
    ) {
        Ok(_) => Ok(Ok((codes, table.file_len()))),
        Err(LoadError::Table(e)) => Ok(Err(Some(e))),
        Err(work) => Err(work),
    }
}
