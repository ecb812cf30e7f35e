//! Materials: how many men and kings each side has.

use std::fmt;
use std::str::FromStr;

use crate::{Color, Position, Role, Variant};

/// The pieces on the board, counted by colour and role: what a table covers.
///
/// A table stores one orientation of each mirrored pair (see [`Material::is_canonical`]); a
/// position of the other orientation is probed through [`Position::mirrored`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    /// White's men.
    pub white_men: u8,
    /// White's kings.
    pub white_kings: u8,
    /// Black's men.
    pub black_men: u8,
    /// Black's kings.
    pub black_kings: u8,
}

impl Material {
    /// The material of a position.
    pub fn of(pos: &Position) -> Material {
        let count = |color, role| pos.pieces(color, role).len() as u8;
        Material {
            white_men: count(Color::White, Role::Man),
            white_kings: count(Color::White, Role::King),
            black_men: count(Color::Black, Role::Man),
            black_kings: count(Color::Black, Role::King),
        }
    }

    /// Total number of pieces.
    pub fn pieces(self) -> u32 {
        // Summed wide: the fields are public, and four u8 counts can exceed 255.
        [
            self.white_men,
            self.white_kings,
            self.black_men,
            self.black_kings,
        ]
        .map(u32::from)
        .iter()
        .sum()
    }

    /// Total number of men of both sides.
    pub fn men(self) -> u32 {
        u32::from(self.white_men) + u32::from(self.black_men)
    }

    /// The colours swapped.
    #[must_use]
    pub fn mirrored(self) -> Material {
        Material {
            white_men: self.black_men,
            white_kings: self.black_kings,
            black_men: self.white_men,
            black_kings: self.white_kings,
        }
    }

    /// Whether this is the orientation tables are stored in: White has at least as many
    /// pieces as Black, and on a tie at least as many kings.
    pub fn is_canonical(self) -> bool {
        let side = |men: u8, kings: u8| (u32::from(men) + u32::from(kings), kings);
        let white = side(self.white_men, self.white_kings);
        let black = side(self.black_men, self.black_kings);
        white >= black
    }

    /// The stored orientation of this material.
    #[must_use]
    pub fn canonical(self) -> Material {
        if self.is_canonical() {
            self
        } else {
            self.mirrored()
        }
    }

    /// Whether both sides have the same pieces (a table then holds each position twice,
    /// once per colour).
    pub fn is_symmetric(self) -> bool {
        self == self.mirrored()
    }

    /// Every canonical material with 2..=`max_pieces` pieces and at least one piece a side, in
    /// dependency order: a capture leads to fewer pieces and a promotion to fewer men, and both
    /// come earlier in the list.
    pub fn all_up_to(variant: Variant, max_pieces: u32) -> Vec<Material> {
        let max_men_per_side = variant.square_count() - variant.squares_per_row();
        let mut list = Vec::new();
        for total in 2..=max_pieces {
            for white in 1..total {
                let black = total - white;
                for white_men in 0..=white {
                    for black_men in 0..=black {
                        let m = Material {
                            white_men: white_men as u8,
                            white_kings: (white - white_men) as u8,
                            black_men: black_men as u8,
                            black_kings: (black - black_men) as u8,
                        };
                        if m.is_canonical()
                            && m.white_men <= max_men_per_side
                            && m.black_men <= max_men_per_side
                        {
                            list.push(m);
                        }
                    }
                }
            }
        }
        list.sort_by_key(|m| (m.pieces(), m.men(), *m));
        list
    }

    fn side_name(men: u8, kings: u8) -> String {
        "K".repeat(usize::from(kings)) + &"M".repeat(usize::from(men))
    }
}

/// Written as the pieces of each side, kings `K` then men `M`: `KKMvK` is two kings and a man
/// against a king.
impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}v{}",
            Material::side_name(self.white_men, self.white_kings),
            Material::side_name(self.black_men, self.black_kings)
        )
    }
}

/// A material name that does not read as `<K..M..>v<K..M..>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadMaterialName(pub String);

impl fmt::Display for BadMaterialName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a material name like KKMvK",
            crate::excerpt(&self.0)
        )
    }
}

impl std::error::Error for BadMaterialName {}

impl FromStr for Material {
    type Err = BadMaterialName;

    fn from_str(s: &str) -> Result<Material, BadMaterialName> {
        let bad = || BadMaterialName(s.to_string());
        let (white, black) = s.split_once('v').ok_or_else(bad)?;
        let side = |text: &str| -> Result<(u8, u8), BadMaterialName> {
            let kings = text.chars().take_while(|&c| c == 'K').count();
            let men = text[kings..].chars().take_while(|&c| c == 'M').count();
            if kings + men != text.len() || text.len() > 40 {
                return Err(bad());
            }
            Ok((men as u8, kings as u8))
        };
        let (white_men, white_kings) = side(white)?;
        let (black_men, black_kings) = side(black)?;
        Ok(Material {
            white_men,
            white_kings,
            black_men,
            black_kings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_past_a_byte_are_summed_without_overflow() {
        let m = Material {
            white_men: 200,
            white_kings: 200,
            black_men: 62,
            black_kings: 194,
        };
        assert_eq!(m.pieces(), 656);
        assert_eq!(m.men(), 262);
        assert!(m.is_canonical());
        assert!(!m.mirrored().is_canonical());
    }

    #[test]
    fn names_round_trip() {
        for v in Variant::ALL {
            for m in Material::all_up_to(v, 5) {
                assert_eq!(m.to_string().parse::<Material>(), Ok(m));
            }
        }
        assert_eq!(
            "KKMvK".parse::<Material>(),
            Ok(Material {
                white_men: 1,
                white_kings: 2,
                black_men: 0,
                black_kings: 1
            })
        );
        assert!("KMKvK".parse::<Material>().is_err());
        assert!("KK".parse::<Material>().is_err());
    }

    #[test]
    fn dependency_order_and_mirror_pairs_once() {
        let all = Material::all_up_to(Variant::Brazilian, 3);
        // 2 pieces: MvM, KvM, KvK; 3 pieces: two white pieces of any kind against one.
        assert_eq!(all.len(), 3 + 6);
        let names: Vec<String> = all.iter().take(3).map(ToString::to_string).collect();
        assert_eq!(names, ["KvK", "KvM", "MvM"]);
        for m in &all {
            assert!(m.is_canonical());
            if !m.is_symmetric() {
                assert!(!all.contains(&m.mirrored()));
            }
        }
        // Every material a capture or a promotion leads to, while both sides keep a piece, is
        // listed before the material it comes from.
        let place = |m: Material| all.iter().position(|&x| x == m.canonical());
        for (i, &m) in all.iter().enumerate() {
            let mut successors = Vec::new();
            let counts = [m.white_men, m.white_kings, m.black_men, m.black_kings];
            for lost in 0..4 {
                if counts[lost] > 0 {
                    let mut c = counts;
                    c[lost] -= 1;
                    successors.push(c);
                }
            }
            for (man, king) in [(0, 1), (2, 3)] {
                if counts[man] > 0 {
                    let mut c = counts;
                    c[man] -= 1;
                    c[king] += 1;
                    successors.push(c);
                }
            }
            for [white_men, white_kings, black_men, black_kings] in successors {
                if white_men + white_kings == 0 || black_men + black_kings == 0 {
                    continue;
                }
                let next = Material {
                    white_men,
                    white_kings,
                    black_men,
                    black_kings,
                };
                let at = place(next).unwrap_or_else(|| panic!("{next} is listed"));
                assert!(at < i, "{next} comes before {m}");
            }
        }
    }
}
