//! The journal of a material being solved: which request it belongs to, then a line per
//! finished band of slices with the band's checksum in the raw work file, each line checked by
//! its own crc32, so that a stopped run resumes at the first band it can trust.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use rafle_probe::draughts::{Limits, Material, Variant};

use super::ValuesFile;
use crate::files::io_error;
use crate::GenerateError;

/// A band the journal records as finished, or part of one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FinishedBand {
    /// The longest win found in it.
    pub(crate) longest: u16,
    /// The sum of the checksums of its ranges in the raw work file (see [`range_checksum`]).
    pub(crate) checksum: u64,
}

impl FinishedBand {
    /// Two parts of a band together.
    pub(crate) fn and(self, other: FinishedBand) -> FinishedBand {
        FinishedBand {
            longest: self.longest.max(other.longest),
            checksum: self.checksum.wrapping_add(other.checksum),
        }
    }
}

/// The record of a material's finished bands: which request it belongs to, then a line per
/// band with the longest win found in it, its checksum in the raw work file, and the line's own
/// crc32 (an edited line is not a finished band).
#[derive(Debug)]
pub(crate) struct Journal {
    path: PathBuf,
    identity: String,
    /// The finished bands, in order.
    pub(crate) bands: Vec<FinishedBand>,
    /// How many of them the file records.
    recorded: usize,
    /// What was wrong with the file, if a complete line of it could not be read (a line cut
    /// short by a kill is no damage).
    pub(crate) damage: Option<String>,
}

/// What a journal file records, as read ([`Journal::read`]).
struct Recorded {
    /// Whether it is the request's.
    resumed: bool,
    bands: Vec<FinishedBand>,
    damage: Option<String>,
}

impl Journal {
    fn identity(variant: Variant, material: Material, positions: u64, limits: Limits) -> String {
        // Version 2: bands carry checksums. A journal of version 1 is not taken: its raw file
        // cannot be checked.
        format!("rafle work 2 {variant} {material} {positions} {limits}")
    }

    /// The line recording band `b`.
    fn line(b: usize, band: FinishedBand) -> String {
        let text = format!("band {b} {} {:016x}", band.longest, band.checksum);
        format!("{text} {:08x} done\n", crc32fast::hash(text.as_bytes()))
    }

    /// The band line `line` (its newline included) records as band `b`, if it is whole.
    fn parse_line(line: &str, b: usize) -> Option<FinishedBand> {
        let line = line.strip_suffix(" done\n")?;
        let (text, crc) = line.rsplit_once(' ')?;
        if u32::from_str_radix(crc, 16).ok()? != crc32fast::hash(text.as_bytes()) {
            return None;
        }
        let mut fields = text.strip_prefix("band ")?.split(' ');
        let number: usize = fields.next()?.parse().ok()?;
        let longest = fields.next()?.parse().ok()?;
        let checksum = u64::from_str_radix(fields.next()?, 16).ok()?;
        (number == b && fields.next().is_none()).then_some(FinishedBand { longest, checksum })
    }

    /// The bands the journal at `path` records as finished for this request, read without
    /// rewriting it: none if it is missing or of another request. Their values are not
    /// checked here.
    pub(crate) fn recorded_bands(
        path: &Path,
        variant: Variant,
        material: Material,
        positions: u64,
        limits: Limits,
    ) -> Vec<FinishedBand> {
        let identity = Journal::identity(variant, material, positions, limits);
        Journal::read(path, &identity).bands
    }

    /// What the journal at `path` records for the request `identity`: whether it is that
    /// request's, the bands up to the first line cut short or damaged, and the damage found.
    fn read(path: &Path, identity: &str) -> Recorded {
        let text = rafle_probe::toolkit::open_regular(path).and_then(io::read_to_string);
        let mut lines = text.as_deref().unwrap_or("").split_inclusive('\n');
        let mut recorded = Recorded {
            resumed: lines.next() == Some(format!("{identity}\n").as_str()),
            bands: Vec::new(),
            damage: None,
        };
        if !recorded.resumed {
            return recorded;
        }
        for line in lines {
            // A line cut short by a kill (no newline yet) is not a finished band.
            if !line.ends_with('\n') {
                break;
            }
            let Some(band) = Journal::parse_line(line, recorded.bands.len()) else {
                recorded.damage = Some(format!(
                    "line {} does not read back as written",
                    recorded.bands.len() + 2
                ));
                break;
            };
            recorded.bands.push(band);
        }
        recorded
    }

    /// The journal at `path` if it belongs to this request (the bands it records were then
    /// finished in the partial file, which [`Journal::keep_intact`] checks), else a fresh one
    /// (the partial file is then worthless).
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if it cannot be written.
    pub(crate) fn open(
        path: &Path,
        variant: Variant,
        material: Material,
        positions: u64,
        limits: Limits,
    ) -> Result<(Journal, bool), GenerateError> {
        let identity = Journal::identity(variant, material, positions, limits);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(io_error(dir))?;
        }
        let Recorded {
            resumed,
            bands,
            damage,
        } = Journal::read(path, &identity);
        let journal = Journal {
            path: path.to_path_buf(),
            identity,
            // Rewritten without a torn or damaged last line.
            recorded: bands.len(),
            bands,
            damage,
        };
        journal.rewrite()?;
        Ok((journal, resumed))
    }

    /// Replaces the file with the bands recorded, under a temporary name renamed over it: a
    /// symbolic link or a FIFO in its place is replaced, never followed.
    fn rewrite(&self) -> Result<(), GenerateError> {
        let mut text = format!("{}\n", self.identity);
        for (b, &band) in self.bands.iter().enumerate() {
            text += &Journal::line(b, band);
        }
        crate::files::write_replacing(&self.path, text.as_bytes())
    }

    /// Keeps the leading bands whose bytes in the raw work file still have the checksum
    /// recorded (`checksum(b)` gives band `b`'s as the file holds it now, `None` if the material
    /// has no such band), forgets the others: they are solved again, and so are the bands after
    /// a damaged one, which may have read its values. Returns the first band that did not match,
    /// if one did not.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if the journal cannot be rewritten.
    pub(crate) fn keep_intact(
        &mut self,
        checksum: impl Fn(usize) -> Option<u64>,
    ) -> Result<Option<usize>, GenerateError> {
        let damaged = (0..self.bands.len()).find(|&b| checksum(b) != Some(self.bands[b].checksum));
        if let Some(b) = damaged {
            self.keep_first(b)?;
        }
        Ok(damaged)
    }

    /// Forgets every band after the first `bands`.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if the journal cannot be rewritten.
    pub(crate) fn keep_first(&mut self, bands: usize) -> Result<(), GenerateError> {
        self.bands.truncate(bands);
        self.recorded = self.bands.len();
        self.rewrite()
    }

    /// The longest win of the finished bands.
    pub(crate) fn longest(&self) -> u16 {
        self.bands.iter().map(|b| b.longest).max().unwrap_or(0)
    }

    /// Records the next band as finished, in memory until the next [`Journal::checkpoint`].
    pub(crate) fn finish_band(&mut self, band: FinishedBand) {
        self.bands.push(band);
    }

    /// Makes the work file durable, then the record of the bands finished since the last
    /// checkpoint: a stop at any point resumes from bands whose slices are on disk.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`].
    pub(crate) fn checkpoint(&mut self, values: &ValuesFile) -> Result<(), GenerateError> {
        if self.recorded == self.bands.len() {
            return Ok(());
        }
        values.sync()?;
        self.record()
    }

    /// Records the bands finished since the last checkpoint, whose values are durable
    /// already (see [`crate::work::bands::sync_band_files`]).
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`].
    pub(crate) fn record(&mut self) -> Result<(), GenerateError> {
        if self.recorded == self.bands.len() {
            return Ok(());
        }
        let io = io_error(&self.path);
        let mut file =
            rafle_probe::toolkit::open_regular_with(&self.path, OpenOptions::new().append(true))
                .map_err(&io)?;
        let mut text = String::new();
        for b in self.recorded..self.bands.len() {
            text += &Journal::line(b, self.bands[b]);
        }
        file.write_all(text.as_bytes()).map_err(&io)?;
        file.sync_data().map_err(&io)?;
        self.recorded = self.bands.len();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of a journal and of its first `bands` bands, as [`Journal::rewrite`] writes them.
    fn journal_text(identity: &str, bands: &[FinishedBand]) -> String {
        let mut text = format!("{identity}\n");
        for (b, &band) in bands.iter().enumerate() {
            text += &Journal::line(b, band);
        }
        text
    }

    #[test]
    fn an_edited_journal_line_ends_what_is_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let (v, m) = (Variant::Brazilian, "KMvK".parse::<Material>().unwrap());
        let limits = Limits::fmjd(v);
        let path = dir.path().join("m.journal");
        let identity = Journal::identity(v, m, 10, limits);
        let bands = [
            FinishedBand {
                longest: 3,
                checksum: 0xabc,
            },
            FinishedBand {
                longest: 9,
                checksum: 0x1234_5678_9abc,
            },
            FinishedBand {
                longest: 1,
                checksum: 7,
            },
        ];
        let good = journal_text(&identity, &bands);
        fs::write(&path, &good).unwrap();
        let (journal, resumed) = Journal::open(&path, v, m, 10, limits).unwrap();
        assert!(resumed && journal.damage.is_none());
        assert_eq!(journal.bands, bands);
        assert_eq!(fs::read_to_string(&path).unwrap(), good);
        // The second band's longest win, its checksum, its line's crc edited in turn.
        let second = good.lines().nth(2).unwrap();
        let fields: Vec<&str> = second.split(' ').collect();
        for (field, edited) in [(2, "11"), (3, "0000123456789abd"), (4, "00000000")] {
            let mut line = fields.clone();
            line[field] = edited;
            fs::write(&path, good.replace(second, &line.join(" "))).unwrap();
            let (journal, resumed) = Journal::open(&path, v, m, 10, limits).unwrap();
            assert!(resumed, "field {field}");
            assert_eq!(journal.bands, bands[..1], "field {field}");
            assert_eq!(
                journal.damage.as_deref(),
                Some("line 3 does not read back as written"),
                "field {field}"
            );
            // Rewritten without it.
            assert_eq!(
                fs::read_to_string(&path).unwrap(),
                journal_text(&identity, &bands[..1])
            );
        }
        // A journal of the version before checksums is not taken.
        fs::write(&path, good.replace("rafle work 2", "rafle work 1")).unwrap();
        let (journal, resumed) = Journal::open(&path, v, m, 10, limits).unwrap();
        assert!(!resumed && journal.bands.is_empty());
    }

    #[test]
    fn bands_after_the_first_that_does_not_match_are_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let (v, m) = (Variant::Brazilian, "KMvK".parse::<Material>().unwrap());
        let limits = Limits::fmjd(v);
        let path = dir.path().join("m.journal");
        let values = ValuesFile::open(
            &dir.path().join("m.partial"),
            10,
            true,
            super::super::Kept::Full,
        )
        .unwrap();
        let (mut journal, _) = Journal::open(&path, v, m, 10, limits).unwrap();
        for b in 0..4 {
            journal.finish_band(FinishedBand {
                longest: b as u16,
                checksum: 100 + b,
            });
        }
        journal.checkpoint(&values).unwrap();
        // All intact: all kept.
        assert_eq!(journal.keep_intact(|b| Some(100 + b as u64)).unwrap(), None);
        assert_eq!(journal.bands.len(), 4);
        // Band 1 damaged: band 2 and 3 may have read it, so go too, on disk as well.
        let found = |b: usize| Some(if b == 1 { 0 } else { 100 + b as u64 });
        assert_eq!(journal.keep_intact(found).unwrap(), Some(1));
        assert_eq!(journal.bands.len(), 1);
        let (reopened, resumed) = Journal::open(&path, v, m, 10, limits).unwrap();
        assert!(resumed);
        assert_eq!(reopened.bands, journal.bands);
        // A band the material does not have is not kept.
        assert_eq!(journal.keep_intact(|_| None).unwrap(), Some(0));
        assert!(journal.bands.is_empty());
    }

    #[test]
    fn a_symlink_in_the_journals_place_is_replaced_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let (v, m) = (Variant::Brazilian, "KMvK".parse::<Material>().unwrap());
        let target = dir.path().join("precious");
        fs::write(&target, "keep me").unwrap();
        let path = dir.path().join("m.journal");
        std::os::unix::fs::symlink(&target, &path).unwrap();
        Journal::open(&path, v, m, 10, Limits::fmjd(v)).unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "keep me");
        assert!(!fs::symlink_metadata(&path).unwrap().is_symlink());
    }
}
