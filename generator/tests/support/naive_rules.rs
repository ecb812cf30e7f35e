//! A deliberately simple reference for distance-to-win and for the draw rules 6.2–6.4 with
//! their counters (docs/rules.md §4 and §5), independent of the real generator, for tests to compare
//! against.
//!
//! Everything here uses only [`Position::legal_moves`] and [`Position::play`] from `rafle_probe`:
//! no index, no retrograde moves, no symmetry. A [`Graph`] lists a set of positions closed under
//! moves (every legal placement of a few pieces, or everything reachable from one position) with
//! their moves; two plain forward value iterations run on it:
//!
//! - [`Graph::dtw`]: win/draw/loss and distance to win with the draw rules ignored
//!   (docs/rules.md §5.1 and §5.2), found ply by ply;
//! - [`Graph::rules`]: the game result when 6.2–6.4 are enforced, for every position *and every
//!   value of its live counter*: the counters are played out explicitly on the expanded graph of
//!   states (position, counters), see [`RuleValues`];
//!
//! and [`RuleValue::from_results`] derives the rule-aware class and count of docs/rules.md §5.3 by
//! brute force from the results for every value of the live counter, or reports that no count
//! describes them.
//!
//! # The counters and the readings implemented
//!
//! docs/rules.md §4: 6.2 draws after 50 consecutive plies "in which only kings moved and nothing was
//! captured", reset by "any man move or any capture"; 6.3 and 6.4 draw after 32 (international)
//! or 40 (Brazilian), and 10 plies "in the category". The readings, quoted from docs/rules.md:
//!
//! 1. "'In the category' counts from the first position that belongs to the category (after the
//!    capture or promotion that created it). Whatever keeps the position in the same category
//!    does not restart the count: a man move, a promotion (international 2K+1M v K → 3K v K) or a
//!    capture (6.4: 2K v K → K v K). The count restarts only when the position enters a category
//!    from outside or passes from one category to the other (6.3 → 6.4)."
//!    Here: the category of a position is a function of its material ([`category`]); after a
//!    ply from a position of category `a` to one of category `b`, the category count is the old
//!    count + 1 if `a == b`, and 0 if `b` is a category different from `a` (entering one, or
//!    6.3 → 6.4). "The same category" means the same rule, whichever side is the lone king.
//! 2. "A move that wins (captures the last piece or leaves the opponent without a move) on the
//!    last allowed ply still wins; the draw is declared only after the limit is reached without
//!    a result." Here: a ply is played, the counters are updated; if the side now to move has
//!    no piece or no legal move, the game is over and it has lost, whatever the counters say;
//!    otherwise, if the live counter has reached its limit, the game is a draw. A state whose
//!    live counter is at (or past) its limit is therefore a draw unless its side to move has no
//!    move, which is a loss (the previous ply won on the last allowed ply).
//! 3. "Inside a 6.3/6.4 category the 6.2 count can never expire first (…), so there only the
//!    category count matters." Here: in a category position only the category count is checked;
//!    the 6.2 count is not needed there at all, because a position leaves a category only when
//!    its material changes, that is by a capture or a promotion (a man move), and both reset the
//!    6.2 count: leaving a category, the 6.2 count is always 0 (the solver asserts that every
//!    ply changing the category resets 6.2). Outside a category only the 6.2 count is checked
//!    and the category count does not exist.
//!
//! So a state needs one number besides the position, its *live counter*: the category count in
//! a category position, the 6.2 count elsewhere ([`Counters::live`]). This is not a shortcut
//! over the rules but reading 3 itself; with the real limits (category limits below 50) it is
//! also a consequence of the other rules, since inside a category the 6.2 count never exceeds
//! the category count. Test limits should keep the category limits at most the 6.2 limit for
//! the same to hold.
//!
//! "Fresh" counters at a position (docs/rules.md §5.3, [`Counters::FRESH`]): both counts 0. Outside
//! a category that is the position right after a man move or a capture (6.2 count 0); in a
//! category it is the first position of the category, right after the capture or promotion that
//! entered it (category count 0), and that ply also reset 6.2, so both are 0 there too.
//!
//! The expanded graph has no cycle. A ply that moves a king without capturing keeps the
//! material, hence the category, and adds one to the live counter. Any other ply, a man move or
//! a capture, strictly lowers the pair (pieces on the board, plies the men still need to reach
//! their promotion rows), compared on the pieces first, and no ply raises it. So every state is
//! decided by plain iteration, and play under the rules always ends; [`Graph::rules`] asserts
//! that no state is left undecided.
//!
//! Included by test binaries, each using a different part of it.
#![allow(dead_code)]

use std::collections::{HashMap, HashSet, VecDeque};

use rafle_probe::draughts::{Color, Material, Piece, Position, Role, Square, Variant};

/// Win, draw or loss for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move loses.
    Loss,
    /// Neither side wins.
    Draw,
    /// The side to move wins.
    Win,
}

impl Wdl {
    /// The same result seen by the other side.
    #[must_use]
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }
}

/// Value with the draw rules ignored (docs/rules.md §5.1–5.2), distances in plies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dtw {
    /// The side to move loses; the game ends after this many plies when the winner shortens and
    /// the loser lengthens it. `Loss(0)`: the side to move has no legal move.
    Loss(u32),
    /// Neither side can force the game to end (repetition).
    Draw,
    /// The side to move wins; the game ends after this many plies (odd: the winner plays last).
    Win(u32),
}

impl Dtw {
    /// Win, draw or loss.
    pub fn wdl(self) -> Wdl {
        match self {
            Dtw::Loss(_) => Wdl::Loss,
            Dtw::Draw => Wdl::Draw,
            Dtw::Win(_) => Wdl::Win,
        }
    }

    /// The distance in plies, none for a draw.
    pub fn plies(self) -> Option<u32> {
        match self {
            Dtw::Loss(n) | Dtw::Win(n) => Some(n),
            Dtw::Draw => None,
        }
    }
}

/// Which counting draw rule applies to a position (docs/rules.md §4): a function of its material.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// Neither 6.3 nor 6.4: the 6.2 count is the live one.
    Outside,
    /// Rule 6.3: a lone king against 3 kings, or (international only) 2 kings + 1 man or
    /// 1 king + 2 men.
    Rule63,
    /// Rule 6.4: a lone king against 2 kings, 1 king + 1 man, or 1 king.
    Rule64,
}

/// The category of a position. One side must have exactly one king and nothing else; what the
/// other side has decides. King against king is 6.4 (both sides are lone kings).
pub fn category(pos: &Position) -> Category {
    let m = Material::of(pos);
    let white = (m.white_kings, m.white_men);
    let black = (m.black_kings, m.black_men);
    for (lone, other) in [(white, black), (black, white)] {
        if lone != (1, 0) {
            continue;
        }
        match other {
            (2, 0) | (1, 1) | (1, 0) => return Category::Rule64,
            (3, 0) => return Category::Rule63,
            (2, 1) | (1, 2) if pos.variant() == Variant::International => return Category::Rule63,
            _ => {}
        }
    }
    Category::Outside
}

/// The limits of the counting rules, in plies (N moves each = 2N plies).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Rule 6.2: plies in a row in which only kings moved and nothing was captured (50).
    pub king_plies: u32,
    /// Rule 6.3: plies in the category (32 international, 40 Brazilian).
    pub category_3: u32,
    /// Rule 6.4: plies in the category (10).
    pub category_4: u32,
}

impl Limits {
    /// The limits of the rules of `variant` (docs/rules.md §4).
    pub fn of(variant: Variant) -> Limits {
        Limits {
            king_plies: 50,
            category_3: match variant {
                Variant::International => 32,
                Variant::Brazilian => 40,
            },
            category_4: 10,
        }
    }

    /// The limit of the live counter of a position of this category.
    pub fn live(&self, category: Category) -> u32 {
        match category {
            Category::Outside => self.king_plies,
            Category::Rule63 => self.category_3,
            Category::Rule64 => self.category_4,
        }
    }
}

/// Plies already used on the counters when a position is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Counters {
    /// Rule 6.2: plies in a row in which only kings moved and nothing was captured.
    pub king_plies: u32,
    /// Rules 6.3/6.4: plies since the position entered its category.
    pub category_plies: u32,
}

impl Counters {
    /// Fresh counters: both 0 (see the module documentation).
    pub const FRESH: Counters = Counters {
        king_plies: 0,
        category_plies: 0,
    };

    /// The counter that is checked in a position of this category: the category count in a
    /// category (the 6.2 count is then ignored, reading 3), the 6.2 count outside (the category
    /// count is then ignored: it does not run there).
    pub fn live(self, category: Category) -> u32 {
        match category {
            Category::Outside => self.king_plies,
            Category::Rule63 | Category::Rule64 => self.category_plies,
        }
    }
}

/// One legal move in a [`Graph`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Edge {
    /// Index of the position after the move, or [`LAST_PIECE`].
    to: u32,
    /// Whether the move resets the 6.2 count: a capture or a man move.
    reset: bool,
}

/// [`Edge::to`] of a move that captures the opponent's last piece: the game is won.
const LAST_PIECE: u32 = u32::MAX;

/// A set of positions closed under moves, each with its legal moves.
pub struct Graph {
    positions: Vec<Position>,
    index: HashMap<Position, u32>,
    /// The moves of position `i` are `edges[starts[i]..starts[i + 1]]`.
    starts: Vec<usize>,
    edges: Vec<Edge>,
}

impl Graph {
    /// Every legal placement of 2..=`max_pieces` pieces of the given roles with at least one
    /// piece of each colour, each with White and with Black to move. Placements
    /// [`Position::put`] refuses (a man on its own promotion row) are left out. The roles must
    /// give a set moves cannot leave: men and kings, or kings alone.
    pub fn enumerate(variant: Variant, max_pieces: u32, roles: &[Role]) -> Graph {
        Graph::from_positions(enumerate(variant, max_pieces, roles))
    }

    /// `start` and every position reachable from it by legal moves (positions where the side to
    /// move has no piece left are not listed: the move into them captured the last piece).
    pub fn reachable_from(start: Position) -> Graph {
        let mut seen = HashSet::from([start]);
        let mut queue = VecDeque::from([start]);
        let mut positions = Vec::new();
        while let Some(pos) = queue.pop_front() {
            positions.push(pos);
            for mv in pos.legal_moves().iter() {
                let next = pos.play(mv);
                if !next.side_pieces(next.turn()).is_empty() && seen.insert(next) {
                    queue.push_back(next);
                }
            }
        }
        Graph::from_positions(positions)
    }

    /// The graph of `positions`, which must be distinct and closed under moves (panics if a
    /// move leads out of the list).
    pub fn from_positions(positions: Vec<Position>) -> Graph {
        let index: HashMap<Position, u32> = positions
            .iter()
            .enumerate()
            .map(|(i, &pos)| (pos, u32::try_from(i).expect("fewer than 2^32 positions")))
            .collect();
        assert_eq!(index.len(), positions.len(), "positions listed twice");
        let mut starts = Vec::with_capacity(positions.len() + 1);
        let mut edges = Vec::new();
        starts.push(0);
        for pos in &positions {
            for mv in pos.legal_moves().iter() {
                let mover = pos.piece_at(mv.from()).expect("a move starts on a piece");
                let reset = mv.is_capture() || mover.role == Role::Man;
                let next = pos.play(mv);
                let to = if next.side_pieces(next.turn()).is_empty() {
                    LAST_PIECE
                } else {
                    *index.get(&next).unwrap_or_else(|| {
                        panic!("{next:?}, reached from {pos:?}, is not among the listed positions")
                    })
                };
                edges.push(Edge { to, reset });
            }
            starts.push(edges.len());
        }
        Graph {
            positions,
            index,
            starts,
            edges,
        }
    }

    /// The positions, in the order of the vectors [`Graph::dtw`] returns.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The place of `pos` in [`Graph::positions`].
    pub fn index_of(&self, pos: &Position) -> Option<usize> {
        self.index.get(pos).map(|&i| i as usize)
    }

    fn edges(&self, i: usize) -> &[Edge] {
        &self.edges[self.starts[i]..self.starts[i + 1]]
    }

    /// WDL and DTW of every position with the draw rules ignored (docs/rules.md §5.1–5.2), in the
    /// order of [`Graph::positions`].
    ///
    /// Ply by ply, pass `n` = 1, 2, … over the undecided positions:
    ///
    /// - before the passes, a position without a legal move is a loss in 0;
    /// - odd `n`: an undecided position with a move to a loss (necessarily decided in an earlier
    ///   pass, so in at most `n - 1`, hence in exactly `n - 1`, or the position would have been
    ///   decided earlier), or with a move capturing the last piece (a loss in 0 for the
    ///   opponent), is a win in `n`: the winner picks the quickest loss for the opponent;
    /// - even `n`: an undecided position all of whose moves lead to wins (decided earlier, so in
    ///   at most `n - 1`, and one of them in exactly `n - 1`, or it would have been decided
    ///   earlier) is a loss in `n`: the loser picks the slowest win for the opponent;
    /// - wins are only decided in odd passes and read in even ones, and losses the other way
    ///   round, so updating in place is the same as updating from the previous pass;
    /// - the first pass that decides nothing ends the iteration (the next could only use values
    ///   of that pass); what is undecided is a draw: no side can force the game to end.
    pub fn dtw(&self) -> Vec<Dtw> {
        let mut value: Vec<Option<Dtw>> = (0..self.positions.len())
            .map(|i| self.edges(i).is_empty().then_some(Dtw::Loss(0)))
            .collect();
        for n in 1.. {
            let mut changed = false;
            for i in 0..self.positions.len() {
                if value[i].is_some() {
                    continue;
                }
                let edges = self.edges(i);
                let decided = if n % 2 == 1 {
                    edges
                        .iter()
                        .any(|e| {
                            e.to == LAST_PIECE
                                || matches!(value[e.to as usize], Some(Dtw::Loss(m)) if m < n)
                        })
                        .then_some(Dtw::Win(n))
                } else {
                    edges
                        .iter()
                        .all(|e| {
                            e.to != LAST_PIECE
                                && matches!(value[e.to as usize], Some(Dtw::Win(m)) if m < n)
                        })
                        .then_some(Dtw::Loss(n))
                };
                if decided.is_some() {
                    value[i] = decided;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        value.into_iter().map(|v| v.unwrap_or(Dtw::Draw)).collect()
    }

    /// The result under the draw rules with `limits`, for every position and every value of its
    /// live counter, by forward value iteration on the expanded graph of states.
    ///
    /// A state is (position `i`, live counter `u`) with `u` below the position's live limit
    /// `L(i)` ([`Limits::live`] of its [`category`]); states with `u >= L(i)` take no part in
    /// the iteration: reading 2 decides them (a loss if the side to move has no move, else a
    /// draw).
    /// A ply from (`i`, `u`) to position `j` leads to the state (`j`, `u'`) where, following
    /// the readings of the module documentation:
    ///
    /// - `j` outside any category: `u'` is the 6.2 count, 0 after a man move or a capture,
    ///   else `u + 1` (a king move keeps the material, so `i` is outside a category too);
    /// - `j` in the category of `i`: `u' = u + 1` (the category count runs on through man
    ///   moves, promotions and captures that keep the category);
    /// - `j` in a category other than that of `i` (entering one, or 6.3 → 6.4): `u' = 0`.
    ///
    /// A move capturing the last piece wins whatever the counters. Values: the side to move
    /// wins if a move leads to a state lost for the opponent, draws if not but one leads to a
    /// drawn state, and loses if all lead to won states or it has no move. Passes over the
    /// undecided states repeat until one changes nothing; a state is decided as soon as one
    /// successor is lost or all are decided. The passes visit positions by increasing (pieces,
    /// plies their men still need to promote) and, within equal keys, counters downwards: an
    /// order in which one pass settles everything (the expanded graph has no cycle, see the
    /// module documentation). The order only saves passes; the values do not depend on it.
    /// Panics if a state is left undecided or a ply changes the category without resetting 6.2.
    pub fn rules(&self, limits: Limits) -> RuleValues<'_> {
        assert!(
            limits.king_plies > 0 && limits.category_3 > 0 && limits.category_4 > 0,
            "limits must be positive: {limits:?}"
        );
        let n = self.positions.len();
        let categories: Vec<Category> = self.positions.iter().map(category).collect();
        let limit_of: Vec<u32> = categories.iter().map(|&c| limits.live(c)).collect();
        for i in 0..n {
            for e in self.edges(i) {
                if e.to != LAST_PIECE && categories[e.to as usize] != categories[i] {
                    assert!(
                        e.reset,
                        "{:?} to {:?} changes the category without a capture or a man move",
                        self.positions[i], self.positions[e.to as usize]
                    );
                }
            }
        }

        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by_cached_key(|&i| order_key(&self.positions[i as usize]));
        let mut groups = Vec::new();
        let mut first = 0;
        for k in 1..=n {
            if k == n
                || order_key(&self.positions[order[k] as usize])
                    != order_key(&self.positions[order[first] as usize])
            {
                groups.push(first..k);
                first = k;
            }
        }

        let top = limit_of.iter().copied().max().unwrap_or(0);
        let mut values: Vec<Option<Wdl>> = vec![None; n * top as usize];
        loop {
            let mut changed = false;
            for group in &groups {
                for u in (0..top).rev() {
                    for &i in &order[group.clone()] {
                        let i = i as usize;
                        let s = u as usize * n + i;
                        if u >= limit_of[i] || values[s].is_some() {
                            continue;
                        }
                        let state = State {
                            graph: self,
                            categories: &categories,
                            limit_of: &limit_of,
                            values: &values,
                        };
                        if let Some(v) = state.evaluate(i, u) {
                            values[s] = Some(v);
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let values: Vec<Wdl> = values
            .iter()
            .enumerate()
            .map(|(s, v)| match v {
                Some(v) => *v,
                None if s / n.max(1) >= limit_of[s % n] as usize => Wdl::Draw,
                None => panic!(
                    "{:?} with {} plies used left undecided",
                    self.positions[s % n],
                    s / n
                ),
            })
            .collect();
        RuleValues {
            graph: self,
            limits,
            categories,
            values,
        }
    }
}

/// The order of [`Graph::rules`]' passes: (pieces, plies the men still need to promote). A
/// capture lowers the first, a man move the second; a king move keeps both.
fn order_key(pos: &Position) -> (u32, u32) {
    let variant = pos.variant();
    let last_row = u32::from(variant.board_size() - 1);
    let white: u32 = pos
        .pieces(Color::White, Role::Man)
        .into_iter()
        .map(|s| u32::from(s.row(variant)))
        .sum();
    let black: u32 = pos
        .pieces(Color::Black, Role::Man)
        .into_iter()
        .map(|s| last_row - u32::from(s.row(variant)))
        .sum();
    (pos.piece_count(), white + black)
}

/// The values of [`Graph::rules`] being computed, to evaluate one state.
struct State<'a> {
    graph: &'a Graph,
    categories: &'a [Category],
    limit_of: &'a [u32],
    /// State (`i`, `u`) at `u * positions + i`.
    values: &'a [Option<Wdl>],
}

impl State<'_> {
    /// The value of the state (`i`, `u`) if its successors decide it already.
    fn evaluate(&self, i: usize, u: u32) -> Option<Wdl> {
        let mut best = Wdl::Loss;
        let mut all_known = true;
        for e in self.graph.edges(i) {
            if e.to == LAST_PIECE {
                return Some(Wdl::Win);
            }
            let j = e.to as usize;
            let next = if self.categories[j] == Category::Outside {
                if e.reset {
                    0
                } else {
                    u + 1
                }
            } else if self.categories[j] == self.categories[i] {
                u + 1
            } else {
                0
            };
            let theirs = if self.graph.edges(j).is_empty() {
                Some(Wdl::Loss)
            } else if next >= self.limit_of[j] {
                Some(Wdl::Draw)
            } else {
                self.values[next as usize * self.limit_of.len() + j]
            };
            match theirs {
                Some(v) => best = best.max(v.flip()),
                None => all_known = false,
            }
            if best == Wdl::Win {
                return Some(Wdl::Win);
            }
        }
        all_known.then_some(best)
    }
}

/// The results of [`Graph::rules`]: every position of the graph with every value of its live
/// counter.
pub struct RuleValues<'g> {
    graph: &'g Graph,
    limits: Limits,
    categories: Vec<Category>,
    /// State (`i`, `u`) at `u * positions + i`; `Draw` where `u` is not below the live limit
    /// of `i` (never read).
    values: Vec<Wdl>,
}

impl RuleValues<'_> {
    /// The limits the values were computed with.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The limit of the live counter of `pos`.
    pub fn live_limit(&self, pos: &Position) -> u32 {
        self.limits.live(category(pos))
    }

    /// The game result from `pos` with `counters` already used. Only the live counter matters
    /// ([`Counters::live`]); at or past its limit the game is a draw unless the side to move
    /// has no move (reading 2). Panics if `pos` is not in the graph.
    pub fn result(&self, pos: &Position, counters: Counters) -> Wdl {
        let i = self.index(pos);
        self.result_at(i, counters.live(self.categories[i]))
    }

    fn index(&self, pos: &Position) -> usize {
        self.graph
            .index_of(pos)
            .unwrap_or_else(|| panic!("{pos:?} is not in the graph"))
    }

    /// The result of position `i` with `used` plies on its live counter.
    fn result_at(&self, i: usize, used: u32) -> Wdl {
        if self.graph.edges(i).is_empty() {
            Wdl::Loss
        } else if used >= self.limits.live(self.categories[i]) {
            Wdl::Draw
        } else {
            self.values[used as usize * self.categories.len() + i]
        }
    }

    /// The class and count of `pos` ([`RuleValue::from_results`]) given `unlimited`, its
    /// value with the rules ignored; `None` if no count describes its results.
    pub fn rule_value(&self, pos: &Position, unlimited: Wdl) -> Option<RuleValue> {
        RuleValue::from_results(unlimited, &self.results(pos))
    }

    /// [`RuleValues::result`] with the live counter at 0, 1, …, its limit (inclusive).
    pub fn results(&self, pos: &Position) -> Vec<Wdl> {
        let i = self.index(pos);
        (0..=self.limits.live(self.categories[i]))
            .map(|used| self.result_at(i, used))
            .collect()
    }
}

/// The rule-aware class of a position with fresh counters (docs/rules.md §5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Lost under the rules.
    Loss,
    /// Lost with the rules ignored, drawn under them.
    BlessedLoss,
    /// Drawn with and without the rules.
    Draw,
    /// Won with the rules ignored, drawn under them.
    CursedWin,
    /// Won under the rules.
    Win,
}

/// The rule-aware value of a position (docs/rules.md §5.3): its class and its count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuleValue {
    /// The class with fresh counters.
    pub class: Class,
    /// In plies, the smallest `c` with which [`RuleValue::probe`] answers every value of the
    /// live counter right; 0 for the drawn classes.
    pub count: u32,
}

impl RuleValue {
    /// The class and count of a position from `unlimited`, its value with the rules ignored,
    /// and `results[u]`, its result with `u` plies used on its live counter, `u` from 0 to the
    /// limit `results.len() - 1` ([`RuleValues::results`]).
    ///
    /// The class is the result with fresh counters, a draw being a cursed win or a blessed loss
    /// when `unlimited` is a win or a loss. The count is found by trying every `c` from 0 to the
    /// limit; `None` when none works, that is when the results are not of the form the
    /// tablebase's (class, count) can express.
    pub fn from_results(unlimited: Wdl, results: &[Wdl]) -> Option<RuleValue> {
        let limit = u32::try_from(results.len().checked_sub(1)?).ok()?;
        let class = match (results[0], unlimited) {
            (Wdl::Win, _) => Class::Win,
            (Wdl::Loss, _) => Class::Loss,
            (Wdl::Draw, Wdl::Win) => Class::CursedWin,
            (Wdl::Draw, Wdl::Loss) => Class::BlessedLoss,
            (Wdl::Draw, Wdl::Draw) => Class::Draw,
        };
        (0..=limit)
            .map(|count| RuleValue { class, count })
            .find(|value| {
                (0..=limit).all(|used| value.probe(used, limit) == results[used as usize])
            })
    }

    /// The answer of docs/rules.md §5.3 with `used` plies used on a live counter whose limit is
    /// `limit`: a win iff the class is win and count ≤ limit − used, a loss iff the class is
    /// loss and count ≤ limit − used, a draw otherwise.
    pub fn probe(self, used: u32, limit: u32) -> Wdl {
        let in_time = used <= limit && self.count <= limit - used;
        match self.class {
            Class::Win if in_time => Wdl::Win,
            Class::Loss if in_time => Wdl::Loss,
            _ => Wdl::Draw,
        }
    }
}

/// WDL and DTW (docs/rules.md §5.1–5.2) of every position with 2..=`max_pieces` pieces of the given
/// roles (see [`Graph::enumerate`]).
pub fn dtw(variant: Variant, max_pieces: u32, roles: &[Role]) -> HashMap<Position, Dtw> {
    let graph = Graph::enumerate(variant, max_pieces, roles);
    let values = graph.dtw();
    graph.positions.into_iter().zip(values).collect()
}

/// The game result from `pos` with `counters` already used, under the draw rules with `limits`
/// (see [`Graph::rules`]), solved on the states reachable from `pos`.
pub fn result(pos: &Position, counters: Counters, limits: Limits) -> Wdl {
    Graph::reachable_from(*pos)
        .rules(limits)
        .result(pos, counters)
}

/// Every legal placement of 2..=`max_pieces` pieces of the given roles with at least one piece
/// of each colour, each with White and with Black to move.
pub fn enumerate(variant: Variant, max_pieces: u32, roles: &[Role]) -> Vec<Position> {
    let mut kinds = Vec::new();
    for color in [Color::White, Color::Black] {
        for &role in roles {
            kinds.push(Piece { color, role });
        }
    }
    let mut out = Vec::new();
    place(
        Position::empty(variant, Color::White),
        1,
        max_pieces,
        &kinds,
        &mut out,
    );
    out
}

/// Adds pieces on squares numbered `first` and up to `pos`, recording every placement reached.
fn place(pos: Position, first: u8, max_pieces: u32, kinds: &[Piece], out: &mut Vec<Position>) {
    if !pos.side_pieces(Color::White).is_empty() && !pos.side_pieces(Color::Black).is_empty() {
        out.push(pos.with_turn(Color::White));
        out.push(pos.with_turn(Color::Black));
    }
    if pos.piece_count() == max_pieces {
        return;
    }
    let variant = pos.variant();
    for number in first..=variant.square_count() {
        let square = Square::new(variant, number).expect("square numbers run 1..=count");
        for &piece in kinds {
            let mut next = pos;
            if next.put(square, piece).is_ok() {
                place(next, number + 1, max_pieces, kinds, out);
            }
        }
    }
}
