//! Where a plan's units stand (finished, to do, to repack) and the memory each holds given
//! that: its own solving, a seed part, or a material it must read back from its tables.

use rafle_probe::draughts::Material;
use rafle_probe::toolkit::format::TableKind;
use rafle_probe::toolkit::Table;

use super::bytes::{
    band_directory_bytes, cached_bytes, part_least_bytes, read_back_streamed_always,
    seed_part_size, slice_bytes, Placements, KINDS_READ_BACK_BYTES_PER_POSITION, LEAST_CACHE_BYTES,
    OVERHEAD, REPACK_BYTES_PER_POSITION, STREAMED_BYTES,
};
use super::{MaterialPlan, Plan, UnitState};
use crate::work::packed::PackedValues;
use crate::work::sides::Sides;
use crate::work::values::packed_identity;
use crate::GenerateError;

impl Plan {
    /// Where each material of the plan stands, in plan order. A material is finished when
    /// each table the plan writes for it opens (header, block index and length checked, not
    /// every block) with the plan's limits, and, if a material of the plan that reads its
    /// values is not finished, its packed work file of this request is there (its index
    /// checked): the unit that reads it then does not rebuild its values from its tables.
    /// `generate` checks every block before it reuses them.
    pub fn unit_states(&self) -> Vec<UnitState> {
        self.states_and_readers().0
    }

    /// The materials whose values no one of the plan will read again: finished, with every
    /// material of the plan that reads them finished too (a unit of a cluster run removes
    /// their work files, [`Plan::with_set`]).
    pub(crate) fn read_by_none_to_come(&self) -> Vec<Material> {
        let (states, read_by_unfinished) = self.states_and_readers();
        self.materials
            .iter()
            .zip(states.iter().zip(read_by_unfinished))
            .filter(|(_, (&state, read))| state == UnitState::Finished && read.is_empty())
            .map(|(m, _)| m.material)
            .collect()
    }

    /// The sides to move of a unit's own values that the materials of its set not finished
    /// read ([`Plan::with_set`]): both without a set (its readers are not known), none if
    /// nothing still to finish in the set reads it.
    ///
    /// # Errors
    ///
    /// Those of [`Plan::new`] for the set.
    pub(crate) fn sides_read_in_set(&self) -> Result<Sides, GenerateError> {
        let (Some(pieces), Some(own)) = (self.set, self.materials.last()) else {
            return Ok(Sides::BOTH);
        };
        let set = self.set_plan(pieces)?;
        let Some(k) = set
            .materials
            .iter()
            .position(|m| m.material == own.material)
        else {
            return Ok(Sides::BOTH);
        };
        Ok(set.states_and_readers().1[k])
    }

    /// The plan of the whole set of every material up to `pieces`, with this plan's limits and
    /// tables ([`Plan::with_set`]).
    ///
    /// # Errors
    ///
    /// Those of [`Plan::new`].
    pub(crate) fn set_plan(&self, pieces: u32) -> Result<Plan, GenerateError> {
        Ok(Plan::new(self.variant, pieces, &self.dir)?
            .with_limits(self.limits)
            .with_tables(self.tables)
            .with_compact(self.compact))
    }

    /// [`Plan::unit_states`], and the sides to move of each material that the materials of the
    /// plan not finished read.
    fn states_and_readers(&self) -> (Vec<UnitState>, Vec<Sides>) {
        let kinds = self.tables.kinds();
        let n = self.materials.len();
        let mut states = vec![UnitState::ToDo; n];
        // The sides read by materials not finished: readers come later in the plan.
        let mut read_by_unfinished = vec![Sides::NONE; n];
        for j in (0..n).rev() {
            let m = &self.materials[j];
            let tables = kinds.iter().all(|&kind| {
                let path = self.directory().table(m.material, kind);
                Table::open(&path, kind, self.variant, m.material).is_ok_and(|table| {
                    kind != TableKind::DrawRules || table.header().limits == Some(self.limits)
                })
            });
            let read = read_by_unfinished[j];
            states[j] = match (tables, read.is_empty()) {
                (false, _) => UnitState::ToDo,
                (true, true) => UnitState::Finished,
                (true, false) if self.has_packed_values(m, read) => UnitState::Finished,
                (true, false) => UnitState::Repack,
            };
            if states[j] != UnitState::Finished {
                for &d in &m.reads {
                    let sides = Sides::read_by(m.material, self.materials[d].material);
                    read_by_unfinished[d] = read_by_unfinished[d].or(sides);
                }
            }
        }
        (states, read_by_unfinished)
    }

    /// Whether the packed work file of `m`'s values in this request is there, holding the
    /// sides to move `read`.
    fn has_packed_values(&self, m: &MaterialPlan, read: Sides) -> bool {
        let paths = self.directory().work_files(m.material, self.tables);
        let identity = self.packed_identity(m);
        let index = rafle_probe::toolkit::PositionIndex::new(self.variant, m.material);
        crate::work::bands::open_finished(
            &index,
            &identity,
            self.kept(),
            &paths,
            || crate::solve::bands(&index).len(),
            read,
            &self.directory(),
        )
        .is_some()
            || PackedValues::open(&paths.packed, &identity, m.positions, self.kept())
                .is_ok_and(|packed| packed.held().contains(read))
    }

    /// What the packed values of material `m` are of in this request (see
    /// [`packed_identity`]).
    pub(crate) fn packed_identity(&self, m: &MaterialPlan) -> String {
        packed_identity(self.variant, m.material, m.positions, m.limits, self.tables)
    }

    /// What this request keeps of each value in band and packed files.
    pub(crate) fn kept(&self) -> crate::work::values::Kept {
        crate::work::values::Kept::of_run(self.tables)
    }

    /// The memory a unit of work solving material `j` of the plan alone holds: its peak, or
    /// the budget if that is smaller, never below what its largest slice needs. The materials
    /// it reads are finished: read, not solved, so their slices do not count.
    ///
    /// # Panics
    ///
    /// If `j` is not a material of the plan.
    pub fn unit_bytes(&self, j: usize) -> u64 {
        let material = self.materials[j].material;
        let placements = Placements::of(self.variant, material);
        let directory = band_directory_bytes(self.variant, material);
        let least = slice_bytes(placements) + directory + LEAST_CACHE_BYTES + OVERHEAD;
        let solve = self.materials[j].solve_bytes;
        self.budget.map_or(solve, |b| b.min(solve)).max(least)
    }

    /// Bytes reading material `m`'s values back from its finished tables holds (its packed
    /// values gone: see [`UnitState::Repack`]): the material held whole if that fits the
    /// plan's memory ([`Plan::reads_back_whole`]), else what reading it block by block holds.
    pub fn repack_bytes(&self, m: &MaterialPlan) -> u64 {
        if self.reads_back_whole(m) {
            self.whole_read_back_bytes(m)
        } else {
            STREAMED_BYTES + OVERHEAD
        }
    }

    /// Whether material `m`, read back from its finished tables, is held whole (3 bytes a
    /// position, the faster way): without a budget, or when that fits [`Plan::planned_bytes`].
    /// Otherwise it is read block by block, in bounded memory. `RAFLE_READ_BACK=streamed`
    /// reads every material block by block (the tests read small materials so).
    pub fn reads_back_whole(&self, m: &MaterialPlan) -> bool {
        self.holds_read_back_whole(self.whole_read_back_bytes(m))
    }

    /// Whether the kinds of material `m`'s values (win, draw or loss: all a run of the
    /// win/draw/loss tables alone keeps, read from the `.wdl` table alone) are read back whole:
    /// as [`Plan::reads_back_whole`], at [`KINDS_READ_BACK_BYTES_PER_POSITION`].
    pub(crate) fn reads_kinds_back_whole(&self, m: &MaterialPlan) -> bool {
        self.holds_read_back_whole(m.positions * KINDS_READ_BACK_BYTES_PER_POSITION + OVERHEAD)
    }

    /// Whether a read-back holding `bytes` in memory is made whole (else block by block):
    /// never under `RAFLE_READ_BACK=streamed`, always without a budget, else when it fits the
    /// plan's memory.
    fn holds_read_back_whole(&self, bytes: u64) -> bool {
        !read_back_streamed_always() && (self.budget.is_none() || bytes <= self.planned_bytes())
    }

    /// Bytes reading material `m` back whole from its tables holds.
    pub(crate) fn whole_read_back_bytes(&self, m: &MaterialPlan) -> u64 {
        m.positions * REPACK_BYTES_PER_POSITION + OVERHEAD
    }

    /// The memory a unit of work on material `j` holds, given where the plan's materials
    /// stand (`states`, from [`Plan::unit_states`]): its own ([`Plan::unit_bytes`] or, for a
    /// seed part, [`Plan::seed_part_bytes`]), or more if it must read a material back from its
    /// tables ([`Plan::repack_bytes`]): one it reads, or its own when it is to repack.
    pub fn unit_bytes_in(&self, j: usize, states: &[UnitState], seed_part: bool) -> u64 {
        let own = if seed_part {
            self.seed_part_bytes(j)
        } else {
            self.unit_bytes(j)
        };
        let own = match states[j] {
            UnitState::Repack if !seed_part => own.max(self.repack_bytes(&self.materials[j])),
            _ => own,
        };
        self.materials[j]
            .reads
            .iter()
            .filter(|&&d| states[d] == UnitState::Repack)
            .map(|&d| self.repack_bytes(&self.materials[d]))
            .fold(own, u64::max)
    }

    /// The memory a seed part of material `j` of the plan holds (as [`Plan::unit_bytes`]):
    /// the seeds and codes of one group of positions, and the cache of the materials it
    /// reads; it holds nothing the size of the material.
    ///
    /// # Panics
    ///
    /// If `j` is not a material of the plan.
    pub fn seed_part_bytes(&self, j: usize) -> u64 {
        let peak = self.part_peak_bytes(j);
        self.budget
            .map_or(peak, |b| b.min(peak))
            .max(part_least_bytes())
    }

    pub(super) fn part_peak_bytes(&self, j: usize) -> u64 {
        let cached: u64 = self.materials[j]
            .reads
            .iter()
            .map(|&d| cached_bytes(self.materials[d].positions))
            .sum();
        crate::solve::seed_group_bytes() + cached + OVERHEAD
    }

    /// The positions of seed part `part` (from 1) of material `m`: its first, and how many.
    pub fn seed_part_positions(&self, m: &MaterialPlan, part: u32) -> (u64, u64) {
        let size = seed_part_size();
        let start = u64::from(part - 1) * size;
        (start, size.min(m.positions - start))
    }

    /// What the file of seed part `part` of material `m` must hold.
    pub(crate) fn part_id(&self, m: &MaterialPlan, part: u32) -> crate::work::seed_part::PartId {
        let (start, len) = self.seed_part_positions(m, part);
        crate::work::seed_part::PartId {
            identity: self.packed_identity(m),
            part,
            parts: m.seed_parts,
            start,
            len,
        }
    }

    /// Whether each seed part of material `j` is finished: its material's tables are (see
    /// [`Plan::unit_states`], whose states `states` are), or its file is there, whole for
    /// what its index says (its blocks are checked when read).
    pub fn seed_part_states(&self, j: usize, states: &[UnitState]) -> Vec<UnitState> {
        let m = &self.materials[j];
        let paths = self.directory().work_files(m.material, self.tables);
        (1..=m.seed_parts)
            .map(|part| {
                let open = crate::work::seed_part::PartFile::open(
                    &paths.seed_part(part),
                    &self.part_id(m, part),
                );
                if states[j] != UnitState::ToDo || open.is_ok() {
                    UnitState::Finished
                } else {
                    UnitState::ToDo
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use rafle_probe::draughts::{Material, Variant};

    use super::*;

    #[test]
    fn a_unit_reading_a_material_back_from_its_tables_counts_it() {
        let at = |plan: &Plan, m: &str| {
            let m: Material = m.parse().unwrap();
            plan.materials.iter().position(|p| p.material == m).unwrap()
        };
        let unbudgeted = Plan::new(Variant::International, 7, Path::new("data")).unwrap();
        let plan = unbudgeted.clone().with_budget(8 << 30);
        let (reader, read) = (at(&plan, "KKKKvKKM"), at(&plan, "KKKKvKKK"));
        assert!(plan.materials[reader].reads.contains(&read));
        let mut states = vec![UnitState::Finished; plan.materials.len()];
        states[reader] = UnitState::ToDo;
        assert_eq!(plan.unit_bytes_in(reader, &states, false), 8 << 30);
        states[read] = UnitState::Repack;
        // Without a budget, read whole: 6,991,908,000 positions at 3 bytes, and the overhead.
        assert!(unbudgeted.reads_back_whole(&unbudgeted.materials[read]));
        assert_eq!(
            unbudgeted.repack_bytes(&unbudgeted.materials[read]),
            6_991_908_000 * 3 + (256 << 20)
        );
        // Within 8 GiB, block by block: the unit's own memory is enough.
        assert!(!plan.reads_back_whole(&plan.materials[read]));
        assert_eq!(
            plan.repack_bytes(&plan.materials[read]),
            STREAMED_BYTES + OVERHEAD
        );
        assert_eq!(plan.unit_bytes_in(reader, &states, false), 8 << 30);
        // A material of 6.4 × 10⁸ positions is read back whole within 8 GiB.
        let small = at(&plan, "KKKvKKK");
        states[read] = UnitState::Finished;
        states[small] = UnitState::Repack;
        assert!(plan.reads_back_whole(&plan.materials[small]));
        let reader = (0..plan.materials.len())
            .find(|&j| plan.materials[j].reads.contains(&small))
            .unwrap();
        assert_eq!(
            plan.unit_bytes_in(reader, &states, false),
            plan.unit_bytes(reader).max(635_628_000 * 3 + (256 << 20))
        );
    }
}
