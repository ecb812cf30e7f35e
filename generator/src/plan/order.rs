//! The order a whole run solves its materials in: any order in which a material comes after
//! every material it reads gives the same tables, so the plan picks the one that keeps the
//! least on disk.
//!
//! What a run keeps beside its tables is the compressed values of the finished materials that
//! a material still to be solved reads. Listed by pieces and then by men, a set keeps most of
//! its materials of one fewer piece until the last material of its size is solved. Solved
//! instead, at each step, as the material that adds the fewest kept positions less those it
//! lets go (a material's values go once its last reader is done; one that no material reads
//! adds none), Brazilian up to 8 keeps, while its largest material is solved, about a third of
//! the positions that listing keeps then, and at most two thirds as many at any point.

use super::MaterialPlan;

/// `materials` (each one's [`MaterialPlan::reads`] naming materials before it) reordered as
/// the module says, `reads` renumbered; ties go to the fewer positions, then to the earlier
/// material of the listing, so the order is the same on every machine.
pub(super) fn keeping_least(materials: Vec<MaterialPlan>) -> Vec<MaterialPlan> {
    let n = materials.len();
    let mut readers = vec![Vec::new(); n];
    for (j, m) in materials.iter().enumerate() {
        for &d in &m.reads {
            readers[d].push(j);
        }
    }
    let mut readers_left: Vec<usize> = readers.iter().map(Vec::len).collect();
    let mut reads_left: Vec<usize> = materials.iter().map(|m| m.reads.len()).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&j| reads_left[j] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        let net = |j: usize| -> i128 {
            let added = if readers[j].is_empty() {
                0
            } else {
                i128::from(materials[j].positions)
            };
            let released: i128 = (materials[j].reads.iter())
                .filter(|&&d| readers_left[d] == 1)
                .map(|&d| i128::from(materials[d].positions))
                .sum();
            added - released
        };
        let (at, &j) = (ready.iter().enumerate())
            .min_by_key(|&(_, &j)| (net(j), materials[j].positions, j))
            .expect("a material ready");
        ready.swap_remove(at);
        order.push(j);
        for &d in &materials[j].reads {
            readers_left[d] -= 1;
        }
        for &r in &readers[j] {
            reads_left[r] -= 1;
            if reads_left[r] == 0 {
                ready.push(r);
            }
        }
    }
    debug_assert_eq!(order.len(), n, "reads name only materials before");
    let mut new_index = vec![0; n];
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

#[cfg(test)]
mod tests {
    use crate::plan::Plan;
    use rafle_probe::draughts::Variant;
    use std::path::Path;

    #[test]
    fn every_material_comes_after_those_it_reads_and_once() {
        for (variant, pieces) in [(Variant::Brazilian, 8), (Variant::International, 6)] {
            let plan = Plan::new(variant, pieces, Path::new("data")).unwrap();
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
    }

    /// The positions kept for later readers while the largest material is solved, and the
    /// most kept at any point, in the order of the plan and in the listing by pieces and men.
    #[test]
    fn brazilian_up_to_8_keeps_far_fewer_positions_than_the_listing() {
        let plan = Plan::new(Variant::Brazilian, 8, Path::new("data")).unwrap();
        let largest = (0..plan.materials.len())
            .max_by_key(|&j| plan.materials[j].positions)
            .unwrap();
        // (kept while the largest is solved, most kept at any point)
        let kept = |order: &[usize]| {
            let mut readers_left = vec![0usize; plan.materials.len()];
            for m in &plan.materials {
                for &d in &m.reads {
                    readers_left[d] += 1;
                }
            }
            let (mut kept, mut most, mut beside_largest) = (0u64, 0u64, 0u64);
            for &j in order {
                most = most.max(kept);
                if j == largest {
                    beside_largest = kept;
                }
                let m = &plan.materials[j];
                if readers_left[j] > 0 {
                    kept += m.positions;
                }
                for &d in &m.reads {
                    readers_left[d] -= 1;
                    if readers_left[d] == 0 {
                        kept -= plan.materials[d].positions;
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
