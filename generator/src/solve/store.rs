//! The values of solved materials as the materials solved after them read them: from their
//! packed work files through a bounded cache, or the raw work file of the material being
//! solved; and a material's distances in memory when its tables are read back.

use std::sync::Arc;

use rafle_probe::toolkit::codec::{Codec, DtwCodec};
use rafle_probe::{
    draughts::{Material, Position},
    toolkit::{PositionIndex, VariantDir},
    Dtw, RuleValue,
};

use crate::memory::Trimmer;
use crate::solve::man_moves::{Destination, STARTS};
use crate::work::bands::{
    identity_crowned_alone, identity_from_tables, keep_crowned_alone, keep_sides_of_bands,
    read_stored_side_from_tables, BandedValues, HalfView, Kept, StoredSide,
};
use crate::work::packed::{PackedValues, SharedCache};
use crate::work::sides::Sides;
use crate::work::values::{distance, ValuesFile};
use crate::GenerateError;

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

/// One solved material's values: the raw work file of the material being solved, or the
/// packed file of a finished one.
#[derive(Debug)]
enum Values {
    Raw(ValuesFile),
    Packed(PackedValues),
    Banded(BandedValues),
}

/// One solved material's values and index.
#[derive(Debug)]
struct Held {
    index: PositionIndex,
    values: Values,
}

impl Held {
    #[inline(always)]
    fn value(&self, i: u64, cache: &SharedCache) -> Result<(Dtw, RuleValue), GenerateError> {
        let codes = match &self.values {
            Values::Raw(values) => (values.distance_code(i), values.rule_code(i)),
            Values::Packed(values) => values.codes(i, cache)?,
            Values::Banded(values) => values.codes(i, cache)?,
        };
        self.decode(i, codes)
    }

    /// The value of position `i` whose codes are `distance_code` and `rule_code`.
    #[inline(always)]
    fn decode(
        &self,
        i: u64,
        (distance_code, rule_code): (u16, u8),
    ) -> Result<(Dtw, RuleValue), GenerateError> {
        match RuleValue::from_code(rule_code) {
            Some(rule) => Ok((distance(distance_code), rule)),
            None => Err(self.impossible(format!("rule code {rule_code} at position {i}"))),
        }
    }

    #[inline(always)]
    fn dtw(&self, i: u64, cache: &SharedCache) -> Result<Dtw, GenerateError> {
        let code = match &self.values {
            Values::Raw(values) => values.distance_code(i),
            Values::Packed(values) => values.distance_code(i, cache)?,
            Values::Banded(values) => values.distance_code(i, cache)?,
        };
        Ok(distance(code))
    }

    /// The error for a value of this material that cannot be right.
    #[cold]
    fn impossible(&self, detail: String) -> GenerateError {
        GenerateError::ImpossibleValue {
            variant: self.index.variant(),
            material: self.index.material(),
            path: match &self.values {
                Values::Raw(values) => values.path().to_path_buf(),
                Values::Packed(values) => values.path().to_path_buf(),
                Values::Banded(values) => values.path().to_path_buf(),
            },
            detail,
        }
    }
}

/// The values of the solved materials a material reads, looked up by material: finished ones
/// from their packed files (see [`crate::work::packed`]) through a cache of decompressed blocks
/// bounded in bytes, and the material being solved from its raw work file, for its finished
/// slices.
#[derive(Debug)]
pub(crate) struct Store {
    slots: Vec<Option<Arc<Held>>>,
    cache: SharedCache,
    /// Gives back the memory of the blocks the cache drops.
    trimmer: Trimmer,
}

/// Bytes of blocks dropped at once worth giving back to the system: fewer are left for the
/// allocator to reuse.
const TRIM_AFTER: usize = 64 << 20;

/// A byte count as the cache takes it (more than the address space holds is all of it).
fn usize_bytes(bytes: u64) -> usize {
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

fn slot(m: Material) -> usize {
    usize::from(m.white_men)
        | usize::from(m.white_kings) << 4
        | usize::from(m.black_men) << 8
        | usize::from(m.black_kings) << 12
}

impl Store {
    /// An empty store whose cache holds at most `cache_bytes`.
    pub(crate) fn new(cache_bytes: u64) -> Store {
        Store {
            slots: vec![None; 1 << 16],
            cache: SharedCache::new(usize_bytes(cache_bytes)),
            trimmer: Trimmer::new(),
        }
    }

    /// Sets the most bytes the cache of decompressed blocks holds. When that drops many
    /// blocks (a material whose slices leave the cache less room than the one before), their
    /// memory is given back at once: the allocator would otherwise keep it in its arenas,
    /// resident beside the new material's slices (measured on Brazilian KKKKvKKK: the process
    /// held 7.8 GiB within a plan of 7.5).
    pub(crate) fn set_cache_budget(&self, bytes: u64) {
        let held = self.cache.bytes();
        self.cache.set_budget(usize_bytes(bytes));
        if held.saturating_sub(self.cache.bytes()) >= TRIM_AFTER {
            self.trimmer.trim_now();
        }
    }

    /// Gives the allocator's free memory back, at most once a second: for a process past its
    /// mark, where blocks the cache dropped to make room for others may have left it.
    pub(crate) fn trim(&self) {
        self.trimmer.trim();
    }

    /// Makes the values of the material being solved readable from its raw work file.
    pub(crate) fn insert_raw(&mut self, index: PositionIndex, values: ValuesFile) {
        self.insert(index, Values::Raw(values));
    }

    /// Makes the values of a material readable from its band files, those of its bands
    /// finished so far (more are added with [`Store::banded_mut`]).
    pub(crate) fn insert_banded(&mut self, index: PositionIndex, values: BandedValues) {
        self.insert(index, Values::Banded(values));
    }

    /// The band files of a material, to add a band to: only between bands, when nothing
    /// else reads them.
    ///
    /// # Panics
    ///
    /// If the material is not held in band files, or is being read.
    pub(crate) fn banded_mut(&mut self, material: Material) -> &mut BandedValues {
        let held = self.slots[slot(material)]
            .as_mut()
            .and_then(Arc::get_mut)
            .expect("a material's band files are added to between its bands");
        match &mut held.values {
            Values::Banded(values) => values,
            _ => panic!("{material} is not held in band files"),
        }
    }

    /// The band files of a material, if held so.
    pub(crate) fn banded(&self, material: Material) -> Option<&BandedValues> {
        match &self.slots[slot(material)].as_ref()?.values {
            Values::Banded(values) => Some(values),
            _ => None,
        }
    }

    /// The band files of a material read through the store's cache, to write its tables
    /// from (see [`BandedValues::read_through`]), if held so.
    pub(crate) fn banded_through_cache(&self, material: Material) -> Option<BandsThroughCache<'_>> {
        Some(BandsThroughCache {
            values: self.banded(material)?,
            cache: &self.cache,
            trimmer: &self.trimmer,
        })
    }

    /// Makes the values of a finished material readable from its packed file.
    pub(crate) fn insert_packed(&mut self, index: PositionIndex, values: PackedValues) {
        self.insert(index, Values::Packed(values));
    }

    fn insert(&mut self, index: PositionIndex, values: Values) {
        let key = slot(index.material());
        self.remove(index.material());
        self.slots[key] = Some(Arc::new(Held { index, values }));
    }

    /// Forgets a material's values (its work file can then be removed), and drops its blocks
    /// from the cache.
    pub(crate) fn remove(&mut self, material: Material) {
        if let Some(held) = self.slots[slot(material)].take() {
            match &held.values {
                Values::Packed(packed) => self.cache.forget(packed.id()),
                Values::Banded(banded) => {
                    self.cache.forget(banded.id());
                    for id in banded.stored_side().map_or(0..0, |s| s.ids()) {
                        self.cache.forget(id);
                    }
                }
                Values::Raw(_) => {}
            }
        }
    }

    /// Lets the sides to move of a finished material other than `keep` go: its band files or
    /// packed file (of the request `identity`) rewritten with the chunks or blocks of `keep`
    /// alone ([`crate::work::sides`]), then read again; nothing for a material not held so.
    ///
    /// # Errors
    ///
    /// What rewriting or opening them again returns; the material is no longer held then.
    ///
    /// # Panics
    ///
    /// If the material's values are being read: they are let go between two materials.
    pub(crate) fn keep_sides(
        &mut self,
        material: Material,
        identity: &str,
        keep: Sides,
    ) -> Result<(), GenerateError> {
        let Some(held) = self.slots[slot(material)].take() else {
            return Ok(());
        };
        let Held { index, values } =
            Arc::try_unwrap(held).expect("values let go between two materials");
        match values {
            Values::Banded(banded) => {
                // Its files carry an identity of their own if a side lies in its tables.
                self.cache.forget(banded.id());
                let (paths, kept) = (banded.paths(), banded.kept());
                let (identity, stored) =
                    (banded.identity().to_string(), banded.stored_side().cloned());
                drop(banded);
                keep_sides_of_bands(&paths, &identity, &index, keep)?;
                let values = reopen(&index, &identity, kept, &paths, stored)?;
                self.insert_banded(index, values);
            }
            Values::Packed(packed) => {
                self.cache.forget(packed.id());
                let (path, positions, kept) = (
                    packed.path().to_path_buf(),
                    packed.positions(),
                    packed.kept(),
                );
                drop(packed);
                crate::work::packed::keep_sides(&path, identity, positions, kept, keep)?;
                let values = PackedValues::open(&path, identity, positions, kept)?;
                self.insert_packed(index, values);
            }
            raw @ Values::Raw(_) => self.insert(index, raw),
        }
        Ok(())
    }

    /// Leaves the values of the side to move a finished material's tables store (in
    /// `tables`) to those tables: its band files, of the request `identity`, rewritten to keep
    /// only that side's positions that must capture (see [`crate::work::bands::StoredSide`]),
    /// then read again. Nothing for a material not held in band files of three byte planes, or
    /// already read so, or that holds no position of that side any more.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Table`] if its tables cannot be opened or store no one side, and what
    /// rewriting or opening the band files again returns; the material is no longer held then.
    ///
    /// # Panics
    ///
    /// If the material's values are being read: this is done between two materials.
    pub(crate) fn read_stored_side_from_tables(
        &mut self,
        material: Material,
        identity: &str,
        tables: &VariantDir,
    ) -> Result<(), GenerateError> {
        let key = slot(material);
        let eligible = |held: &Held| match &held.values {
            Values::Banded(banded) => banded.kept() == Kept::Full && banded.stored_side().is_none(),
            _ => false,
        };
        if !self.slots[key].as_deref().is_some_and(eligible) {
            return Ok(());
        }
        let held = self.slots[key].take().expect("held");
        let Held { index, values } =
            Arc::try_unwrap(held).expect("values left to the tables between two materials");
        let Values::Banded(banded) = values else {
            unreachable!("only band files are left to the tables")
        };
        let stored = Arc::new(StoredSide::open(tables, &index)?);
        if !banded.held_sides().contains(stored.side()) {
            self.insert_banded(index, banded);
            return Ok(());
        }
        self.cache.forget(banded.id());
        let paths = banded.paths();
        drop(banded);
        read_stored_side_from_tables(&paths, identity, &index, stored.side())?;
        let identity = identity_from_tables(identity, stored.side() == Sides::WHITE);
        let values = reopen(&index, &identity, Kept::Full, &paths, Some(stored))?;
        self.insert_banded(index, values);
        Ok(())
    }

    /// Keeps of the side to move `side` of a finished material held in band files of three
    /// byte planes only the positions a crowning that captures nothing reaches
    /// ([`keep_crowned_alone`]): the materials still to read that side read it only so. Its
    /// band files are rewritten, then read again. Nothing for a material not held so, or
    /// that leaves that side to its tables, or already kept so.
    ///
    /// # Errors
    ///
    /// What rewriting or opening the band files again returns; the material is no longer held
    /// then.
    ///
    /// # Panics
    ///
    /// If the material's values are being read: this is done between two materials.
    pub(crate) fn keep_crowned_alone(
        &mut self,
        material: Material,
        side: Sides,
    ) -> Result<(), GenerateError> {
        let key = slot(material);
        let eligible = |held: &Held| match &held.values {
            Values::Banded(banded) => {
                banded.kept() == Kept::Full
                    && banded
                        .stored_side()
                        .is_none_or(|stored| stored.side() != side)
                    && banded.held_sides().contains(side)
                    && !banded
                        .identity()
                        .contains(&identity_crowned_alone("", side))
            }
            _ => false,
        };
        if !self.slots[key].as_deref().is_some_and(eligible) {
            return Ok(());
        }
        let held = self.slots[key].take().expect("held");
        let Held { index, values } =
            Arc::try_unwrap(held).expect("values kept where crowned between two materials");
        let Values::Banded(banded) = values else {
            unreachable!("only band files are kept where crowned")
        };
        self.cache.forget(banded.id());
        let (paths, identity) = (banded.paths(), banded.identity().to_string());
        let stored = banded.stored_side().cloned();
        drop(banded);
        let identity = keep_crowned_alone(&paths, &identity, &index, side)?;
        let values = reopen(&index, &identity, Kept::Full, &paths, stored)?;
        self.insert_banded(index, values);
        Ok(())
    }

    /// The raw work file of a material, if held.
    pub(crate) fn values(&self, material: Material) -> Option<&ValuesFile> {
        match &self.slots[slot(material)].as_ref()?.values {
            Values::Raw(values) => Some(values),
            Values::Packed(_) | Values::Banded(_) => None,
        }
    }

    /// Value and distance to win, and rule-aware value, of any position of a solved material,
    /// or of a position where the side to move has no piece left (lost in 0).
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] or [`GenerateError::DamagedWorkFile`] if a packed file cannot be
    /// read back as written, [`GenerateError::ImpossibleValue`] for a rule code no value has.
    ///
    /// # Panics
    ///
    /// If the position's material is not held: generation follows dependency order, so this
    /// is a bug.
    #[inline(always)]
    pub(crate) fn value(&self, pos: &Position) -> Result<(Dtw, RuleValue), GenerateError> {
        match self.locate(pos) {
            Some((held, i)) => held.value(i, &self.cache),
            None => Ok((Dtw::Loss(0), RuleValue::loss(0))),
        }
    }

    /// The distance to win of [`Store::value`], read alone: the rule code lies elsewhere in
    /// the work file (another cache line, often another page), and a win/draw/loss-only run
    /// reads this at every move out of a slice.
    ///
    /// # Errors
    ///
    /// As [`Store::value`].
    #[inline(always)]
    pub(crate) fn dtw(&self, pos: &Position) -> Result<Dtw, GenerateError> {
        match self.locate(pos) {
            Some((held, i)) => held.dtw(i, &self.cache),
            None => Ok(Dtw::Loss(0)),
        }
    }

    /// The values of one held material, for reads by index (a solver that ranks the
    /// positions its moves reach itself).
    ///
    /// # Panics
    ///
    /// If the material is not held, as [`Store::value`].
    pub(crate) fn material(&self, material: Material) -> MaterialValues<'_> {
        MaterialValues {
            held: self.held(material),
            cache: &self.cache,
        }
    }

    /// The rule-aware value of [`Store::value`].
    ///
    /// # Errors
    ///
    /// As [`Store::value`].
    pub(crate) fn rule(&self, pos: &Position) -> Result<RuleValue, GenerateError> {
        Ok(self.value(pos)?.1)
    }

    /// Gives the pages of the raw work files read so far back to the system (see
    /// [`ValuesFile::release`]); the packed ones are read through the cache, which its budget
    /// bounds.
    pub(crate) fn release(&self) {
        for held in self.slots.iter().flatten() {
            if let Values::Raw(values) = &held.values {
                values.release();
            }
        }
    }

    /// The held material of a position and the position's index there, or `None` if the side
    /// to move has no piece left (lost in 0, in no material).
    #[inline]
    fn locate(&self, pos: &Position) -> Option<(&Held, u64)> {
        if pos.side_pieces(pos.turn()).is_empty() {
            return None;
        }
        let (pos, material) = pos.canonical();
        let held = self.held(material);
        Some((held, held.index.rank(&pos)))
    }

    fn held(&self, material: Material) -> &Held {
        self.slots[slot(material)]
            .as_ref()
            .unwrap_or_else(|| panic!("{material} is needed before it is solved"))
    }
}

/// The band files `paths` of a finished material of `index`, of `identity`, opened again
/// after a rewrite, reading `stored`'s side from its tables if given.
fn reopen(
    index: &PositionIndex,
    identity: &str,
    kept: Kept,
    paths: &[std::path::PathBuf],
    stored: Option<Arc<StoredSide>>,
) -> Result<BandedValues, GenerateError> {
    let mut values = BandedValues::new(index, identity, kept);
    for (band, path) in paths.iter().enumerate() {
        values.add_band(path, band)?;
    }
    Ok(match stored {
        Some(stored) => values.with_stored_side(stored),
        None => values,
    })
}

/// A material's band files and the cache they are read through.
pub(crate) struct BandsThroughCache<'s> {
    pub(crate) values: &'s BandedValues,
    pub(crate) cache: &'s SharedCache,
    trimmer: &'s Trimmer,
}

impl BandsThroughCache<'_> {
    /// Keeps the process within `limit` bytes of resident memory while the tables are written
    /// from the band files: past `mark` (the mark the material was solved under), the
    /// allocator gives back its free memory, at most once a second; past `limit` (the plan's
    /// memory), the cache also holds fewer blocks, enough to come back to `mark`, down to
    /// `least` bytes (until the next material sets its budget). Writing reads chunks of every
    /// band for each table block and holds the compressed table until it is written, beside a
    /// cache that filled up while the material was solved: without this, Brazilian KKMMvKKM
    /// held 8.4 GiB while its tables were written within a budget of 7.5.
    pub(crate) fn keep_within(&self, mark: u64, limit: u64, least: u64) {
        use crate::memory::resident_memory;
        if resident_memory().is_none_or(|r| r <= mark) {
            return;
        }
        self.trimmer.trim();
        let Some(resident) = resident_memory() else {
            return;
        };
        if resident <= limit {
            return;
        }
        let over = usize_bytes(resident - mark.min(limit));
        let held = self.cache.bytes();
        let least = usize_bytes(least);
        if held > least {
            self.cache.set_budget(held.saturating_sub(over).max(least));
            self.trimmer.trim_now();
        }
    }
}

/// The values of one material of a [`Store`], read by index.
pub(crate) struct MaterialValues<'s> {
    held: &'s Held,
    cache: &'s SharedCache,
}

impl MaterialValues<'_> {
    /// As [`Store::value`], for the position with index `i` in the material.
    ///
    /// # Errors
    ///
    /// As [`Store::value`].
    #[inline(always)]
    pub(crate) fn value(&self, i: u64) -> Result<(Dtw, RuleValue), GenerateError> {
        self.held.value(i, self.cache)
    }

    /// As [`Store::dtw`], for the position with index `i` in the material.
    ///
    /// # Errors
    ///
    /// As [`Store::value`].
    #[inline(always)]
    pub(crate) fn dtw(&self, i: u64) -> Result<Dtw, GenerateError> {
        self.held.dtw(i, self.cache)
    }
}

/// The reads of the material being solved through the man moves of a run of positions of
/// one slice: they reach the same few slices over and over (see [`crate::solve::man_moves`]), so
/// each one held in band files is found once and then read with no look-up.
pub(crate) struct OwnReads<'s> {
    values: MaterialValues<'s>,
    /// By the entry of a [`Destination`].
    views: [View; STARTS],
}

/// How the slice of one [`Destination`] entry is read.
#[derive(Clone)]
enum View {
    /// Not read yet.
    Unread,
    /// Through the material's values: a raw work file (read in place), or a half too large
    /// to hold.
    Direct,
    /// Its half of the band files, held.
    Half(HalfView),
}

impl<'s> OwnReads<'s> {
    /// The reads through man moves of `values`, the material being solved.
    pub(crate) fn new(values: MaterialValues<'s>) -> OwnReads<'s> {
        OwnReads {
            values,
            views: [const { View::Unread }; STARTS],
        }
    }

    /// The half of `to`'s entry, found at its first read.
    #[inline(always)]
    fn view(&mut self, to: &Destination) -> Result<Option<&HalfView>, GenerateError> {
        let Some(view) = self.views.get_mut(to.entry) else {
            return Ok(None);
        };
        if let View::Unread = view {
            *view = match &self.values.held.values {
                Values::Banded(banded) => match banded.half_view(to.start, self.values.cache)? {
                    Some(half) => View::Half(half),
                    None => View::Direct,
                },
                Values::Raw(_) | Values::Packed(_) => View::Direct,
            };
        }
        Ok(match view {
            View::Half(half) => Some(half),
            View::Unread | View::Direct => None,
        })
    }

    /// As [`Store::value`], for the position a man move leads to.
    ///
    /// # Errors
    ///
    /// As [`Store::value`].
    #[inline(always)]
    pub(crate) fn value(&mut self, to: &Destination) -> Result<(Dtw, RuleValue), GenerateError> {
        match self.view(to)? {
            Some(half) => {
                let codes = half.codes(to.index - to.start);
                self.values.held.decode(to.index, codes)
            }
            None => self.values.value(to.index),
        }
    }

    /// As [`Store::dtw`], for the position a man move leads to.
    ///
    /// # Errors
    ///
    /// As [`Store::value`].
    #[inline(always)]
    pub(crate) fn dtw(&mut self, to: &Destination) -> Result<Dtw, GenerateError> {
        match self.view(to)? {
            Some(half) => Ok(distance(half.distance_code(to.index - to.start))),
            None => self.values.dtw(to.index),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_code_no_value_has_is_an_error_naming_the_material_and_file() {
        let dir = tempfile::tempdir().unwrap();
        let v = rafle_probe::draughts::Variant::Brazilian;
        let kvk: Material = "KvK".parse().unwrap();
        let index = PositionIndex::new(v, kvk);
        let n = index.size() as usize;
        let store_of = |path: &std::path::Path, rule_code: u8| {
            let values =
                ValuesFile::open(path, index.size(), true, crate::work::values::Kept::Full)
                    .unwrap();
            values
                .write_range(0, &vec![0; n], &vec![rule_code; n])
                .unwrap();
            let mut store = Store::new(1 << 20);
            store.insert_raw(index.clone(), values);
            store
        };
        let pos = index.unrank(7);
        let good = store_of(&dir.path().join("good.partial"), RuleValue::loss(0).code());
        assert_eq!(
            good.value(&pos).unwrap(),
            (Dtw::Loss(0), RuleValue::loss(0))
        );
        let path = dir.path().join("KvK.partial");
        let err = store_of(&path, 255).value(&pos).unwrap_err();
        assert!(
            matches!(&err, GenerateError::ImpossibleValue { material, path: p, .. }
                if *material == kvk && *p == path),
            "{err}"
        );
        let text = err.to_string();
        assert!(
            text.contains("KvK") && text.contains("rule code 255"),
            "{text}"
        );
    }

    /// Past its limit, writing tables from band files gives back cache blocks down to the
    /// least the cache may hold; under it, none.
    #[test]
    fn past_its_limit_the_writer_lets_the_cache_go_down_to_its_least() {
        if crate::memory::resident_memory().is_none() {
            return; // no /proc: the process cannot tell its resident memory
        }
        let index = PositionIndex::new(
            rafle_probe::draughts::Variant::Brazilian,
            "KKKMvKK".parse().unwrap(),
        );
        let values = BandedValues::new(&index, "id", crate::work::values::Kept::Full);
        let store = Store::new(64 << 20);
        for block in 0..256 {
            let key = rafle_probe::toolkit::cache::block_key(1, block);
            crate::work::packed::shared_block(key, &store.cache, || Ok(vec![7u8; 128 << 10]))
                .unwrap();
        }
        let held = store.cache.bytes();
        assert!(held >= 32 << 20, "{held}");
        let writer = BandsThroughCache {
            values: &values,
            cache: &store.cache,
            trimmer: &store.trimmer,
        };
        writer.keep_within(u64::MAX, u64::MAX, 1 << 20);
        assert_eq!(store.cache.bytes(), held);
        // Past the mark but within the limit: the allocator is trimmed, the cache kept.
        writer.keep_within(0, u64::MAX, 1 << 20);
        assert_eq!(store.cache.bytes(), held);
        writer.keep_within(0, 0, 1 << 20);
        assert!(store.cache.bytes() <= 1 << 20, "{}", store.cache.bytes());
        assert!(store.cache.budget() <= 1 << 20);
    }
}
