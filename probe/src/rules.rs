//! The draw rules with counters (FMJD 6.2–6.4, RULES.md §4) and the rule-aware values of
//! RULES.md §5.3: a class and a count from which the result under any live counter follows.
//!
//! Outside the 6.3/6.4 categories only the 6.2 count matters (king-only plies without capture);
//! inside a category only the category count does. A ply *resets* the live counter when it is a
//! man move or a capture outside any category, or when it enters a category or passes from one
//! to the other; a ply that stays in the same category (a man move, a promotion or a capture
//! included) adds one to its count.

use std::fmt;
use std::str::FromStr;

use crate::{Material, Move, Position, Role, Variant, Wdl};

/// The counting rule in force in a position, a function of its material and variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// No endgame category: the 25-move king rule (6.2) counts.
    Outside,
    /// The 6.3 endgame: a lone king against three kings (and, in international draughts, two
    /// kings and a man, or a king and two men).
    Rule63,
    /// The 6.4 endgame: a lone king against two kings, a king and a man, or a king.
    Rule64,
}

impl Category {
    /// The category of a material on a board.
    pub fn of(variant: Variant, material: Material) -> Category {
        let lone_king = |men: u8, kings: u8| men == 0 && kings == 1;
        let strong = if lone_king(material.black_men, material.black_kings) {
            (material.white_kings, material.white_men)
        } else if lone_king(material.white_men, material.white_kings) {
            (material.black_kings, material.black_men)
        } else {
            return Category::Outside;
        };
        match (variant, strong) {
            (_, (1, 0) | (2, 0) | (1, 1)) => Category::Rule64,
            (_, (3, 0)) => Category::Rule63,
            (Variant::International, (2, 1) | (1, 2)) => Category::Rule63,
            _ => Category::Outside,
        }
    }

    /// The category of a position.
    pub fn of_position(pos: &Position) -> Category {
        Category::of(pos.variant(), Material::of(pos))
    }

    /// The article of the rules: `"6.2"`, `"6.3"` or `"6.4"`.
    pub fn article(self) -> &'static str {
        match self {
            Category::Outside => "6.2",
            Category::Rule63 => "6.3",
            Category::Rule64 => "6.4",
        }
    }
}

/// Whether playing `mv` in `pos`, reaching `next`, resets the live counter (see the module
/// documentation): `next` then starts with fresh counters.
pub fn resets_counter(pos: &Position, mv: &Move, next: &Position) -> bool {
    let before = Category::of_position(pos);
    let after = Category::of_position(next);
    if before != after {
        return true;
    }
    before == Category::Outside && man_move_or_capture(pos, mv)
}

/// Whether a move moves a man or captures: what resets the 6.2 count.
fn man_move_or_capture(pos: &Position, mv: &Move) -> bool {
    mv.is_capture() || pos.pieces(pos.turn(), Role::Man).contains(mv.from())
}

/// The most plies a limit may be: counts up to it must fit the tables' byte per position.
pub const MAX_LIMIT: u8 = 125;

/// The plies after which each rule declares a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Rule 6.2: plies of king moves without capture (50 under the FMJD rules).
    pub rule_6_2: u8,
    /// Rule 6.3: plies in the category (32 international, 40 Brazilian).
    pub rule_6_3: u8,
    /// Rule 6.4: plies in the category (10).
    pub rule_6_4: u8,
}

impl Limits {
    /// The FMJD limits of a variant.
    pub fn fmjd(variant: Variant) -> Limits {
        Limits {
            rule_6_2: 50,
            rule_6_3: match variant {
                Variant::International => 32,
                Variant::Brazilian => 40,
            },
            rule_6_4: 10,
        }
    }

    /// The limit of a category's rule.
    pub fn of(self, category: Category) -> u8 {
        match category {
            Category::Outside => self.rule_6_2,
            Category::Rule63 => self.rule_6_3,
            Category::Rule64 => self.rule_6_4,
        }
    }

    /// Reads `6.2=50,6.3=32,6.4=10`; rules left out keep the variant's FMJD limit.
    ///
    /// # Errors
    ///
    /// [`BadLimits`] naming the part that is not `rule=plies` with a known rule and plies from
    /// 1 to [`MAX_LIMIT`].
    pub fn parse(variant: Variant, text: &str) -> Result<Limits, BadLimits> {
        let mut limits = Limits::fmjd(variant);
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let bad = |why: &str| BadLimits(format!("{part:?}: {why}"));
            let (rule, plies) = part
                .split_once('=')
                .ok_or_else(|| bad("expected rule=plies, like 6.2=50"))?;
            let plies: u8 = plies
                .trim()
                .parse()
                .ok()
                .filter(|p| (1..=MAX_LIMIT).contains(p))
                .ok_or_else(|| bad(&format!("plies must be a number from 1 to {MAX_LIMIT}")))?;
            match rule.trim() {
                "6.2" => limits.rule_6_2 = plies,
                "6.3" => limits.rule_6_3 = plies,
                "6.4" => limits.rule_6_4 = plies,
                _ => return Err(bad("the rules are 6.2, 6.3 and 6.4")),
            }
        }
        Ok(limits)
    }
}

impl fmt::Display for Limits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "6.2={},6.3={},6.4={}",
            self.rule_6_2, self.rule_6_3, self.rule_6_4
        )
    }
}

/// Limits that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLimits(pub String);

impl fmt::Display for BadLimits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad limits {}", self.0)
    }
}

impl std::error::Error for BadLimits {}

/// The live draw-rule counters of a game, in plies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Counters {
    /// Rule 6.2: consecutive plies in which only kings moved and nothing was captured.
    pub king_plies: u16,
    /// Rules 6.3/6.4: plies since the position entered its category.
    pub category_plies: u16,
}

impl Counters {
    /// Both counts at 0, as right after a man move or a capture.
    pub const FRESH: Counters = Counters {
        king_plies: 0,
        category_plies: 0,
    };

    /// The plies used on the counter that a category's rule checks.
    pub fn used(self, category: Category) -> u16 {
        match category {
            Category::Outside => self.king_plies,
            _ => self.category_plies,
        }
    }

    /// The counters after playing `mv` from `pos` to `next`.
    pub fn after(self, pos: &Position, mv: &Move, next: &Position) -> Counters {
        let before = Category::of_position(pos);
        let after = Category::of_position(next);
        Counters {
            king_plies: if man_move_or_capture(pos, mv) {
                0
            } else {
                self.king_plies.saturating_add(1)
            },
            category_plies: if after == Category::Outside || after != before {
                0
            } else {
                self.category_plies.saturating_add(1)
            },
        }
    }
}

impl FromStr for Counters {
    type Err = String;

    /// Reads `K,C`: the 6.2 count, then the category count.
    fn from_str(text: &str) -> Result<Counters, String> {
        let (k, c) = text
            .split_once(',')
            .ok_or_else(|| format!("bad counters {text:?}: expected K,C like 12,0"))?;
        let number = |s: &str| {
            s.trim()
                .parse::<u16>()
                .map_err(|_| format!("bad counters {text:?}: {s:?} is not a count of plies"))
        };
        Ok(Counters {
            king_plies: number(k)?,
            category_plies: number(c)?,
        })
    }
}

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

/// The rule-aware value of a position (RULES.md §5.3): its class with fresh counters and, for a
/// win or a loss, the count: the plies to the next counter reset that keeps the result (in a
/// category, to the end of the game or the capture that leaves it), the winner shortening and
/// the loser lengthening it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuleValue {
    class: RuleClass,
    count: u8,
}

impl RuleValue {
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
    use crate::Color;

    fn cat(v: Variant, m: &str) -> Category {
        Category::of(v, m.parse().unwrap())
    }

    #[test]
    fn categories_follow_the_rules() {
        use Variant::{Brazilian as B, International as I};
        assert_eq!(cat(I, "KvK"), Category::Rule64);
        assert_eq!(cat(I, "KKvK"), Category::Rule64);
        assert_eq!(cat(B, "KMvK"), Category::Rule64);
        assert_eq!(cat(I, "KvKM"), Category::Rule64);
        assert_eq!(cat(I, "KKKvK"), Category::Rule63);
        assert_eq!(cat(B, "KKKvK"), Category::Rule63);
        assert_eq!(cat(I, "KKMvK"), Category::Rule63);
        assert_eq!(cat(B, "KKMvK"), Category::Outside);
        assert_eq!(cat(I, "KMMvK"), Category::Rule63);
        assert_eq!(cat(I, "MMMvK"), Category::Outside);
        assert_eq!(cat(I, "MvK"), Category::Outside);
        assert_eq!(cat(I, "KKKKvK"), Category::Outside);
        assert_eq!(cat(I, "KKvKK"), Category::Outside);
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

    #[test]
    fn limits_parse() {
        let v = Variant::International;
        assert_eq!(Limits::parse(v, "").unwrap(), Limits::fmjd(v));
        let l = Limits::parse(v, "6.2=20, 6.4=4").unwrap();
        assert_eq!((l.rule_6_2, l.rule_6_3, l.rule_6_4), (20, 32, 4));
        assert_eq!(l.to_string(), "6.2=20,6.3=32,6.4=4");
        for bad in ["6.5=3", "6.2", "6.2=0", "6.2=200", "6.2=x"] {
            assert!(Limits::parse(v, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn counters_follow_the_plies() {
        let pos = Position::from_fen(Variant::Brazilian, "W:WK1,K2,8:BK32").unwrap();
        let c = Counters {
            king_plies: 3,
            category_plies: 0,
        };
        for mv in &pos.legal_moves() {
            let next = pos.play(mv);
            let after = c.after(&pos, mv, &next);
            let man = pos.pieces(Color::White, Role::Man).contains(mv.from());
            assert_eq!(after.king_plies, if man { 0 } else { 4 });
            assert_eq!(resets_counter(&pos, mv, &next), man);
        }
        assert_eq!(
            "4,2".parse(),
            Ok(Counters {
                king_plies: 4,
                category_plies: 2
            })
        );
        assert!("4".parse::<Counters>().is_err());
    }
}
