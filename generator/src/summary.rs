//! The counts of a solved material, and the small file that keeps them beside its work files,
//! so a later run that reuses the tables reports them without reading every position back.

use std::path::PathBuf;

use rafle_probe::{Dtw, Material, RuleClass, RuleValue, Variant};

use crate::plan::Tables;
use crate::values::{work_stem, WORK_DIR};
use crate::write::Written;
use crate::GenerateError;

/// Counts of a solved material.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) wins: u64,
    pub(crate) draws: u64,
    pub(crate) losses: u64,
    pub(crate) cursed_wins: u64,
    pub(crate) blessed_losses: u64,
    pub(crate) longest_win: u16,
}

impl Counts {
    /// Counts one position.
    #[inline]
    pub(crate) fn add(&mut self, distance: Dtw, rule: RuleValue) {
        match distance {
            Dtw::Win(d) => {
                self.wins += 1;
                self.longest_win = self.longest_win.max(d);
            }
            Dtw::Draw => self.draws += 1,
            Dtw::Loss(_) => self.losses += 1,
        }
        match rule.class() {
            RuleClass::CursedWin => self.cursed_wins += 1,
            RuleClass::BlessedLoss => self.blessed_losses += 1,
            _ => {}
        }
    }

    /// The sum of two counts.
    pub(crate) fn merge(self, other: Counts) -> Counts {
        Counts {
            wins: self.wins + other.wins,
            draws: self.draws + other.draws,
            losses: self.losses + other.losses,
            cursed_wins: self.cursed_wins + other.cursed_wins,
            blessed_losses: self.blessed_losses + other.blessed_losses,
            longest_win: self.longest_win.max(other.longest_win),
        }
    }

    fn fields(&self) -> [u64; 6] {
        [
            self.wins,
            self.draws,
            self.losses,
            self.cursed_wins,
            self.blessed_losses,
            u64::from(self.longest_win),
        ]
    }
}

/// `<variant dir>/.rafle-work/<material>.summary`: the counts, then the sizes of the three
/// tables they were counted from.
pub(crate) struct SummaryFile {
    path: PathBuf,
}

impl SummaryFile {
    /// The summary of `material`'s tables of a run writing `tables`.
    pub(crate) fn new(
        dir: &std::path::Path,
        variant: Variant,
        material: Material,
        tables: Tables,
    ) -> SummaryFile {
        SummaryFile {
            path: dir
                .join(variant.name())
                .join(WORK_DIR)
                .join(format!("{}.summary", work_stem(material, tables))),
        }
    }

    /// The counts kept for tables of these sizes, if any.
    pub(crate) fn read(&self, written: &Written) -> Option<Counts> {
        let text = std::io::read_to_string(rafle_probe::open_regular(&self.path).ok()?).ok()?;
        let numbers: Vec<u64> = text
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        let [wins, draws, losses, cursed_wins, blessed_losses, longest, wdl, dtw, rules] =
            numbers[..]
        else {
            return None;
        };
        if [wdl, dtw, rules] != [written.wdl, written.dtw, written.draw_rules] {
            return None;
        }
        Some(Counts {
            wins,
            draws,
            losses,
            cursed_wins,
            blessed_losses,
            longest_win: u16::try_from(longest).ok()?,
        })
    }

    /// Keeps the counts of tables of these sizes.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if the file cannot be written.
    pub(crate) fn write(&self, counts: &Counts, written: &Written) -> Result<(), GenerateError> {
        let mut numbers: Vec<String> = counts.fields().iter().map(u64::to_string).collect();
        numbers.extend([written.wdl, written.dtw, written.draw_rules].map(|n| n.to_string()));
        let io = |source| GenerateError::Io {
            path: self.path.clone(),
            source,
        };
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        std::fs::write(&self.path, numbers.join(" ") + "\n").map_err(io)
    }
}
