//! Solving one material slice by slice: distances to win and rule-aware values.
//!
//! A slice is the positions with the same men (both sides to move): a king move stays in it,
//! a man move leads to a slice whose men are one step closer to promotion, a capture or a
//! promotion to a material solved before. So the slices are solved in bands of equal
//! advancement (the men's total distance to promotion), the most advanced first: the slices of
//! a band are independent and solved in parallel, each on its own, from the values of finished
//! slices and materials in the [`Store`]. For each slice one pass generates every position's
//! moves and reads the values their moves out of the slice reach, which seeds two runs of the
//! [propagation engine](crate::solve::propagation): distances (levels are plies; docs/rules.md §5.2) and
//! rule-aware values (levels are counts up to the rule's limit; docs/rules.md §5.3: a move that
//! resets the counter reaches a position whose class alone matters, any other adds one to its
//! count; a king move never resets). What the rules leave undecided takes the class the
//! distance gives: a cursed win, a draw or a blessed loss.
//!
//! In a symmetric material (as many kings and men a side) the mirror image of a position (the
//! board turned, the colours swapped) is a position of the same material with the same value,
//! and the mirror images of a slice's positions make a slice of the same band. So of two such
//! slices only the first is solved; the other's values are copied, position by position, from
//! its mirror image's, which costs a rank where solving costs a move generation and the values
//! of every move out. A slice that is its own mirror image (every kings-only slice among them)
//! is solved whole.

pub(crate) mod bit_levels;
mod kings_only;
pub(crate) mod man_moves;
pub(crate) mod propagation;
mod seed;
pub(crate) mod store;

use std::ops::Range;

use rafle_probe::{
    draughts::{Category, Color, Limits, Role},
    toolkit::{KingSlice, PositionIndex, SliceMoves},
    Dtw, RuleClass, RuleValue,
};
use rayon::prelude::*;

use crate::solve::bit_levels::Bits;
use crate::solve::propagation::{Moves, Outcome, Propagation};
use crate::solve::store::Store;
use crate::work::bands::BandWriter;
use crate::work::seed_part::PartSeeds;
use crate::work::values::{
    distance, distance_code, FinishedBand, ValuesFile, CAPTURE, MAX_DISTANCE,
};
use crate::{GenerateError, NoProgress, Progress, UNITS_PER_POSITION};

pub(crate) use kings_only::{bits_working_bytes, seed_group_bytes, IN_BITS_ABOVE};

/// Positions past which a kings-only material is solved in bits: [`IN_BITS_ABOVE`], or every
/// kings-only material when the environment sets `RAFLE_KINGS_IN_BITS=1` (the tests compare
/// the two ways on small materials).
pub(crate) fn kings_in_bits_above() -> u64 {
    match std::env::var_os("RAFLE_KINGS_IN_BITS") {
        Some(v) if v == "1" => 0,
        _ => IN_BITS_ABOVE,
    }
}

/// Positions seeded per unit of parallel work.
pub(crate) const CHUNK: u64 = 1 << 12;

/// Slices of fewer positions than this are solved in groups of about this many positions (one
/// unit of parallel work, one progress report).
const GROUP_POSITIONS: u64 = 1 << 14;

/// Slices up to this many positions seed distances and rule values in one pass over their
/// moves; larger ones (kings-only materials) make a pass for each, so that only one
/// propagation's state (4 bytes a position) is held at a time.
pub(crate) const TOGETHER: u64 = 1 << 26;

/// The men placements of a material in the order their slices are solved: bands of equal
/// advancement, the most advanced first, each in index order.
pub(crate) fn bands(index: &PositionIndex) -> Vec<Vec<u64>> {
    let mut by_distance: std::collections::BTreeMap<u32, Vec<u64>> = Default::default();
    for men in 0..index.men_placements() {
        let slice = index.slice(men);
        by_distance
            .entry(promotion_distance(index, &slice))
            .or_default()
            .push(men);
    }
    by_distance.into_values().collect()
}

/// The checksum `values` holds now for the slices of `band` (men placements), as
/// [`MaterialSolver::solve_band`] returned it when it wrote them: a band is trusted by a resumed
/// run only if the two agree.
pub(crate) fn band_checksum(index: &PositionIndex, values: &ValuesFile, band: &[u64]) -> u64 {
    band.par_iter()
        .map(|&men| slice_checksum(index, values, &index.slice(men)))
        .reduce(|| 0, u64::wrapping_add)
}

/// The checksum of a slice's two halves (one a side to move) in the work file.
fn slice_checksum(index: &PositionIndex, values: &ValuesFile, slice: &KingSlice) -> u64 {
    let kings = index.king_placements();
    u64::from(values.checksum(slice.global(0), kings))
        + u64::from(values.checksum(slice.global(kings), kings))
}

/// Plies the men of a slice need, all together, to reach their promotion rows.
fn promotion_distance(index: &PositionIndex, slice: &KingSlice) -> u32 {
    let v = index.variant();
    let last_row = u32::from(v.board_size()) - 1;
    let pos = slice.position(0);
    let white: u32 = pos
        .pieces(Color::White, Role::Man)
        .into_iter()
        .map(|sq| u32::from(sq.row(v)))
        .sum();
    let black: u32 = pos
        .pieces(Color::Black, Role::Man)
        .into_iter()
        .map(|sq| last_row - u32::from(sq.row(v)))
        .sum();
    white + black
}

/// The men placement of the slice of a symmetric material whose positions are the mirror
/// images of `slice`'s (the board turned and the colours swapped).
fn mirror_men(index: &PositionIndex, slice: &KingSlice) -> u64 {
    let global = index.rank(&slice.position(0).mirrored());
    global / index.king_placements() % index.men_placements()
}

/// `codes` and `rule_codes` cut into the consecutive `ranges` that cover them.
fn split_by<'c>(
    ranges: &'c [Range<u64>],
    mut codes: &'c mut [u16],
    mut rule_codes: &'c mut [u8],
) -> Vec<(&'c Range<u64>, &'c mut [u16], &'c mut [u8])> {
    ranges
        .iter()
        .map(|range| {
            let len = (range.end - range.start) as usize;
            let (c, rest) = std::mem::take(&mut codes).split_at_mut(len);
            codes = rest;
            let (r, rest) = std::mem::take(&mut rule_codes).split_at_mut(len);
            rule_codes = rest;
            (range, c, r)
        })
        .collect()
}

/// What solving a material needs: its index, the values it reads, where its own go, and the
/// draw-rule limit of its category.
pub(crate) struct MaterialSolver<'a> {
    pub(crate) index: &'a PositionIndex,
    /// Every material a move can reach, this one included (for its finished slices).
    pub(crate) store: &'a Store,
    /// This material's work file (none for a seed part, which writes its own file, or for a
    /// material solved into band files).
    values: Option<&'a ValuesFile>,
    /// The band file the band being solved goes to, for a material solved into band files.
    bands: Option<&'a BandWriter>,
    category: Category,
    limit: u8,
    /// Whether the rule-aware values are solved (else only win, draw or loss: the distance
    /// codes written then hold no true distance, and every rule code is 0).
    rules: bool,
    /// Whether the material is its own mirror image (as many kings and men a side), so that
    /// each slice's mirror image is a slice of the same band with the same values.
    symmetric: bool,
    /// Resident memory past which the pages of the work files are given back.
    release_at: u64,
    /// Positions past which a kings-only material is solved in bits ([`kings_only`]).
    kings_in_bits_above: u64,
    /// The seed parts of a kings-only material seeded in parts, when it is solved from them
    /// ([`kings_only`]).
    seed_parts: Option<PartSeeds>,
}

impl<'a> MaterialSolver<'a> {
    pub(crate) fn new(
        index: &'a PositionIndex,
        store: &'a Store,
        values: &'a ValuesFile,
        limits: Limits,
        rules: bool,
    ) -> MaterialSolver<'a> {
        MaterialSolver::with_work_file(index, store, Some(values), limits, rules)
    }

    /// A solver of one band of a material solved into band files, writing to `writer`.
    pub(crate) fn banded(
        index: &'a PositionIndex,
        store: &'a Store,
        writer: &'a BandWriter,
        limits: Limits,
        rules: bool,
    ) -> MaterialSolver<'a> {
        MaterialSolver {
            bands: Some(writer),
            ..MaterialSolver::with_work_file(index, store, None, limits, rules)
        }
    }

    /// A solver that only seeds a part of a kings-only material ([`MaterialSolver::seed_part`]):
    /// it has no work file.
    pub(crate) fn for_seed_part(
        index: &'a PositionIndex,
        store: &'a Store,
        limits: Limits,
        rules: bool,
    ) -> MaterialSolver<'a> {
        MaterialSolver {
            kings_in_bits_above: 0,
            ..MaterialSolver::with_work_file(index, store, None, limits, rules)
        }
    }

    fn with_work_file(
        index: &'a PositionIndex,
        store: &'a Store,
        values: Option<&'a ValuesFile>,
        limits: Limits,
        rules: bool,
    ) -> MaterialSolver<'a> {
        let category = Category::of(index.variant(), index.material());
        MaterialSolver {
            index,
            store,
            values,
            bands: None,
            category,
            limit: limits.of(category),
            rules,
            symmetric: index.material().is_symmetric(),
            release_at: u64::MAX,
            kings_in_bits_above: kings_in_bits_above(),
            seed_parts: None,
        }
    }

    /// The same solver taking the seeds of its kings-only material from `parts`, every part
    /// of it, instead of seeding it.
    pub(crate) fn with_seed_parts(self, parts: PartSeeds) -> MaterialSolver<'a> {
        MaterialSolver {
            seed_parts: Some(parts),
            kings_in_bits_above: 0,
            ..self
        }
    }

    /// This material's work file.
    fn values(&self) -> &'a ValuesFile {
        self.values
            .expect("only a seed part's solver has no work file")
    }

    /// The same solver giving back the pages of the work files it has read or written
    /// whenever the process's resident memory passes `bytes`.
    pub(crate) fn releasing_past(self, bytes: u64) -> MaterialSolver<'a> {
        MaterialSolver {
            release_at: bytes,
            ..self
        }
    }

    /// Gives the pages of the work files back if resident memory is past its mark, and the
    /// allocator's free memory (at most once a second). Checked after every slice (or group of
    /// small ones), not only between bands: a band of a large material reads more of its own
    /// work file (the slices its men's moves reach) than the budget leaves room for. What is
    /// given back stays in the system's cache and the file.
    fn keep_within_budget(&self) {
        match crate::memory::past_mark(self.release_at) {
            Some(true) => self.store.release(),
            Some(false) => {}
            None => return,
        }
        // Blocks the cache dropped leave free memory in the allocator's arenas.
        self.store.trim();
    }

    /// Solves the slices of one band and writes them to the work file. Returns the longest
    /// win found and the band's checksum in the work file (see [`band_checksum`]).
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if the work file cannot be written, as [`Store::value`] if the
    /// values of a finished material cannot be read, and [`GenerateError::ImpossibleValue`]
    /// if those values give a distance past the longest a work file holds.
    pub(crate) fn solve_band(
        &self,
        band: &[u64],
        progress: &dyn Progress,
    ) -> Result<FinishedBand, GenerateError> {
        let n = 2 * self.index.king_placements();
        // Materials of many men have millions of slices of a few positions: solved one by one
        // in a group, with progress reported once for the group.
        let grouped = n < GROUP_POSITIONS;
        let group = (GROUP_POSITIONS / n).max(1) as usize;
        let slice_progress: &dyn Progress = if grouped { &NoProgress } else { progress };
        band.par_chunks(group)
            .map(|slices| {
                let mut done = FinishedBand::default();
                for &men in slices {
                    done = done.and(self.solve_pair(men, slice_progress)?);
                }
                if grouped {
                    progress.advance(UNITS_PER_POSITION * n * slices.len() as u64);
                }
                self.keep_within_budget();
                Ok(done)
            })
            .try_reduce(FinishedBand::default, |a, b| Ok(a.and(b)))
    }

    /// Solves the slice of men placement `men` and writes it; in a symmetric material, writes
    /// its mirror image's slice too (the board turned and the colours swapped: every value the
    /// same), unless that slice comes first, which does this one's. Returns the longest win
    /// found and the checksum of what was written.
    fn solve_pair(&self, men: u64, progress: &dyn Progress) -> Result<FinishedBand, GenerateError> {
        let slice = self.index.slice(men);
        if self.index.material().men() == 0 && slice.len() > self.kings_in_bits_above {
            return self.solve_kings_only(&slice, progress);
        }
        let image = self.symmetric.then(|| mirror_men(self.index, &slice));
        if image.is_some_and(|image| image < men) {
            return Ok(FinishedBand::default());
        }
        let (longest, codes, rule_codes) = self.solve_slice(&slice, progress)?;
        let mut checksum = self.write_slice(&slice, &codes, &rule_codes)?;
        if let Some(image) = image.filter(|&image| image != men) {
            let image = self.index.slice(image);
            let (codes, rule_codes) = self.mirror_values(&slice, &image, &codes, &rule_codes);
            checksum = checksum.wrapping_add(self.write_slice(&image, &codes, &rule_codes)?);
            progress.advance(3 * image.len());
        }
        Ok(FinishedBand { longest, checksum })
    }

    /// The values of slice `image`, the mirror image of `slice`, whose values are `codes` and
    /// `rule_codes`: each position's are those of its mirror image.
    fn mirror_values(
        &self,
        slice: &KingSlice,
        image: &KingSlice,
        codes: &[u16],
        rule_codes: &[u8],
    ) -> (Vec<u16>, Vec<u8>) {
        let n = image.len() as usize;
        let mut image_codes = vec![0; n];
        let mut image_rule_codes = vec![0; n];
        let ranges = self.ranges(n as u64);
        let fill = |(range, codes_out, rules_out): (&Range<u64>, &mut [u16], &mut [u8])| {
            let mut cursor = self.index.cursor(image.global(range.start));
            for (code, rule) in codes_out.iter_mut().zip(rules_out.iter_mut()) {
                let y = slice.local_rank(&cursor.position().mirrored()) as usize;
                cursor.advance();
                *code = codes[y];
                *rule = rule_codes[y];
            }
        };
        let parts = split_by(&ranges, &mut image_codes, &mut image_rule_codes);
        if n as u64 <= CHUNK {
            parts.into_iter().for_each(&fill);
        } else {
            parts.into_par_iter().for_each(fill);
        }
        (image_codes, image_rule_codes)
    }

    /// Writes the values of a slice to the work file. Returns their checksum there, as
    /// [`slice_checksum`] finds it.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if the work file cannot be written.
    fn write_slice(
        &self,
        slice: &KingSlice,
        codes: &[u16],
        rule_codes: &[u8],
    ) -> Result<u64, GenerateError> {
        let kings = self.index.king_placements();
        let half = kings as usize;
        if let Some(writer) = self.bands {
            let first = writer.write_half(slice.global(0), &codes[..half], &rule_codes[..half])?;
            let second =
                writer.write_half(slice.global(kings), &codes[half..], &rule_codes[half..])?;
            return Ok(u64::from(first) + u64::from(second));
        }
        let first =
            self.values()
                .write_range(slice.global(0), &codes[..half], &rule_codes[..half])?;
        let second =
            self.values()
                .write_range(slice.global(kings), &codes[half..], &rule_codes[half..])?;
        Ok(u64::from(first) + u64::from(second))
    }

    /// Ranges of the local numbers of a slice of `n` positions, one unit of parallel work
    /// each, that each lie in one half (one side to move).
    fn ranges(&self, n: u64) -> Vec<Range<u64>> {
        let kings = self.index.king_placements();
        (0..n.div_ceil(CHUNK))
            .flat_map(|c| {
                let range = c * CHUNK..((c + 1) * CHUNK).min(n);
                if range.start < kings && range.end > kings {
                    vec![range.start..kings, kings..range.end]
                } else {
                    vec![range]
                }
            })
            .collect()
    }

    /// The error for a distance the codes cannot hold: only values read wrong (the
    /// successors' files damaged past their checksums) can give one.
    #[cold]
    fn past_longest(&self, deepest: u16) -> GenerateError {
        GenerateError::ImpossibleValue {
            variant: self.index.variant(),
            material: self.index.material(),
            path: match self.bands {
                Some(writer) => writer.path().to_path_buf(),
                None => self.values().path().to_path_buf(),
            },
            detail: format!(
                "a distance of {deepest} plies, past the longest a work file holds \
                 ({MAX_DISTANCE}), solved from the values of the positions it reaches"
            ),
        }
    }

    /// Solves one slice, reporting its progress as it goes. Returns the longest win found, and
    /// the slice's distance and rule codes in its local numbering.
    fn solve_slice(
        &self,
        slice: &KingSlice,
        progress: &dyn Progress,
    ) -> Result<(u16, Vec<u16>, Vec<u8>), GenerateError> {
        let n = slice.len();
        let moves = slice.king_moves();
        let captures = Bits::new(n);
        let together = n <= TOGETHER;
        let mut distances = Propagation::with_len(n as usize);
        let rules = (self.rules && together).then(|| Propagation::with_len(n as usize));
        self.seed_slice(slice, &captures, Some(&distances), rules.as_ref())?;
        progress.advance(n);
        distances.run(&moves, u16::MAX);
        let (mut longest, mut deepest) = (0, 0);
        let codes: Vec<u16> = (0..n as usize)
            .map(|x| {
                let dtw = match distances.outcome(x) {
                    Outcome::Won(d) => {
                        longest = longest.max(d);
                        Dtw::Win(d)
                    }
                    Outcome::Lost(d) => {
                        deepest = deepest.max(d);
                        Dtw::Loss(d)
                    }
                    Outcome::Undecided => Dtw::Draw,
                };
                distance_code(dtw)
                    | if captures.contains(x as u64) {
                        CAPTURE
                    } else {
                        0
                    }
            })
            .collect();
        // Only values read wrong (the successors' files damaged past their checksums) can
        // give a distance the codes cannot hold: never written as if it were one.
        let deepest = deepest.max(longest);
        if deepest > MAX_DISTANCE {
            return Err(self.past_longest(deepest));
        }
        drop(distances);
        progress.advance(n);
        let rule_codes = if self.rules {
            let mut rules = match rules {
                Some(rules) => rules,
                None => {
                    let rules = Propagation::with_len(n as usize);
                    self.seed_slice(slice, &captures, None, Some(&rules))?;
                    rules
                }
            };
            rules.run(&moves, u16::from(self.limit));
            (0..n as usize)
                .map(|x| rule_code(Some(rules.outcome(x)), codes[x]))
                .collect()
        } else {
            vec![0; n as usize]
        };
        progress.advance(n);
        Ok((longest, codes, rule_codes))
    }
}

/// The rule code of a position whose rule propagation gave `outcome` (`None`: undecided) and
/// whose distance code is `code`: what the rules leave undecided takes the class the
/// distance gives.
fn rule_code(outcome: Option<Outcome>, code: u16) -> u8 {
    let value = match outcome {
        // Counts never pass the limit, a u8.
        Some(Outcome::Won(c)) => RuleValue::win(c as u8),
        Some(Outcome::Lost(c)) => RuleValue::loss(c as u8),
        Some(Outcome::Undecided) | None => {
            RuleValue::uncounted(RuleClass::not_forced(distance(code).wdl()))
        }
    };
    value.code()
}

impl Moves for SliceMoves {
    #[inline]
    fn for_each_predecessor(&self, x: u32, mut f: impl FnMut(u32)) {
        SliceMoves::for_each_predecessor(self, u64::from(x), |p| f(p as u32));
    }

    #[inline]
    fn for_each_successor(&self, x: u32, mut f: impl FnMut(u32)) {
        SliceMoves::for_each_successor(self, u64::from(x), |s| f(s as u32));
    }
}

#[cfg(test)]
mod tests {
    use rafle_probe::{
        draughts::{Material, Variant},
        toolkit::PositionIndex,
    };

    use super::*;

    /// What pairing slices rests on: in a symmetric material, a slice's mirror image is a slice
    /// of the same band, whose own mirror image is the first, and every position of one is the
    /// mirror image of a position of the other.
    #[test]
    fn the_mirror_image_of_a_slice_is_a_slice_of_its_band() {
        for (variant, name) in [
            (Variant::Brazilian, "KMvKM"),
            (Variant::Brazilian, "KMMvKMM"),
            (Variant::International, "MMvMM"),
        ] {
            let index = PositionIndex::new(variant, name.parse::<Material>().unwrap());
            let mut paired = 0;
            for band in bands(&index) {
                for &men in &band {
                    let slice = index.slice(men);
                    let image = mirror_men(&index, &slice);
                    assert!(band.contains(&image), "{name}: slice {men} and {image}");
                    assert_eq!(mirror_men(&index, &index.slice(image)), men, "{name}");
                    if image == men {
                        continue;
                    }
                    paired += 1;
                    let image = index.slice(image);
                    for x in (0..slice.len()).step_by(7) {
                        let mirrored = slice.position(x).mirrored();
                        let y = image.local_rank(&mirrored);
                        assert_eq!(image.position(y), mirrored, "{name}: slice {men}, {x}");
                    }
                }
            }
            assert!(paired > 0, "{name}: no slice paired");
        }
    }
}

#[cfg(test)]
mod impossible {
    use rafle_probe::{
        draughts::{Limits, Material, Variant},
        toolkit::PositionIndex,
        RuleValue,
    };

    use super::*;
    use crate::solve::store::Store;
    use crate::work::packed::{self, PackedValues};
    use crate::work::values::Kept;

    /// The report of a win of 32,767 plies (`internal error at generator/src/solve.rs`): values
    /// read wrong give a distance past the longest a work file holds, which stops the run with
    /// an error naming the material, not a panic and never a value written.
    #[test]
    fn a_distance_past_the_longest_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let v = Variant::Brazilian;
        let (kvk, kkvk): (Material, Material) = ("KvK".parse().unwrap(), "KKvK".parse().unwrap());
        // KvK's values forged with valid checksums: every position lost in 32,766 plies (a
        // loss the longest a work file holds). A capture in KKvK reaches it, and wins in one
        // more ply than any work file holds.
        let kvk_index = PositionIndex::new(v, kvk);
        let packed_path = dir.path().join("KvK.packed");
        let n = kvk_index.size();
        packed::write(&packed_path, "forged", n, Kept::Full, |_, len| {
            Ok((
                vec![MAX_DISTANCE; len],
                vec![RuleValue::loss(0).code(); len],
            ))
        })
        .unwrap();
        let mut store = Store::new(64 << 20);
        store.insert_packed(
            kvk_index,
            PackedValues::open(&packed_path, "forged", n, Kept::Full).unwrap(),
        );
        let index = PositionIndex::new(v, kkvk);
        let partial = dir.path().join("KKvK.partial");
        let values = ValuesFile::open(&partial, index.size(), true, Kept::Full).unwrap();
        let solver = MaterialSolver::new(&index, &store, &values, Limits::fmjd(v), true);
        let band = &bands(&index)[0];
        let err = solver.solve_band(band, &NoProgress).unwrap_err();
        assert!(
            matches!(&err, GenerateError::ImpossibleValue { material, path, .. }
                if *material == kkvk && *path == partial),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("past the longest a work file holds"),
            "{err}"
        );
    }
}
