//! The order a whole run solves its materials in: any order in which a material comes after
//! every material it reads gives the same tables, so the plan picks the one that keeps the
//! least on disk.
//!
//! What a run keeps beside its tables is the compressed values of the finished materials that
//! a material still to be solved reads, each side to move until the last material that reads
//! it is done ([`crate::work::sides`]). Listed by pieces and then by men, a set keeps most of
//! its materials of one fewer piece until the last material of its size is solved. Solved
//! instead, at each step, as the material that adds the fewest kept positions (half its
//! positions for each side a later material reads) less those it lets go (of each side it is
//! the last to read), Brazilian up to 8 keeps, while its largest material is solved, about a
//! quarter of the positions that listing keeps then, and at most half as many at any point.

use super::{DiskEstimate, MaterialPlan, Plan};
use crate::work::sides::Sides;

/// `materials` (each one's [`MaterialPlan::reads`] naming materials before it) reordered as
/// the module says, `reads` renumbered; ties go to the fewer positions, then to the earlier
/// material of the listing, so the order is the same on every machine.
pub(super) fn keeping_least(materials: Vec<MaterialPlan>) -> Vec<MaterialPlan> {
    let n = materials.len();
    let mut readers = vec![Vec::new(); n];
    // The sides to move of `d` that material `j` reads, for each `d` of `j`'s reads.
    let sides: Vec<Vec<Sides>> = (materials.iter())
        .map(|m| {
            (m.reads.iter())
                .map(|&d| Sides::read_by(m.material, materials[d].material))
                .collect()
        })
        .collect();
    // Readers not yet solved of each side (White, Black) of each material.
    let mut readers_left = vec![[0usize; 2]; n];
    for (j, m) in materials.iter().enumerate() {
        for (&d, read) in m.reads.iter().zip(&sides[j]) {
            readers[d].push(j);
            readers_left[d][0] += usize::from(read.white);
            readers_left[d][1] += usize::from(read.black);
        }
    }
    let mut reads_left: Vec<usize> = materials.iter().map(|m| m.reads.len()).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&j| reads_left[j] == 0).collect();
    let mut order = Vec::with_capacity(n);
    // Half a material's positions: those of one side to move.
    let half = |d: usize| i128::from(materials[d].positions / 2);
    while !ready.is_empty() {
        let net = |j: usize| -> i128 {
            let added: i128 = readers_left[j]
                .iter()
                .map(|&left| if left > 0 { half(j) } else { 0 })
                .sum();
            let released: i128 = (materials[j].reads.iter().zip(&sides[j]))
                .map(|(&d, read)| {
                    let last = |left: usize, reads: bool| reads && left == 1;
                    let [white, black] = readers_left[d];
                    half(d)
                        * i128::from(
                            u8::from(last(white, read.white)) + u8::from(last(black, read.black)),
                        )
                })
                .sum();
            added - released
        };
        let (at, &j) = (ready.iter().enumerate())
            .min_by_key(|&(_, &j)| (net(j), materials[j].positions, j))
            .expect("a material ready");
        ready.swap_remove(at);
        order.push(j);
        for (&d, read) in materials[j].reads.iter().zip(&sides[j]) {
            readers_left[d][0] -= usize::from(read.white);
            readers_left[d][1] -= usize::from(read.black);
        }
        for &r in &readers[j] {
            reads_left[r] -= 1;
            if reads_left[r] == 0 {
                ready.push(r);
            }
        }
    }
    debug_assert_eq!(order.len(), n, "reads name only materials before");
    reordered(materials, &order)
}

/// `materials` in `order` (a list of their indices), `reads` renumbered.
fn reordered(materials: Vec<MaterialPlan>, order: &[usize]) -> Vec<MaterialPlan> {
    let mut new_index = vec![0; materials.len()];
    for (k, &j) in order.iter().enumerate() {
        new_index[j] = k;
    }
    let mut slots: Vec<Option<MaterialPlan>> = materials.into_iter().map(Some).collect();
    order
        .iter()
        .map(|&j| {
            let m = slots[j].take().expect("each material once");
            let mut reads: Vec<usize> = m.reads.iter().map(|&d| new_index[d]).collect();
            reads.sort_unstable();
            MaterialPlan { reads, ..m }
        })
        .collect()
}

/// Rounds of [`Plan::solving_peaks_early`] at most: each estimates the disk twice.
const PEAK_ROUNDS: usize = 32;

impl Plan {
    /// The same plan, its materials' order changed where that lowers the disk at its peak
    /// ([`Plan::disk_estimate`]); of a plan that is not a whole run, the same plan. The
    /// tables written so far are the largest part of a whole run's peak, and the order that
    /// keeps the least waiting for its readers solves first the materials no other reads,
    /// which leaves the largest materials, and those held in raw work files, to the end. So,
    /// a round at a time, of two orders the one with the lower peak is taken: the material
    /// the disk peaks at solved just after the last material it reads, or every material
    /// before it that it does not read, directly or through another, moved to just after it
    /// (each keeping its order among the others). A round where neither lowers the peak ends
    /// the search. It stops at the first order no single move improves, so it is also run
    /// from the order it finds when every side read only through crownings keeps the crowned
    /// positions alone (their peaks lie elsewhere), and the lower of the two is kept: for
    /// international up to 5, which keeps none so, 274.9 MiB instead of 332.1.
    pub fn solving_peaks_early(self) -> Plan {
        if self.unit.is_some() {
            return self;
        }
        let (crowned, _) = Plan {
            crowned_alone_from_pieces: 0,
            ..self.clone()
        }
        .moving_peaks_early();
        let (from_crowned, from_crowned_peak) = Plan {
            materials: crowned.materials,
            ..self.clone()
        }
        .moving_peaks_early();
        let (own, own_peak) = self.moving_peaks_early();
        if from_crowned_peak.peak_bytes < own_peak.peak_bytes {
            from_crowned
        } else {
            own
        }
    }

    /// The search of [`Plan::solving_peaks_early`] from this plan's order: the plan it ends
    /// at, and that plan's estimate.
    fn moving_peaks_early(mut self) -> (Plan, DiskEstimate) {
        let mut peak = self.disk_estimate();
        for _ in 0..PEAK_ROUNDS {
            let Some(at) = (peak.peak_at)
                .and_then(|material| self.materials.iter().position(|m| m.material == material))
            else {
                break;
            };
            let tried = [self.hoisting(at), self.read_first(at)]
                .into_iter()
                .flatten()
                .map(|order| {
                    let mut plan = self.clone();
                    plan.materials = reordered(std::mem::take(&mut plan.materials), &order);
                    let estimate = plan.disk_estimate();
                    (plan, estimate)
                })
                .min_by_key(|(_, estimate)| estimate.peak_bytes);
            match tried {
                Some((plan, estimate)) if estimate.peak_bytes < peak.peak_bytes => {
                    (self, peak) = (plan, estimate);
                }
                _ => break,
            }
        }
        (self, peak)
    }

    /// The order with material `at` just after the last material it reads, if that moves it.
    fn hoisting(&self, at: usize) -> Option<Vec<usize>> {
        let to = self.materials[at].reads.iter().max().map_or(0, |&d| d + 1);
        (to < at).then(|| {
            (0..to)
                .chain([at])
                .chain((to..self.materials.len()).filter(|&j| j != at))
                .collect()
        })
    }

    /// The order with the materials before `at` that it does not read, directly or through
    /// another, just after it, if there are any.
    fn read_first(&self, at: usize) -> Option<Vec<usize>> {
        let mut read = vec![false; at + 1];
        read[at] = true;
        // Reads name materials before their reader: one pass down from `at` marks them all.
        for j in (0..=at).rev() {
            if read[j] {
                for &d in &self.materials[j].reads {
                    read[d] = true;
                }
            }
        }
        let order: Vec<usize> = (0..=at)
            .filter(|&j| read[j])
            .chain((0..at).filter(|&j| !read[j]))
            .chain(at + 1..self.materials.len())
            .collect();
        (!order.iter().enumerate().all(|(k, &j)| k == j)).then_some(order)
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::Plan;
    use crate::work::sides::Sides;
    use rafle_probe::draughts::Variant;
    use rafle_probe::toolkit::Tables;
    use std::path::Path;

    #[test]
    fn every_material_comes_after_those_it_reads_and_once() {
        for (variant, pieces) in [(Variant::Brazilian, 8), (Variant::International, 6)] {
            for plan in [
                Plan::new(variant, pieces, Path::new("data")).unwrap(),
                Plan::new(variant, pieces, Path::new("data"))
                    .unwrap()
                    .solving_peaks_early(),
            ] {
                comes_after_its_reads_and_once(&plan, variant, pieces);
            }
        }
    }

    /// International up to 5 ends with two materials of men alone, each in a raw work file
    /// of 3 bytes a position, each at the end of the materials it reads: the order that keeps
    /// the least waiting solves both after the tables of every other material, the larger
    /// (MMMvMM) last. With every side read only through crownings kept crowned alone, solving
    /// MMMvMM and what it reads first takes its peak off (293.0 MiB to 242.0 MiB, at MMMMvM's
    /// smaller raw file). International up to 5 keeps none so, and peaks at KMMvKM (332.1
    /// MiB), which no single move lowers; from the order found with them, 274.9 MiB. No
    /// plan's peak goes up.
    #[test]
    fn solving_the_peak_early_lowers_it_where_the_tables_so_far_make_it() {
        let peak = |plan: &Plan| plan.disk_estimate();
        let international = Plan::new(Variant::International, 5, Path::new("data")).unwrap();
        let crowned = Plan {
            crowned_alone_from_pieces: 0,
            ..international.clone()
        };
        let before = peak(&crowned);
        let after = peak(&crowned.solving_peaks_early());
        assert_eq!(before.peak_at.unwrap().to_string(), "MMMvMM");
        assert_eq!(after.peak_at.unwrap().to_string(), "MMMMvM");
        assert!(
            after.peak_bytes * 6 < before.peak_bytes * 5,
            "{after:?} against {before:?}"
        );
        let before = peak(&international);
        assert_eq!(before.peak_at.unwrap().to_string(), "KMMvKM");
        let (stuck, stuck_peak) = international.clone().moving_peaks_early();
        assert_eq!((peak(&stuck), stuck_peak), (before, before));
        let after = peak(&international.solving_peaks_early());
        assert!(
            after.peak_bytes * 6 < before.peak_bytes * 5,
            "{after:?} against {before:?}"
        );
        for (variant, pieces) in [
            (Variant::Brazilian, 6),
            (Variant::Brazilian, 8),
            (Variant::International, 7),
        ] {
            for tables in [Tables::All, Tables::Wdl] {
                let plan = Plan::new(variant, pieces, Path::new("data"))
                    .unwrap()
                    .with_tables(tables);
                let before = peak(&plan).peak_bytes;
                let after = peak(&plan.solving_peaks_early()).peak_bytes;
                assert!(after <= before, "{variant} {pieces} {tables:?}");
            }
        }
    }

    /// Every material after those it reads, each material of the set once.
    fn comes_after_its_reads_and_once(plan: &Plan, variant: Variant, pieces: u32) {
        let mut names: Vec<String> = (plan.materials.iter())
            .map(|m| m.material.to_string())
            .collect();
        for (j, m) in plan.materials.iter().enumerate() {
            assert!(m.reads.iter().all(|&d| d < j), "{}", m.material);
            assert!(!m.reads.is_empty() || m.material.pieces() == 2);
        }
        let listed = rafle_probe::draughts::Material::all_up_to(variant, pieces).len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), listed);
        assert_eq!(plan.materials.len(), listed);
    }

    /// The positions kept for later readers while the largest material is solved, and the
    /// most kept at any point, in the order of the plan and in the listing by pieces and men,
    /// each side to move of a material kept until its last reader is done.
    #[test]
    fn brazilian_up_to_8_keeps_far_fewer_positions_than_the_listing() {
        let plan = Plan::new(Variant::Brazilian, 8, Path::new("data")).unwrap();
        let largest = (0..plan.materials.len())
            .max_by_key(|&j| plan.materials[j].positions)
            .unwrap();
        let read = |j: usize, d: usize| {
            let sides = Sides::read_by(plan.materials[j].material, plan.materials[d].material);
            [sides.white, sides.black]
        };
        // (kept while the largest is solved, most kept at any point)
        let kept = |order: &[usize]| {
            let mut readers_left = vec![[0usize; 2]; plan.materials.len()];
            for (j, m) in plan.materials.iter().enumerate() {
                for &d in &m.reads {
                    for (left, reads) in readers_left[d].iter_mut().zip(read(j, d)) {
                        *left += usize::from(reads);
                    }
                }
            }
            let (mut kept, mut most, mut beside_largest) = (0u64, 0u64, 0u64);
            for &j in order {
                most = most.max(kept);
                if j == largest {
                    beside_largest = kept;
                }
                let m = &plan.materials[j];
                for left in readers_left[j] {
                    if left > 0 {
                        kept += m.positions / 2;
                    }
                }
                for &d in &m.reads {
                    for (left, reads) in readers_left[d].iter_mut().zip(read(j, d)) {
                        if reads {
                            *left -= 1;
                            if *left == 0 {
                                kept -= plan.materials[d].positions / 2;
                            }
                        }
                    }
                }
            }
            (beside_largest, most)
        };
        let planned: Vec<usize> = (0..plan.materials.len()).collect();
        let mut listed = planned.clone();
        listed.sort_by_key(|&j| {
            let m = plan.materials[j].material;
            (m.pieces(), m.men(), m)
        });
        let (planned, listed) = (kept(&planned), kept(&listed));
        assert!(planned.0 * 2 < listed.0, "{planned:?} against {listed:?}");
        assert!(
            planned.1 * 3 < listed.1 * 2,
            "{planned:?} against {listed:?}"
        );
    }
}
