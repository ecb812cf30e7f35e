//! Work files: the values of a material as the generator reads them back, uncompressed and
//! complete (capture positions and drawn ones included), in a hidden directory beside the
//! tables.
//!
//! A material being solved writes each finished slice into `<material>.partial` and records
//! each finished band of slices in `<material>.journal`, so a run that is stopped starts again
//! at the first band not recorded; it reads its own finished slices back from the file
//! (memory-mapped). Each band's line in the journal carries a checksum of the band's bytes in
//! the raw file (summed over its slices as they are written, so it costs no second pass) and a
//! checksum of the line itself: a resumed run checks every recorded band against the raw file
//! before it trusts any of it (one read of what was written, cheap next to solving it), and
//! solves again from the first band that does not match. Once every band is done and its tables are written, the file is packed
//! into `<material>.packed` (whose format `packed.rs` gives) if a later material reads it, then removed
//! with the journal; the packed file is removed when the last of its readers is done.
//!
//! Kept, for `n` positions in index order: `n` little-endian `u16` (the distance in plies,
//! [`DRAW`] for a draw, plus [`CAPTURE`] when the side to move must capture), then `n` bytes of
//! [`RuleValue::code`].

mod journal;

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use memmap2::{Advice, MmapOptions, MmapRaw};
use rafle_probe::{
    draughts::{Limits, Material, Variant},
    toolkit::{Tables, WorkFiles},
    Dtw, RuleValue,
};

use crate::files::io_error;
use crate::GenerateError;
pub(crate) use journal::{FinishedBand, Journal};

/// The distance code of a draw.
pub(crate) const DRAW: u16 = 0x7fff;
/// Marks a position whose side to move must capture.
pub(crate) const CAPTURE: u16 = 0x8000;

/// The longest distance a work file holds: the codes below [`DRAW`]. A longer one (a win in
/// 32,767 plies) cannot be right: only values read wrong give it.
pub(crate) const MAX_DISTANCE: u16 = DRAW - 1;

/// Bytes a position takes in a work file.
pub(crate) const BYTES_PER_POSITION: u64 = 3;

/// What a run keeps of each value of its materials, in band files and packed files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kept {
    /// Its distance code (with the capture mark) and its rule code: a run that writes all three
    /// tables.
    Full,
    /// Its kind alone (a win, a loss or a draw: a distance code the shortest of its kind, see
    /// [`crate::work::bands`]), the rule codes all 0: a run that writes the win/draw/loss tables alone,
    /// whose distance codes are levels of no meaning.
    Kinds,
}

impl Kept {
    /// The layout of a run that writes `tables`.
    pub(crate) fn of_run(tables: Tables) -> Kept {
        match tables {
            Tables::All => Kept::Full,
            Tables::Wdl => Kept::Kinds,
        }
    }

    /// Bytes a position takes in a raw work file: its distance code and, with
    /// [`Kept::Full`], its rule code (a run that writes the win/draw/loss tables alone keeps
    /// no rule codes: all of them would be 0).
    pub(crate) fn raw_bytes_per_position(self) -> u64 {
        match self {
            Kept::Full => BYTES_PER_POSITION,
            Kept::Kinds => 2,
        }
    }
}

/// The kind of a distance code, as the files of a [`Kept::Kinds`] run keep it: 0 a loss, 1 a
/// win, 2 a draw (the capture mark ignored).
#[inline]
pub(crate) fn kind_of(code: u16) -> u8 {
    match code & !CAPTURE {
        DRAW => 2,
        d => (d % 2) as u8,
    }
}

/// The distance code a kind stands for: the shortest of its kind (a loss in 0, a win in 1, a
/// draw); `None` for a number that is no kind.
#[inline]
pub(crate) fn code_of_kind(kind: u8) -> Option<u16> {
    match kind {
        0 => Some(0),
        1 => Some(1),
        2 => Some(DRAW),
        _ => None,
    }
}

/// The code of a distance.
pub(crate) fn distance_code(value: Dtw) -> u16 {
    value.plies().unwrap_or(DRAW)
}

/// The distance of a code (the capture mark ignored).
#[inline]
pub(crate) fn distance(code: u16) -> Dtw {
    match code & !CAPTURE {
        DRAW => Dtw::Draw,
        d if d % 2 == 1 => Dtw::Win(d),
        d => Dtw::Loss(d),
    }
}

/// Removes every work file of a material but its summary: its values are no longer read,
/// and whatever a stopped run left of them is of no use. Whether there was any.
pub(crate) fn remove_values(paths: &WorkFiles) -> bool {
    let mut removed = false;
    for path in [&paths.journal, &paths.partial, &paths.packed, &paths.legacy] {
        removed |= fs::remove_file(path).is_ok();
    }
    remove_bands(&paths.partial) > 0 || removed
}

/// What a finished material's packed values must be of: the request whose solving wrote them
/// (a packed file of another one is not taken).
pub(crate) fn packed_identity(
    variant: Variant,
    material: Material,
    positions: u64,
    limits: Limits,
    tables: Tables,
) -> String {
    format!(
        "rafle values {variant} {material} {positions} {limits} {}",
        tables.name()
    )
}

/// Ranges of fewer positions than this are written through the mapping, larger ones by a
/// system call: a material of many men has millions of slices of a few positions each, and a
/// system call apiece cost more than solving them; a large slice written through the mapping
/// would hold all its pages in this process's memory until the band ends.
const MAPPED_WRITE: usize = 1 << 16;

/// Bytes of a work file checksummed at a time, past which their pages are given back.
const CHECKSUM_PIECE: usize = 1 << 26;

/// A work file, mapped, and written by ranges.
#[derive(Debug)]
pub(crate) struct ValuesFile {
    path: PathBuf,
    file: File,
    /// Shared and writable; read and written only through [`ValuesFile::distance_code`],
    /// [`ValuesFile::rule_code`] and [`ValuesFile::write_range`], whose callers never touch
    /// a range another thread is writing.
    map: MmapRaw,
    positions: u64,
    /// Whether it holds rule codes after the distance codes ([`Kept::Full`]); without them
    /// every rule code reads as 0.
    rules: bool,
}

impl ValuesFile {
    /// Opens (`create`: creates or keeps) the work file of `positions` positions at `path`,
    /// holding what `kept` says ([`Kept::raw_bytes_per_position`]).
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if it cannot be opened, or has the wrong size.
    pub(crate) fn open(
        path: &Path,
        positions: u64,
        create: bool,
        kept: Kept,
    ) -> Result<ValuesFile, GenerateError> {
        let io = io_error(path);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(io_error(dir))?;
        }
        // Mapped for writing: never through a link, whose target would be overwritten.
        let file = rafle_probe::toolkit::open_regular_with(
            path,
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(create)
                .truncate(false),
        )
        .map_err(&io)?;
        let len = positions * kept.raw_bytes_per_position();
        let actual = file.metadata().map_err(&io)?.len();
        if create && actual == 0 {
            file.set_len(len).map_err(&io)?;
        } else if actual != len {
            return Err(io(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{actual} bytes where {len} were expected"),
            )));
        }
        // Writes through the mapping must not meet a full disk (the process would die of
        // SIGBUS): the file's blocks are reserved now, where a full disk is an error.
        reserve(&file, len).map_err(&io)?;
        let map = MmapOptions::new().map_raw(&file).map_err(&io)?;
        let _ = map.advise(Advice::Random);
        Ok(ValuesFile {
            path: path.to_path_buf(),
            file,
            map,
            positions,
            rules: kept == Kept::Full,
        })
    }

    /// Positions held.
    pub(crate) fn positions(&self) -> u64 {
        self.positions
    }

    /// The byte at offset `at` of the file.
    ///
    /// # Panics
    ///
    /// If `at` is past the end.
    #[inline]
    fn byte(&self, at: usize) -> u8 {
        assert!(at < self.map.len(), "offset {at} past the work file");
        // SAFETY: in bounds (checked above); the mapping lives as long as `self`. A position is
        // read only once the slice holding it is finished, so no thread writes it meanwhile.
        unsafe { self.map.as_ptr().add(at).read() }
    }

    /// Distance code of position `i`.
    #[inline]
    pub(crate) fn distance_code(&self, i: u64) -> u16 {
        let at = 2 * i as usize;
        u16::from_le_bytes([self.byte(at), self.byte(at + 1)])
    }

    /// Rule code of position `i`.
    #[inline]
    pub(crate) fn rule_code(&self, i: u64) -> u8 {
        if !self.rules {
            return 0;
        }
        self.byte((2 * self.positions + i) as usize)
    }

    /// Copies `bytes` into the mapping at offset `at`.
    ///
    /// # Panics
    ///
    /// If the range is past the end.
    fn write_mapped(&self, at: u64, bytes: &[u8]) {
        let at = at as usize;
        assert!(
            at + bytes.len() <= self.map.len(),
            "write past the work file"
        );
        // SAFETY: in bounds (checked above), and the file's blocks are reserved (see
        // `reserve`), so no write meets a full disk. Each slice is written once, by the one
        // thread that solved it, and read only after; a kings-only slice solved in bits
        // (`solve::kings_only`) has each position written by the one thread that decides it at
        // a level, and no other reads it meanwhile: no other access overlaps the range.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.map.as_mut_ptr().add(at),
                bytes.len(),
            );
        }
    }

    /// Sets the distance code of position `i`, through the mapping.
    ///
    /// # Panics
    ///
    /// If `i` is past the end.
    #[inline]
    pub(crate) fn set_distance_code(&self, i: u64, code: u16) {
        self.write_mapped(2 * i, &code.to_le_bytes());
    }

    /// Sets the rule code of position `i`, through the mapping.
    ///
    /// # Panics
    ///
    /// If `i` is past the end.
    #[inline]
    pub(crate) fn set_rule_code(&self, i: u64, code: u8) {
        if self.rules {
            self.write_mapped(2 * self.positions + i, &[code]);
        }
    }

    /// Writes the codes of the positions from `start` on (the rule codes only if it holds
    /// them). Returns the range's checksum (see [`range_checksum`]), as
    /// [`ValuesFile::checksum`] finds it in the file.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if writing fails (a full disk).
    pub(crate) fn write_range(
        &self,
        start: u64,
        distances: &[u16],
        rules: &[u8],
    ) -> Result<u32, GenerateError> {
        let bytes: Vec<u8> = distances.iter().flat_map(|d| d.to_le_bytes()).collect();
        let rules = if self.rules { rules } else { &[] };
        let checksum = range_checksum(start, &bytes, rules);
        let rules_at = 2 * self.positions + start;
        if distances.len() < MAPPED_WRITE {
            self.write_mapped(2 * start, &bytes);
            if self.rules {
                self.write_mapped(rules_at, rules);
            }
            return Ok(checksum);
        }
        let io = io_error(&self.path);
        self.file.write_all_at(&bytes, 2 * start).map_err(&io)?;
        if self.rules {
            self.file.write_all_at(rules, rules_at).map_err(&io)?;
        }
        Ok(checksum)
    }

    /// The checksum of the `len` positions from `start` as the file holds them now: what
    /// [`ValuesFile::write_range`] returned when they were written, unless they were changed
    /// since.
    ///
    /// # Panics
    ///
    /// If the range is past the end.
    pub(crate) fn checksum(&self, start: u64, len: u64) -> u32 {
        assert!(start + len <= self.positions, "range past the work file");
        let (start, len) = (start as usize, len as usize);
        let rules_at = 2 * self.positions as usize + start;
        let rules_len = if self.rules { len } else { 0 };
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(&(start as u64).to_le_bytes());
        for (at, bytes) in [(2 * start, 2 * len), (rules_at, rules_len)] {
            // A large range (a kings-only slice) is read a piece at a time, each piece's pages
            // given back once read, so that reading it does not hold the whole file.
            let mut done = 0;
            while done < bytes {
                let piece = (bytes - done).min(CHECKSUM_PIECE);
                // SAFETY: in bounds (checked above) and the mapping lives as long as `self`.
                // Only finished bands are checked, and no thread writes them any more.
                hasher.update(unsafe {
                    std::slice::from_raw_parts(self.map.as_ptr().add(at + done), piece)
                });
                if bytes > CHECKSUM_PIECE {
                    // SAFETY: as in `release`: the pages of a shared mapping of the file are
                    // read back from the file, with the same bytes, on the next access.
                    let _ = unsafe {
                        self.map.unchecked_advise_range(
                            memmap2::UncheckedAdvice::DontNeed,
                            at + done,
                            piece,
                        )
                    };
                }
                done += piece;
            }
        }
        hasher.finalize()
    }

    /// The file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the codes of `len` positions from `start`, without mapping them.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if reading fails.
    pub(crate) fn read_range(
        &self,
        start: u64,
        len: usize,
    ) -> Result<(Vec<u16>, Vec<u8>), GenerateError> {
        let io = io_error(&self.path);
        let mut bytes = vec![0u8; 2 * len];
        self.file
            .read_exact_at(&mut bytes, 2 * start)
            .map_err(&io)?;
        let distances = bytes
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        let mut rules = vec![0u8; len];
        if self.rules {
            self.file
                .read_exact_at(&mut rules, 2 * self.positions + start)
                .map_err(&io)?;
        }
        Ok((distances, rules))
    }

    /// Makes what was written durable.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`].
    pub(crate) fn sync(&self) -> Result<(), GenerateError> {
        let io = io_error(&self.path);
        self.map.flush().map_err(&io)?;
        self.file.sync_data().map_err(&io)
    }

    /// Gives the pages read so far back to the system: they stay in its cache, but no longer
    /// count in this process's memory.
    pub(crate) fn release(&self) {
        // SAFETY: the mapping is shared and backed by the file: what was written through it
        // stays in the page cache (and goes to the file), and dropped pages are read back from
        // there on the next access, with the same bytes.
        let _ = unsafe {
            self.map
                .unchecked_advise(memmap2::UncheckedAdvice::DontNeed)
        };
    }

    /// Gives the pages of the file back (as [`ValuesFile::release`]) if the process is past
    /// `mark` bytes of resident memory and enough of it maps files to be worth it: while the
    /// tables are written from the file, whose pages a pass over it brings in one after the
    /// other.
    pub(crate) fn keep_within(&self, mark: u64) {
        if crate::memory::past_mark(mark) == Some(true) {
            self.release();
        }
    }
}

/// Reserves the blocks of the first `len` bytes of `file`, so that writing them never meets a
/// full disk.
///
/// # Errors
///
/// The system's, e.g. no space left on the device.
fn reserve(file: &File, len: u64) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let len = libc::off_t::try_from(len).map_err(|_| io::Error::other("work file too large"))?;
    // SAFETY: a plain system call on an open descriptor that `file` keeps alive.
    match unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len) } {
        0 => Ok(()),
        // A file system without reservations: nothing to reserve, its writes fail as usual.
        libc::EOPNOTSUPP => Ok(()),
        e => Err(io::Error::from_raw_os_error(e)),
    }
}

/// Removes every band file of the material whose work files `partial` names (a band's file
/// and any temporary one): the files named `<stem>.band-*` beside it.
pub(crate) fn remove_bands(partial: &Path) -> usize {
    let (Some(dir), Some(stem)) = (partial.parent(), partial.file_stem()) else {
        return 0;
    };
    let prefix = format!("{}.band-", stem.to_string_lossy());
    let dotted = format!(".{prefix}");
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        // A temporary name starts with a dot and ends with the name it replaces.
        if name.starts_with(&prefix) || (name.starts_with('.') && name.contains(&dotted)) {
            removed += usize::from(fs::remove_file(entry.path()).is_ok());
        }
    }
    removed
}

/// The band files a finished material left, in band order, while they follow on from band 0.
pub(crate) fn band_paths(paths: &WorkFiles, bands: usize) -> Vec<PathBuf> {
    (0..bands)
        .map(|b| paths.band(b))
        .take_while(|path| path.exists())
        .collect()
}

/// The checksum of a range of positions of a work file: crc32 of its first position's number,
/// its distance codes' bytes and its rule codes. A band's checksum is the sum of those of the
/// ranges its slices were written in, an order-free sum since they are written in parallel.
pub(crate) fn range_checksum(start: u64, distances: &[u8], rules: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&start.to_le_bytes());
    hasher.update(distances);
    hasher.update(rules);
    hasher.finalize()
}

/// The rule value of a code the generator wrote.
#[inline]
pub(crate) fn rule_value(code: u8) -> RuleValue {
    RuleValue::from_code(code).unwrap_or(RuleValue::DRAW)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Resident bytes of the mapping starting at `start`, from `/proc/self/smaps`.
    fn mapping_resident(start: *const u8) -> u64 {
        let smaps = fs::read_to_string("/proc/self/smaps").unwrap();
        let mut lines = smaps.lines();
        let range = format!("{:x}-", start as usize);
        lines.find(|l| l.starts_with(&range)).expect("the mapping");
        let rss = lines.find_map(|l| l.strip_prefix("Rss:")).unwrap();
        rss.trim()
            .trim_end_matches("kB")
            .trim()
            .parse::<u64>()
            .unwrap()
            * 1024
    }

    /// A work file of `positions` at `path`, position `i` holding distance code `i % 1021` and
    /// rule code `i % 251`, written in small ranges, through the mapping: its pages resident.
    fn written_through_the_mapping(path: &Path, positions: u64) -> ValuesFile {
        let file = ValuesFile::open(path, positions, true, Kept::Full).unwrap();
        let slice = 4096;
        for s in (0..positions).step_by(slice as usize) {
            let codes: Vec<u16> = (s..s + slice).map(|i| (i % 1021) as u16).collect();
            let rules: Vec<u8> = (s..s + slice).map(|i| (i % 251) as u8).collect();
            file.write_range(s, &codes, &rules).unwrap();
        }
        file
    }

    #[test]
    fn released_pages_leave_the_process_and_keep_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let positions = 8 << 20;
        let file = written_through_the_mapping(&dir.path().join("work"), positions);
        let start = file.map.as_ptr();
        let touched = mapping_resident(start);
        assert!(touched >= 3 * positions * 9 / 10);
        let (resident, mapped) = crate::memory::resident_and_mapped_memory().unwrap();
        assert!(mapped >= touched && resident >= mapped);
        file.release();
        assert!(mapping_resident(start) < 3 * positions / 10);
        for i in (0..positions).step_by(4093) {
            assert_eq!(file.distance_code(i), (i % 1021) as u16);
            assert_eq!(file.rule_code(i), (i % 251) as u8);
        }
    }

    #[test]
    fn past_its_mark_the_writer_gives_the_pages_of_the_file_back() {
        let dir = tempfile::tempdir().unwrap();
        // Past the least mapped memory worth giving back.
        let positions = 24 << 20;
        let file = written_through_the_mapping(&dir.path().join("work"), positions);
        let start = file.map.as_ptr();
        let touched = mapping_resident(start);
        assert!(touched >= 3 * positions * 9 / 10, "{touched}");
        file.keep_within(u64::MAX);
        assert_eq!(mapping_resident(start), touched);
        file.keep_within(0);
        assert!(mapping_resident(start) < 3 * positions / 10);
        assert_eq!(
            file.distance_code(positions - 1),
            ((positions - 1) % 1021) as u16
        );
    }

    #[test]
    fn a_file_of_kinds_keeps_no_rule_codes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.wdl.partial");
        let file = ValuesFile::open(&path, 10, true, Kept::Kinds).unwrap();
        assert_eq!(fs::metadata(&path).unwrap().len(), 20);
        // Rule codes are not kept: they read as 0, and the checksum leaves them out.
        let written = file.write_range(4, &[3, DRAW | CAPTURE], &[7, 9]).unwrap();
        file.set_distance_code(9, 5);
        file.set_rule_code(9, 11);
        assert_eq!(written, file.checksum(4, 2));
        assert_eq!(
            file.read_range(4, 2).unwrap(),
            (vec![3, DRAW | CAPTURE], vec![0, 0])
        );
        assert_eq!((file.distance_code(9), file.rule_code(9)), (5, 0));
        let sum = file.write_range(0, &[1; 10], &[1; 10]).unwrap();
        assert_eq!(sum, range_checksum(0, &[1, 0].repeat(10), &[]));
        assert_eq!(sum, file.checksum(0, 10));
        // The same bytes as a file of full values would not be taken.
        assert!(ValuesFile::open(&path, 10, false, Kept::Full).is_err());
        drop(file);
        assert!(ValuesFile::open(&path, 10, false, Kept::Kinds).is_ok());
    }

    #[test]
    fn ranges_round_trip_and_journal_resumes() {
        let dir = tempfile::tempdir().unwrap();
        let v = Variant::Brazilian;
        let m: Material = "KKvK".parse().unwrap();
        let paths = rafle_probe::toolkit::DataDir::new(dir.path())
            .variant(v)
            .work_files(m, Tables::All);
        let file = ValuesFile::open(&paths.partial, 10, true, Kept::Full).unwrap();
        let written = file.write_range(4, &[3, DRAW | CAPTURE], &[7, 9]).unwrap();
        assert_eq!(file.checksum(4, 2), written);
        assert_eq!(file.distance_code(4), 3);
        assert_eq!(distance(file.distance_code(5)), Dtw::Draw);
        assert_eq!(file.rule_code(5), 9);
        assert_eq!(
            file.read_range(4, 2).unwrap(),
            (vec![3, DRAW | CAPTURE], vec![7, 9])
        );
        assert!(ValuesFile::open(&paths.partial, 11, false, Kept::Full).is_err());

        let limits = Limits::fmjd(v);
        let band = |longest, checksum| FinishedBand { longest, checksum };
        let (mut journal, resumed) = Journal::open(&paths.journal, v, m, 10, limits).unwrap();
        assert!(!resumed);
        journal.finish_band(band(5, 11));
        journal.finish_band(band(7, 12));
        journal.checkpoint(&file).unwrap();
        // Not recorded until the next checkpoint.
        journal.finish_band(band(9, 13));
        // A torn line, as a kill while appending leaves it: no damage.
        let mut f = OpenOptions::new()
            .append(true)
            .open(&paths.journal)
            .unwrap();
        write!(f, "band 2 1").unwrap();
        let (journal, resumed) = Journal::open(&paths.journal, v, m, 10, limits).unwrap();
        assert!(resumed && journal.damage.is_none());
        assert_eq!(journal.bands, [band(5, 11), band(7, 12)]);
        assert_eq!(journal.longest(), 7);
        // Another request starts afresh.
        let (journal, resumed) = Journal::open(&paths.journal, v, m, 12, limits).unwrap();
        assert!(!resumed && journal.bands.is_empty());
    }

    #[test]
    fn a_changed_byte_changes_the_checksum_of_its_range_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.partial");
        let n = 1000;
        let file = ValuesFile::open(&path, n, true, Kept::Full).unwrap();
        let codes: Vec<u16> = (0..n).map(|i| (i % 77) as u16).collect();
        let rules: Vec<u8> = (0..n).map(|i| (i % 13) as u8).collect();
        let first = file.write_range(0, &codes[..600], &rules[..600]).unwrap();
        let second = file.write_range(600, &codes[600..], &rules[600..]).unwrap();
        assert_ne!(first, second);
        drop(file);
        // Every byte of the file, distance codes and rule codes alike, flipped in turn.
        let good = fs::read(&path).unwrap();
        for at in (0..good.len()).step_by(7) {
            let mut bytes = good.clone();
            bytes[at] ^= 0x04;
            fs::write(&path, &bytes).unwrap();
            let file = ValuesFile::open(&path, n, false, Kept::Full).unwrap();
            let in_first = at < 2 * 600 || (2 * n as usize..2 * n as usize + 600).contains(&at);
            assert_eq!(file.checksum(0, 600) == first, !in_first, "byte {at}");
            assert_eq!(file.checksum(600, 400) == second, in_first, "byte {at}");
        }
        // The same bytes elsewhere in the file do not have the same checksum.
        assert_ne!(
            range_checksum(0, &[1, 2], &[3]),
            range_checksum(1, &[1, 2], &[3])
        );
    }

    #[test]
    fn a_raw_work_file_is_never_mapped_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        // The target has exactly the size the raw file should have: only the link itself
        // tells it apart, and writes through the mapping would land in it.
        let target = dir.path().join("precious");
        fs::write(&target, vec![7u8; 10 * BYTES_PER_POSITION as usize]).unwrap();
        let path = dir.path().join("m.partial");
        std::os::unix::fs::symlink(&target, &path).unwrap();
        for create in [false, true] {
            let err = ValuesFile::open(&path, 10, create, Kept::Full)
                .unwrap_err()
                .to_string();
            assert!(err.contains("a symbolic link, not a regular file"), "{err}");
        }
        assert_eq!(fs::read(&target).unwrap(), vec![7u8; 30]);
    }
}
