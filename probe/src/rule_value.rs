//! The rule-aware values of docs/rules.md §5.3: a class and a count from which the result under any
//! live draw-rule counter (FMJD 6.2–6.4, see [`rafle_draughts::draw_rules`]) follows.

use std::fmt;

use rafle_draughts::{Category, Counters, Limits};

use crate::Wdl;

/// The result with the draw rules enforced and fresh counters, in five classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleClass {
    /// The side to move wins under the rules.
    Win,
    /// Won with the rules ignored, but the rules let the loser reach a draw.
    CursedWin,
    /// Drawn even with the rules ignored.
    Draw,
    /// Lost with the rules ignored, but the rules save the side to move.
    BlessedLoss,
    /// The side to move loses under the rules.
    Loss,
}

impl RuleClass {
    /// `"win"`, `"cursed_win"`, `"draw"`, `"blessed_loss"` or `"loss"`.
    pub fn name(self) -> &'static str {
        match self {
            RuleClass::Win => "win",
            RuleClass::CursedWin => "cursed_win",
            RuleClass::Draw => "draw",
            RuleClass::BlessedLoss => "blessed_loss",
            RuleClass::Loss => "loss",
        }
    }

    /// The value with the rules ignored.
    pub fn wdl(self) -> Wdl {
        match self {
            RuleClass::Win | RuleClass::CursedWin => Wdl::Win,
            RuleClass::Draw => Wdl::Draw,
            RuleClass::BlessedLoss | RuleClass::Loss => Wdl::Loss,
        }
    }

    /// The class a win/draw/loss value stands for when no rule value is known (no rule
    /// tables): a win or a loss taken as forced under the rules.
    pub fn of_wdl(wdl: Wdl) -> RuleClass {
        match wdl {
            Wdl::Win => RuleClass::Win,
            Wdl::Draw => RuleClass::Draw,
            Wdl::Loss => RuleClass::Loss,
        }
    }

    /// The class as a signed number for the side to move: win 2, cursed win 1, draw 0,
    /// blessed loss -1, loss -2 (the order of the classes, best first).
    pub fn score(self) -> i8 {
        match self {
            RuleClass::Win => 2,
            RuleClass::CursedWin => 1,
            RuleClass::Draw => 0,
            RuleClass::BlessedLoss => -1,
            RuleClass::Loss => -2,
        }
    }

    /// The class of a position whose result under the rules is neither a win nor a loss.
    pub fn not_forced(wdl: Wdl) -> RuleClass {
        match wdl {
            Wdl::Win => RuleClass::CursedWin,
            Wdl::Draw => RuleClass::Draw,
            Wdl::Loss => RuleClass::BlessedLoss,
        }
    }
}

impl fmt::Display for RuleClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The rule-aware value of a position (docs/rules.md §5.3): its class with fresh counters and, for a
/// win or a loss, the count: the plies to the next counter reset that keeps the result (in a
/// category, to the end of the game or the capture that leaves it), the winner shortening and
/// the loser lengthening it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuleValue {
    class: RuleClass,
    count: u8,
}

impl RuleValue {
    /// Drawn even with the draw rules ignored.
    pub const DRAW: RuleValue = RuleValue {
        class: RuleClass::Draw,
        count: 0,
    };

    /// Lost at once: the side to move has no move, or no piece.
    pub const NO_MOVE: RuleValue = RuleValue {
        class: RuleClass::Loss,
        count: 0,
    };

    /// A win whose count is `count` plies.
    pub fn win(count: u8) -> RuleValue {
        RuleValue {
            class: RuleClass::Win,
            count,
        }
    }

    /// A loss whose count is `count` plies (0: no move).
    pub fn loss(count: u8) -> RuleValue {
        RuleValue {
            class: RuleClass::Loss,
            count,
        }
    }

    /// A value without a count: a cursed win, a draw or a blessed loss.
    ///
    /// # Panics
    ///
    /// If `class` is a win or a loss, which need a count.
    pub fn uncounted(class: RuleClass) -> RuleValue {
        assert!(
            !matches!(class, RuleClass::Win | RuleClass::Loss),
            "a win or a loss needs a count"
        );
        RuleValue { class, count: 0 }
    }

    /// The class.
    pub fn class(self) -> RuleClass {
        self.class
    }

    /// The count in plies, for a win or a loss.
    pub fn count(self) -> Option<u8> {
        matches!(self.class, RuleClass::Win | RuleClass::Loss).then_some(self.count)
    }

    /// The result with `used` plies already on the live counter of a rule whose limit is
    /// `limit`: a win or a loss if its count still fits, a draw otherwise.
    pub fn result(self, used: u16, limit: u8) -> Wdl {
        let fits = u32::from(self.count) + u32::from(used) <= u32::from(limit);
        match self.class {
            RuleClass::Win if fits => Wdl::Win,
            RuleClass::Loss if fits => Wdl::Loss,
            _ => Wdl::Draw,
        }
    }

    /// The byte a rule table stores: 0 draw, 1 cursed win, 2 blessed loss, `2c + 1` a win and
    /// `2c + 4` a loss with count `c`.
    pub fn code(self) -> u8 {
        match self.class {
            RuleClass::Draw => 0,
            RuleClass::CursedWin => 1,
            RuleClass::BlessedLoss => 2,
            RuleClass::Win => 2 * self.count + 1,
            RuleClass::Loss => 2 * self.count + 4,
        }
    }

    /// The value of a stored byte, `None` for a byte no table holds.
    pub fn from_code(code: u8) -> Option<RuleValue> {
        match code {
            0 => Some(RuleValue::uncounted(RuleClass::Draw)),
            1 => Some(RuleValue::uncounted(RuleClass::CursedWin)),
            2 => Some(RuleValue::uncounted(RuleClass::BlessedLoss)),
            255 => None,
            c if c % 2 == 1 => Some(RuleValue::win(c / 2)),
            c => Some(RuleValue::loss(c / 2 - 2)),
        }
    }

    /// What a move is worth to the side playing it, from the value of the position it reaches
    /// (seen from the side to move there), whether it resets the live counter, and the limit of
    /// the rule in force before it: `Some(Wdl::Win)` / `Some(Wdl::Loss)` with the plies it
    /// adds to the count, or `None` when the move neither wins nor loses under the rules.
    pub fn through_move(next: RuleValue, resets: bool, limit: u8) -> Option<(Wdl, u8)> {
        let (wdl, count) = match next.class {
            RuleClass::Loss => (Wdl::Win, next.count),
            RuleClass::Win => (Wdl::Loss, next.count),
            _ => return None,
        };
        if resets {
            Some((wdl, 1))
        } else {
            let count = count.checked_add(1).filter(|&c| c <= limit)?;
            Some((wdl, count))
        }
    }

    /// The value of a position from its moves, each given as the value reached and whether it
    /// resets the counter, under a rule of limit `limit`: the quickest win; else, if every move
    /// loses, the longest loss; else the class the rules leave. No move: a loss with count 0.
    pub fn from_successors(
        limit: u8,
        successors: impl IntoIterator<Item = (RuleValue, bool)>,
    ) -> RuleValue {
        let mut quickest_win = None::<u8>;
        let mut longest_loss = Some(0u8);
        let mut wdl = Wdl::Loss;
        for (next, resets) in successors {
            wdl = wdl.max(-next.class.wdl());
            match RuleValue::through_move(next, resets, limit) {
                Some((Wdl::Win, c)) => {
                    quickest_win = Some(quickest_win.map_or(c, |w| w.min(c)));
                }
                Some((_, c)) => longest_loss = longest_loss.map(|l| l.max(c)),
                None => longest_loss = None,
            }
        }
        match (quickest_win, longest_loss) {
            (Some(c), _) => RuleValue::win(c),
            (None, Some(c)) => RuleValue::loss(c),
            (None, None) => RuleValue::uncounted(RuleClass::not_forced(wdl)),
        }
    }
}

impl fmt::Display for RuleValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.count() {
            Some(c) => write!(f, "{} (count {c})", self.class),
            None => write!(f, "{}", self.class),
        }
    }
}

/// The answer of a rule-aware probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuleOutcome {
    /// Class and count with fresh counters.
    pub value: RuleValue,
    /// The rule whose counter is live in the position.
    pub category: Category,
    /// That rule's limit in plies.
    pub limit: u8,
    /// The result with the given counters used.
    pub result: Wdl,
}

impl RuleOutcome {
    /// The outcome of a position of `category` with value `value` and live `counters`.
    pub fn new(value: RuleValue, category: Category, limits: Limits, counters: Counters) -> Self {
        let limit = limits.of(category);
        RuleOutcome {
            value,
            category,
            limit,
            result: value.result(counters.used(category), limit),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MAX_LIMIT;

    #[test]
    fn scores_order_the_classes_and_agree_with_wdl() {
        let best_first = [
            RuleClass::Win,
            RuleClass::CursedWin,
            RuleClass::Draw,
            RuleClass::BlessedLoss,
            RuleClass::Loss,
        ];
        let scores: Vec<i8> = best_first.iter().map(|c| c.score()).collect();
        assert_eq!(scores, [2, 1, 0, -1, -2]);
        for class in best_first {
            assert_eq!(class.score().signum(), class.wdl().signum());
        }
        for wdl in [Wdl::Win, Wdl::Draw, Wdl::Loss] {
            assert_eq!(RuleClass::of_wdl(wdl).wdl(), wdl);
            assert_eq!(RuleClass::of_wdl(wdl).score(), 2 * wdl.signum());
        }
    }

    #[test]
    fn codes_round_trip() {
        let mut values = vec![
            RuleValue::uncounted(RuleClass::Draw),
            RuleValue::uncounted(RuleClass::CursedWin),
            RuleValue::uncounted(RuleClass::BlessedLoss),
        ];
        values.extend((1..=MAX_LIMIT).map(RuleValue::win));
        values.extend((0..=MAX_LIMIT).map(RuleValue::loss));
        let mut seen = std::collections::HashSet::new();
        for v in values {
            assert!(seen.insert(v.code()), "{v}");
            assert_eq!(RuleValue::from_code(v.code()), Some(v));
        }
        assert_eq!(RuleValue::from_code(255), None);
    }

    #[test]
    fn result_depends_on_the_plies_left() {
        let win = RuleValue::win(7);
        assert_eq!(win.result(0, 10), Wdl::Win);
        assert_eq!(win.result(3, 10), Wdl::Win);
        assert_eq!(win.result(4, 10), Wdl::Draw);
        assert_eq!(RuleValue::loss(0).result(10, 10), Wdl::Loss);
        assert_eq!(RuleValue::loss(2).result(9, 10), Wdl::Draw);
        assert_eq!(
            RuleValue::uncounted(RuleClass::CursedWin).result(0, 10),
            Wdl::Draw
        );
    }

    #[test]
    fn successors_combine() {
        // A reset into a lost position wins at once; a plain move adds a ply.
        let lost = RuleValue::loss(4);
        assert_eq!(
            RuleValue::from_successors(10, [(lost, true), (RuleValue::loss(0), false)]),
            RuleValue::win(1)
        );
        assert_eq!(
            RuleValue::from_successors(10, [(lost, false)]),
            RuleValue::win(5)
        );
        // Too slow for the limit: cursed.
        assert_eq!(
            RuleValue::from_successors(10, [(RuleValue::loss(10), false)]),
            RuleValue::uncounted(RuleClass::CursedWin)
        );
        // Every move loses: the longest; one escape saves the position.
        let won = RuleValue::win(3);
        assert_eq!(
            RuleValue::from_successors(10, [(won, false), (won, true)]),
            RuleValue::loss(4)
        );
        assert_eq!(
            RuleValue::from_successors(
                10,
                [
                    (won, false),
                    (RuleValue::uncounted(RuleClass::CursedWin), true)
                ]
            ),
            RuleValue::uncounted(RuleClass::BlessedLoss)
        );
        assert_eq!(
            RuleValue::from_successors(10, std::iter::empty()),
            RuleValue::loss(0)
        );
    }
}
