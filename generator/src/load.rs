//! Reading a material's tables back from disk for the materials solved after it: every checksum
//! checked, and the positions the tables leave out (see [`rafle_probe::codec`]) given their
//! values again by the [material walk](rafle_probe::walk), from the materials below and from
//! the positions kept.

use rafle_probe::codec::{DrawRulesCodec, DtwCodec};
use rafle_probe::format::TableKind;
use rafle_probe::walk::{unpack, Captures, Walk};
use rafle_probe::{Position, ProbeError, RuleValue, Table};

use std::path::{Path, PathBuf};

use crate::plan::MaterialPlan;
use crate::store::{Distances, Store};
use crate::summary::Counts;
use crate::values::{distance_code, rule_value, ValuesFile, CAPTURE};
use crate::{GenerateError, Progress};

/// A material's win/draw/loss and distance tables read back, with its rule table if that one
/// is valid too.
pub(crate) struct Loaded {
    pub(crate) distances: Distances,
    pub(crate) captures: Captures,
    /// The rule codes and the file's size, or why the rule table must be computed again
    /// (`None`: there was none).
    pub(crate) rules: Result<(Vec<u8>, u64), Option<String>>,
}

impl Loaded {
    /// The rule codes, if the rule table was read back.
    fn rule_codes(&self) -> Option<&[u8]> {
        self.rules.as_ref().ok().map(|(codes, _)| codes.as_slice())
    }

    /// Writes the values read back as the material's work file (see [`crate::values`]).
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`]; [`GenerateError::Check`]-free: a missing rule table is an
    /// [`GenerateError::Io`] of kind `NotFound`.
    pub(crate) fn write_values(&self, path: &Path) -> Result<(), GenerateError> {
        let rules = self.rule_codes().ok_or_else(|| GenerateError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no valid rule table"),
        })?;
        let n = self.distances.len();
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".partial");
        let tmp = PathBuf::from(tmp);
        let file = ValuesFile::open(&tmp, n as u64, true)?;
        const CHUNK: usize = 1 << 20;
        for start in (0..n).step_by(CHUNK) {
            let end = (start + CHUNK).min(n);
            let codes: Vec<u16> = (start..end)
                .map(|i| {
                    let capture = if self.captures.contains(i) {
                        CAPTURE
                    } else {
                        0
                    };
                    distance_code(self.distances.get(i)) | capture
                })
                .collect();
            file.write_range(start as u64, &codes, &rules[start..end])?;
        }
        file.sync()?;
        std::fs::rename(&tmp, path).map_err(|source| GenerateError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

impl Counts {
    /// The counts of a material read back.
    pub(crate) fn of_loaded(loaded: &Loaded) -> Counts {
        let mut counts = Counts::default();
        let rules = loaded.rule_codes().unwrap_or(&[]);
        for i in 0..loaded.distances.len() {
            let rule = rules.get(i).map_or(RuleValue::DRAW, |&c| rule_value(c));
            counts.add(loaded.distances.get(i), rule);
        }
        counts
    }
}

/// Checks a material's complete tables, every checksum, and reads its values back; its rule
/// table is taken only if it has the plan's limits.
pub(crate) fn load_existing(
    m: &MaterialPlan,
    index: &rafle_probe::PositionIndex,
    store: &Store,
    progress: &dyn Progress,
) -> Result<Loaded, String> {
    let (variant, material) = (index.variant(), m.material);
    let open = |path, kind| Table::open(path, kind, variant, material).map_err(|e| e.to_string());
    let wdl_table = open(&m.path, TableKind::Wdl)?;
    let wdl = wdl_table.read_all().map_err(|e| e.to_string())?;
    let dtw_table = open(&m.dtw_path, TableKind::Dtw)?;
    let bytes = dtw_table.read_all().map_err(|e| e.to_string())?;
    let walk = Walk::new(index, &wdl, Some(m.limits), &m.dtw_path);
    let outside = |pos: &Position| Ok::<_, ProbeError>(store.dtw(pos));
    let advance = |n| progress.advance(2 * n);
    let (distances, captures) = if dtw_table.header().bits == 8 {
        let mut codes = bytes;
        let captures = walk
            .complete::<DtwCodec, u8, _>(&mut codes, 8, outside, &advance)
            .map_err(|e| e.to_string())?;
        (Distances::Narrow(codes), captures)
    } else {
        let mut codes: Vec<u16> = unpack(&bytes, 16, index.size() as usize);
        drop(bytes);
        let captures = walk
            .complete::<DtwCodec, u16, _>(&mut codes, 16, outside, &advance)
            .map_err(|e| e.to_string())?;
        (Distances::Wide(codes), captures)
    };
    Ok(Loaded {
        distances,
        captures,
        rules: load_draw_rules(m, &walk, store, progress),
    })
}

/// A valid rule table of the plan's limits, read back complete; else why not (`None` when
/// there is no file).
fn load_draw_rules(
    m: &MaterialPlan,
    walk: &Walk,
    store: &Store,
    progress: &dyn Progress,
) -> Result<(Vec<u8>, u64), Option<String>> {
    if !m.draw_rules_path.exists() {
        return Err(None);
    }
    let (variant, material) = (walk.index.variant(), m.material);
    let table = Table::open(&m.draw_rules_path, TableKind::DrawRules, variant, material)
        .map_err(|e| Some(e.to_string()))?;
    if table.header().limits != Some(m.limits) {
        return Err(Some(format!(
            "{} was computed with other draw-rule limits",
            m.draw_rules_path.display()
        )));
    }
    let mut codes = table.read_all().map_err(|e| Some(e.to_string()))?;
    if let Some(bad) = codes.iter().find(|&&c| RuleValue::from_code(c).is_none()) {
        return Err(Some(format!(
            "{}: invalid rule value code {bad}",
            m.draw_rules_path.display()
        )));
    }
    let walk = Walk {
        path: &m.draw_rules_path,
        ..*walk
    };
    walk.complete::<DrawRulesCodec, u8, _>(
        &mut codes,
        8,
        |pos: &Position| Ok::<_, ProbeError>(store.rule(pos)),
        &|n| progress.advance(n),
    )
    .map_err(|e| Some(e.to_string()))?;
    Ok((codes, table.file_len()))
}
