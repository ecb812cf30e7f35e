//! The counts of a solved material, and the small file that keeps them beside its work files,
//! so a later run that reuses the tables reports them without reading every position back.

use std::path::PathBuf;

use rafle_probe::format::TableKind;
use rafle_probe::{Dtw, Material, RuleClass, RuleValue, Table, Tables, Variant};

use crate::plan::{MaterialPlan, Plan};
use crate::values::MAX_DISTANCE;
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

    /// Whether these can be the counts of a material of `positions` positions: every position
    /// counted once, no more cursed wins than wins nor blessed losses than losses, no win
    /// longer than a work file holds.
    fn possible(&self, positions: u64) -> bool {
        let counted = [self.wins, self.draws, self.losses]
            .into_iter()
            .try_fold(0u64, u64::checked_add);
        counted == Some(positions)
            && self.cursed_wins <= self.wins
            && self.blessed_losses <= self.losses
            && self.longest_win <= MAX_DISTANCE
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

/// `<variant dir>/.rafle-work/<material>.summary`: which request's tables it counts, the
/// counts, the length and fingerprint ([`Table::fingerprint`]) of each table they were counted
/// from, and the crc32 of all that. A summary that is not exactly that for the tables on disk
/// now (another material's, edited, cut short, counts that do not add up) is not read: the
/// counts are taken from the tables again.
///
/// ```text
/// rafle summary 2 brazilian KMvKM 29760 all
/// counts <wins> <draws> <losses> <cursed wins> <blessed losses> <longest win>
/// table <length> <fingerprint>        (one line a table the run writes)
/// crc <crc32 of the lines above>
/// ```
pub(crate) struct SummaryFile {
    path: PathBuf,
    identity: String,
    positions: u64,
    /// The tables the counts are of, with their kinds.
    tables: Vec<(PathBuf, TableKind)>,
    variant: Variant,
    material: Material,
}

/// Bytes a summary takes at most: one longer is not one.
const MOST_BYTES: u64 = 4096;

impl SummaryFile {
    /// The summary of `m`'s tables in a run writing `tables`.
    pub(crate) fn new(plan: &Plan, m: &MaterialPlan, tables: Tables) -> SummaryFile {
        let (variant, material) = (plan.variant, m.material);
        let layout = plan.layout();
        SummaryFile {
            path: layout.work_files(material, tables).summary,
            identity: format!(
                "rafle summary 2 {variant} {material} {} {}",
                m.positions,
                tables.name()
            ),
            positions: m.positions,
            tables: tables
                .kinds()
                .iter()
                .map(|&kind| (layout.table(material, kind), kind))
                .collect(),
            variant,
            material,
        }
    }

    /// The lines naming the tables as they are on disk now, if they all open.
    fn table_lines(&self) -> Option<String> {
        let mut lines = String::new();
        for (path, kind) in &self.tables {
            let table = Table::open(path, *kind, self.variant, self.material).ok()?;
            lines += &format!("table {} {:08x}\n", table.file_len(), table.fingerprint());
        }
        Some(lines)
    }

    /// The counts kept for the tables on disk now, if a summary of them is there, whole and
    /// unchanged.
    pub(crate) fn read(&self) -> Option<Counts> {
        let file = rafle_probe::open_regular(&self.path).ok()?;
        let text = std::io::read_to_string(std::io::Read::take(file, MOST_BYTES)).ok()?;
        let (body, crc) = text.strip_suffix('\n')?.rsplit_once('\n')?;
        let crc = u32::from_str_radix(crc.strip_prefix("crc ")?, 16).ok()?;
        let body = format!("{body}\n");
        if crc != crc32fast::hash(body.as_bytes()) {
            return None;
        }
        let rest = body.strip_prefix(&format!("{}\n", self.identity))?;
        let (counts, tables) = rest.split_once('\n')?;
        if tables != self.table_lines()? {
            return None;
        }
        let numbers: Vec<u64> = counts
            .strip_prefix("counts ")?
            .split(' ')
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        let [wins, draws, losses, cursed_wins, blessed_losses, longest] = numbers[..] else {
            return None;
        };
        let counts = Counts {
            wins,
            draws,
            losses,
            cursed_wins,
            blessed_losses,
            longest_win: u16::try_from(longest).ok()?,
        };
        counts.possible(self.positions).then_some(counts)
    }

    /// Keeps the counts of the tables on disk now, written under a temporary name renamed
    /// over the summary: a symbolic link or a FIFO in its place is replaced, never followed.
    /// If a table does not open, any summary there is removed instead.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if the file cannot be written.
    pub(crate) fn write(&self, counts: &Counts) -> Result<(), GenerateError> {
        let Some(tables) = self.table_lines() else {
            let _ = std::fs::remove_file(&self.path);
            return Ok(());
        };
        let numbers: Vec<String> = counts.fields().iter().map(u64::to_string).collect();
        let body = format!("{}\ncounts {}\n{tables}", self.identity, numbers.join(" "));
        let text = format!("{body}crc {:08x}\n", crc32fast::hash(body.as_bytes()));
        crate::files::write_replacing(&self.path, text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate, NoProgress};
    use std::fs;

    /// A directory with the Brazilian tables up to 2 pieces, the plan, and the summaries of
    /// its largest material: the file, and the counts `generate` reported.
    fn generated() -> (tempfile::TempDir, Plan, Counts) {
        let dir = tempfile::tempdir().unwrap();
        let plan = Plan::new(Variant::Brazilian, 2, dir.path()).unwrap();
        let summaries = generate(&plan, &NoProgress).unwrap();
        let s = summaries.last().unwrap();
        let counts = Counts {
            wins: s.wins,
            draws: s.draws,
            losses: s.losses,
            cursed_wins: s.cursed_wins,
            blessed_losses: s.blessed_losses,
            longest_win: s.longest_win,
        };
        (dir, plan, counts)
    }

    #[test]
    fn a_summary_is_read_back_only_whole_and_of_these_tables() {
        let (_dir, plan, counts) = generated();
        let m = plan.materials.last().unwrap();
        let summary = SummaryFile::new(&plan, m, Tables::All);
        assert_eq!(summary.read(), Some(counts));
        let good = fs::read_to_string(&summary.path).unwrap();
        assert!(good.starts_with(&format!("rafle summary 2 brazilian {} ", m.material)));
        // Every byte changed in turn: never read.
        for at in 0..good.len() {
            let mut bytes = good.clone().into_bytes();
            bytes[at] ^= 0x01;
            fs::write(&summary.path, &bytes).unwrap();
            assert_eq!(summary.read(), None, "byte {at}");
        }
        // Cut short, or empty.
        for len in [good.len() - 1, good.len() / 2, 0] {
            fs::write(&summary.path, &good[..len]).unwrap();
            assert_eq!(summary.read(), None, "length {len}");
        }
        // Counts edited with the crc made again: they do not add up to the positions.
        let edited_counts = format!("counts 9999999 {} {}", counts.draws, counts.losses);
        let old_counts = format!("counts {} {} {}", counts.wins, counts.draws, counts.losses);
        let body = good[..good.rfind("crc ").unwrap()].replace(&old_counts, &edited_counts);
        let forged = format!("{body}crc {:08x}\n", crc32fast::hash(body.as_bytes()));
        fs::write(&summary.path, forged).unwrap();
        assert_eq!(summary.read(), None);
        // Another material's summary, whole, in its place.
        let other = SummaryFile::new(&plan, &plan.materials[0], Tables::All);
        fs::copy(&other.path, &summary.path).unwrap();
        assert_eq!(summary.read(), None);
        // Whole again, but the tables it counts changed since (rewritten with other bytes).
        fs::write(&summary.path, &good).unwrap();
        assert_eq!(summary.read(), Some(counts));
        let wdl = &m.path;
        let bytes = fs::read(wdl).unwrap();
        fs::write(wdl, &bytes[..bytes.len() - 1]).unwrap();
        assert_eq!(summary.read(), None);
    }

    #[test]
    fn a_symlink_or_fifo_in_the_summarys_place_is_replaced() {
        let (dir, plan, counts) = generated();
        let m = plan.materials.last().unwrap();
        let summary = SummaryFile::new(&plan, m, Tables::All);
        let target = dir.path().join("precious");
        fs::write(&target, "keep me").unwrap();
        fs::remove_file(&summary.path).unwrap();
        std::os::unix::fs::symlink(&target, &summary.path).unwrap();
        assert_eq!(summary.read(), None);
        summary.write(&counts).unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "keep me");
        assert_eq!(summary.read(), Some(counts));

        fs::remove_file(&summary.path).unwrap();
        let name = std::ffi::CString::new(summary.path.to_str().unwrap()).unwrap();
        // SAFETY: `name` is a valid NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        // Neither reading nor writing waits for a writer or a reader of the FIFO.
        assert_eq!(summary.read(), None);
        summary.write(&counts).unwrap();
        assert_eq!(summary.read(), Some(counts));
    }

    #[test]
    fn impossible_counts_are_refused() {
        let counts = Counts {
            wins: 5,
            draws: 3,
            losses: 2,
            cursed_wins: 1,
            blessed_losses: 2,
            longest_win: 9,
        };
        assert!(counts.possible(10));
        assert!(!counts.possible(11));
        let refused = [
            Counts {
                wins: u64::MAX,
                ..counts
            },
            Counts {
                cursed_wins: 6,
                ..counts
            },
            Counts {
                blessed_losses: 3,
                ..counts
            },
            Counts {
                longest_win: MAX_DISTANCE + 1,
                ..counts
            },
        ];
        for c in refused {
            assert!(!c.possible(10), "{c:?}");
        }
    }
}
