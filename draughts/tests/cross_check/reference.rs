//! A deliberately plain draughts move generator on a 2D grid, used as an oracle for the crate's
//! bitboard generator. It shares no code with the crate: squares are `(row, column)` pairs on a
//! `[[Option<Stone>; 10]; 10]` array, moves walk direction vectors, captures are found by an
//! exhaustive recursion, and the majority rule and duplicate merging are applied afterwards.

use std::collections::BTreeSet;

/// Largest board side handled (international draughts).
const MAX_SIZE: usize = 10;

/// The four diagonal directions as (row step, column step).
const DIRECTIONS: [(isize, isize); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];

/// A grid coordinate: (row from the top as White sees the board, column from the left).
pub type Coord = (usize, usize);

/// A side.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Side {
    White,
    Black,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
}

/// A piece on the grid.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Stone {
    pub side: Side,
    pub king: bool,
}

/// A move by square numbers: `captured` is sorted, so equal moves compare equal whatever the
/// capture path was.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct RefMove {
    pub from: usize,
    pub to: usize,
    pub captured: Vec<usize>,
}

/// A board of side 8 or 10 and the side to move.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Board {
    pub size: usize,
    pub cells: [[Option<Stone>; MAX_SIZE]; MAX_SIZE],
    pub to_move: Side,
}

impl Board {
    /// An empty board.
    pub fn empty(size: usize, to_move: Side) -> Board {
        assert!(size == 8 || size == 10, "unsupported board size {size}");
        Board {
            size,
            cells: [[None; MAX_SIZE]; MAX_SIZE],
            to_move,
        }
    }

    /// The start position: Black on the first rows, White on the last, two rows left empty in
    /// the middle, White to move.
    pub fn start(size: usize) -> Board {
        let mut board = Board::empty(size, Side::White);
        let men = (size / 2 - 1) * (size / 2);
        let last = board.square_count();
        for number in 1..=men {
            board.set(
                number,
                Some(Stone {
                    side: Side::Black,
                    king: false,
                }),
            );
            board.set(
                last + 1 - number,
                Some(Stone {
                    side: Side::White,
                    king: false,
                }),
            );
        }
        board
    }

    /// Reads a PDN FEN such as `W:W31-50,K3:B1-20` (ranges and `K` prefixes allowed).
    pub fn from_fen(size: usize, fen: &str) -> Board {
        let mut fields = fen.trim().split(':');
        let to_move = match fields.next() {
            Some("W") => Side::White,
            Some("B") => Side::Black,
            other => panic!("bad side to move {other:?} in {fen}"),
        };
        let mut board = Board::empty(size, to_move);
        for field in fields {
            let (side, list) = match field.split_at(1) {
                ("W", rest) => (Side::White, rest),
                ("B", rest) => (Side::Black, rest),
                _ => panic!("bad piece list {field:?} in {fen}"),
            };
            for item in list
                .split(',')
                .map(str::trim)
                .filter(|item| !item.is_empty())
            {
                let (king, range) = match item.strip_prefix('K') {
                    Some(rest) => (true, rest),
                    None => (false, item),
                };
                let (low, high) = match range.split_once('-') {
                    Some((low, high)) => (low, high),
                    None => (range, range),
                };
                let parse = |text: &str| -> usize {
                    text.parse()
                        .unwrap_or_else(|_| panic!("bad square {text:?} in {fen}"))
                };
                for number in parse(low)..=parse(high) {
                    board.set(number, Some(Stone { side, king }));
                }
            }
        }
        board
    }

    /// The position as a PDN FEN, kings marked `K`, squares in ascending order.
    pub fn to_fen(&self) -> String {
        let list = |side: Side| -> Vec<String> {
            (1..=self.square_count())
                .filter_map(|number| {
                    let stone = self.get(number).filter(|stone| stone.side == side)?;
                    Some(format!("{}{number}", if stone.king { "K" } else { "" }))
                })
                .collect()
        };
        let turn = match self.to_move {
            Side::White => 'W',
            Side::Black => 'B',
        };
        format!(
            "{turn}:W{}:B{}",
            list(Side::White).join(","),
            list(Side::Black).join(",")
        )
    }

    /// Number of dark squares.
    pub fn square_count(&self) -> usize {
        self.size * self.size / 2
    }

    /// The coordinate of square `number` (1-based). Row 0 is the top row; its dark squares are
    /// on odd columns, those of the next row on even columns, and so on.
    pub fn coord_of(&self, number: usize) -> Coord {
        assert!(
            (1..=self.square_count()).contains(&number),
            "no square {number}"
        );
        let per_row = self.size / 2;
        let row = (number - 1) / per_row;
        let index = (number - 1) % per_row;
        let column = 2 * index + usize::from(row.is_multiple_of(2));
        (row, column)
    }

    /// The number of the dark square at `coord`.
    pub fn number_of(&self, (row, column): Coord) -> usize {
        assert!(
            (row + column) % 2 == 1,
            "({row}, {column}) is a light square"
        );
        row * (self.size / 2) + column / 2 + 1
    }

    /// The piece on square `number`.
    pub fn get(&self, number: usize) -> Option<Stone> {
        self.at(self.coord_of(number))
    }

    /// Puts `stone` (or nothing) on square `number`.
    pub fn set(&mut self, number: usize, stone: Option<Stone>) {
        let (row, column) = self.coord_of(number);
        self.cells[row][column] = stone;
    }

    fn at(&self, (row, column): Coord) -> Option<Stone> {
        self.cells[row][column]
    }

    /// The row on which a man of `side` is crowned.
    pub fn promotion_row(&self, side: Side) -> usize {
        match side {
            Side::White => 0,
            Side::Black => self.size - 1,
        }
    }

    /// The neighbouring coordinate in direction `dir`, if it is on the board.
    fn step(&self, (row, column): Coord, (dr, dc): (isize, isize)) -> Option<Coord> {
        let row = row.checked_add_signed(dr)?;
        let column = column.checked_add_signed(dc)?;
        (row < self.size && column < self.size).then_some((row, column))
    }

    /// The legal moves of the side to move.
    pub fn moves(&self) -> BTreeSet<RefMove> {
        let mut captures = Vec::new();
        for (coord, stone) in self.own_stones() {
            captures.extend(self.capture_sequences(coord, stone));
        }
        if let Some(best) = captures.iter().map(|mv| mv.captured.len()).max() {
            return captures
                .into_iter()
                .filter(|mv| mv.captured.len() == best)
                .collect();
        }
        let mut quiet = BTreeSet::new();
        for (coord, stone) in self.own_stones() {
            for target in self.quiet_targets(coord, stone) {
                quiet.insert(RefMove {
                    from: self.number_of(coord),
                    to: self.number_of(target),
                    captured: Vec::new(),
                });
            }
        }
        quiet
    }

    fn own_stones(&self) -> Vec<(Coord, Stone)> {
        let mut stones = Vec::new();
        for row in 0..self.size {
            for column in 0..self.size {
                if let Some(stone) = self.cells[row][column] {
                    if stone.side == self.to_move {
                        stones.push(((row, column), stone));
                    }
                }
            }
        }
        stones
    }

    /// Squares a piece can reach without capturing.
    fn quiet_targets(&self, from: Coord, stone: Stone) -> Vec<Coord> {
        let forward = match stone.side {
            Side::White => -1,
            Side::Black => 1,
        };
        let mut targets = Vec::new();
        for dir in DIRECTIONS {
            if !stone.king && dir.0 != forward {
                continue;
            }
            let mut cur = from;
            while let Some(next) = self.step(cur, dir) {
                if self.at(next).is_some() {
                    break;
                }
                targets.push(next);
                if !stone.king {
                    break;
                }
                cur = next;
            }
        }
        targets
    }

    /// Every complete capture sequence of the piece on `start`, one entry per path.
    fn capture_sequences(&self, start: Coord, stone: Stone) -> Vec<RefMove> {
        let mut board = self.clone();
        board.cells[start.0][start.1] = None;
        let mut taken = Vec::new();
        let mut out = Vec::new();
        board.extend_capture(start, start, stone, &mut taken, &mut out);
        out
    }

    /// Tries every capture from `at`; records the sequence when none is possible. The board
    /// still holds the pieces in `taken`: they block, and are never jumped again.
    fn extend_capture(
        &self,
        start: Coord,
        at: Coord,
        stone: Stone,
        taken: &mut Vec<Coord>,
        out: &mut Vec<RefMove>,
    ) {
        let mut extended = false;
        for dir in DIRECTIONS {
            for (victim, landing) in self.jumps(at, dir, stone, taken) {
                extended = true;
                taken.push(victim);
                self.extend_capture(start, landing, stone, taken, out);
                taken.pop();
            }
        }
        if !extended && !taken.is_empty() {
            let mut captured: Vec<usize> = taken.iter().map(|&c| self.number_of(c)).collect();
            captured.sort_unstable();
            out.push(RefMove {
                from: self.number_of(start),
                to: self.number_of(at),
                captured,
            });
        }
    }

    /// The single captures available from `at` in direction `dir`, as (captured, landing).
    fn jumps(
        &self,
        at: Coord,
        dir: (isize, isize),
        stone: Stone,
        taken: &[Coord],
    ) -> Vec<(Coord, Coord)> {
        let reach = if stone.king { self.size } else { 1 };
        let mut cur = at;
        let mut distance = 0;
        let victim = loop {
            let Some(next) = self.step(cur, dir) else {
                return Vec::new();
            };
            distance += 1;
            if self.at(next).is_some() {
                break next;
            }
            if distance == reach {
                return Vec::new();
            }
            cur = next;
        };
        let enemy = self
            .at(victim)
            .is_some_and(|piece| piece.side != stone.side);
        if !enemy || taken.contains(&victim) {
            return Vec::new();
        }
        let mut landings = Vec::new();
        let mut cur = victim;
        while let Some(next) = self.step(cur, dir) {
            if self.at(next).is_some() {
                break;
            }
            landings.push((victim, next));
            if !stone.king {
                break;
            }
            cur = next;
        }
        landings
    }

    /// The board after `mv`: captured pieces removed, the piece moved and crowned if it is a man
    /// ending on its promotion row, the other side to move.
    pub fn play(&self, mv: &RefMove) -> Board {
        let mut next = self.clone();
        let mut stone = self.get(mv.from).expect("a piece on the start square");
        for &number in &mv.captured {
            next.set(number, None);
        }
        next.set(mv.from, None);
        if self.coord_of(mv.to).0 == self.promotion_row(stone.side) {
            stone.king = true;
        }
        next.set(mv.to, Some(stone));
        next.to_move = self.to_move.other();
        next
    }

    /// Leaves of the move tree `depth` plies deep.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves.iter().map(|mv| self.play(mv).perft(depth - 1)).sum()
    }
}
