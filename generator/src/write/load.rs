//! Reading a material's tables back from disk for the materials solved after it: every checksum
//! checked, and the positions the tables leave out (see [`rafle_probe::toolkit::codec`]) given their
//! values again by the [material walk](rafle_probe::toolkit::walk), from the materials below and from
//! the positions kept.

use rafle_probe::toolkit::codec::{Codec, DrawRulesCodec, DtwCodec, WdlCodec};
use rafle_probe::toolkit::format::{StoredHalf, TableKind};
use rafle_probe::toolkit::walk::{unpack, Captures, Pair, Walk};
use rafle_probe::{draughts::Position, toolkit::Table, Dtw, ProbeError, RuleValue, Wdl};

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
    codes: Codes,
    captures: Captures,
}

/// The codes read back.
enum Codes {
    /// A distance of a byte and a rule code for each position, read back together.
    Paired(Vec<(u8, u8)>),
    /// The distances, and the rule codes or why they were not read back (`None`: there was no
    /// rule table).
    Apart(Distances, Result<Vec<u8>, Option<String>>),
}

impl Loaded {
    /// Positions in the material.
    fn len(&self) -> usize {
        match &self.codes {
            Codes::Paired(pairs) => pairs.len(),
            Codes::Apart(distances, _) => distances.len(),
        }
    }

    /// The distance to win of position `i`.
    fn distance(&self, i: usize) -> Dtw {
        match &self.codes {
            Codes::Paired(pairs) => DtwCodec::decode(u16::from(pairs[i].0), 8).unwrap_or(Dtw::Draw),
            Codes::Apart(distances, _) => distances.get(i),
        }
    }

    /// The rule code of position `i`, if the rule codes were read back.
    fn rule_code(&self, i: usize) -> Option<u8> {
        match &self.codes {
            Codes::Paired(pairs) => Some(pairs[i].1),
            Codes::Apart(_, rules) => rules.as_ref().ok().map(|rules| rules[i]),
        }
    }

    /// Whether the rule codes were read back, or why not (`None`: there was no rule table).
    pub(crate) fn rules(&self) -> Result<(), Option<String>> {
        match &self.codes {
            Codes::Paired(_) => Ok(()),
            Codes::Apart(_, rules) => rules.as_ref().map(drop).map_err(Clone::clone),
        }
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
        // A run of the win/draw/loss tables alone keeps no rule codes.
        if self.rules().is_err() && kept == Kept::Full {
            return Err(GenerateError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no valid rule table"),
            });
        }
        let n = self.len() as u64;
        packed::write(path, identity, n, kept, |start, len| {
            crate::write::Source::read_range(self, start, len)
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
                distance_code(self.distance(i)) | capture
            })
            .collect();
        let rules = (start..start + len)
            .map(|i| self.rule_code(i).unwrap_or(0))
            .collect();
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
        for i in 0..loaded.len() {
            let rule = loaded.rule_code(i).map_or(RuleValue::DRAW, rule_value);
            counts.add(i as u64, loaded.distance(i), rule);
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
    let walk = Walk::new(index, &wdl, Some(m.limits), &m.dtw_path, stored);
    if dtw_table.header().bits == 8 {
        if let Ok(rules_table) = open_draw_rules(m, &walk, legacy) {
            if let Some(loaded) = load_paired(&walk, &dtw_table, &rules_table, store, progress)? {
                return Ok(loaded);
            }
        }
    }
    let bytes = dtw_table.read_all()?;
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
    let rules = load_draw_rules(m, &walk, store, progress, legacy)?;
    Ok(Loaded {
        codes: Codes::Apart(distances, rules),
        captures,
    })
}

/// The distance table `dtw` (of a byte a position) and the rule table `rules` of the walk's
/// material read back together, so that each position the tables leave out has its moves
/// generated once for both: `None` if a rule code is invalid, or the walk finds what is wrong
/// with a table, for [`load_existing`] to read them apart and say why.
///
/// # Errors
///
/// [`LoadError::Work`] if the values of another material cannot be read.
fn load_paired(
    walk: &Walk,
    dtw: &Table,
    rules: &Table,
    store: &Store,
    progress: &dyn Progress,
) -> Result<Option<Loaded>, LoadError> {
    let n = walk.index.size() as usize;
    let mut pairs: Vec<(u8, u8)> = Vec::with_capacity(n);
    // Block by block: the two tables whole beside the pairs would take twice the memory.
    for b in 0..dtw.header().blocks {
        let (Ok(distances), Ok(codes)) = (dtw.read_block(b), rules.read_block(b)) else {
            return Ok(None);
        };
        if codes.iter().any(|&c| RuleValue::from_code(c).is_none()) {
            return Ok(None);
        }
        pairs.extend(distances.into_iter().zip(codes));
    }
    pairs.truncate(n);
    if pairs.len() != n {
        return Ok(None);
    }
    let walk = Walk {
        path: rules.path(),
        ..*walk
    };
    let outside = |pos: &Position| store.value(pos).map_err(LoadError::Work);
    let advance = |n| progress.advance(3 * n);
    match walk.complete::<Pair<DtwCodec, DrawRulesCodec>, (u8, u8), _>(
        &mut pairs,
        (8, 8),
        outside,
        &advance,
    ) {
        Ok(captures) => Ok(Some(Loaded {
            codes: Codes::Paired(pairs),
            captures,
        })),
        Err(LoadError::Table(_)) => Ok(None),
        Err(work) => Err(work),
    }
}

/// Checks a material's win/draw/loss table, every checksum, and reads back the kind of each
/// position's value (a win, a loss or a draw), all a run of the win/draw/loss tables alone
/// keeps of a finished material ([`Kept::Kinds`]): its distances hold the shortest of each
/// kind, and it has no rule codes. The table stores both sides to move, so only the positions
/// that must capture are valued from their moves, whose captures reach smaller materials: the
/// distance and rule tables, whose other side to move is found from every move, are not read.
pub(crate) fn load_kinds(
    m: &MaterialPlan,
    index: &rafle_probe::toolkit::PositionIndex,
    store: &Store,
    progress: &dyn Progress,
) -> Result<Loaded, LoadError> {
    let wdl_table = Table::open(&m.path, TableKind::Wdl, index.variant(), m.material)?;
    let outside = |pos: &Position| store.dtw(pos).map(Dtw::wdl).map_err(LoadError::Work);
    let advance = |n| progress.advance(3 * n);
    let (mut codes, captures) = Walk::wdl_codes_with(index, &wdl_table, &outside, &advance)?;
    // Each kind as the shortest distance of its kind, in place: a byte a position.
    let draw = DtwCodec::draw_code(8) as u8;
    for code in &mut codes {
        *code = match WdlCodec::decode(u16::from(*code), 2) {
            Some(Wdl::Win) => 1,
            Some(Wdl::Loss) => 0,
            _ => draw,
        };
    }
    Ok(Loaded {
        codes: Codes::Apart(Distances::Narrow(codes), Err(None)),
        captures,
    })
}

/// The rule table of the plan's limits, opened and its header checked; else why not (`None`
/// when there is no file).
fn open_draw_rules(m: &MaterialPlan, walk: &Walk, legacy: bool) -> Result<Table, Option<String>> {
    if !m.draw_rules_path.exists() {
        return Err(None);
    }
    let (variant, material) = (walk.index.variant(), m.material);
    let opened = if legacy {
        Table::open_legacy(&m.draw_rules_path, TableKind::DrawRules, variant, material)
    } else {
        Table::open(&m.draw_rules_path, TableKind::DrawRules, variant, material)
    };
    let table = opened.map_err(|e| Some(e.to_string()))?;
    if table.header().stored != walk.stored {
        return Err(Some(format!(
            "{} stores {}, the distance table {}",
            m.draw_rules_path.display(),
            table.header().stored,
            walk.stored
        )));
    }
    if table.header().limits != Some(m.limits) {
        return Err(Some(format!(
            "{} was computed with other draw-rule limits",
            m.draw_rules_path.display()
        )));
    }
    Ok(table)
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
) -> Result<Result<Vec<u8>, Option<String>>, LoadError> {
    let table = match open_draw_rules(m, walk, legacy) {
        Ok(table) => table,
        Err(why) => return Ok(Err(why)),
    };
    let mut codes = match table.read_all() {
        Ok(codes) => codes,
        Err(e) => return Ok(Err(Some(e.to_string()))),
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
        Ok(_) => Ok(Ok(codes)),
        Err(LoadError::Table(e)) => Ok(Err(Some(e))),
        Err(work) => Err(work),
    }
}
