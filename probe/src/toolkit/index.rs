//! A perfect index of the positions of one material: a bijection between the positions (both
//! sides to move) and `0..size`.
//!
//! Squares are counted 0-based by number (square `n` is bit `n - 1`). From the most significant
//! part down, an index is made of: the side to move; the men (White's men as a combination of
//! the squares off White's promotion row, then Black's men as a combination of the squares off
//! Black's promotion row that White's men leave free, joined by a table of offsets because that
//! count depends on White's men); White's kings as a combination of the squares the men leave
//! free; Black's kings as a combination of the squares left after that. Combinations are ranked
//! in the combinatorial number system (colex order).

mod cursor;

pub use cursor::IndexCursor;

use std::sync::OnceLock;

use crate::{Color, Material, Position, Role, SliceMoves, Variant};

/// Most pieces of one kind a table can hold.
const MAX_K: usize = 12;

/// Binomial coefficients `C(n, k)` for `n < 64`, `k <= MAX_K`.
static BINOMIAL: [[u64; MAX_K + 1]; 64] = binomials();

const fn binomials() -> [[u64; MAX_K + 1]; 64] {
    let mut table = [[0u64; MAX_K + 1]; 64];
    let mut n = 0;
    while n < 64 {
        table[n][0] = 1;
        let mut k = 1;
        while k <= MAX_K {
            table[n][k] = if n == 0 {
                0
            } else {
                table[n - 1][k - 1] + table[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    table
}

/// The binomial coefficient `C(n, k)`, for `n < 64` and `k <= 12`: the indexes rank
/// combinations of squares with these (colex order), and code that ranks positions its own way
/// (the verifier) must agree with them.
///
/// # Panics
///
/// If `n >= 64` or `k > 12`.
#[inline]
pub fn binomial(n: u32, k: u32) -> u64 {
    BINOMIAL[n as usize][k as usize]
}

#[inline]
fn below(bit: u32) -> u64 {
    (1u64 << bit) - 1
}

/// Colex rank of a set of positions (bits of `set`, already squeezed to 0-based slots).
#[inline]
pub(crate) fn rank_set(mut set: u64) -> u64 {
    let mut rank = 0;
    let mut i = 1;
    while set != 0 {
        rank += binomial(set.trailing_zeros(), i);
        set &= set - 1;
        i += 1;
    }
    rank
}

/// The `k`-set of slots with colex rank `rank`.
#[inline]
pub(crate) fn unrank_set(mut rank: u64, k: u32, slots: u32) -> u64 {
    let mut set = 0;
    let mut top = slots;
    for i in (1..=k).rev() {
        // The two last elements, found directly: C(c, 1) = c, and C(c, 2) = c(c - 1)/2 <= rank
        // for c up to (1 + sqrt(1 + 8 rank))/2, exact in floating point at these sizes (the
        // loops only guard the rounding).
        if i == 1 {
            return set | 1 << rank;
        }
        if i == 2 {
            let mut c = ((1.0 + (1.0 + 8.0 * rank as f64).sqrt()) / 2.0) as u32;
            while c + 1 < top && binomial(c + 1, 2) <= rank {
                c += 1;
            }
            while binomial(c, 2) > rank {
                c -= 1;
            }
            rank -= binomial(c, 2);
            set |= 1 << c;
            top = c;
            continue;
        }
        // The largest c below `top` with C(c, i) <= rank, by binary search: C(c, i) grows
        // with c, and C(i - 1, i) = 0 <= rank always.
        let (mut lo, mut hi) = (i - 1, top - 1);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if binomial(mid, i) <= rank {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        rank -= binomial(lo, i);
        set |= 1 << lo;
        top = lo;
    }
    set
}

/// Sets a table of [`k_sets`] holds at most: 2¹⁸ (2 MiB), so the tables of a run stay small
/// while those of the kings of most slices fit.
const MAX_SETS_LISTED: u64 = 1 << 18;

/// Every `k`-set of `slots` slots in colex order (the order of their bits as numbers, which is
/// the order [`rank_set`] ranks), for `k` of at least 3 (fewer are unranked directly) and at
/// most [`MAX_SETS_LISTED`] sets: entry `r` is [`unrank_set`]`(r, k, slots)`, found by one
/// look-up instead of a search. Walking a slice's king moves back unranks every position it
/// reaches, and every slice of a material has the same number of slots, so each table is built
/// once (stepping from one set to the next) and kept for the process.
pub(crate) fn k_sets(k: u32, slots: u32) -> Option<&'static [u64]> {
    if k < 3 {
        return None;
    }
    static TABLES: [[OnceLock<Option<&'static [u64]>>; 64]; 13] =
        [const { [const { OnceLock::new() }; 64] }; 13];
    let table = TABLES.get(k as usize)?.get(slots as usize)?;
    *table.get_or_init(|| {
        let count = binomial(slots, k);
        if count == 0 || count > MAX_SETS_LISTED {
            return None;
        }
        let mut sets = Vec::with_capacity(count as usize);
        let mut set = below(k);
        sets.push(set);
        while (sets.len() as u64) < count {
            // The next number with as many bits set (Gosper's step).
            let lowest = set & set.wrapping_neg();
            let carried = set + lowest;
            set = (((carried ^ set) >> 2) / lowest) | carried;
            sets.push(set);
        }
        Some(&*Box::leak(sets.into_boxed_slice()))
    })
}

/// Unranks the `k`-sets of `slots` slots: by a look-up where [`k_sets`] lists them, else by
/// [`unrank_set`]'s search.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SetUnranker {
    listed: Option<&'static [u64]>,
    k: u32,
    slots: u32,
}

impl SetUnranker {
    pub(crate) fn new(k: u32, slots: u32) -> SetUnranker {
        SetUnranker {
            listed: k_sets(k, slots),
            k,
            slots,
        }
    }

    /// The set of colex rank `rank`: [`unrank_set`]`(rank, k, slots)`.
    #[inline(always)]
    pub(crate) fn unrank(&self, rank: u64) -> u64 {
        match self.listed {
            Some(sets) => sets[rank as usize],
            None => unrank_set(rank, self.k, self.slots),
        }
    }
}

/// Squeezes the squares of `set` past the occupied squares `occupied` (which `set` avoids).
#[inline]
pub(crate) fn squeeze(set: u64, occupied: u64) -> u64 {
    let mut rest = set;
    let mut out = 0;
    while rest != 0 {
        let bit = rest.trailing_zeros();
        rest &= rest - 1;
        out |= 1 << (bit - (occupied & below(bit)).count_ones());
    }
    out
}

/// The inverse of [`squeeze`]: slot `i` becomes the `i`-th square not in `occupied`.
#[inline]
pub(crate) fn unsqueeze(slots: u64, occupied: u64) -> u64 {
    let mut rest = slots;
    let mut out = 0;
    while rest != 0 {
        let slot = rest.trailing_zeros();
        rest &= rest - 1;
        out |= 1 << nth_zero(occupied, slot);
    }
    out
}

/// Position of the `n`-th (0-based) zero bit of `bits`, skipping whole bytes first.
#[inline]
fn nth_zero(bits: u64, mut n: u32) -> u32 {
    let free = !bits;
    let mut base = 0;
    loop {
        let byte = (free >> base) & 0xff;
        let count = byte.count_ones();
        if n < count {
            let mut b = byte;
            for _ in 0..n {
                b &= b - 1;
            }
            return base + b.trailing_zeros();
        }
        n -= count;
        base += 8;
    }
}

/// The index of one material of one variant.
#[derive(Debug, Clone)]
pub struct PositionIndex {
    variant: Variant,
    material: Material,
    /// Number of squares.
    squares: u32,
    /// Squares on one row.
    row: u32,
    /// `men_offsets[r]` = first men index of White's men configuration `r`; one extra entry.
    men_offsets: Vec<u64>,
    men_configs: u64,
    white_king_configs: u64,
    black_king_configs: u64,
    per_side: u64,
}

impl PositionIndex {
    /// The index of `material` (in the orientation given) on the variant's board.
    ///
    /// # Panics
    ///
    /// If a side has more than 12 pieces of one kind, or more men than squares for them.
    pub fn new(variant: Variant, material: Material) -> PositionIndex {
        let squares = u32::from(variant.square_count());
        let row = u32::from(variant.squares_per_row());
        let men_squares = squares - row;
        let (wm, bm) = (u32::from(material.white_men), u32::from(material.black_men));
        let (wk, bk) = (
            u32::from(material.white_kings),
            u32::from(material.black_kings),
        );
        assert!(
            wm.max(bm).max(wk).max(bk) as usize <= MAX_K,
            "too many pieces of one kind"
        );
        assert!(wm + bm + wk + bk <= squares, "more pieces than squares");
        let white_configs = binomial(men_squares, wm);
        let mut men_offsets = Vec::with_capacity(white_configs as usize + 1);
        let mut total = 0u64;
        for r in 0..white_configs {
            men_offsets.push(total);
            let white = unrank_set(r, wm, men_squares) << row;
            let blocking = (white & below(men_squares)).count_ones();
            total += binomial(men_squares - blocking, bm);
        }
        men_offsets.push(total);
        let free = squares - wm - bm;
        let white_king_configs = binomial(free, wk);
        let black_king_configs = binomial(free - wk, bk);
        let per_side = total * white_king_configs * black_king_configs;
        PositionIndex {
            variant,
            material,
            squares,
            row,
            men_offsets,
            men_configs: total,
            white_king_configs,
            black_king_configs,
            per_side,
        }
    }

    /// Number of positions of a material, both sides to move, without building its index.
    ///
    /// White's men split between the row Black's men cannot use (Black's promotion row) and
    /// the rows both can; Black's men then choose among their squares left free.
    pub fn count(variant: Variant, material: Material) -> u64 {
        let squares = u32::from(variant.square_count());
        let row = u32::from(variant.squares_per_row());
        let (wm, bm) = (u32::from(material.white_men), u32::from(material.black_men));
        let (wk, bk) = (
            u32::from(material.white_kings),
            u32::from(material.black_kings),
        );
        if wm + bm + wk + bk > squares || wm.max(bm).max(wk).max(bk) as usize > MAX_K {
            return 0;
        }
        let shared = squares - 2 * row;
        let men: u64 = (0..=wm.min(row))
            .filter(|&own_row| wm - own_row <= shared)
            .map(|own_row| {
                binomial(row, own_row)
                    * binomial(shared, wm - own_row)
                    * binomial(squares - row - (wm - own_row), bm)
            })
            .sum();
        let free = squares - wm - bm;
        2 * men * binomial(free, wk) * binomial(free - wk, bk)
    }

    /// Number of placements of the men, for one side to move.
    pub fn men_placements(&self) -> u64 {
        self.men_configs
    }

    /// Number of placements of the kings around one placement of the men. Indices run through
    /// the side to move, then the men, then the kings: the positions with the same men and side
    /// to move are the consecutive indices from `(side * men_placements() + men) *
    /// king_placements()`, side 0 being White.
    pub fn king_placements(&self) -> u64 {
        self.white_king_configs * self.black_king_configs
    }

    /// Number of positions, both sides to move.
    pub fn size(&self) -> u64 {
        2 * self.per_side
    }

    /// The material indexed.
    pub fn material(&self) -> Material {
        self.material
    }

    /// The variant indexed.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The index of a position of this material (in this orientation).
    ///
    /// # Panics
    ///
    /// May panic or return a wrong index if the position's material or variant differ; check
    /// with [`Material::of`] first.
    pub fn rank(&self, pos: &Position) -> u64 {
        debug_assert_eq!(Material::of(pos), self.material);
        let white_men = pos.numbered_bits(Color::White, Role::Man);
        let black_men = pos.numbered_bits(Color::Black, Role::Man);
        let white_kings = pos.numbered_bits(Color::White, Role::King);
        let black_kings = pos.numbered_bits(Color::Black, Role::King);
        let men = self.men_placement(white_men, black_men);
        self.slice_start(pos.turn() == Color::Black, men)
            + self.king_placement(white_men | black_men, white_kings, black_kings)
    }

    /// The men placement (see [`PositionIndex::slice_start`]) of White's and Black's men, given
    /// as numbered bitboards (square `n` at bit `n - 1`) of this material's counts, off their
    /// promotion rows.
    #[inline]
    pub fn men_placement(&self, white_men: u64, black_men: u64) -> u64 {
        let white_rank = rank_set(white_men >> self.row);
        let black_rank = rank_set(squeeze(black_men, white_men));
        self.men_offsets[white_rank as usize] + black_rank
    }

    /// The place of the kings among the positions of one men placement and side to move
    /// (`0..king_placements()`): White's and Black's kings around the men `men`, all given as
    /// numbered bitboards. A position's index is its slice start plus this.
    #[inline]
    pub fn king_placement(&self, men: u64, white_kings: u64, black_kings: u64) -> u64 {
        let wk = rank_set(squeeze(white_kings, men));
        let bk = rank_set(squeeze(black_kings, men | white_kings));
        wk * self.black_king_configs + bk
    }

    /// The position with index `index`.
    ///
    /// # Panics
    ///
    /// If `index >= self.size()`.
    pub fn unrank(&self, index: u64) -> Position {
        assert!(index < self.size(), "index {index} past the table");
        self.cursor(index).position()
    }

    /// The first index of the positions with men placement `men` and the given side to move:
    /// the [`KingSlice`] of `men` is this range and the one of the other side to move.
    pub fn slice_start(&self, black_to_move: bool, men: u64) -> u64 {
        (u64::from(black_to_move) * self.men_configs + men) * self.king_placements()
    }

    /// The men placement of index `index`.
    pub fn men_of(&self, index: u64) -> u64 {
        (index / self.king_placements()) % self.men_configs
    }

    /// The positions with men placement `men` (both sides to move), which differ only in where
    /// the kings stand.
    ///
    /// # Panics
    ///
    /// If `men >= self.men_placements()`.
    pub fn slice(&self, men: u64) -> KingSlice<'_> {
        assert!(men < self.men_configs, "men placement {men} past the index");
        let (white_men, black_men) = self.men_bits(men);
        KingSlice {
            index: self,
            men,
            white_men,
            black_men,
        }
    }

    /// White's kings (numbered bitboard) of king part `rank` around the men `men_all`.
    fn white_kings_bits(&self, rank: u64, men_all: u64) -> u64 {
        let free = self.squares - men_all.count_ones();
        unsqueeze(
            unrank_set(rank, u32::from(self.material.white_kings), free),
            men_all,
        )
    }

    /// The position with these men and White's kings (numbered bitboards) and Black's kings of
    /// king part `black_rank`.
    fn assemble(
        &self,
        black_to_move: bool,
        (white_men, black_men): (u64, u64),
        white_kings: u64,
        black_rank: u64,
    ) -> Position {
        let taken = white_men | black_men | white_kings;
        let black_kings = unsqueeze(
            unrank_set(
                black_rank,
                u32::from(self.material.black_kings),
                self.squares - taken.count_ones(),
            ),
            taken,
        );
        let turn = if black_to_move {
            Color::Black
        } else {
            Color::White
        };
        Position::from_numbered_bits(
            self.variant,
            turn,
            white_men,
            white_kings,
            black_men,
            black_kings,
        )
        .expect("every index names a valid position")
    }

    fn men_bits(&self, men: u64) -> (u64, u64) {
        let m = &self.material;
        let white_rank = self.men_offsets.partition_point(|&o| o <= men) - 1;
        let black_rank = men - self.men_offsets[white_rank];
        let men_squares = self.squares - self.row;
        let white_men =
            unrank_set(white_rank as u64, u32::from(m.white_men), men_squares) << self.row;
        let blocking = (white_men & below(men_squares)).count_ones();
        let black_slots = unrank_set(black_rank, u32::from(m.black_men), men_squares - blocking);
        (white_men, unsqueeze(black_slots, white_men))
    }
}

/// The positions of one material with the same men (a men placement), both sides to move:
/// king moves stay among them. Their local numbers run through White to move, then Black to
/// move, each in index order.
#[derive(Debug, Clone)]
pub struct KingSlice<'a> {
    index: &'a PositionIndex,
    men: u64,
    /// Numbered bitboards of the men.
    white_men: u64,
    black_men: u64,
}

impl KingSlice<'_> {
    /// The men placement.
    pub fn men(&self) -> u64 {
        self.men
    }

    /// Number of positions, both sides to move.
    pub fn len(&self) -> u64 {
        2 * self.index.king_placements()
    }

    /// Whether the slice has no position (never: every placement has both sides to move).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The index in the whole material of local position `local`.
    pub fn global(&self, local: u64) -> u64 {
        let kings = self.index.king_placements();
        self.index.slice_start(local >= kings, self.men) + local % kings
    }

    /// The men as numbered bitboards: White's, Black's.
    pub fn men_bits(&self) -> (u64, u64) {
        (self.white_men, self.black_men)
    }

    /// The position at local number `local`.
    pub fn position(&self, local: u64) -> Position {
        let index = self.index;
        let kings = index.king_placements();
        let (side, part) = (local / kings, local % kings);
        let men_all = self.white_men | self.black_men;
        let white_kings = index.white_kings_bits(part / index.black_king_configs, men_all);
        index.assemble(
            side == 1,
            (self.white_men, self.black_men),
            white_kings,
            part % index.black_king_configs,
        )
    }

    /// The king moves of the slice, walked backwards in its local numbering.
    pub fn king_moves(&self) -> SliceMoves {
        let index = self.index;
        let m = index.material;
        SliceMoves::new(
            index.variant,
            self.white_men | self.black_men,
            (u32::from(m.white_kings), u32::from(m.black_kings)),
            index.black_king_configs,
            index.king_placements(),
        )
    }

    /// The local number of a position with these men (and this material).
    pub fn local_rank(&self, pos: &Position) -> u64 {
        let index = self.index;
        let men_all = self.white_men | self.black_men;
        let white_kings = pos.numbered_bits(Color::White, Role::King);
        let black_kings = pos.numbered_bits(Color::Black, Role::King);
        debug_assert_eq!(
            pos.numbered_bits(Color::White, Role::Man) | pos.numbered_bits(Color::Black, Role::Man),
            men_all
        );
        let side = u64::from(pos.turn() == Color::Black);
        side * index.king_placements() + index.king_placement(men_all, white_kings, black_kings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colex_round_trip() {
        for k in 0..4 {
            for r in 0..binomial(10, k) {
                let set = unrank_set(r, k, 10);
                assert_eq!(set.count_ones(), k);
                assert_eq!(rank_set(set), r);
            }
        }
        // Every set of up to three of the 50 squares of the large board: the direct step for
        // the last two elements over its whole range.
        for k in 1..4 {
            for r in 0..binomial(50, k) {
                let set = unrank_set(r, k, 50);
                assert!(set.count_ones() == k && set < 1 << 50, "{k} {r}");
                assert_eq!(rank_set(set), r, "{k} {r}");
            }
        }
    }

    #[test]
    fn listed_sets_are_the_unranked_ones() {
        for (k, slots) in [(3, 3), (3, 28), (4, 30), (4, 46), (5, 28), (6, 22)] {
            let sets = k_sets(k, slots).expect("small enough to list");
            assert_eq!(sets.len() as u64, binomial(slots, k));
            for (r, &set) in sets.iter().enumerate() {
                assert_eq!(
                    set,
                    unrank_set(r as u64, k, slots),
                    "{k} of {slots}, rank {r}"
                );
            }
            // The same table the next time.
            assert!(std::ptr::eq(sets, k_sets(k, slots).unwrap()));
        }
        // Too many to list (C(50, 5) = 2,118,760), none, or unranked directly.
        assert_eq!(k_sets(5, 50), None);
        assert_eq!(k_sets(4, 3), None);
        assert_eq!(k_sets(2, 30), None);
        // Listed or searched, the same sets.
        for (k, slots) in [(2, 30), (4, 30), (5, 50)] {
            let unranker = SetUnranker::new(k, slots);
            for r in (0..binomial(slots, k)).step_by(997) {
                assert_eq!(
                    unranker.unrank(r),
                    unrank_set(r, k, slots),
                    "{k} of {slots}"
                );
            }
        }
    }

    #[test]
    fn squeeze_round_trip() {
        let occupied = 0b1011_0010;
        let set = 0b0100_0101;
        assert_eq!(unsqueeze(squeeze(set, occupied), occupied), set);
    }

    /// unrank(rank(p)) = p and rank(unrank(i)) = i over whole small materials.
    #[test]
    fn bijective_over_whole_materials() {
        for variant in Variant::ALL {
            for material in Material::all_up_to(variant, 3) {
                for m in [material, material.mirrored()] {
                    let index = PositionIndex::new(variant, m);
                    let mut seen = std::collections::HashSet::new();
                    for i in 0..index.size() {
                        let pos = index.unrank(i);
                        assert_eq!(Material::of(&pos), m);
                        assert_eq!(index.rank(&pos), i, "{variant} {m} {pos:?}");
                        assert!(seen.insert(pos));
                    }
                }
            }
        }
    }

    /// The size is the number of legal placements: counted by brute force for 2 men.
    #[test]
    fn size_counts_every_placement() {
        let v = Variant::International;
        let m: Material = "MvM".parse().unwrap();
        // White man on 6..50, black man on 1..45, not the same square.
        let brute = (6..=50u32)
            .flat_map(|w| (1..=45u32).map(move |b| (w, b)))
            .filter(|(w, b)| w != b)
            .count();
        assert_eq!(PositionIndex::new(v, m).size(), 2 * brute as u64);
    }

    #[test]
    fn count_without_building() {
        for v in Variant::ALL {
            for m in Material::all_up_to(v, 4) {
                for m in [m, m.mirrored()] {
                    assert_eq!(
                        PositionIndex::count(v, m),
                        PositionIndex::new(v, m).size(),
                        "{v} {m}"
                    );
                }
            }
        }
    }
    #[test]
    fn slices_cover_their_men() {
        for name in ["KMvMM", "KKvK", "MMvK", "KKMvK"] {
            let index = PositionIndex::new(Variant::Brazilian, name.parse().unwrap());
            for men in [0, index.men_placements() / 2, index.men_placements() - 1] {
                let slice = index.slice(men);
                for local in (0..slice.len()).step_by(7) {
                    let pos = slice.position(local);
                    let global = slice.global(local);
                    assert_eq!(index.unrank(global), pos, "{name} {men} {local}");
                    assert_eq!(index.men_of(global), men);
                    assert_eq!(slice.local_rank(&pos), local);
                }
            }
        }
    }

    #[test]
    fn four_piece_samples_round_trip() {
        let v = Variant::International;
        for name in ["KMvMM", "MMvMM", "KKvKM", "KKKvK"] {
            let index = PositionIndex::new(v, name.parse().unwrap());
            let step = index.size() / 5000 + 1;
            for i in (0..index.size()).step_by(step as usize) {
                assert_eq!(index.rank(&index.unrank(i)), i);
            }
        }
    }
}
