//! Colours, pieces and the bitboard position.

use std::fmt;

use crate::geometry::promotion_row;
use crate::movegen::{self, Move, MoveList};
use crate::{Square, SquareSet, Variant};

/// A side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Moves first; its men move up the board towards squares 1..5.
    White,
    /// Moves second; its men move down towards the last row.
    Black,
}

impl Color {
    /// The other side.
    #[must_use]
    pub fn opposite(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// `White` or `Black`.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }

    /// `W` or `B`, as in FEN.
    pub fn letter(self) -> char {
        match self {
            Color::White => 'W',
            Color::Black => 'B',
        }
    }
}

/// What a piece is: a man or a (flying) king.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// Moves one square forward, captures forwards and backwards.
    Man,
    /// Moves and captures at any distance along a diagonal.
    King,
}

/// A coloured piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece it is.
    pub color: Color,
    /// Man or king.
    pub role: Role,
}

/// A position: the pieces of both sides and the side to move.
///
/// Any placement is allowed except a man on its own promotion row (it would have been crowned),
/// which the constructors refuse; a position need not be reachable from the start.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) white: u64,
    pub(crate) black: u64,
    pub(crate) kings: u64,
    pub(crate) turn: Color,
    pub(crate) variant: Variant,
}

/// Why a piece cannot be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlacementError {
    /// The square already holds a piece.
    Occupied(Square),
    /// A man on the row where it would have been promoted.
    ManOnPromotionRow {
        /// The square.
        square: Square,
        /// The man's colour.
        color: Color,
    },
}

impl fmt::Display for PlacementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlacementError::Occupied(sq) => write!(f, "square {sq} is given twice"),
            PlacementError::ManOnPromotionRow { square, color } => write!(
                f,
                "a {} man cannot stand on square {square}: it is on its own promotion row",
                match color {
                    Color::White => "white",
                    Color::Black => "black",
                }
            ),
        }
    }
}

impl std::error::Error for PlacementError {}

impl Position {
    /// An empty board with `turn` to move.
    pub fn empty(variant: Variant, turn: Color) -> Position {
        Position {
            white: 0,
            black: 0,
            kings: 0,
            turn,
            variant,
        }
    }

    /// The start position of the variant, White to move.
    pub fn start(variant: Variant) -> Position {
        let mut pos = Position::empty(variant, Color::White);
        let n = variant.square_count();
        let men = variant.rules().men;
        for number in 1..=men {
            pos.black |= Square::new(variant, number).map_or(0, |sq| sq.bit(variant));
            pos.white |= Square::new(variant, n + 1 - number).map_or(0, |sq| sq.bit(variant));
        }
        pos
    }

    /// Puts a piece on an empty square.
    ///
    /// # Errors
    ///
    /// The square is occupied, or a man would stand on its own promotion row.
    pub fn put(&mut self, square: Square, piece: Piece) -> Result<(), PlacementError> {
        let bit = square.bit(self.variant);
        if (self.white | self.black) & bit != 0 {
            return Err(PlacementError::Occupied(square));
        }
        if piece.role == Role::Man
            && promotion_row(self.variant, piece.color == Color::White) & bit != 0
        {
            return Err(PlacementError::ManOnPromotionRow {
                square,
                color: piece.color,
            });
        }
        match piece.color {
            Color::White => self.white |= bit,
            Color::Black => self.black |= bit,
        }
        if piece.role == Role::King {
            self.kings |= bit;
        }
        Ok(())
    }

    /// Puts a piece on an empty square without the promotion-row check: only for the
    /// capturing man of a capture under way, which may be passing its promotion row.
    pub(crate) fn put_unchecked(&mut self, square: Square, piece: Piece) {
        let bit = square.bit(self.variant);
        match piece.color {
            Color::White => self.white |= bit,
            Color::Black => self.black |= bit,
        }
        if piece.role == Role::King {
            self.kings |= bit;
        }
    }

    /// The variant whose board this is.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The same pieces with the other side to move.
    #[must_use]
    pub fn with_turn(mut self, turn: Color) -> Position {
        self.turn = turn;
        self
    }

    /// The piece on a square, if any.
    pub fn piece_at(&self, square: Square) -> Option<Piece> {
        let bit = square.bit(self.variant);
        let color = if self.white & bit != 0 {
            Color::White
        } else if self.black & bit != 0 {
            Color::Black
        } else {
            return None;
        };
        let role = if self.kings & bit != 0 {
            Role::King
        } else {
            Role::Man
        };
        Some(Piece { color, role })
    }

    /// The squares of one side's pieces of one role.
    pub fn pieces(&self, color: Color, role: Role) -> SquareSet {
        let side = self.side(color);
        let bits = match role {
            Role::Man => side & !self.kings,
            Role::King => side & self.kings,
        };
        SquareSet::from_bits(self.variant, bits)
    }

    /// All squares holding a piece of `color`.
    pub fn side_pieces(&self, color: Color) -> SquareSet {
        SquareSet::from_bits(self.variant, self.side(color))
    }

    /// Whether a king of `color` stands on the row where its men are crowned, as one just
    /// crowned by a move that captured nothing does.
    pub fn king_on_crowning_row(&self, color: Color) -> bool {
        self.side(color) & self.kings & promotion_row(self.variant, color == Color::White) != 0
    }

    /// Number of pieces on the board.
    pub fn piece_count(&self) -> u32 {
        (self.white | self.black).count_ones()
    }

    pub(crate) fn side(&self, color: Color) -> u64 {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// The legal moves, with majority capture applied and duplicate capture paths merged.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        movegen::generate(self, &mut list);
        list
    }

    /// Fills `list` (cleared first) with the legal moves, as [`Position::legal_moves`] gives
    /// them: a caller walking many positions keeps one list rather than a new one (about 1.5
    /// KiB, copied on return) for each.
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        movegen::generate(self, list);
    }

    /// Fills `list` (cleared first) with the legal moves, as [`Position::legal_moves`] gives
    /// them, but for the quiet moves of the kings: those are only counted, and their number
    /// returned. For retrograde analysis, where a king move stays among positions solved
    /// together and only how many there are matters.
    pub fn legal_moves_counting_king_moves(&self, list: &mut MoveList) -> u32 {
        movegen::generate_counting_king_moves(self, list)
    }

    /// The moves of the game from here: the legal moves, none once a side has no piece left
    /// (the game ended as its last piece was taken, whatever the move generator would make of
    /// the other side's pieces). What `rafle moves` and a probe's answer list.
    pub fn moves_in_play(&self) -> MoveList {
        if self.side(self.turn) == 0 || self.side(self.turn.opposite()) == 0 {
            MoveList::new()
        } else {
            self.legal_moves()
        }
    }

    /// Whether the game is over, and how, for the side to move: the one definition every
    /// probe, the move chooser and the C library answer by, before any table is read.
    ///
    /// A side without pieces is checked first, so on an empty board the side to move has
    /// lost. The legal moves are generated only when both sides have pieces.
    pub fn game_over(&self) -> Option<GameOver> {
        if self.side(self.turn) == 0 {
            Some(GameOver::NoPiece)
        } else if self.side(self.turn.opposite()) == 0 {
            Some(GameOver::OpponentGone)
        } else if self.legal_moves().is_empty() {
            Some(GameOver::Blocked)
        } else {
            None
        }
    }

    /// Whether the side to move must capture.
    pub fn must_capture(&self) -> bool {
        movegen::has_capture(self)
    }

    /// The position after `mv`, which must be one of [`Position::legal_moves`]: the mover's piece
    /// goes from `from` to `to`, the captured pieces leave the board, a man ending on the far row
    /// is crowned, and the turn passes.
    #[must_use]
    pub fn play(&self, mv: &Move) -> Position {
        let from = 1u64 << mv.origin_bit();
        let to = 1u64 << mv.target_bit();
        let captured = mv.captured_bits();
        let mover_is_king = self.kings & from != 0;
        let (mut own, mut opp) = match self.turn {
            Color::White => (self.white, self.black),
            Color::Black => (self.black, self.white),
        };
        own = (own & !from) | to;
        opp &= !captured;
        let mut kings = self.kings & !from & !captured;
        if mover_is_king || promotion_row(self.variant, self.turn == Color::White) & to != 0 {
            kings |= to;
        }
        let (white, black) = match self.turn {
            Color::White => (own, opp),
            Color::Black => (opp, own),
        };
        Position {
            white,
            black,
            kings,
            turn: self.turn.opposite(),
            variant: self.variant,
        }
    }

    /// The position in the orientation its table stores, with that material: as it is if its
    /// material is canonical ([`Material::is_canonical`]), mirrored otherwise.
    #[must_use]
    pub fn canonical(&self) -> (Position, crate::Material) {
        let material = crate::Material::of(self);
        if material.is_canonical() {
            (*self, material)
        } else {
            (self.mirrored(), material.mirrored())
        }
    }

    /// The position turned 180° with the colours swapped (and the side to move with them):
    /// the same game seen from the other side.
    #[must_use]
    pub fn mirrored(&self) -> Position {
        // In the internal layout square n sits at bit (n-1) + (n-1)/(2*row), and the bits of n
        // and of its opposite square N+1-n always add up to the bit of square N: turning the
        // board is reversing the bits below it.
        let top = crate::geometry::bit_of_square(self.variant, self.variant.square_count());
        let flip = |bits: u64| bits.reverse_bits() >> (63 - top);
        Position {
            white: flip(self.black),
            black: flip(self.white),
            kings: flip(self.kings),
            turn: self.turn.opposite(),
            variant: self.variant,
        }
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({} {})", self.variant, self.to_fen())
    }
}

/// Conversions between the internal layout and "numbered" bitboards, where square `n` is bit
/// `n - 1`: the layout of the index and of the C interface.
impl Position {
    /// One side's pieces of one role as a numbered bitboard.
    pub fn numbered_bits(&self, color: Color, role: Role) -> u64 {
        self.pieces(color, role).to_numbered_bits()
    }

    /// A position from numbered bitboards. Returns `None` if two sets overlap, a set has a
    /// square past the board, or a man stands on its own promotion row.
    pub fn from_numbered_bits(
        variant: Variant,
        turn: Color,
        white_men: u64,
        white_kings: u64,
        black_men: u64,
        black_kings: u64,
    ) -> Option<Position> {
        let board = if variant.square_count() == 64 {
            u64::MAX
        } else {
            (1u64 << variant.square_count()) - 1
        };
        let all = [white_men, white_kings, black_men, black_kings];
        let union = all.iter().fold(0, |acc, b| acc | b);
        let total: u32 = all.iter().map(|b| b.count_ones()).sum();
        if union & !board != 0 || union.count_ones() != total {
            return None;
        }
        let row = (1u64 << variant.squares_per_row()) - 1;
        let last_row = row << (variant.square_count() - variant.squares_per_row());
        if white_men & row != 0 || black_men & last_row != 0 {
            return None;
        }
        let internal = |bits: u64| crate::geometry::numbered_to_internal(variant, bits);
        Some(Position {
            white: internal(white_men | white_kings),
            black: internal(black_men | black_kings),
            kings: internal(white_kings | black_kings),
            turn,
            variant,
        })
    }

    /// The same position with kings of `color` added on the squares of `internal`, a bitboard
    /// in the internal layout ([`crate::layout::to_internal`]): for code that places kings
    /// around fixed pieces many times over. Returns `None` if one of those squares is taken or
    /// off the board.
    #[inline]
    pub fn with_kings(self, color: Color, internal: u64) -> Option<Position> {
        let board = crate::geometry::board_mask(self.variant);
        if internal & (self.white | self.black | !board) != 0 {
            return None;
        }
        let mut pos = self;
        match color {
            Color::White => pos.white |= internal,
            Color::Black => pos.black |= internal,
        }
        pos.kings |= internal;
        Some(pos)
    }
}

/// How a game has ended, seen from the side to move ([`Position::game_over`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameOver {
    /// The side to move has no piece left: it has lost.
    NoPiece,
    /// The opponent has no piece left: the side to move has won. Only a position set up by
    /// hand is so, since the game ends as the last piece is taken.
    OpponentGone,
    /// The side to move has pieces but no legal move: it has lost.
    Blocked,
}

impl GameOver {
    /// Whether the side to move is the winner.
    pub fn side_to_move_wins(self) -> bool {
        self == GameOver::OpponentGone
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_game_has_no_moves_in_play() {
        let gone = Position::from_fen(Variant::International, "W:W28:B").unwrap();
        assert_eq!(
            gone.legal_moves().len(),
            2,
            "the generator still moves the man (28-22, 28-23)"
        );
        assert!(gone.moves_in_play().is_empty());
        let playing = Position::from_fen(Variant::International, "W:W28:B23,24").unwrap();
        assert_eq!(playing.moves_in_play().len(), playing.legal_moves().len());
        assert_eq!(playing.moves_in_play().len(), 1);
    }

    #[test]
    fn a_kept_move_list_is_refilled_from_empty() {
        let mut list = MoveList::new();
        // Many quiet king moves, then a single forced capture: the list is cleared first.
        let mut lengths = Vec::new();
        for fen in ["W:WK28,K46:B5", "W:W28:B23,5", "W:W31,32,33:B18,19,20"] {
            let pos = Position::from_fen(Variant::International, fen).unwrap();
            pos.legal_moves_into(&mut list);
            let fresh = pos.legal_moves();
            assert_eq!(
                list.iter().collect::<Vec<_>>(),
                fresh.iter().collect::<Vec<_>>()
            );
            lengths.push(list.len());
        }
        assert!(lengths[0] > 10 && lengths[1] == 1, "{lengths:?}");
    }

    #[test]
    fn a_man_crowned_by_a_quiet_move_leaves_a_king_on_its_crowning_row() {
        for (v, fen, crowned) in [
            (Variant::Brazilian, "W:W6:BK22", "B:WK1:BK22"),
            (Variant::International, "B:WK30:B45", "W:WK30:BK50"),
        ] {
            let pos = Position::from_fen(v, fen).unwrap();
            let mover = pos.turn();
            assert!(!pos.king_on_crowning_row(mover));
            let after: Vec<Position> = pos.legal_moves().iter().map(|mv| pos.play(mv)).collect();
            let expected = Position::from_fen(v, crowned).unwrap();
            assert!(after.contains(&expected), "{v} {fen}");
            assert!(expected.king_on_crowning_row(mover));
            // A king elsewhere, or the other side's king on that row, is not one.
            assert!(!expected.king_on_crowning_row(mover.opposite()));
            let moved = expected.mirrored();
            assert!(moved.king_on_crowning_row(mover.opposite()));
            assert!(!moved.king_on_crowning_row(mover));
        }
    }

    #[test]
    fn mirroring_turns_the_board_and_swaps_colours() {
        for v in Variant::ALL {
            let pos = Position::from_fen(v, "B:W7,K9,20:B12,K1").unwrap();
            let m = pos.mirrored();
            let n = v.square_count();
            for number in 1..=n {
                let sq = Square::new(v, number).unwrap();
                let opposite = Square::new(v, n + 1 - number).unwrap();
                let expected = pos.piece_at(opposite).map(|p| Piece {
                    color: p.color.opposite(),
                    role: p.role,
                });
                assert_eq!(m.piece_at(sq), expected, "{v} square {number}");
            }
            assert_eq!(m.turn(), Color::White);
            assert_eq!(m.mirrored(), pos);
            assert_eq!(
                Position::start(v).mirrored(),
                Position::start(v).with_turn(Color::Black)
            );
        }
    }

    #[test]
    fn kings_added_by_internal_bits() {
        for v in Variant::ALL {
            let pos = Position::from_fen(v, "W:W20,K9:B12").unwrap();
            let on = |numbers: &[u32]| {
                numbers.iter().fold(0, |bits, &n| {
                    bits | crate::layout::to_internal(v, 1 << (n - 1))
                })
            };
            assert_eq!(
                pos.with_kings(Color::Black, on(&[1, 5])),
                Some(Position::from_fen(v, "W:W20,K9:B12,K1,K5").unwrap())
            );
            assert_eq!(
                pos.with_kings(Color::White, on(&[3])),
                Some(Position::from_fen(v, "W:W20,K9,K3:B12").unwrap())
            );
            assert_eq!(pos.with_kings(Color::Black, 0), Some(pos));
            // A square taken, by either side, or off the board.
            assert_eq!(pos.with_kings(Color::Black, on(&[9])), None);
            assert_eq!(pos.with_kings(Color::White, on(&[12, 1])), None);
            let off = !crate::geometry::board_mask(v) & (1 << 63);
            assert_eq!(pos.with_kings(Color::Black, off), None, "{v}");
        }
    }
}
