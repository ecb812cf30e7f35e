//! What a generation request will do, and the memory it needs: the state of the slices being
//! solved, the pages of the material's own raw work file they read back, and the cache of
//! decompressed blocks of the packed work files of the materials they read, which a budget
//! bounds.

mod bytes;
mod disk;
mod graph;
mod order;
mod request;
mod units;

use std::path::{Path, PathBuf};

use rafle_probe::toolkit::format::TableKind;
use rafle_probe::toolkit::layout::parse_table_name;
use rafle_probe::{
    draughts::{IntRange, Limits, Material, Variant},
    toolkit::{DataDir, PositionIndex, Table, Tables, VariantDir},
};

use crate::work::sides::Sides;
use crate::work::values::BYTES_PER_POSITION;
use crate::GenerateError;
pub use bytes::parse_memory;
use bytes::{
    band_directory_bytes, cached_bytes, part_least_bytes, seed_parts, slice_bytes, slices_bytes,
    Placements, OVERHEAD,
};
pub(crate) use bytes::{LEAST_CACHE_BYTES, STREAMED_CACHE_BYTES};
pub use disk::{DiskEstimate, DiskParts};
pub use graph::{BadUnitName, Unit, UnitName};
pub use request::{PlanRequest, Scope};

/// The most pieces rafle generates (the index handles more; memory does not).
pub const MAX_PIECES: u32 = rafle_probe::toolkit::MAX_GENERATED_PIECES;

/// Refuses the empty path as a table directory, as every entry point does: tables would go
/// to the current directory, which the caller did not name.
///
/// # Errors
///
/// [`GenerateError::EmptyDirectory`].
pub fn check_directory(dir: &Path) -> Result<(), GenerateError> {
    if dir.as_os_str().is_empty() {
        return Err(GenerateError::EmptyDirectory);
    }
    Ok(())
}

/// The pieces a generation may be asked for: from 2 to [`MAX_PIECES`], as every entry point
/// takes them.
pub const PIECES: IntRange = IntRange {
    name: "pieces",
    min: 2,
    max: MAX_PIECES as u64,
    unit: "",
};

/// One material of a plan.
#[derive(Debug, Clone)]
pub struct MaterialPlan {
    /// The material (stored orientation).
    pub material: Material,
    /// Positions, both sides to move.
    pub positions: u64,
    /// Where its win/draw/loss table goes.
    pub path: PathBuf,
    /// Where its distance-to-win table goes.
    pub dtw_path: PathBuf,
    /// Where its rule table goes.
    pub draw_rules_path: PathBuf,
    /// The draw-rule limits of its rule table.
    pub limits: Limits,
    /// The materials before it in the plan (by position) that a move of its positions can
    /// reach, whose values it reads.
    pub reads: Vec<usize>,
    /// Peak bytes of memory solving it holds with no budget: the state of its slices solved
    /// at once ([`MaterialPlan::slices_bytes`]), its own raw work file, and every block of the
    /// materials it reads, cached.
    pub solve_bytes: u64,
    /// Bytes the state of its slices solved at once holds, the part of its memory that grows
    /// with its slices.
    pub slices_bytes: u64,
    /// Seed parts of a large kings-only material (0 for the others): units of their own,
    /// each seeding a range of its positions (see [`Plan::seed_part_positions`]), which a
    /// unit solving it then reads instead of seeding it.
    pub seed_parts: u32,
}

/// Where a material stands as a unit of work ([`Plan::unit_states`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitState {
    /// Its tables are missing, damaged or of other limits: it is solved.
    ToDo,
    /// Its tables are finished, but a unit still to run reads its values and the packed work
    /// file holding them is gone (a whole run removes it): it is read back from its tables
    /// and packed again, without solving.
    Repack,
    /// Nothing left to do.
    Finished,
}

/// The materials of a request in the order they are solved, and the peak memory.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The board.
    pub variant: Variant,
    /// Most pieces.
    pub max_pieces: u32,
    /// The table directory.
    pub dir: PathBuf,
    /// In dependency order, the one that keeps the least on disk (see the `order` module).
    pub materials: Vec<MaterialPlan>,
    /// Peak bytes of memory the generation holds with no budget: the state of the slices
    /// solved at once, every page of the material's own raw work file, and a cache holding
    /// every block of the packed work files of the materials it reads (the tables are
    /// written from the raw work file, a block at a time).
    pub peak_bytes: u64,
    /// The least memory it can work in: the state of its largest slice and the least cache.
    pub least_bytes: u64,
    /// The memory budget, if one was set ([`Plan::with_budget`]).
    pub budget: Option<u64>,
    /// The draw-rule limits of the rule tables.
    pub limits: Limits,
    /// Which tables are written.
    pub tables: Tables,
    /// Whether every table written stores one side to move, the one whose values compress
    /// smaller ([`Plan::with_compact`]); else the win/draw/loss tables store both and the
    /// distance and rule tables the stronger side's.
    pub compact: bool,
    /// For a plan of one unit of work ([`Plan::for_material`]), its material, the last of
    /// the plan: the others must be finished.
    pub unit: Option<Material>,
    /// For a plan of one seed part ([`Plan::for_seed_part`]), which part of the unit's
    /// material (from 1): it seeds that part and solves nothing.
    pub part: Option<u32>,
    /// For a unit of work run as one of a set (every material up to this many pieces, as
    /// `rafle slurm submit` runs them), the set's pieces: once its material is done, the unit
    /// removes the kept values of the set's materials that nothing still to finish in the set
    /// reads ([`Plan::with_set`]).
    pub set: Option<u32>,
    /// The least pieces of a material that leaves the side to move its tables store to them
    /// once solved ([`Plan::reads_stored_side_from_tables`]):
    /// [`STORED_SIDE_FROM_TABLES_PIECES`].
    pub(crate) stored_side_from_pieces: u32,
    /// The least pieces of a material whose side read only through crownings keeps the
    /// crowned positions alone ([`Plan::read_only_crowned`]):
    /// [`CROWNED_ALONE_FROM_PIECES`], or as `RAFLE_CROWNED_ALONE` says.
    pub(crate) crowned_alone_from_pieces: u32,
}

/// The least pieces of a material whose finished values a later one reads from its tables
/// for the side they store, its band files keeping that side's captures alone
/// (`crate::work::bands::StoredSide`). That takes the side from 0.48 to 0.27 bytes a
/// position (Brazilian up to 6) for about 4.5% more CPU time (reading three tables' blocks
/// instead of one chunk, and rewriting the band files): worth it where the disk is counted in
/// tens of GiB, the sets whose kept values are those of materials of 7 pieces and more.
pub(crate) const STORED_SIDE_FROM_TABLES_PIECES: u32 = 7;

/// The least pieces of a material whose side that the materials still to read it reach only
/// through a crowning keeps the positions a crowning reaches alone. Rewriting such a side
/// (each chunk decompressed, each position placed on the board, the chunk compressed again)
/// takes about 2.5% of a run's CPU: it takes Brazilian up to 6 from 1.64 to 1.30 times its
/// tables at the peak, through sides of 6-piece materials, but international up to 5 only
/// from 1.43 to 1.38 times, its peak being the end of the run, where nothing is kept.
pub(crate) const CROWNED_ALONE_FROM_PIECES: u32 = 6;

impl Plan {
    /// Plans every material of `variant` with up to `max_pieces` pieces, tables in `dir`, with
    /// the FMJD draw-rule limits.
    ///
    /// # Errors
    ///
    /// [`GenerateError::TooManyPieces`] past [`MAX_PIECES`],
    /// [`GenerateError::OutOfRange`] below 2 pieces, [`GenerateError::EmptyDirectory`] for
    /// an empty `dir`.
    pub fn new(variant: Variant, max_pieces: u32, dir: &Path) -> Result<Plan, GenerateError> {
        check_directory(dir)?;
        if max_pieces < 2 {
            return Err(GenerateError::OutOfRange(
                PIECES.refuse(&max_pieces.to_string()),
            ));
        }
        if max_pieces > MAX_PIECES {
            return Err(GenerateError::TooManyPieces {
                requested: max_pieces,
                max: MAX_PIECES,
            });
        }
        let layout = DataDir::new(dir).variant(variant);
        let mut materials: Vec<MaterialPlan> = Material::all_up_to(variant, max_pieces)
            .into_iter()
            .map(|material| MaterialPlan {
                material,
                positions: PositionIndex::count(variant, material),
                path: layout.table(material, TableKind::Wdl),
                dtw_path: layout.table(material, TableKind::Dtw),
                draw_rules_path: layout.table(material, TableKind::DrawRules),
                limits: Limits::fmjd(variant),
                reads: Vec::new(),
                solve_bytes: 0,
                slices_bytes: 0,
                seed_parts: seed_parts(variant, material),
            })
            .collect();
        for j in 0..materials.len() {
            materials[j].reads = reached(&materials, j);
        }
        let materials = order::keeping_least(materials);
        Ok(Plan::of(variant, max_pieces, dir, materials, None))
    }

    /// The plan of one unit of work: `material` alone (either orientation), solved from the
    /// finished tables in `dir` of the materials its moves reach, and of those their values
    /// are read back from (all of them listed before it, and reused).
    ///
    /// # Errors
    ///
    /// [`GenerateError::TooManyPieces`] past [`MAX_PIECES`], [`GenerateError::NoSuchMaterial`]
    /// if the variant has no such material (a side without pieces, men that do not fit).
    pub fn for_material(
        variant: Variant,
        material: Material,
        dir: &Path,
    ) -> Result<Plan, GenerateError> {
        let all = Plan::new(variant, material.pieces(), dir)?;
        let Some(target) = all
            .materials
            .iter()
            .position(|m| m.material == material || m.material == material.mirrored())
        else {
            return Err(GenerateError::NoSuchMaterial { variant, material });
        };
        let mut kept = vec![false; all.materials.len()];
        kept[target] = true;
        for j in (0..=target).rev() {
            if kept[j] {
                for &d in &all.materials[j].reads {
                    kept[d] = true;
                }
            }
        }
        let mut new_index = vec![usize::MAX; kept.len()];
        let mut materials = Vec::new();
        for (j, m) in all
            .materials
            .into_iter()
            .enumerate()
            .filter(|&(j, _)| kept[j])
        {
            new_index[j] = materials.len();
            let reads = m.reads.iter().map(|&d| new_index[d]).collect();
            materials.push(MaterialPlan { reads, ..m });
        }
        let unit = materials.last().map(|m| m.material);
        Ok(Plan::of(variant, all.max_pieces, dir, materials, unit))
    }

    /// The plan of these materials, in dependency order, and its memory.
    fn of(
        variant: Variant,
        max_pieces: u32,
        dir: &Path,
        mut materials: Vec<MaterialPlan>,
        unit: Option<Material>,
    ) -> Plan {
        let mut floor = 0u64;
        for j in 0..materials.len() {
            let placements = Placements::of(variant, materials[j].material);
            // A unit's plan solves its own material alone: the others are finished.
            let directory = band_directory_bytes(variant, materials[j].material);
            if unit.is_none() || j + 1 == materials.len() {
                floor = floor.max(slice_bytes(placements) + directory);
            }
            // What the material's moves read: its own raw work file, and the blocks of the
            // materials it reads, decompressed in the cache.
            let cached: u64 = materials[j]
                .reads
                .iter()
                .map(|&d| cached_bytes(materials[d].positions))
                .sum();
            let own = materials[j].positions * BYTES_PER_POSITION;
            materials[j].slices_bytes = slices_bytes(placements);
            materials[j].solve_bytes =
                materials[j].slices_bytes + directory + own + cached + OVERHEAD;
        }
        let peak_material = materials.iter().map(|m| m.solve_bytes).max().unwrap_or(0);
        let floor = floor + LEAST_CACHE_BYTES + OVERHEAD;
        Plan {
            variant,
            max_pieces,
            dir: dir.to_path_buf(),
            materials,
            peak_bytes: floor.max(peak_material),
            least_bytes: floor,
            budget: None,
            limits: Limits::fmjd(variant),
            tables: Tables::All,
            compact: false,
            unit,
            part: None,
            set: None,
            stored_side_from_pieces: STORED_SIDE_FROM_TABLES_PIECES,
            crowned_alone_from_pieces: bytes::crowned_alone_from_pieces(),
        }
    }

    /// Whether material `m`, once solved, leaves the side to move its tables store to those
    /// tables: the materials after it read that side's positions that need not capture from
    /// them, and its band files keep the others alone (`crate::work::bands::StoredSide`). So
    /// for a material of [`STORED_SIDE_FROM_TABLES_PIECES`] pieces or more kept in band files
    /// of all three tables' values.
    pub(crate) fn reads_stored_side_from_tables(&self, m: Material) -> bool {
        self.tables == Tables::All
            && m.pieces() >= self.stored_side_from_pieces
            && crate::work::bands::is_banded_material(self.variant, m)
            && !crate::work::bands::packs_bands(self.variant, m)
    }

    /// The sides of `still_read` of the material at `d` in the plan that every material after
    /// the one at `done` reads, if at all, only through a crowning that captures nothing: each
    /// of those readers has as many pieces, a man more and a king fewer for the side that
    /// moves. The positions such a crowning reaches have a king of the side not to move on its
    /// crowning row, and the material's band files keep those alone of that side
    /// (`crate::work::bands::keep_crowned_alone`); so does its mirror image, which is how a
    /// symmetric material's positions may be read. Only a whole run's, for a material kept in
    /// band files of all three tables' values, and not the side its tables store where they
    /// are read from them (White to move, [`Plan::reads_stored_side_from_tables`]); of a
    /// material of [`CROWNED_ALONE_FROM_PIECES`] pieces or more.
    pub(crate) fn read_only_crowned(&self, d: usize, still_read: Sides, done: usize) -> Sides {
        let dep = self.materials[d].material;
        let kept_in_bands = crate::work::bands::is_banded_material(self.variant, dep)
            && !crate::work::bands::packs_bands(self.variant, dep);
        let kept_whole = self.kept() == crate::work::values::Kept::Full;
        let large = dep.pieces() >= self.crowned_alone_from_pieces;
        if self.unit.is_some() || !kept_whole || !kept_in_bands || !large {
            return Sides::NONE;
        }
        let mut crowned = still_read;
        crowned.white &= !self.reads_stored_side_from_tables(dep);
        for reader in self.materials[done + 1..].iter() {
            if reader.reads.contains(&d) && reader.material.pieces() != dep.pieces() {
                let read = Sides::read_by(reader.material, dep);
                crowned.white &= !read.white;
                crowned.black &= !read.black;
            }
        }
        crowned
    }

    /// The plan of one seed part of a large kings-only material (see
    /// [`MaterialPlan::seed_parts`]): part `part` (from 1) of `material`, seeded from the
    /// finished tables in `dir` of the materials its captures reach.
    ///
    /// # Errors
    ///
    /// As [`Plan::for_material`], and [`GenerateError::NoSuchSeedPart`] if the material is
    /// not seeded in parts or has no such part.
    pub fn for_seed_part(
        variant: Variant,
        material: Material,
        part: u32,
        dir: &Path,
    ) -> Result<Plan, GenerateError> {
        let mut plan = Plan::for_material(variant, material, dir)?;
        let m = plan.materials.last().expect("the unit's material");
        if part == 0 || part > m.seed_parts {
            return Err(GenerateError::NoSuchSeedPart {
                variant,
                material: m.material,
                part,
                parts: m.seed_parts,
            });
        }
        let j = plan.materials.len() - 1;
        plan.least_bytes = part_least_bytes();
        plan.peak_bytes = plan.part_peak_bytes(j);
        plan.part = Some(part);
        Ok(plan)
    }

    /// The same plan writing only the tables of `tables`.
    pub fn with_tables(mut self, tables: Tables) -> Plan {
        self.tables = tables;
        self
    }

    /// The same plan writing compact tables when `compact`: the three tables of a material
    /// store one side to move, the one whose win/draw/loss values compress smaller (the
    /// win/draw/loss tables about 2.6 times smaller, the distance and rule tables about a
    /// third; a probe of the other side searches one ply, several times the cost of a direct
    /// read). Otherwise (the default) tables made for probing fast: the win/draw/loss tables
    /// store both sides to move, the distance and rule tables the side with more pieces (the
    /// other side, whose positions are found one ply away, has fewer moves to search).
    pub fn with_compact(mut self, compact: bool) -> Plan {
        self.compact = compact;
        self
    }

    /// The same unit of work run as one of the set of every material up to `pieces` pieces:
    /// once its material is done, it removes the work files (band or packed files) of each
    /// finished material of the set whose readers in the set are all finished, so that a
    /// cluster's scratch holds a material's values only while a unit still to finish reads
    /// them. A material whose unit is running (its lock held) is left for a later unit or the
    /// set's whole run. Of a plan that is not a unit of work, or a seed part, nothing changes.
    ///
    /// # Errors
    ///
    /// [`GenerateError::OutOfRange`] if the set is smaller than the unit's material or past
    /// [`MAX_PIECES`].
    pub fn with_set(mut self, pieces: u32) -> Result<Plan, GenerateError> {
        let least = self.materials.last().map_or(2, |m| m.material.pieces());
        let range = IntRange {
            name: "set pieces",
            min: u64::from(least),
            max: u64::from(MAX_PIECES),
            unit: "",
        };
        range
            .check(u64::from(pieces))
            .map_err(GenerateError::OutOfRange)?;
        self.set = Some(pieces);
        Ok(self)
    }

    /// Whether this run alone knows who reads `material`'s values, and so decides what of them
    /// is kept: a whole run, or a unit of a set for its own material (the set's materials that
    /// read it are known, and none has started). A unit leaves the others' files alone.
    pub(crate) fn decides_kept_values(&self, material: Material) -> bool {
        match self.unit {
            None => true,
            Some(unit) => self.set.is_some() && unit == material,
        }
    }

    /// The same plan kept to a memory budget of `bytes`.
    pub fn with_budget(mut self, bytes: u64) -> Plan {
        self.budget = Some(bytes);
        self
    }

    /// Where the plan's variant keeps its tables and work files.
    pub fn directory(&self) -> VariantDir {
        DataDir::new(&self.dir).variant(self.variant)
    }

    /// The most memory the generation will hold: the plan's peak, or the budget if that is
    /// smaller (the cache of decompressed blocks is then kept smaller, and the pages of the
    /// raw work file read are given back whenever the budget is reached).
    pub fn planned_bytes(&self) -> u64 {
        self.budget.map_or(self.peak_bytes, |b| {
            b.min(self.peak_bytes).max(self.least_bytes)
        })
    }

    /// Bytes the cache of decompressed blocks may hold while the material of `index` is
    /// solved: what the planned memory leaves after the state of its slices, the overhead,
    /// and room for the pages of its own raw work file (up to half the least memory, past
    /// which they are given back); at least [`LEAST_CACHE_BYTES`].
    pub(crate) fn cache_bytes(&self, index: &PositionIndex) -> u64 {
        let own = (index.size() * BYTES_PER_POSITION).min(self.least_bytes / 2);
        self.planned_bytes()
            .saturating_sub(slices_bytes(Placements::of_index(index)) + own + OVERHEAD)
            .max(LEAST_CACHE_BYTES)
    }

    /// Resident bytes past which a material being solved (or a seed part being seeded) gives
    /// back the pages of the work files it read: the planned memory less the room
    /// [`Plan::cache_bytes`] leaves them (half the least memory).
    pub(crate) fn release_mark(&self) -> u64 {
        self.planned_bytes().saturating_sub(self.least_bytes / 2)
    }

    /// The same plan with other draw-rule limits for the rule tables.
    pub fn with_limits(mut self, limits: Limits) -> Plan {
        self.limits = limits;
        for m in &mut self.materials {
            m.limits = limits;
        }
        self
    }

    /// Total positions of all materials.
    pub fn positions(&self) -> u64 {
        self.materials.iter().map(|m| m.positions).sum()
    }

    /// For each material, the last one (by position in the plan) that reads each side to move
    /// of its values (White's, Black's), of those for which `reads` holds: after it, that
    /// side of the material's kept values can go.
    pub(crate) fn last_readers(&self, reads: impl Fn(usize) -> bool) -> Vec<LastReaders> {
        let mut last = vec![LastReaders::default(); self.materials.len()];
        for (k, m) in self.materials.iter().enumerate() {
            if reads(k) {
                for &d in &m.reads {
                    let sides = Sides::read_by(m.material, self.materials[d].material);
                    if sides.white {
                        last[d].white = Some(k);
                    }
                    if sides.black {
                        last[d].black = Some(k);
                    }
                }
            }
        }
        last
    }

    /// Refuses a run that would leave its directory with rule tables of two sets of limits:
    /// the rule tables of materials beyond the plan stay as they are, so they must already
    /// have the plan's limits (the prober refuses a directory that mixes them). A unit of
    /// work needs its dependencies with the plan's limits anyway, and a win/draw/loss-only run
    /// writes no rule table.
    ///
    /// # Errors
    ///
    /// [`GenerateError::LimitsWouldMix`], naming the largest such material.
    pub fn check_limits_agree(&self) -> Result<(), GenerateError> {
        if self.unit.is_some() || self.tables == Tables::Wdl {
            return Ok(());
        }
        let dir = self.directory().path().to_path_buf();
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Ok(());
        };
        let planned: std::collections::HashSet<Material> =
            self.materials.iter().map(|m| m.material).collect();
        let mut kept: Vec<(Material, Limits)> = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some((material, TableKind::DrawRules)) = name.to_str().and_then(parse_table_name)
            else {
                continue;
            };
            if !material.is_canonical() || planned.contains(&material) {
                continue;
            }
            // A table that does not open is no valid set of limits: the prober refuses it
            // for its own fault.
            let opened = Table::open(&entry.path(), TableKind::DrawRules, self.variant, material);
            if let Some(limits) = opened.ok().and_then(|t| t.header().limits) {
                if limits != self.limits {
                    kept.push((material, limits));
                }
            }
        }
        kept.sort_by_key(|(m, _)| (m.pieces(), m.to_string()));
        match kept.last() {
            None => Ok(()),
            Some(&(material, found)) => Err(GenerateError::LimitsWouldMix {
                dir,
                material,
                found,
                requested: self.limits,
                others: kept.len() - 1,
                max_pieces: self.max_pieces,
            }),
        }
    }

    /// Refuses to solve a material of the plan (those `solving` says) whose slices have more
    /// positions than the engine numbers ([`crate::solve::propagation::MAX_POSITIONS`]). A kings-only
    /// material that large is solved in bits, its positions numbered in 64 bits
    /// ([`crate::solve::IN_BITS_ABOVE`]): none up to 8 pieces is refused, on either board.
    ///
    /// # Errors
    ///
    /// [`GenerateError::SliceTooLarge`] for the first such material.
    pub(crate) fn check_slices(
        &self,
        solving: impl Fn(usize) -> bool,
    ) -> Result<(), GenerateError> {
        let max = crate::solve::propagation::MAX_POSITIONS;
        for (j, m) in self.materials.iter().enumerate() {
            let placements = Placements::of(self.variant, m.material);
            let positions = 2 * placements.kings;
            if positions > max && !placements.solved_in_bits() && solving(j) {
                return Err(GenerateError::SliceTooLarge {
                    variant: self.variant,
                    material: m.material,
                    positions,
                    max,
                });
            }
        }
        Ok(())
    }

    /// Refuses a plan whose largest slice does not fit in `available` bytes.
    ///
    /// # Errors
    ///
    /// [`GenerateError::NotEnoughMemory`].
    pub fn check_memory(&self, available: u64) -> Result<(), GenerateError> {
        if self.least_bytes > available {
            return Err(GenerateError::NotEnoughMemory {
                variant: self.variant,
                pieces: self.max_pieces,
                needed: self.least_bytes,
                available,
            });
        }
        Ok(())
    }
}

/// The last material of a plan that reads each side to move of a material's values
/// ([`Plan::last_readers`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LastReaders {
    /// Of White to move.
    pub(crate) white: Option<usize>,
    /// Of Black to move.
    pub(crate) black: Option<usize>,
}

impl LastReaders {
    /// The sides still read once the material at `done` in the plan is done.
    pub(crate) fn after(self, done: usize) -> Sides {
        Sides {
            white: self.white.is_some_and(|k| k > done),
            black: self.black.is_some_and(|k| k > done),
        }
    }

    /// The sides whose last reader is the material at `k`.
    pub(crate) fn last_read_by(self, k: usize) -> Sides {
        Sides {
            white: self.white == Some(k),
            black: self.black == Some(k),
        }
    }

    /// The sides any material reads.
    pub(crate) fn sides(self) -> Sides {
        Sides {
            white: self.white.is_some(),
            black: self.black.is_some(),
        }
    }
}

/// The materials (by position in the plan, before `j`) that a move of a position of material `j`
/// can reach: a capture removes pieces of the side not moving, and a man that captures or moves
/// onto its promotion row is crowned.
fn reached(materials: &[MaterialPlan], j: usize) -> Vec<usize> {
    let m = materials[j].material;
    (0..j)
        .filter(|&d| !Sides::read_by(m, materials[d].material).is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// International KKKKvKKK is one slice of 6,991,908,000 positions, past what the engine
    /// numbers: solved in bits, it is not refused, nor is any material of international up to
    /// 7 or Brazilian up to 8. At 8 on the international board, seven kings and a man have
    /// slices past it (KKKKvKKK around each man): those are refused.
    #[test]
    fn slices_past_what_their_solver_numbers_are_refused() {
        let max = crate::solve::propagation::MAX_POSITIONS;
        for (variant, pieces) in [(Variant::International, 7), (Variant::Brazilian, 8)] {
            let plan = Plan::new(variant, pieces, Path::new("data")).unwrap();
            assert!(plan.check_slices(|_| true).is_ok(), "{variant:?}");
        }
        let kkkkvkkk = Placements::of(Variant::International, "KKKKvKKK".parse().unwrap());
        assert_eq!(2 * kkkkvkkk.kings, 6_991_908_000);
        assert!(2 * kkkkvkkk.kings > max);
        let plan = Plan::new(Variant::International, 8, Path::new("data")).unwrap();
        let err = plan.check_slices(|_| true).unwrap_err();
        let GenerateError::SliceTooLarge {
            material,
            positions,
            max: refused_above,
            ..
        } = &err
        else {
            panic!("{err}");
        };
        assert_eq!((material.pieces(), material.men()), (8, 1), "{material}");
        assert_eq!(*refused_above, 1 << 32);
        assert!(*positions > max);
        assert!(
            err.to_string()
                .contains(&format!("{material} cannot be solved")),
            "{err}"
        );
        let refused = |j: usize| {
            let m = plan.materials[j].material;
            m.pieces() == 8 && m.men() == 1
        };
        assert!(plan.check_slices(|j| !refused(j)).is_ok());
    }

    #[test]
    fn plans_in_dependency_order_with_memory() {
        let plan = Plan::new(Variant::Brazilian, 3, Path::new("data")).unwrap();
        assert_eq!(plan.materials.len(), 9);
        // So small that its peak is the least cache's.
        assert_eq!(plan.peak_bytes, plan.least_bytes);
        assert!(plan.check_memory(plan.least_bytes).is_ok());
        assert!(matches!(
            plan.check_memory(1 << 20),
            Err(GenerateError::NotEnoughMemory { .. })
        ));
        assert!(Plan::new(Variant::Brazilian, 9, Path::new("data")).is_err());
        assert_eq!(parse_memory("8G"), Ok(8 << 30));
        assert_eq!(parse_memory("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_memory("512M"), Ok(512 << 20));
        assert_eq!(parse_memory("4096"), Ok(4096));
        assert!(
            parse_memory("8X").is_err() && parse_memory("").is_err() && parse_memory("0").is_err()
        );
        assert!(plan.materials[0].path.ends_with("brazilian/KvK.wdl"));
        // Without a budget every material's cache holds all it reads; with the least budget,
        // what its slices leave, or the least cache.
        let plan = Plan::new(Variant::Brazilian, 5, Path::new("data")).unwrap();
        assert!(plan.peak_bytes > plan.least_bytes);
        let least = plan.clone().with_budget(plan.least_bytes);
        for m in &plan.materials {
            let index = PositionIndex::new(plan.variant, m.material);
            let reads: u64 = m
                .reads
                .iter()
                .map(|&d| cached_bytes(plan.materials[d].positions))
                .sum();
            assert_eq!(
                Placements::of(plan.variant, m.material),
                Placements::of_index(&index),
                "{}",
                m.material
            );
            assert!(plan.cache_bytes(&index) >= reads, "{}", m.material);
            let cache = least.cache_bytes(&index);
            assert!(
                cache == LEAST_CACHE_BYTES
                    || (cache > LEAST_CACHE_BYTES
                        && slices_bytes(Placements::of_index(&index)) + cache + OVERHEAD
                            <= least.planned_bytes())
            );
        }
        // KMvM: White's man crowned (KKvM), Black's man crowned (KMvK), White's king or man
        // captured (MvM, KvM), White's man captured by a man crowned on the way (KvK); not
        // MMvM, which has more men.
        let name = |d: &usize| plan.materials[*d].material.to_string();
        let kmvm = plan
            .materials
            .iter()
            .find(|m| m.material.to_string() == "KMvM")
            .unwrap();
        let mut reads: Vec<String> = kmvm.reads.iter().map(name).collect();
        reads.sort();
        assert_eq!(reads, ["KKvM", "KMvK", "KvK", "KvM", "MvM"]);
    }

    #[test]
    fn placements_are_counted_as_the_index_numbers_them() {
        for (variant, pieces) in [(Variant::International, 5), (Variant::Brazilian, 6)] {
            for material in Material::all_up_to(variant, pieces) {
                for material in [material, material.mirrored()] {
                    let index = PositionIndex::new(variant, material);
                    assert_eq!(
                        Placements::of(variant, material),
                        Placements::of_index(&index),
                        "{variant} {material}"
                    );
                }
            }
        }
    }

    /// Planning international up to 7 pieces built a position index of each material it
    /// reads for each unit, a second or more each: a minute before the first line.
    #[test]
    fn planning_international_up_to_7_takes_no_index_building() {
        let start = std::time::Instant::now();
        let plan = Plan::new(Variant::International, 7, Path::new("data")).unwrap();
        let least: u64 = (0..plan.materials.len())
            .map(|j| plan.unit_bytes(j))
            .min()
            .unwrap();
        assert!(least >= LEAST_CACHE_BYTES + OVERHEAD);
        // Generous for a loaded machine: it takes milliseconds, and took a minute.
        assert!(
            start.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
    }
}
