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

use super::MaterialPlan;
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
    use crate::work::sides::Sides;
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
