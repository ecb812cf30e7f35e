//! A directory of tables, opened lazily, answering probes.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod engine;
mod line;
mod moves;
mod resolve;

pub use line::{Line, LineEnd, LineError, Ply, MAX_LINE_PLIES};
pub use moves::{listing_order, MoveValues};

use crate::cache::{block_key, BlockCache};
use crate::codec::{read_code, table_orientation, Codec, DrawRulesCodec, DtwCodec, WdlCodec};
use crate::format::{StoredHalf, TableKind};
use crate::layout::{parse_table_name, table_path, DataDir};
use crate::table::Table;
use crate::{
    Category, Color, Counters, Dtw, Limits, Material, Position, ProbeError, RuleOutcome, RuleValue,
    Variant, Wdl,
};

/// Default byte budget of the decompressed-block cache.
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// A table file found in the directory, opened on first use.
#[derive(Debug)]
struct Slot {
    kind: TableKind,
    variant: Variant,
    material: Material,
    table: OnceLock<Table>,
}

/// Where a table's slot is found without hashing: the four piece counts, a nibble each, then
/// the variant and the kind.
fn slot_key(kind: TableKind, variant: Variant, m: Material) -> Option<usize> {
    let counts = [m.white_men, m.white_kings, m.black_men, m.black_kings];
    if counts.iter().any(|&c| c > 15) {
        return None;
    }
    let key = counts
        .iter()
        .fold(0usize, |acc, &c| acc << 4 | usize::from(c));
    Some((key * Variant::ALL.len() + variant.ordinal()) * TableKind::ALL.len() + kind as usize)
}

/// The most pieces of a table rafle builds (`rafle_generator::MAX_PIECES`, which a test keeps
/// equal): a file named like a table of more is not one.
pub const MAX_TABLE_PIECES: u32 = 8;

/// Whether a table of `material` can be part of a set of `variant` that rafle builds: what
/// [`Material::all_up_to`] lists up to [`MAX_TABLE_PIECES`] pieces.
fn can_be_table(variant: Variant, m: Material) -> bool {
    let max_men = variant.square_count() - variant.squares_per_row();
    let white = u32::from(m.white_men) + u32::from(m.white_kings);
    let black = u32::from(m.black_men) + u32::from(m.black_kings);
    m.is_canonical()
        && white > 0
        && black > 0
        && m.pieces() <= MAX_TABLE_PIECES
        && m.white_men <= max_men
        && m.black_men <= max_men
}

/// One more than the largest slot key.
const SLOT_KEYS: usize = (1 << 16) * Variant::ALL.len() * TableKind::ALL.len();

const NO_SLOT: u16 = u16::MAX;

/// The tables of a directory: `<dir>/<variant>/<material>.wdl` (win/draw/loss),
/// `<material>.dtw` (distance to win) and `<material>.rules` (rule-aware class and count).
///
/// Files are listed when the tablebase is opened, but each is mapped and checked only when a
/// probe first needs it. Decompressed blocks are kept in a cache bounded in bytes.
#[derive(Debug)]
pub struct Tablebase {
    dir: PathBuf,
    available: HashMap<(TableKind, Variant), BTreeSet<Material>>,
    /// Per variant, the files named like a table of a material no table can have.
    stray: HashMap<Variant, Vec<PathBuf>>,
    /// Most pieces per variant and kind, `[variant.ordinal()][kind as usize]`: every probe
    /// reads it, so it is an array rather than a hashed map.
    max_pieces: [[u32; TableKind::ALL.len()]; Variant::ALL.len()],
    slots: Vec<Slot>,
    /// Slot of each slot key, `NO_SLOT` where there is no file.
    slot_of: Vec<u16>,
    /// The draw-rule limits of each variant's rule tables, read from their headers.
    limits: HashMap<Variant, FoundLimits>,
    cache: BlockCache,
}

impl Tablebase {
    /// Lists the tables of `dir`, with the default cache budget.
    ///
    /// # Errors
    ///
    /// [`ProbeError::Io`] if `dir` is empty or cannot be read, or if a variant's place in it
    /// (`<dir>/brazilian`, say) holds something else than a directory (a file, a FIFO, a
    /// symbolic link to nothing or in a loop of links).
    pub fn open(dir: impl AsRef<Path>) -> Result<Tablebase, ProbeError> {
        Tablebase::open_with_cache(dir, DEFAULT_CACHE_BYTES)
    }

    /// Lists the tables of `dir`; decompressed blocks are kept up to `cache_bytes`.
    ///
    /// # Errors
    ///
    /// [`ProbeError::Io`] if `dir` is empty or cannot be read, or if a variant's place in it
    /// (`<dir>/brazilian`, say) holds something else than a directory (a file, a FIFO, a
    /// symbolic link to nothing or in a loop of links).
    pub fn open_with_cache(
        dir: impl AsRef<Path>,
        cache_bytes: usize,
    ) -> Result<Tablebase, ProbeError> {
        let dir = dir.as_ref().to_path_buf();
        let io = |path: &Path, source| ProbeError::Io {
            path: path.to_path_buf(),
            source,
        };
        if dir.as_os_str().is_empty() {
            return Err(io(
                &dir,
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "the table directory is an empty path",
                ),
            ));
        }
        let meta = std::fs::metadata(&dir)
            .map_err(|e| io(&dir, crate::file::broken_link(&dir).unwrap_or(e)))?;
        if !meta.is_dir() {
            return Err(io(&dir, std::io::Error::other("not a directory")));
        }
        let mut available: HashMap<(TableKind, Variant), BTreeSet<Material>> = HashMap::new();
        let mut stray: HashMap<Variant, Vec<PathBuf>> = HashMap::new();
        for variant in Variant::ALL {
            for kind in TableKind::ALL {
                available.insert((kind, variant), BTreeSet::new());
            }
            let sub = DataDir::new(&dir).variant(variant);
            match std::fs::metadata(sub.path()) {
                Ok(meta) if meta.is_dir() => {}
                // A file where a variant's directory belongs is a broken layout, not a
                // directory without tables of that variant.
                Ok(_) => {
                    return Err(io(
                        sub.path(),
                        std::io::Error::other("not a directory, where the variant's tables belong"),
                    ))
                }
                // No directory is no tables of that variant; a link there that leads nowhere
                // is a broken layout, named as such, as is a place that cannot be looked at.
                Err(e) => match crate::file::broken_link(sub.path()) {
                    Some(broken) => return Err(io(sub.path(), broken)),
                    None if e.kind() == std::io::ErrorKind::NotFound => continue,
                    None => return Err(io(sub.path(), e)),
                },
            }
            for entry in std::fs::read_dir(sub.path()).map_err(|e| io(sub.path(), e))? {
                let entry = entry.map_err(|e| io(sub.path(), e))?;
                let name = entry.file_name();
                let Some((m, kind)) = name.to_str().and_then(parse_table_name) else {
                    continue;
                };
                if can_be_table(variant, m) {
                    available.entry((kind, variant)).or_default().insert(m);
                } else {
                    stray.entry(variant).or_default().push(entry.path());
                }
            }
        }
        let mut max_pieces = [[0; TableKind::ALL.len()]; Variant::ALL.len()];
        for (&(kind, variant), set) in &available {
            let most = set.iter().map(|m| m.pieces()).max().unwrap_or(0);
            max_pieces[variant.ordinal()][kind as usize] = most;
        }
        let mut slots = Vec::new();
        let mut slot_of = vec![NO_SLOT; SLOT_KEYS];
        for (&(kind, variant), materials) in &available {
            for &material in materials {
                if let Some(key) = slot_key(kind, variant, material) {
                    slot_of[key] = slots.len() as u16;
                    slots.push(Slot {
                        kind,
                        variant,
                        material,
                        table: OnceLock::new(),
                    });
                }
            }
        }
        let mut limits = HashMap::new();
        for variant in Variant::ALL {
            let materials = &available[&(TableKind::DrawRules, variant)];
            if let Some(found) = rule_limits(&dir, variant, materials) {
                limits.insert(variant, found);
            }
        }
        for files in stray.values_mut() {
            files.sort();
        }
        Ok(Tablebase {
            dir,
            available,
            stray,
            max_pieces,
            slots,
            slot_of,
            limits,
            cache: BlockCache::new(cache_bytes),
        })
    }

    /// The draw-rule limits the variant's rule tables were computed with, `None` if there is
    /// no rule table (a set generated with the win/draw/loss tables alone, or before rule
    /// tables existed).
    ///
    /// # Errors
    ///
    /// [`ProbeError::MixedLimits`] if the tables do not all have the same limits,
    /// [`ProbeError::WrongTable`] if a file in a rule table's place holds another table, and
    /// the error reading the first of them when there are rule tables but not one of their
    /// headers can be read (empty, damaged, unreadable or not a regular file): damaged rule
    /// tables are never taken for no rule tables.
    pub fn limits(&self, variant: Variant) -> Result<Option<Limits>, ProbeError> {
        match self.limits.get(&variant) {
            None => Ok(None),
            Some(FoundLimits::Agreed(_, limits)) => Ok(Some(*limits)),
            Some(FoundLimits::Mixed(first, second)) => Err(ProbeError::MixedLimits {
                variant,
                first: first.clone(),
                second: second.clone(),
            }),
            Some(FoundLimits::Unusable(err)) => Err(err.replica()),
        }
    }

    /// Bytes of decompressed blocks the cache holds now.
    pub fn cache_bytes(&self) -> usize {
        self.cache.bytes()
    }

    /// The most bytes of decompressed blocks the cache may hold (see
    /// [`Tablebase::open_with_cache`]): a caller keeping a memory budget counts this, not
    /// [`Tablebase::cache_bytes`], as the cache fills up as probes go on.
    pub fn cache_budget(&self) -> usize {
        self.cache.budget()
    }

    /// Gives the pages of every table file opened so far back to the system (see
    /// [`Table::release_pages`]); the decompressed blocks in the cache stay.
    #[doc(hidden)]
    pub fn release_mapped_pages(&self) {
        for table in self.slots.iter().filter_map(|slot| slot.table.get()) {
            table.release_pages();
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the win/draw/loss table of a material (stored orientation) lives.
    #[doc(hidden)]
    pub fn table_path(&self, variant: Variant, material: Material) -> PathBuf {
        table_path(&self.dir, variant, material, TableKind::Wdl)
    }

    /// The materials with a win/draw/loss table, in dependency order.
    pub fn materials(&self, variant: Variant) -> Vec<Material> {
        self.materials_of(TableKind::Wdl, variant)
    }

    /// The materials with a table of `kind`, in dependency order.
    #[doc(hidden)]
    pub fn materials_of(&self, kind: TableKind, variant: Variant) -> Vec<Material> {
        let mut list: Vec<Material> = self
            .available
            .get(&(kind, variant))
            .into_iter()
            .flatten()
            .copied()
            .collect();
        list.sort_by_key(|m| (m.pieces(), m.men(), *m));
        list
    }

    /// Most pieces of any win/draw/loss table of the variant (0 if there is none).
    pub fn max_pieces(&self, variant: Variant) -> u32 {
        self.max_pieces_of(TableKind::Wdl, variant)
    }

    /// The tables a complete set of the variant would hold and this directory lacks, each
    /// with where it was looked for: every material up to the most pieces of any table has a
    /// win/draw/loss table, and a distance and a rule table if the directory has any of
    /// those kinds for the variant (a win/draw/loss-only set, or one made before rule tables
    /// existed, lacks the kind throughout).
    #[doc(hidden)]
    pub fn missing_tables(&self, variant: Variant) -> Vec<(Material, TableKind, PathBuf)> {
        let most = TableKind::ALL
            .iter()
            .map(|&kind| self.max_pieces_of(kind, variant))
            .max()
            .unwrap_or(0);
        self.missing_tables_of(variant, Material::all_up_to(variant, most))
    }

    /// The tables of `materials` (as stored, White the stronger side) that this directory
    /// lacks, by the rule of [`Tablebase::missing_tables`], in the order given.
    #[doc(hidden)]
    pub fn missing_tables_of(
        &self,
        variant: Variant,
        materials: impl IntoIterator<Item = Material>,
    ) -> Vec<(Material, TableKind, PathBuf)> {
        let mut missing = Vec::new();
        for material in materials {
            for kind in TableKind::ALL {
                let kept = &self.available[&(kind, variant)];
                let expected = kind == TableKind::Wdl || !kept.is_empty();
                if expected && !kept.contains(&material) {
                    missing.push((
                        material,
                        kind,
                        table_path(&self.dir, variant, material, kind),
                    ));
                }
            }
        }
        missing
    }

    /// The files of the variant's directory named like a table (`<material>.wdl`, `.dtw`,
    /// `.rules`) of a material no table can have: more than [`MAX_TABLE_PIECES`] pieces, a
    /// side without pieces, more men than the board holds, or the colours the wrong way
    /// round (tables are stored with White the stronger side). They are not tables: they
    /// are left out of every listing (a junk file named like a 41-piece material must not
    /// make a set look like one of 41 pieces with 200,000 tables missing), and named here so
    /// that a listing can say so. Sorted by path.
    #[doc(hidden)]
    pub fn stray_files(&self, variant: Variant) -> &[PathBuf] {
        self.stray.get(&variant).map_or(&[], Vec::as_slice)
    }

    /// Most pieces of any table of `kind` of the variant (0 if there is none).
    pub fn max_pieces_of(&self, kind: TableKind, variant: Variant) -> u32 {
        self.max_pieces[variant.ordinal()][kind as usize]
    }

    /// Win, draw or loss for the side to move. Positions whose side to move must capture are
    /// resolved through their captures; a side with no piece has lost.
    ///
    /// # Errors
    ///
    /// [`ProbeError::TooManyPieces`], [`ProbeError::MissingTable`], or an error reading a
    /// table (corrupted, truncated, unreadable).
    pub fn probe_wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        self.resolve_loaded::<WdlCodec>(pos, None, None)
    }

    /// The value with the distance to the end of the game in plies (docs/rules.md §5.2), from the
    /// distance-to-win tables. Positions whose side to move must capture are resolved through
    /// their captures; a side with no piece has lost in 0 (and the other has won).
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_wdl`], for the `.dtw` tables.
    pub fn probe_dtw(&self, pos: &Position) -> Result<Dtw, ProbeError> {
        self.resolve_loaded::<DtwCodec>(pos, None, None)
    }

    /// The rule-aware value (docs/rules.md §5.3) and the result with the live `counters` used: win,
    /// draw or loss when 6.2–6.4 are enforced. Positions whose side to move must capture are
    /// resolved through their captures. A finished game is answered from the rules alone,
    /// also without rule tables (then under the variant's FMJD limits).
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_wdl`], for the `.rules` tables, and
    /// [`ProbeError::MixedLimits`] if they were computed with different limits.
    pub fn probe_draw_rules(
        &self,
        pos: &Position,
        counters: Counters,
    ) -> Result<RuleOutcome, ProbeError> {
        let limits = self.rule_limits_for(pos)?;
        let value = self.resolve_loaded::<DrawRulesCodec>(pos, Some(limits), None)?;
        Ok(RuleOutcome::new(
            value,
            Category::of_position(pos),
            limits,
            counters,
        ))
    }

    /// The limits of the rule tables a position is probed in, checking first that they reach
    /// that far (a finished game needs no table, only the limits it is answered under).
    pub(super) fn rule_limits_for(&self, pos: &Position) -> Result<Limits, ProbeError> {
        let finished = pos.game_over().is_some();
        if pos.piece_count() > self.max_pieces_of(TableKind::DrawRules, pos.variant()) && !finished
        {
            self.check_pieces(TableKind::DrawRules, pos)?;
        }
        match self.limits(pos.variant())? {
            Some(limits) => Ok(limits),
            // The rules alone answer a finished game, as the other probes answer it without
            // their tables; with no table to say otherwise, its limit is the FMJD one.
            None if finished => Ok(Limits::fmjd(pos.variant())),
            None => Err(self.missing_rule_table(pos)),
        }
    }

    /// The error for a position of a variant without rule tables.
    fn missing_rule_table(&self, pos: &Position) -> ProbeError {
        let material = Material::of(pos).canonical();
        ProbeError::MissingTable {
            variant: pos.variant(),
            material,
            path: table_path(&self.dir, pos.variant(), material, TableKind::DrawRules),
        }
    }

    /// The raw value the table of `kind` stores for `pos`, read as `reading` says, if the
    /// table stores the position's side to move: one orientation, one table lookup, one rank.
    fn read_if_stored<T>(
        &self,
        kind: TableKind,
        pos: &Position,
        reading: Reading,
        read: impl Fn(&[u8], u8, usize) -> T,
    ) -> Result<Lookup<T>, ProbeError> {
        let (pos, material) = pos.canonical();
        let (slot, table) = match reading {
            Reading::Load => self.slot_table(kind, pos.variant(), material)?,
            // A table not yet opened has no block in the cache.
            Reading::CachedOnly => match self.opened_slot_table(kind, pos.variant(), material) {
                Some(found) => found,
                None => return Ok(Lookup::NotCached),
            },
        };
        let stored = table.header().stored;
        // A symmetric material's table of one side holds Black to move as its mirror image;
        // one of both sides holds it as it is, which spares the mirroring.
        let pos = if stored != StoredHalf::Both
            && material.is_symmetric()
            && pos.turn() == Color::Black
        {
            pos.mirrored()
        } else {
            pos
        };
        if !stored.holds_side(pos.turn() == Color::White) {
            return Ok(Lookup::OtherHalf);
        }
        Ok(
            match self.read_in_block(slot, table, &pos, reading, read)? {
                Some(value) => Lookup::Read(value),
                None => Lookup::NotCached,
            },
        )
    }

    /// The raw value of `pos` (in the table's orientation) in its block of `table` (of slot
    /// `slot`): from the cache, else, when `reading` allows it, from the file (the block then
    /// kept in the cache); `None` when only the cache may be read and the block is not there.
    fn read_in_block<T>(
        &self,
        slot: u32,
        table: &Table,
        pos: &Position,
        reading: Reading,
        read: impl Fn(&[u8], u8, usize) -> T,
    ) -> Result<Option<T>, ProbeError> {
        let index = table.index().rank(pos);
        let per_block = u64::from(table.header().positions_per_block);
        let block = (index / per_block) as u32;
        let offset = (index % per_block) as usize;
        let key = block_key(slot, block);
        let bits = table.header().bits;
        if let Some(value) = self.cache.read(key, |data| read(data, bits, offset)) {
            return Ok(Some(value));
        }
        if reading == Reading::CachedOnly {
            return Ok(None);
        }
        let data = table.read_block(block)?;
        let value = read(&data, bits, offset);
        self.cache.insert(key, data);
        Ok(Some(value))
    }

    fn check_pieces(&self, kind: TableKind, pos: &Position) -> Result<(), ProbeError> {
        let max = self.max_pieces_of(kind, pos.variant());
        if pos.piece_count() > max {
            return Err(ProbeError::TooManyPieces {
                variant: pos.variant(),
                pieces: pos.piece_count(),
                max,
            });
        }
        Ok(())
    }

    /// Whether the table of `kind` of the position's material stores its side to move (see
    /// [`StoredHalf`]): if not, its value follows from its moves, one ply away.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_wdl`], for the table of `kind`.
    #[doc(hidden)]
    pub fn stores_side_to_move(&self, kind: TableKind, pos: &Position) -> Result<bool, ProbeError> {
        let (oriented, material) = table_orientation(pos);
        let (_, table) = self.slot_table(kind, pos.variant(), material)?;
        Ok(table
            .header()
            .stored
            .holds_side(oriented.turn() == Color::White))
    }

    /// The value stored for a position, without resolving captures (a position whose side to
    /// move must capture holds an arbitrary value).
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_wdl`].
    #[doc(hidden)]
    pub fn stored_wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        self.stored_value::<WdlCodec>(pos)
    }

    /// The distance stored for a position, without resolving anything: only a position whose
    /// side to move need not capture, which is not drawn, and which has White to move in the
    /// stored orientation (or is of a symmetric material) holds its true value.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_dtw`].
    #[doc(hidden)]
    pub fn stored_dtw(&self, pos: &Position) -> Result<Dtw, ProbeError> {
        self.stored_value::<DtwCodec>(pos)
    }

    /// The rule-aware value stored for a position, without resolving anything: the same
    /// positions as for [`Tablebase::stored_dtw`] hold their true value.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::probe_draw_rules`].
    #[doc(hidden)]
    pub fn stored_draw_rules(&self, pos: &Position) -> Result<RuleValue, ProbeError> {
        self.stored_value::<DrawRulesCodec>(pos)
    }

    /// The value a table of `C`'s kind stores for a position, decoded.
    fn stored_value<C: Codec>(&self, pos: &Position) -> Result<C::Value, ProbeError> {
        let ((code, bits), table) = self.stored(C::KIND, pos, |block, bits, i| {
            (read_code(block, bits, i), bits)
        })?;
        C::decode(code, bits).ok_or_else(|| ProbeError::invalid_code(C::KIND, table.path(), code))
    }

    /// The raw value of a position in its table of `kind`, with the table.
    fn stored<T>(
        &self,
        kind: TableKind,
        pos: &Position,
        read: impl Fn(&[u8], u8, usize) -> T,
    ) -> Result<(T, &Table), ProbeError> {
        let (pos, material) = table_orientation(pos);
        let (slot, table) = self.slot_table(kind, pos.variant(), material)?;
        match self.read_in_block(slot, table, &pos, Reading::Load, read)? {
            Some(value) => Ok((value, table)),
            None => Err(self.block_gone()),
        }
    }

    /// The error of a block that a probe allowed to read files did not get: never expected,
    /// but an error rather than a panic.
    pub(super) fn block_gone(&self) -> ProbeError {
        ProbeError::Corrupted {
            path: self.dir.clone(),
            reason: "a block went missing while being read".to_string(),
        }
    }

    /// The win/draw/loss table of a material (stored orientation), opened and checked on first
    /// use.
    ///
    /// # Errors
    ///
    /// [`ProbeError::MissingTable`] or an error opening the file.
    #[doc(hidden)]
    pub fn table(&self, variant: Variant, material: Material) -> Result<&Table, ProbeError> {
        self.table_of(TableKind::Wdl, variant, material)
    }

    /// The table of `kind` of a material (stored orientation), opened and checked on first use.
    ///
    /// # Errors
    ///
    /// [`ProbeError::MissingTable`] or an error opening the file.
    #[doc(hidden)]
    pub fn table_of(
        &self,
        kind: TableKind,
        variant: Variant,
        material: Material,
    ) -> Result<&Table, ProbeError> {
        self.slot_table(kind, variant, material)
            .map(|(_, table)| table)
    }

    /// The slot of a material's table of `kind` (stored orientation), if the directory has one.
    fn slot(&self, kind: TableKind, variant: Variant, material: Material) -> Option<u16> {
        let slot = self.slot_of[slot_key(kind, variant, material)?];
        (slot != NO_SLOT).then_some(slot)
    }

    /// Checks that the tables of a material store sides to move that agree: the `.dtw` and
    /// `.rules` tables the same side, and the `.wdl` table that side or both. Reads the
    /// headers of the tables not yet opened; a table whose header cannot be read is left to
    /// the probe that reads it to report.
    ///
    /// # Errors
    ///
    /// [`ProbeError::MixedHalves`] naming two tables that disagree.
    #[doc(hidden)]
    pub fn check_halves(&self, variant: Variant, material: Material) -> Result<(), ProbeError> {
        self.check_halves_with(variant, material.canonical(), None)
    }

    /// [`Tablebase::check_halves`], with the half of a table of the material just opened
    /// (not yet kept) given.
    fn check_halves_with(
        &self,
        variant: Variant,
        material: Material,
        opened: Option<(TableKind, StoredHalf)>,
    ) -> Result<(), ProbeError> {
        let mut halves: Vec<(PathBuf, StoredHalf)> = Vec::with_capacity(TableKind::ALL.len());
        for kind in TableKind::ALL {
            let path = table_path(&self.dir, variant, material, kind);
            let stored = match (opened, self.opened_slot_table(kind, variant, material)) {
                (Some((k, half)), _) if k == kind => half,
                (_, Some((_, table))) => table.header().stored,
                _ if self.slot(kind, variant, material).is_none() => continue,
                _ => match crate::table::read_header(&path) {
                    Ok(header) => header.stored,
                    Err(_) => continue,
                },
            };
            if let Some((first, half)) = halves.iter().find(|(_, h)| !halves_agree(*h, stored)) {
                return Err(ProbeError::MixedHalves {
                    variant,
                    material,
                    first: (first.clone(), *half),
                    second: (path, stored),
                });
            }
            halves.push((path, stored));
        }
        Ok(())
    }

    /// The slot and table of a material's table of `kind` if it is already open.
    fn opened_slot_table(
        &self,
        kind: TableKind,
        variant: Variant,
        material: Material,
    ) -> Option<(u32, &Table)> {
        let slot = self.slot(kind, variant, material)?;
        let table = self.slots[usize::from(slot)].table.get()?;
        Some((u32::from(slot), table))
    }

    fn slot_table(
        &self,
        kind: TableKind,
        variant: Variant,
        material: Material,
    ) -> Result<(u32, &Table), ProbeError> {
        let slot = self
            .slot(kind, variant, material)
            .ok_or_else(|| ProbeError::MissingTable {
                variant,
                material,
                path: table_path(&self.dir, variant, material, kind),
            })?;
        let entry = &self.slots[usize::from(slot)];
        if let Some(table) = entry.table.get() {
            return Ok((u32::from(slot), table));
        }
        let path = table_path(&self.dir, entry.variant, entry.material, entry.kind);
        let opened = Table::open(&path, entry.kind, entry.variant, entry.material)?;
        if let Some(limits) = opened.header().limits {
            if let Some(FoundLimits::Agreed(first, expected)) = self.limits.get(&entry.variant) {
                if limits != *expected {
                    return Err(ProbeError::MixedLimits {
                        variant: entry.variant,
                        first: (first.clone(), *expected),
                        second: (path, limits),
                    });
                }
            }
        }
        // A material whose tables store sides that do not agree would be read through the
        // wrong half: refused at once, naming both tables.
        self.check_halves_with(
            entry.variant,
            entry.material,
            Some((entry.kind, opened.header().stored)),
        )?;
        // Two threads may open the same table at once; the first to finish is kept.
        let _ = entry.table.set(opened);
        let table = entry.table.get().ok_or_else(|| ProbeError::Corrupted {
            path,
            reason: "table could not be kept".to_string(),
        })?;
        Ok((u32::from(slot), table))
    }
}

/// What looking a position up in the table of its kind found.
pub(crate) enum Lookup<T> {
    /// The value stored.
    Read(T),
    /// The table stores the other side to move: the value follows from the moves.
    OtherHalf,
    /// Only the cache may be read, and the block (or the table) is not there.
    NotCached,
}

/// How a probe reads its blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// From the cache, or from the file (then kept in the cache).
    Load,
    /// From the cache only: deep in a search, a probe must not wait for a file.
    CachedOnly,
}

/// What the headers of a variant's rule tables say about their draw-rule limits.
#[derive(Debug)]
enum FoundLimits {
    /// All agree: the limits, with one file they were read from.
    Agreed(PathBuf, Limits),
    /// Two files disagree.
    Mixed((PathBuf, Limits), (PathBuf, Limits)),
    /// No limits can be had: a file in a rule table's place holds another table (of the
    /// other variant, say), or not one rule table's header can be read. That error, not an
    /// absence of rule tables, is what every probe needing the limits reports.
    Unusable(ProbeError),
}

/// The limits recorded in the headers of a variant's rule tables; `None` without any rule
/// table. A damaged header is left for opening its table to report while another gives the
/// limits; when none can be read, the set is not one without rule tables but one whose rule
/// tables are all damaged, and the first damage found is the answer.
fn rule_limits(
    dir: &Path,
    variant: Variant,
    materials: &BTreeSet<Material>,
) -> Option<FoundLimits> {
    let mut first: Option<(PathBuf, Limits)> = None;
    let mut mixed = None;
    let mut unreadable = None;
    for &material in materials {
        let path = table_path(dir, variant, material, TableKind::DrawRules);
        let header = match crate::table::read_header(&path) {
            Ok(header) => header,
            Err(e) => {
                unreadable.get_or_insert(e);
                continue;
            }
        };
        let wrong =
            crate::table::wrong_table(&path, &header, TableKind::DrawRules, variant, material);
        if let Some(err) = wrong {
            return Some(FoundLimits::Unusable(err));
        }
        // A rule table's header always has limits (decoding checks them).
        let Some(limits) = header.limits else {
            continue;
        };
        match &first {
            None => first = Some((path, limits)),
            Some((_, seen)) if *seen == limits => {}
            Some(seen) => {
                mixed.get_or_insert_with(|| FoundLimits::Mixed(seen.clone(), (path, limits)));
            }
        }
    }
    mixed
        .or(first.map(|(path, limits)| FoundLimits::Agreed(path, limits)))
        .or(unreadable.map(FoundLimits::Unusable))
}

/// Whether two tables of one material storing `a` and `b` can be read together: the same
/// side, or both sides (a `.wdl` table built without `--compact`) with any.
fn halves_agree(a: StoredHalf, b: StoredHalf) -> bool {
    a == b || a == StoredHalf::Both || b == StoredHalf::Both
}

#[cfg(test)]
mod tests;
