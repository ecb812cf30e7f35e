//! The draw rules with counters (FMJD 6.2–6.4, docs/rules.md §4): which rule counts in a position,
//! the limits of each rule, and the live counters of a game.
//!
//! Outside the 6.3/6.4 categories only the 6.2 count matters (king-only plies without capture);
//! inside a category only the category count does. A ply *resets* the live counter when it is a
//! man move or a capture outside any category, or when it enters a category or passes from one
//! to the other; a ply that stays in the same category (a man move, a promotion or a capture
//! included) adds one to its count.

use std::fmt;
use std::str::FromStr;

use crate::{IntRange, Material, Move, OutOfRange, Position, Role, Variant};

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
        if matches!(strong, (1, 0) | (2, 0) | (1, 1)) {
            Category::Rule64
        } else if variant.rules().rule_6_3_materials.contains(&strong) {
            Category::Rule63
        } else {
            Category::Outside
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
        let [rule_6_2, rule_6_3, rule_6_4] = variant.rules().fmjd_limits;
        Limits {
            rule_6_2,
            rule_6_3,
            rule_6_4,
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
    /// [`BadLimits`] naming what is wrong and where: an empty list, an empty item (`6.2=50,`
    /// or `6.2=50,,6.3=30`), an item that is not `rule=plies` with a known rule and plies from
    /// 1 to [`MAX_LIMIT`], or a rule given twice. A list is all or nothing: a typo must not
    /// leave a limit silently at its default or at the last of two values.
    pub fn parse(variant: Variant, text: &str) -> Result<Limits, BadLimits> {
        let bad = |why: String| BadLimits(format!("\"{}\": {why}", crate::excerpt(text)));
        if text.trim().is_empty() {
            return Err(bad(
                "the limits list is empty (expected rule=plies items, like 6.2=50,6.4=10)".into(),
            ));
        }
        let mut limits = Limits::fmjd(variant);
        // The item (1-based) that set each of rules 6.2, 6.3 and 6.4.
        let mut given: [Option<usize>; 3] = [None; 3];
        for (index, part) in text.split(',').map(str::trim).enumerate() {
            let position = index + 1;
            if part.is_empty() {
                return Err(bad(format!(
                    "empty item at position {position} of the limits list"
                )));
            }
            let bad_item = |why: String| {
                bad(format!(
                    "item {position} \"{}\": {why}",
                    crate::excerpt(part)
                ))
            };
            let (rule, plies) = part
                .split_once('=')
                .ok_or_else(|| bad_item("expected rule=plies, like 6.2=50".into()))?;
            let (slot, field) = match rule.trim() {
                "6.2" => (0, &mut limits.rule_6_2),
                "6.3" => (1, &mut limits.rule_6_3),
                "6.4" => (2, &mut limits.rule_6_4),
                _ => return Err(bad_item("the rules are 6.2, 6.3 and 6.4".into())),
            };
            *field = plies
                .trim()
                .parse()
                .ok()
                .filter(|p| (1..=MAX_LIMIT).contains(p))
                .ok_or_else(|| bad_item(format!("plies must be a number from 1 to {MAX_LIMIT}")))?;
            if let Some(first) = given[slot].replace(position) {
                return Err(bad(format!(
                    "rule {} is given twice, at items {first} and {position}",
                    rule.trim()
                )));
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

impl Counters {
    /// The counters of a game on lidraughts from its halfmove clock, the `H` field of its FEN
    /// (`W:W31:B19:H7:F30`), for the position `pos` (mid-capture, the board with its ghosts:
    /// the clock then still counts the material the move began in). `None` where the clock
    /// does not count what either counter counts.
    ///
    /// International draughts (lidraughts' `Standard`): outside the 6.3/6.4 categories the
    /// clock counts the plies since the last capture, man move or promotion, which is the 6.2
    /// count; inside a category it counts the plies since the capture or promotion that made
    /// the material, which is the category count (the other counter cannot matter there:
    /// leaving a category takes a capture, which starts both afresh).
    ///
    /// Brazilian draughts: lidraughts counts under the Russian rules (its `Russian` 7.2.4–7.2.8),
    /// which only in the 6.4 category (a lone king against a king, two kings, or a king and a
    /// man: Russian 7.2.8, the same material, start and 10-ply limit) counts what a counter
    /// here counts; elsewhere its clock is not used.
    pub fn from_lidraughts_clock(pos: &Position, clock: u16) -> Option<Counters> {
        let clock = clock.min(MAX_COUNTER);
        match (pos.variant(), Category::of_position(pos)) {
            (Variant::International, Category::Outside) => Some(Counters {
                king_plies: clock,
                category_plies: 0,
            }),
            (Variant::International, _) | (Variant::Brazilian, Category::Rule64) => {
                Some(Counters {
                    king_plies: 0,
                    category_plies: clock,
                })
            }
            (Variant::Brazilian, _) => None,
        }
    }
}

/// The most plies a counter read from text may hold: far past every limit (a counter at its
/// limit already means a draw), with room to count on without reaching `u16::MAX`.
pub const MAX_COUNTER: u16 = 10_000;

impl FromStr for Counters {
    type Err = BadCounters;

    /// Reads `K,C`: the 6.2 count, then the category count, each from 0 to [`MAX_COUNTER`].
    fn from_str(text: &str) -> Result<Counters, BadCounters> {
        let bad = |why: String| BadCounters(format!("\"{}\": {why}", crate::excerpt(text)));
        let (k, c) = text.split_once(',').ok_or_else(|| {
            bad(format!(
                "expected K,C like 12,0 (K the king plies of rule 6.2, C the plies in the \
                 category of rules 6.3/6.4, each from 0 to {MAX_COUNTER})"
            ))
        })?;
        let number = |s: &str, range: IntRange| {
            range
                .parse(s)
                .map(|n| u16::try_from(n).expect("a counter's range is within u16"))
                .map_err(|e| bad(e.to_string()))
        };
        Ok(Counters {
            king_plies: number(k, IntRange::KING_PLIES)?,
            category_plies: number(c, IntRange::CATEGORY_PLIES)?,
        })
    }
}

impl Counters {
    /// The counters of `king_plies` and `category_plies` plies, each from 0 to
    /// [`MAX_COUNTER`] ([`IntRange::KING_PLIES`], [`IntRange::CATEGORY_PLIES`]), as every
    /// entry point takes them from a caller's numbers.
    ///
    /// # Errors
    ///
    /// [`OutOfRange`] for the first counter out of its range.
    pub fn from_plies(king_plies: i128, category_plies: i128) -> Result<Counters, OutOfRange> {
        let plies = |n: i128, range: IntRange| {
            range
                .check_signed(n)
                .map(|n| u16::try_from(n).expect("a counter's range is within u16"))
        };
        Ok(Counters {
            king_plies: plies(king_plies, IntRange::KING_PLIES)?,
            category_plies: plies(category_plies, IntRange::CATEGORY_PLIES)?,
        })
    }
}

/// Counters that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadCounters(pub String);

impl fmt::Display for BadCounters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad counters {}", self.0)
    }
}

impl std::error::Error for BadCounters {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Color;

    fn cat(v: Variant, m: &str) -> Category {
        Category::of(v, m.parse().unwrap())
    }

    fn lidraughts(variant: Variant, fen: &str, clock: u16) -> Option<Counters> {
        Counters::from_lidraughts_clock(&Position::from_fen(variant, fen).unwrap(), clock)
    }

    #[test]
    fn lidraughts_clock_is_the_counter_of_the_rule_in_force() {
        let counters = |k, c| {
            Some(Counters {
                king_plies: k,
                category_plies: c,
            })
        };
        let i = Variant::International;
        // Outside the categories (lidraughts' 25-move count): the 6.2 count.
        assert_eq!(lidraughts(i, "W:WK46,K50:BK5,K1", 7), counters(7, 0));
        assert_eq!(lidraughts(i, "W:W31,32,33:BK5", 7), counters(7, 0));
        // Its 16-move and 5-move counts: the category count.
        assert_eq!(lidraughts(i, "W:WK46,K50,K45:BK5", 9), counters(0, 9));
        assert_eq!(lidraughts(i, "W:WK46,31:BK5", 4), counters(0, 4));
        // Far past every limit, it stays within what a counter holds.
        assert_eq!(
            lidraughts(i, "W:WK46:BK5", u16::MAX),
            counters(0, MAX_COUNTER)
        );
        let b = Variant::Brazilian;
        // Brazilian on lidraughts counts under the Russian rules: only its 7.2.8 count is
        // the 6.4 count.
        assert_eq!(lidraughts(b, "W:WK1,K2:BK28", 3), counters(0, 3));
        assert_eq!(lidraughts(b, "W:WK1,22:BK28", 3), counters(0, 3));
        assert_eq!(lidraughts(b, "W:WK1,K2,K3:BK28", 3), None);
        assert_eq!(lidraughts(b, "W:WK1,K2:BK28,K32", 3), None);
        assert_eq!(lidraughts(b, "W:W21,22:B9", 0), None);
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
    fn limits_parse() {
        let v = Variant::International;
        let l = Limits::parse(v, "6.2=20, 6.4=4").unwrap();
        assert_eq!((l.rule_6_2, l.rule_6_3, l.rule_6_4), (20, 32, 4));
        assert_eq!(l.to_string(), "6.2=20,6.3=32,6.4=4");
        assert_eq!(Limits::parse(v, &l.to_string()), Ok(l));
        for bad in ["6.5=3", "6.2", "6.2=0", "6.2=200", "6.2=x"] {
            assert!(Limits::parse(v, bad).is_err(), "{bad}");
        }
    }

    fn limits_error(text: &str) -> String {
        Limits::parse(Variant::International, text)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn limits_lists_are_all_or_nothing() {
        assert_eq!(
            limits_error("6.2=50,6.2=40"),
            "bad limits \"6.2=50,6.2=40\": rule 6.2 is given twice, at items 1 and 2"
        );
        assert_eq!(
            limits_error("6.4=3, 6.2=8 ,6.4 = 3"),
            "bad limits \"6.4=3, 6.2=8 ,6.4 = 3\": rule 6.4 is given twice, at items 1 and 3"
        );
        for empty in ["", " "] {
            assert!(
                limits_error(empty).contains("the limits list is empty"),
                "{empty:?}"
            );
        }
        assert_eq!(
            limits_error(","),
            "bad limits \",\": empty item at position 1 of the limits list"
        );
        assert_eq!(
            limits_error("6.2=50,"),
            "bad limits \"6.2=50,\": empty item at position 2 of the limits list"
        );
        assert_eq!(
            limits_error("6.2=50,,6.3=30"),
            "bad limits \"6.2=50,,6.3=30\": empty item at position 2 of the limits list"
        );
        assert_eq!(
            limits_error("6.2=50,6.3=300"),
            "bad limits \"6.2=50,6.3=300\": item 2 \"6.3=300\": plies must be a number from 1 \
             to 125"
        );
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

    fn counters_error(text: &str) -> String {
        text.parse::<Counters>().unwrap_err().to_string()
    }

    #[test]
    fn counters_say_their_range() {
        assert_eq!(
            counters_error("70000,0"),
            "bad counters \"70000,0\": king_plies (K, rule 6.2) must be from 0 to 10000 plies, \
             not 70000"
        );
        assert_eq!(
            counters_error("0,10001"),
            "bad counters \"0,10001\": category_plies (C, rules 6.3/6.4) must be from 0 to 10000 \
             plies, not 10001"
        );
        assert!(counters_error("4").contains("each from 0 to 10000"));
        assert_eq!(
            Counters::from_plies(-1, 0).unwrap_err().to_string(),
            "king_plies (K, rule 6.2) must be from 0 to 10000 plies, not -1"
        );
        assert_eq!(
            Counters::from_plies(0, 1 << 70).unwrap_err().to_string(),
            "category_plies (C, rules 6.3/6.4) must be from 0 to 10000 plies, not \
             1180591620717411303424"
        );
        assert_eq!(
            Counters::from_plies(10_000, 3),
            Ok(Counters {
                king_plies: MAX_COUNTER,
                category_plies: 3
            })
        );
        let long = format!("{},0", "9".repeat(100_000));
        assert!(
            counters_error(&long).len() < 1000,
            "the input is quoted bounded"
        );
        assert_eq!(
            " 10000 , 0 ".parse(),
            Ok(Counters {
                king_plies: MAX_COUNTER,
                category_plies: 0
            })
        );
    }
}
