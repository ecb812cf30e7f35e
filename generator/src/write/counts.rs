//! The counts of a solved material, and the small file that keeps them beside its work files,
//! so a later run that reuses the tables reports them without reading every position back.

use std::path::{Path, PathBuf};

use rafle_probe::toolkit::format::TableKind;
use rafle_probe::toolkit::layout::{DataDir, VariantDir};
use rafle_probe::{
    draughts::{Material, Variant},
    toolkit::{PositionIndex, Table, Tables},
    Dtw, RuleClass, RuleValue,
};

use crate::plan::{MaterialPlan, Plan};
use crate::work::values::MAX_DISTANCE;
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
    /// The index of the first position of the material winning in `longest_win` plies, which
    /// `rafle stats` shows; `None` without wins, or when distances were not solved.
    pub(crate) longest_at: Option<u64>,
}

impl Counts {
    /// Counts position `at` (its index in the material).
    #[inline]
    pub(crate) fn add(&mut self, at: u64, distance: Dtw, rule: RuleValue) {
        match distance {
            Dtw::Win(d) => {
                self.wins += 1;
                self.note_win(d, at);
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

    /// Keeps a win in `plies` at index `at` if it is longer than the longest so far, or as
    /// long and earlier in the index: blocks counted in any order give the same position.
    fn note_win(&mut self, plies: u16, at: u64) {
        let earlier = self.longest_at.is_none_or(|kept| at < kept);
        if plies > self.longest_win || (plies == self.longest_win && earlier) {
            self.longest_win = plies;
            self.longest_at = Some(at);
        }
    }

    /// The sum of two counts.
    pub(crate) fn merge(self, other: Counts) -> Counts {
        let mut sum = Counts {
            wins: self.wins + other.wins,
            draws: self.draws + other.draws,
            losses: self.losses + other.losses,
            cursed_wins: self.cursed_wins + other.cursed_wins,
            blessed_losses: self.blessed_losses + other.blessed_losses,
            ..self
        };
        if let Some(at) = other.longest_at {
            sum.note_win(other.longest_win, at);
        }
        sum
    }

    /// The counts without the longest win: those of a run that did not solve distances.
    pub(crate) fn without_longest(self) -> Counts {
        Counts {
            longest_win: 0,
            longest_at: None,
            ..self
        }
    }

    /// Whether these can be the counts of a material of `positions` positions: every position
    /// counted once, no more cursed wins than wins nor blessed losses than losses, no win
    /// longer than a work file holds, a longest win where one was found (a position of the
    /// material).
    fn possible(&self, positions: u64) -> bool {
        let counted = [self.wins, self.draws, self.losses]
            .into_iter()
            .try_fold(0u64, u64::checked_add);
        counted == Some(positions)
            && self.cursed_wins <= self.wins
            && self.blessed_losses <= self.losses
            && self.longest_win <= MAX_DISTANCE
            && match self.longest_at {
                Some(at) => at < positions && self.longest_win > 0,
                None => true,
            }
    }

    /// The counts line's fields, the longest win's index `-` when there is none.
    fn fields(&self) -> Vec<String> {
        let mut fields: Vec<String> = [
            self.wins,
            self.draws,
            self.losses,
            self.cursed_wins,
            self.blessed_losses,
            u64::from(self.longest_win),
        ]
        .iter()
        .map(u64::to_string)
        .collect();
        fields.push(self.longest_at.map_or("-".to_string(), |at| at.to_string()));
        fields
    }
}

/// `<variant dir>/.rafle-work/<material>.summary`: which request's tables it counts, the
/// counts, the length and fingerprint ([`Table::fingerprint`]) of each table they were counted
/// from, and the crc32 of all that. A summary that is not exactly that for the tables on disk
/// now (another material's, edited, cut short, counts that do not add up) is not read: the
/// counts are taken from the tables again.
///
/// ```text
/// rafle summary 3 brazilian KMvKM 29760 all
/// counts <wins> <draws> <losses> <cursed wins> <blessed losses> <longest win> <its index>
/// table <length> <fingerprint>        (one line a table the run writes)
/// crc <crc32 of the lines above>
/// ```
///
/// The index is that of the first position winning in the longest win (`-` without one).
/// Summaries of version 2, which earlier runs wrote, lack it and are read without it.
pub(crate) struct CountsFile {
    path: PathBuf,
    /// The first line without its version: `<variant> <material> <positions> <tables>`.
    identity: String,
    positions: u64,
    /// The tables the counts are of, with their kinds.
    tables: Vec<(PathBuf, TableKind)>,
    variant: Variant,
    material: Material,
}

/// Bytes a summary takes at most: one longer is not one.
const MOST_BYTES: u64 = 4096;

/// The version of the summaries written.
const VERSION: u32 = 3;

impl CountsFile {
    /// The summary of `m`'s tables in a run writing `tables`.
    pub(crate) fn new(plan: &Plan, m: &MaterialPlan, tables: Tables) -> CountsFile {
        CountsFile::of(&plan.directory(), plan.variant, m.material, tables)
    }

    /// The summary of `material`'s tables in `layout`, kept by a run writing `tables`.
    fn of(layout: &VariantDir, variant: Variant, material: Material, tables: Tables) -> CountsFile {
        let positions = PositionIndex::count(variant, material);
        CountsFile {
            path: layout.work_files(material, tables).summary,
            identity: format!("{variant} {material} {positions} {}", tables.name()),
            positions,
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
        let file = rafle_probe::toolkit::open_regular(&self.path).ok()?;
        let text = std::io::read_to_string(std::io::Read::take(file, MOST_BYTES)).ok()?;
        let (body, crc) = text.strip_suffix('\n')?.rsplit_once('\n')?;
        let crc = u32::from_str_radix(crc.strip_prefix("crc ")?, 16).ok()?;
        let body = format!("{body}\n");
        if crc != crc32fast::hash(body.as_bytes()) {
            return None;
        }
        let (version, rest) = body.strip_prefix("rafle summary ")?.split_once(' ')?;
        let rest = rest.strip_prefix(&format!("{}\n", self.identity))?;
        let (counts, tables) = rest.split_once('\n')?;
        if tables != self.table_lines()? {
            return None;
        }
        let mut fields: Vec<&str> = counts.strip_prefix("counts ")?.split(' ').collect();
        let longest_at = match version {
            "2" => None,
            "3" => match fields.pop()? {
                "-" => None,
                at => Some(at.parse().ok()?),
            },
            _ => return None,
        };
        let numbers: Vec<u64> = fields
            .into_iter()
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
            longest_at,
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
        let body = format!(
            "rafle summary {VERSION} {}\ncounts {}\n{tables}",
            self.identity,
            counts.fields().join(" ")
        );
        let text = format!("{body}crc {:08x}\n", crc32fast::hash(body.as_bytes()));
        crate::files::write_replacing(&self.path, text.as_bytes())
    }
}

/// What a full run of `rafle generate` counted of a finished material, kept beside its tables:
/// every position counted, both sides to move, the draw rules ignored for the wins, draws and
/// losses and applied with fresh counters for the cursed wins and blessed losses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeptCounts {
    /// Positions, both sides to move.
    pub positions: u64,
    /// Won for the side to move, the draw rules ignored.
    pub wins: u64,
    /// Drawn, the draw rules ignored.
    pub draws: u64,
    /// Lost for the side to move, the draw rules ignored.
    pub losses: u64,
    /// Won without the draw rules, drawn under them.
    pub cursed_wins: u64,
    /// Lost without the draw rules, drawn under them.
    pub blessed_losses: u64,
    /// The longest win in plies (0 without wins).
    pub longest_win: u16,
    /// The index ([`PositionIndex`]) of the first position winning in `longest_win` plies;
    /// `None` without wins, or if the summary was written by a version that did not keep it.
    pub longest_win_at: Option<u64>,
}

/// The counts that `rafle generate` kept of `material`'s three tables in `dir`, if it kept
/// them and they are of the tables there now: the summary whole (its crc32 right), of this
/// material, of tables of these lengths and fingerprints ([`Table::fingerprint`]), and adding
/// up to the material's positions. Anything else (no summary, a damaged or edited one, tables
/// changed since) gives `None`: the caller counts from the tables.
pub fn kept_counts(dir: &Path, variant: Variant, material: Material) -> Option<KeptCounts> {
    let layout = DataDir::new(dir).variant(variant);
    let summary = CountsFile::of(&layout, variant, material, Tables::All);
    let counts = summary.read()?;
    Some(KeptCounts {
        positions: summary.positions,
        wins: counts.wins,
        draws: counts.draws,
        losses: counts.losses,
        cursed_wins: counts.cursed_wins,
        blessed_losses: counts.blessed_losses,
        longest_win: counts.longest_win,
        longest_win_at: counts.longest_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate, NoProgress};
    use std::fs;

    /// A directory with the Brazilian tables up to 2 pieces, the plan, and the summaries of
    /// its largest material: the file, and the counts `generate` reported with the index of
    /// its first longest win, found by probing every position.
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
            longest_at: first_win_in(dir.path(), s.material, s.longest_win),
        };
        (dir, plan, counts)
    }

    /// The index of the first Brazilian position of `material` won in `plies`.
    fn first_win_in(dir: &Path, material: Material, plies: u16) -> Option<u64> {
        let tables = rafle_probe::Tablebase::open(dir).unwrap();
        let index = PositionIndex::new(Variant::Brazilian, material);
        (0..index.size()).find(|&i| tables.probe_dtw(&index.unrank(i)).unwrap() == Dtw::Win(plies))
    }

    #[test]
    fn a_summary_is_read_back_only_whole_and_of_these_tables() {
        let (_dir, plan, counts) = generated();
        let m = plan.materials.last().unwrap();
        let summary = CountsFile::new(&plan, m, Tables::All);
        assert_eq!(summary.read(), Some(counts));
        let good = fs::read_to_string(&summary.path).unwrap();
        assert!(good.starts_with(&format!("rafle summary 3 brazilian {} ", m.material)));
        assert!(counts.longest_at.is_some());
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
        let other = CountsFile::new(&plan, &plan.materials[0], Tables::All);
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
    fn a_summary_of_version_2_is_read_without_the_longest_wins_position() {
        let (dir, plan, counts) = generated();
        let m = plan.materials.last().unwrap();
        let summary = CountsFile::new(&plan, m, Tables::All);
        let kept = kept_counts(dir.path(), Variant::Brazilian, m.material).unwrap();
        assert_eq!(kept.longest_win_at, counts.longest_at);
        assert_eq!((kept.wins, kept.positions), (counts.wins, m.positions));
        // What an earlier version wrote: no index on the counts line.
        let good = fs::read_to_string(&summary.path).unwrap();
        let old_counts = format!("counts {}", counts.fields().join(" "));
        let body = good[..good.rfind("crc ").unwrap()]
            .replace("rafle summary 3 ", "rafle summary 2 ")
            .replace(
                &old_counts,
                &format!("counts {}", counts.fields()[..6].join(" ")),
            );
        let old = format!("{body}crc {:08x}\n", crc32fast::hash(body.as_bytes()));
        fs::write(&summary.path, old).unwrap();
        let without = Counts {
            longest_at: None,
            ..counts
        };
        assert_eq!(summary.read(), Some(without));
        // An index past the material's positions, with the crc made again.
        let past = format!("counts {} {}", counts.fields()[..6].join(" "), m.positions);
        let body = good[..good.rfind("crc ").unwrap()].replace(&old_counts, &past);
        let forged = format!("{body}crc {:08x}\n", crc32fast::hash(body.as_bytes()));
        fs::write(&summary.path, forged).unwrap();
        assert_eq!(summary.read(), None);
    }

    #[test]
    fn the_longest_win_is_the_first_in_the_index_whatever_the_order_of_the_blocks() {
        let mut early = Counts::default();
        early.add(7, Dtw::Win(5), RuleValue::DRAW);
        early.add(9, Dtw::Win(3), RuleValue::DRAW);
        let mut late = Counts::default();
        late.add(20, Dtw::Win(5), RuleValue::DRAW);
        late.add(21, Dtw::Loss(4), RuleValue::DRAW);
        assert_eq!(early.merge(late).longest_at, Some(7));
        assert_eq!(late.merge(early).longest_at, Some(7));
        let mut longer = Counts::default();
        longer.add(30, Dtw::Win(9), RuleValue::DRAW);
        assert_eq!(early.merge(longer).longest_at, Some(30));
        assert_eq!(longer.merge(early), early.merge(longer));
        assert_eq!(early.merge(Counts::default()), early);
        assert_eq!(early.without_longest().longest_at, None);
    }

    #[test]
    fn a_symlink_or_fifo_in_the_summarys_place_is_replaced() {
        let (dir, plan, counts) = generated();
        let m = plan.materials.last().unwrap();
        let summary = CountsFile::new(&plan, m, Tables::All);
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
            longest_at: Some(4),
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
            Counts {
                longest_at: Some(10),
                ..counts
            },
        ];
        for c in refused {
            assert!(!c.possible(10), "{c:?}");
        }
    }
}
