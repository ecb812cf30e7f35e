//! Legal move generation: flying kings, compulsory majority capture, captured pieces staying on
//! the board as obstacles until the move ends, and one move per (from, to, captured set).

use std::fmt;
use std::ops::Deref;

use smallvec::SmallVec;

use crate::geometry::{nearest, Dir, Eight, Geometry, Ten};
use crate::{Color, Position, Square, SquareSet, Variant};

/// A legal move: where the piece starts, where it ends, and which pieces it captures.
///
/// Two capture paths with the same start, end and captured set are the same move (they lead to
/// the same position), as docs/rules.md §2 says.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    captured: u64,
    from: u8,
    to: u8,
    variant: Variant,
}

impl Move {
    #[inline]
    fn new(variant: Variant, from: u64, to: u64, captured: u64) -> Move {
        Move {
            captured,
            from: from.trailing_zeros() as u8,
            to: to.trailing_zeros() as u8,
            variant,
        }
    }

    /// The square the piece starts on.
    pub fn from(self) -> Square {
        Square::from_bit_index(self.variant, u32::from(self.from))
    }

    /// The square the piece ends on (the start square itself for a circular capture).
    pub fn to(self) -> Square {
        Square::from_bit_index(self.variant, u32::from(self.to))
    }

    /// The captured pieces' squares.
    pub fn captured(self) -> SquareSet {
        SquareSet::from_bits(self.variant, self.captured)
    }

    /// Whether the move captures.
    pub fn is_capture(self) -> bool {
        self.captured != 0
    }

    /// How many pieces the move captures.
    pub fn capture_count(self) -> u32 {
        self.captured.count_ones()
    }

    /// The variant of the position the move was generated in.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    pub(crate) fn origin_bit(self) -> u32 {
        u32::from(self.from)
    }

    pub(crate) fn target_bit(self) -> u32 {
        u32::from(self.to)
    }

    pub(crate) fn captured_bits(self) -> u64 {
        self.captured
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sep = if self.is_capture() { 'x' } else { '-' };
        write!(f, "{}{sep}{}", self.from(), self.to())?;
        if self.is_capture() {
            let captured: Vec<u8> = self.captured().into_iter().map(Square::number).collect();
            write!(f, " {captured:?}")?;
        }
        Ok(())
    }
}

/// The legal moves of a position, kept inline (no heap allocation) for all but freak positions.
#[derive(Clone, Default)]
pub struct MoveList(SmallVec<[Move; 96]>);

impl MoveList {
    /// An empty list.
    pub fn new() -> MoveList {
        MoveList(SmallVec::new())
    }

    #[inline]
    fn push(&mut self, mv: Move) {
        self.0.push(mv);
    }
}

impl Deref for MoveList {
    type Target = [Move];

    fn deref(&self) -> &[Move] {
        &self.0
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// Fills `list` (cleared first) with the legal moves of `pos`.
pub(crate) fn generate(pos: &Position, list: &mut MoveList) {
    list.0.clear();
    match pos.variant {
        Variant::International => {
            generate_for::<Ten, false>(pos, list);
        }
        Variant::Brazilian => {
            generate_for::<Eight, false>(pos, list);
        }
    }
}

/// Fills `list` (cleared first) with the legal moves of `pos` but the quiet moves of its kings,
/// and returns how many of those there are.
pub(crate) fn generate_counting_king_moves(pos: &Position, list: &mut MoveList) -> u32 {
    list.0.clear();
    match pos.variant {
        Variant::International => generate_for::<Ten, true>(pos, list),
        Variant::Brazilian => generate_for::<Eight, true>(pos, list),
    }
}

/// Whether the side to move has a capture (and so must capture).
pub(crate) fn has_capture(pos: &Position) -> bool {
    match pos.variant {
        Variant::International => has_capture_for::<Ten>(pos),
        Variant::Brazilian => has_capture_for::<Eight>(pos),
    }
}

/// Fills `list` (cleared first) with the longest ways the piece on `from` (one internal bit) can
/// go on with a capture under way in `pos`: `taken` holds the pieces it has already taken,
/// which stay on the board as obstacles and cannot be jumped again. Each move starts on
/// `from` and its captured set includes `taken`; none if the piece cannot take one more.
pub(crate) fn continue_capture(pos: &Position, from: u64, taken: u64, list: &mut MoveList) {
    list.0.clear();
    match pos.variant {
        Variant::International => continue_capture_for::<Ten>(pos, from, taken, list),
        Variant::Brazilian => continue_capture_for::<Eight>(pos, from, taken, list),
    }
}

fn continue_capture_for<G: Geometry>(pos: &Position, from: u64, taken: u64, list: &mut MoveList) {
    let s = sides::<G>(pos);
    let mut search = CaptureSearch::<G> {
        opp: s.opp,
        empty: s.empty | from,
        from,
        best: 1,
        list,
        geometry: std::marker::PhantomData,
    };
    if s.own_kings & from != 0 {
        search.king(from, taken, 0, None);
    } else if s.own_men & from != 0 {
        search.man(from, taken, 0);
    }
}

/// Counts the leaves of the legal move tree `depth` plies deep.
pub(crate) fn perft(pos: &Position, depth: u32) -> u64 {
    match pos.variant {
        Variant::International => perft_for::<Ten>(pos, depth),
        Variant::Brazilian => perft_for::<Eight>(pos, depth),
    }
}

fn perft_for<G: Geometry>(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    generate_for::<G, false>(pos, &mut list);
    if depth == 1 {
        return list.len() as u64;
    }
    list.iter()
        .map(|mv| perft_for::<G>(&pos.play(mv), depth - 1))
        .sum()
}

struct Sides {
    opp: u64,
    empty: u64,
    own_men: u64,
    own_kings: u64,
}

#[inline(always)]
fn sides<G: Geometry>(pos: &Position) -> Sides {
    let (own, opp) = match pos.turn {
        Color::White => (pos.white, pos.black),
        Color::Black => (pos.black, pos.white),
    };
    Sides {
        opp,
        empty: !(own | opp) & G::MASK,
        own_men: own & !pos.kings,
        own_kings: own & pos.kings,
    }
}

/// Men that can capture at least once, found for all men at once with shifts.
#[inline(always)]
fn capturing_men<G: Geometry>(s: &Sides) -> u64 {
    if s.own_men == 0 {
        return 0;
    }
    Dir::ALL.iter().fold(0, |acc, &d| {
        let back = d.reverse();
        acc | G::step(G::step(s.empty, back) & s.opp, back) & s.own_men
    })
}

/// Whether the king on `king` can capture at least once.
#[inline(always)]
fn king_can_capture<G: Geometry>(king: u64, s: &Sides) -> bool {
    Dir::ALL.iter().any(|&d| {
        let (_, t) = G::slide(king, d, s.empty);
        t & s.opp != 0 && G::step(t, d) & s.empty != 0
    })
}

fn has_capture_for<G: Geometry>(pos: &Position) -> bool {
    let s = sides::<G>(pos);
    if capturing_men::<G>(&s) != 0 {
        return true;
    }
    let mut kings = s.own_kings;
    while kings != 0 {
        let king = kings & kings.wrapping_neg();
        kings &= kings - 1;
        if king_can_capture::<G>(king, &s) {
            return true;
        }
    }
    false
}

/// Fills `list` with the legal moves; with `COUNT_KINGS`, the kings' quiet moves are only
/// counted, and their number returned (else 0).
fn generate_for<G: Geometry, const COUNT_KINGS: bool>(pos: &Position, list: &mut MoveList) -> u32 {
    let s = sides::<G>(pos);
    let mut search = CaptureSearch::<G> {
        opp: s.opp,
        empty: s.empty,
        from: 0,
        best: 1,
        list,
        geometry: std::marker::PhantomData,
    };

    let mut men = capturing_men::<G>(&s);
    while men != 0 {
        let from = men & men.wrapping_neg();
        men &= men - 1;
        search.empty = s.empty | from;
        search.from = from;
        search.man(from, 0, 0);
    }
    let mut kings = s.own_kings;
    while kings != 0 {
        let from = kings & kings.wrapping_neg();
        kings &= kings - 1;
        if king_can_capture::<G>(from, &s) {
            search.empty = s.empty | from;
            search.from = from;
            search.king(from, 0, 0, None);
        }
    }
    if !search.list.is_empty() {
        return 0;
    }
    quiet_moves::<G, COUNT_KINGS>(pos, &s, list)
}

fn quiet_moves<G: Geometry, const COUNT_KINGS: bool>(
    pos: &Position,
    s: &Sides,
    list: &mut MoveList,
) -> u32 {
    let variant = G::VARIANT;
    let forward = match pos.turn {
        Color::White => [Dir::UpLeft, Dir::UpRight],
        Color::Black => [Dir::DownLeft, Dir::DownRight],
    };
    // Men in square order keeps the list stable and readable; the shifts do the work.
    let mut men = s.own_men;
    while men != 0 {
        let from = men & men.wrapping_neg();
        men &= men - 1;
        for d in forward {
            let to = G::step(from, d) & s.empty;
            if to != 0 {
                list.push(Move::new(variant, from, to, 0));
            }
        }
    }
    let mut kings = s.own_kings;
    let mut counted = 0;
    while kings != 0 {
        let from = kings & kings.wrapping_neg();
        kings &= kings - 1;
        for d in Dir::ALL {
            let (mut to, _) = G::slide(from, d, s.empty);
            if COUNT_KINGS {
                counted += to.count_ones();
                continue;
            }
            // Nearest first, as a king slides.
            while to != 0 {
                let square = nearest(to, d);
                to ^= square;
                list.push(Move::new(variant, from, square, 0));
            }
        }
    }
    counted
}

/// Depth-first search of the capture sequences of one piece, keeping only the longest.
struct CaptureSearch<'a, G> {
    /// The opponent's pieces; captured ones stay in here (as obstacles) during the search.
    opp: u64,
    /// Empty squares, the moving piece's start square included.
    empty: u64,
    from: u64,
    /// Fewest captures a sequence needs to be kept; the list holds only sequences this long.
    best: u32,
    list: &'a mut MoveList,
    geometry: std::marker::PhantomData<G>,
}

impl<G: Geometry> CaptureSearch<'_, G> {
    fn man(&mut self, at: u64, captured: u64, count: u32) {
        let mut extended = false;
        for d in Dir::ALL {
            let victim = G::step(at, d) & self.opp & !captured;
            if victim != 0 {
                let landing = G::step(victim, d) & self.empty;
                if landing != 0 {
                    extended = true;
                    self.man(landing, captured | victim, count + 1);
                }
            }
        }
        if !extended {
            self.record(at, captured, count);
        }
    }

    fn king(&mut self, at: u64, captured: u64, count: u32, came_along: Option<Dir>) {
        let mut extended = false;
        for d in Dir::ALL {
            // Going back the way the king came only meets the piece it just jumped.
            if came_along == Some(d.reverse()) {
                continue;
            }
            let (_, t) = G::slide(at, d, self.empty);
            if t & self.opp & !captured == 0 {
                continue;
            }
            // The squares past the piece jumped, nearest first.
            let (mut landings, _) = G::slide(t, d, self.empty);
            while landings != 0 {
                let landing = nearest(landings, d);
                landings ^= landing;
                extended = true;
                self.king(landing, captured | t, count + 1, Some(d));
            }
        }
        if !extended {
            self.record(at, captured, count);
        }
    }

    #[inline]
    fn record(&mut self, to: u64, captured: u64, count: u32) {
        if count < self.best {
            return;
        }
        if count > self.best {
            self.best = count;
            self.list.0.clear();
        }
        let mv = Move::new(G::VARIANT, self.from, to, captured);
        // Two paths of one capture reach the same move only if they take the same pieces in
        // another order: a single capture is one piece, one direction, one landing, never met
        // twice, and those are most of the list (a flying king's many landings).
        if count == 1 || !self.list.contains(&mv) {
            self.list.push(mv);
        }
    }
}

/// One test per rule of docs/rules.md §2, each on a position built to exercise it.
#[cfg(test)]
mod tests {
    use crate::{Position, Role, Square, SquareStyle, Variant};

    /// The legal moves as (from, to, captured squares), sorted.
    fn moves(variant: Variant, fen: &str) -> Vec<(u8, u8, Vec<u8>)> {
        let pos = Position::from_fen(variant, fen).unwrap();
        let mut list: Vec<_> = pos
            .legal_moves()
            .iter()
            .map(|m| {
                let captured = m.captured().into_iter().map(Square::number).collect();
                (m.from().number(), m.to().number(), captured)
            })
            .collect();
        list.sort();
        list
    }

    fn role_on(pos: &Position, number: u8) -> Option<Role> {
        pos.piece_at(Square::new(pos.variant(), number).unwrap())
            .map(|p| p.role)
    }

    const INTL: Variant = Variant::International;

    #[test]
    fn men_move_forward_only_and_kings_fly() {
        assert_eq!(
            moves(INTL, "W:W33:B1"),
            [(33, 28, vec![]), (33, 29, vec![])]
        );
        assert_eq!(
            moves(INTL, "B:W50:B18"),
            [(18, 22, vec![]), (18, 23, vec![])]
        );
        // A king in the corner sees the whole long diagonal.
        let king: Vec<u8> = moves(INTL, "W:WK46:B1").iter().map(|m| m.1).collect();
        assert_eq!(king, [5, 10, 14, 19, 23, 28, 32, 37, 41]);
    }

    #[test]
    fn capture_is_compulsory_and_men_capture_backwards() {
        // 28 could move to 22 or 23, but must take 33 backwards.
        assert_eq!(moves(INTL, "W:W28:B33,1"), [(28, 39, vec![33])]);
    }

    #[test]
    fn majority_of_men_beats_fewer_kings() {
        // The man takes two men (33x22x11); the king could take only the black king on 44.
        // A king counts as one piece, so the men win.
        assert_eq!(
            moves(INTL, "W:W33,K50:B17,28,K44"),
            [(33, 11, vec![17, 28])]
        );
        // With equal counts, capturing a king or with a king gives no priority.
        assert_eq!(
            moves(INTL, "W:W33,K50:B28,K44"),
            [(33, 22, vec![28]), (50, 39, vec![44])]
        );
    }

    #[test]
    fn man_crossing_the_back_row_mid_capture_stays_a_man() {
        let pos = Position::from_fen(INTL, "W:W12:B8,9").unwrap();
        let legal = pos.legal_moves();
        assert_eq!(legal.len(), 1);
        assert_eq!(
            pos.move_path(&legal[0])
                .iter()
                .map(|s| s.number())
                .collect::<Vec<_>>(),
            [12, 3, 14]
        );
        let after = pos.play(&legal[0]);
        assert_eq!(role_on(&after, 14), Some(Role::Man));
        // Landing on 3 mid-capture gives no king's reach: 20 is not taken from 3, and the man
        // is crowned because its move ends there.
        assert_eq!(moves(INTL, "W:W12:B8,20"), [(12, 3, vec![8])]);
        let pos = Position::from_fen(INTL, "W:W12:B8,20").unwrap();
        let after = pos.play(&pos.legal_moves()[0]);
        assert_eq!(role_on(&after, 3), Some(Role::King));
    }

    #[test]
    fn promotion_by_a_quiet_move() {
        let pos = Position::from_fen(INTL, "W:W6:B45").unwrap();
        let legal = pos.legal_moves();
        assert_eq!(legal.len(), 1);
        assert_eq!(role_on(&pos.play(&legal[0]), 1), Some(Role::King));
    }

    #[test]
    fn king_turns_mid_capture() {
        // 46 takes 37 along the long diagonal, must stop on 28 to turn and take 22.
        assert_eq!(
            moves(INTL, "W:WK46:B22,37"),
            [
                (46, 6, vec![22, 37]),
                (46, 11, vec![22, 37]),
                (46, 17, vec![22, 37])
            ]
        );
    }

    #[test]
    fn captured_piece_blocks_a_later_jump() {
        // 1x23 (takes 12), x14 (takes 19), x3 (takes 9). From 3 the king would take 8 by
        // landing on 12, but the captured piece on 12 is still on the board: the move ends
        // on 3 with three pieces. (Lifted at once, 12 would let it take a fourth.)
        assert_eq!(moves(INTL, "W:WK1:B8,9,12,19"), [(1, 3, vec![9, 12, 19])]);
    }

    #[test]
    fn no_piece_is_jumped_twice_and_circular_capture_counts_once() {
        // The man on 28 goes round 23, 24, 33, 34 and comes home; either direction is the
        // same move.
        let pos = Position::from_fen(INTL, "W:W28:B23,24,33,34").unwrap();
        assert_eq!(
            moves(INTL, "W:W28:B23,24,33,34"),
            [(28, 28, vec![23, 24, 33, 34])]
        );
        let mv = pos.legal_moves()[0];
        assert_eq!(pos.move_paths(&mv).len(), 2);
        assert_eq!(pos.move_text(&mv, SquareStyle::Numeric), "28x28");
        let after = pos.play(&mv);
        assert_eq!(after.to_fen(), "B:W28:B");
    }

    #[test]
    fn king_chooses_among_landing_squares() {
        assert_eq!(
            moves(INTL, "W:WK46:B37"),
            [5, 10, 14, 19, 23, 28, 32].map(|to| (46, to, vec![37]))
        );
        // An own piece cuts the landing squares short, and is never jumped.
        assert_eq!(
            moves(INTL, "W:WK46,19:B37"),
            [23, 28, 32].map(|to| (46, to, vec![37]))
        );
        assert_eq!(
            moves(Variant::Brazilian, "W:WK29:B22"),
            [4, 8, 11, 15, 18].map(|to| (29, to, vec![22]))
        );
    }

    #[test]
    fn long_form_when_two_captures_share_from_and_to() {
        // The king on 12 takes 19 and lands on 23 or 26; from 23 it turns over 18, from 26
        // over 22, and both routes finish over 7 on 3: same start and end, other captures.
        let pos = Position::from_fen(Variant::Brazilian, "W:WK12:B7,18,19,22").unwrap();
        let mut texts: Vec<String> = pos
            .legal_moves()
            .iter()
            .map(|m| pos.move_text(m, SquareStyle::Numeric))
            .collect();
        texts.sort();
        assert_eq!(texts, ["12x23x14x3", "12x26x17x3"]);
        for text in &texts {
            let mv = pos.parse_move(text).unwrap();
            assert_eq!(&pos.move_text(&mv, SquareStyle::Numeric), text);
        }
        assert!(matches!(
            pos.parse_move("12x3"),
            Err(crate::MoveError::Ambiguous { candidates, .. }) if candidates.len() == 2
        ));
        // A capture whose start and end are unique keeps the short form.
        let pos = Position::from_fen(INTL, "W:W28:B23,24").unwrap();
        let mv = pos.legal_moves()[0];
        assert_eq!(pos.move_text(&mv, SquareStyle::Numeric), "28x30");
        assert_eq!(pos.parse_move("28x19x30"), Ok(mv));
        assert!(pos.parse_move("28x17x30").is_err());
    }

    #[test]
    fn no_legal_move_when_blocked() {
        assert_eq!(moves(INTL, "B:W50:B45"), []);
        assert_eq!(moves(INTL, "W:W:B1"), []);
    }

    #[test]
    fn counting_king_moves_leaves_the_other_moves_as_they_are() {
        let mut checked = 0;
        let mut counted = 0;
        for (variant, fen) in [
            (INTL, "W:W31,32,33,K46,K50:B17,18,19,K5,K1"),
            (INTL, "W:W28,K50:B23,24,K44"),
            (Variant::Brazilian, "W:W21,22,K29,K32:B9,10,K1,K4"),
            (Variant::Brazilian, "B:W21,K32:B10,K1,K4"),
        ] {
            let mut frontier = vec![Position::from_fen(variant, fen).unwrap()];
            for _ in 0..4 {
                let mut next = Vec::new();
                for pos in &frontier {
                    let legal = pos.legal_moves();
                    let mut list = super::MoveList::new();
                    let kings = pos.legal_moves_counting_king_moves(&mut list);
                    let king_quiet = |m: &&super::Move| {
                        !m.is_capture() && pos.piece_at(m.from()).unwrap().role == Role::King
                    };
                    let others: Vec<_> = legal.iter().filter(|m| !king_quiet(m)).collect();
                    assert_eq!(list.iter().collect::<Vec<_>>(), others, "{pos:?}");
                    assert_eq!(kings as usize, legal.iter().filter(king_quiet).count());
                    counted += kings;
                    checked += 1;
                    next.extend(legal.iter().map(|m| pos.play(m)));
                }
                frontier = next;
            }
        }
        assert!(checked > 1000 && counted > 10_000, "{checked} {counted}");
    }

    /// What recording a capture without looking for it in the list rests on: no move is
    /// listed twice. Every placement of a white king or man and three black pieces (men and
    /// kings) on the Brazilian board, and of a white king and two black men on the
    /// international one, each side to move: single captures by flying kings (many landings)
    /// and multiple ones, where two paths can meet.
    #[test]
    fn no_move_is_listed_twice() {
        use crate::Color;
        let (mut positions, mut multiple) = (0u64, 0u64);
        let mut check = |variant: Variant, white_men, white_kings, black_men, black_kings| {
            for turn in [Color::White, Color::Black] {
                let Some(pos) = Position::from_numbered_bits(
                    variant,
                    turn,
                    white_men,
                    white_kings,
                    black_men,
                    black_kings,
                ) else {
                    continue;
                };
                let moves = pos.legal_moves();
                for (i, mv) in moves.iter().enumerate() {
                    assert!(!moves[..i].contains(mv), "{pos:?}: {mv:?} twice");
                    if mv.capture_count() > 1 {
                        multiple += 1;
                    }
                }
                positions += 1;
            }
        };
        let bit = |n: u8| 1u64 << (n - 1);
        for w in 1..=32u8 {
            for a in 1..=32u8 {
                for b in a + 1..=32 {
                    for c in b + 1..=32 {
                        let black = bit(a) | bit(b) | bit(c);
                        if black & bit(w) != 0 {
                            continue;
                        }
                        // Black's first piece a king, the others men; White a king, then a man.
                        let (king, men) = (bit(a), bit(b) | bit(c));
                        check(Variant::Brazilian, 0, bit(w), men, king);
                        check(Variant::Brazilian, bit(w), 0, men, king);
                    }
                }
            }
        }
        for w in 1..=50u8 {
            for a in 1..=50u8 {
                for b in a + 1..=50 {
                    let black = bit(a) | bit(b);
                    if black & bit(w) == 0 {
                        check(Variant::International, 0, bit(w), black, 0);
                    }
                }
            }
        }
        assert!(
            positions > 100_000 && multiple > 10_000,
            "{positions} {multiple}"
        );
    }
}
