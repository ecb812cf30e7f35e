//! A plan as a graph of units of work: each unit's name (`<variant>/<material>`, or
//! `<variant>/<material>/seed-<part>` for one seed part of a large kings-only material), the
//! units it needs, its dependency level, its memory and the files it writes. `rafle plan`
//! lists them, `rafle slurm submit` submits them and `rafle generate --unit` runs one.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use rafle_probe::draughts::{excerpt, Material, Variant};

use super::{Plan, UnitState};

/// A unit of work by name: a material, or one seed part of a large kings-only material.
/// Displayed as `<variant>/<material>` or `<variant>/<material>/seed-<part>`, and read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UnitName {
    /// The board.
    pub variant: Variant,
    /// The material (as stored).
    pub material: Material,
    /// The seed part (from 1), if the unit is one.
    pub part: Option<u32>,
}

/// A unit name that does not read ([`UnitName`]'s `FromStr`): what is wrong, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadUnitName(pub String);

impl fmt::Display for BadUnitName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadUnitName {}

/// Padded as a string is (`{:<20}`), for the columns of `rafle plan`.
impl fmt::Display for UnitName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.part {
            Some(part) => format!("{}/{}/seed-{part}", self.variant, self.material),
            None => format!("{}/{}", self.variant, self.material),
        };
        f.pad(&name)
    }
}

impl FromStr for UnitName {
    type Err = BadUnitName;

    fn from_str(text: &str) -> Result<UnitName, BadUnitName> {
        let shown = excerpt(text);
        let usage = || {
            BadUnitName(format!(
                "unit {shown:?} is not <variant>/<material> (like brazilian/KKMvK) or \
                 <variant>/<material>/seed-<part>"
            ))
        };
        let mut words = text.split('/');
        let (Some(variant), Some(material)) = (words.next(), words.next()) else {
            return Err(usage());
        };
        let part = match (words.next(), words.next()) {
            (None, _) => None,
            (Some(part), None) => Some(
                part.strip_prefix("seed-")
                    .and_then(|n| n.parse::<u32>().ok())
                    .filter(|&n| n > 0)
                    .ok_or_else(usage)?,
            ),
            _ => return Err(usage()),
        };
        let variant = variant
            .parse::<Variant>()
            .map_err(|e| BadUnitName(format!("unit {shown:?}: {e}")))?;
        let material = material
            .parse::<Material>()
            .map_err(|e| BadUnitName(format!("unit {shown:?}: {e}")))?;
        Ok(UnitName {
            variant,
            material,
            part,
        })
    }
}

/// One unit of work of a plan, as listed and as submitted.
#[derive(Debug, Clone)]
pub struct Unit {
    /// Its name.
    pub name: UnitName,
    /// The units it needs, by their place in [`Plan::units`].
    pub needs: Vec<usize>,
    /// Dependency level: 0 needs nothing, otherwise one more than its deepest need.
    pub level: usize,
    /// Positions it solves (a seed part: those it seeds).
    pub positions: u64,
    /// Bytes of memory it holds.
    pub memory_bytes: u64,
    /// The table files it writes (none for a seed part).
    pub files: Vec<PathBuf>,
    /// Where it stands.
    pub state: UnitState,
}

impl UnitState {
    /// How `rafle plan` and its JSON name the state: `finished`, `to do` or `repack`.
    pub fn name(self) -> &'static str {
        match self {
            UnitState::Finished => "finished",
            UnitState::Repack => "repack",
            UnitState::ToDo => "to do",
        }
    }
}

impl Plan {
    /// The units of the plan, in its order (dependencies first): one per material, and before
    /// a material seeded in parts, a unit per part.
    pub fn units(&self) -> Vec<Unit> {
        let kinds = self.tables.kinds();
        let states = self.unit_states();
        let mut units: Vec<Unit> = Vec::with_capacity(self.materials.len());
        // The unit of each material, by its place in the plan.
        let mut unit_of = Vec::with_capacity(self.materials.len());
        let level = |needs: &[usize], units: &[Unit]| {
            needs.iter().map(|&d| units[d].level + 1).max().unwrap_or(0)
        };
        let name = |material, part| UnitName {
            variant: self.variant,
            material,
            part,
        };
        for (j, m) in self.materials.iter().enumerate() {
            let reads: Vec<usize> = m.reads.iter().map(|&d| unit_of[d]).collect();
            let mut needs = reads.clone();
            if m.seed_parts > 0 {
                let part_states = self.seed_part_states(j, &states);
                for (part, state) in (1..=m.seed_parts).zip(part_states) {
                    needs.push(units.len());
                    units.push(Unit {
                        name: name(m.material, Some(part)),
                        level: level(&reads, &units),
                        needs: reads.clone(),
                        positions: self.seed_part_positions(m, part).1,
                        memory_bytes: self.unit_bytes_in(j, &states, true),
                        files: Vec::new(),
                        state,
                    });
                }
            }
            unit_of.push(units.len());
            units.push(Unit {
                name: name(m.material, None),
                level: level(&needs, &units),
                needs,
                positions: m.positions,
                memory_bytes: self.unit_bytes_in(j, &states, false),
                files: kinds
                    .iter()
                    .map(|&kind| self.directory().table(m.material, kind))
                    .collect(),
                state: states[j],
            });
        }
        units
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_names_read_back_and_bad_ones_say_what_a_name_is() {
        let unit: UnitName = "brazilian/KKMvK".parse().unwrap();
        assert_eq!(unit.part, None);
        assert_eq!(unit.to_string(), "brazilian/KKMvK");
        assert_eq!(format!("{unit:<17}|"), "brazilian/KKMvK  |");
        let part: UnitName = "international/KKKKvKKK/seed-3".parse().unwrap();
        assert_eq!(part.part, Some(3));
        assert_eq!(part.to_string(), "international/KKKKvKKK/seed-3");
        for bad in [
            "KKMvK",
            "",
            "brazilian/KvK/seed-0",
            "brazilian/KvK/seed-",
            "brazilian/KvK/part-1",
            "brazilian/KvK/seed-1/x",
        ] {
            let err = bad.parse::<UnitName>().unwrap_err();
            assert!(
                err.0.contains("is not <variant>/<material>"),
                "{bad:?}: {err}"
            );
        }
        for bad in ["russian/KvK", "brazilian/KxK", "brazilian/"] {
            assert!(bad.parse::<UnitName>().is_err(), "{bad}");
        }
        let err = "chess/KvK".parse::<UnitName>().unwrap_err();
        assert!(err.0.starts_with("unit \"chess/KvK\": "), "{err}");
    }

    #[test]
    fn levels_follow_the_needs() {
        let dir = tempfile::tempdir().unwrap();
        let plan = Plan::new(Variant::Brazilian, 4, dir.path()).unwrap();
        let units = plan.units();
        assert_eq!(units.len(), plan.materials.len());
        for u in &units {
            // Above every need, and right above the highest.
            assert!(
                u.needs.iter().all(|&d| units[d].level < u.level),
                "{}",
                u.name
            );
            assert_eq!(
                u.needs.is_empty(),
                u.level == 0,
                "{}: level {}",
                u.name,
                u.level
            );
            assert!(
                u.level == 0 || u.needs.iter().any(|&d| units[d].level + 1 == u.level),
                "{}",
                u.name
            );
            assert_ne!(u.state, UnitState::Finished);
            assert_eq!(u.files.len(), 3);
        }
        let kvk = units
            .iter()
            .find(|u| u.name.to_string() == "brazilian/KvK")
            .unwrap();
        assert_eq!(kvk.level, 0);
        assert!(kvk.needs.is_empty());
        // A man that promotes needs the material with a king in its place.
        let mvk = units
            .iter()
            .find(|u| u.name.to_string() == "brazilian/KvM")
            .unwrap();
        assert!(
            mvk.needs.iter().any(|&d| units[d].name == kvk.name),
            "{mvk:?}"
        );
        let level = |name: &str| {
            units
                .iter()
                .find(|u| u.name.to_string() == name)
                .unwrap()
                .level
        };
        // A man promotes into the material with a king in its place: KvK, KvM, MvM, then
        // MMvM by way of KMvM (a promotion) and MMvK.
        assert_eq!(
            [
                level("brazilian/KvM"),
                level("brazilian/MvM"),
                level("brazilian/KMvM"),
                level("brazilian/MMvM"),
                level("brazilian/MMvMM"),
            ],
            [1, 2, 3, 4, 6]
        );
    }
}
