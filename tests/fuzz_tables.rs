//! Damaged table files never make the reader panic, hang or answer a wrong value: bytes
//! flipped, overwritten, inserted or removed in the header, the block index or the blocks, files
//! cut short or lengthened. Every answer is the one the undamaged tables give, or an error, and
//! since every byte of a table is covered by a check, every such damage is detected when the
//! table is read whole. Damage whose checksums were forged to match must still never panic or
//! hang.
//!
//! The property tests run a few hundred cases; for a longer run:
//!
//! ```text
//! PROPTEST_CASES=20000 cargo test --release --test fuzz_tables
//! ```

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use rafle_probe::toolkit::format::{Header, HEADER_LEN, INDEX_ENTRY_LEN};
use rafle_probe::{draughts::Variant, toolkit::Table, Tablebase};
use tempfile::TempDir;

mod common;
mod damaged;
use common::crc32;
use damaged::{
    check, generate_tables, is_damage, replace, table_files, Reference, TableFile, Tally,
};

/// A case that takes this long is taken for a hang.
const HANG: Duration = Duration::from_secs(60);

/// Positions sampled per material.
const PER_MATERIAL: usize = 12;

/// An undamaged table file: its bytes, where its block index ends, and its blocks
/// decompressed.
struct Original {
    file: TableFile,
    /// The path below the table directory.
    relative: PathBuf,
    bytes: Vec<u8>,
    index_end: usize,
    blocks: Vec<Vec<u8>>,
}

/// Undamaged tables of both variants up to 3 pieces (the international ones have two blocks),
/// kept in memory, and the answers they give.
struct Fixture {
    originals: Vec<Original>,
    reference: Reference,
}

impl Fixture {
    fn new() -> Fixture {
        let clean = tempfile::tempdir().expect("a temporary directory");
        for variant in Variant::ALL {
            generate_tables(clean.path(), variant, 3);
        }
        let originals = table_files(clean.path())
            .into_iter()
            .map(|file| {
                let table = Table::open(&file.path, file.kind, file.variant, file.material)
                    .expect("an undamaged table opens");
                let header = *table.header();
                let blocks = (0..header.blocks)
                    .map(|b| table.read_block(b).expect("an undamaged block reads"))
                    .collect();
                Original {
                    relative: file
                        .path
                        .strip_prefix(clean.path())
                        .expect("inside")
                        .to_path_buf(),
                    bytes: std::fs::read(&file.path).expect("the table reads"),
                    index_end: HEADER_LEN + header.index_len(),
                    blocks,
                    file,
                }
            })
            .collect();
        let tables = Tablebase::open(clean.path()).expect("tables open");
        let reference = Reference::sample(&tables, PER_MATERIAL, 0x2545_f491_4f6c_dd1d);
        Fixture {
            originals,
            reference,
        }
    }
}

/// A table directory holding the undamaged tables, in which one table at a time is damaged.
struct Workspace {
    dir: TempDir,
}

impl Workspace {
    fn new(fixture: &Fixture) -> Workspace {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for original in &fixture.originals {
            let to = dir.path().join(&original.relative);
            std::fs::create_dir_all(to.parent().expect("a parent")).expect("a variant directory");
            std::fs::write(&to, &original.bytes).expect("the table is written");
        }
        Workspace { dir }
    }

    /// Puts `bytes` in place of `original` until the guard returned is dropped, which puts
    /// the undamaged table back (also when a failing case unwinds, so that the next case
    /// starts from undamaged tables).
    fn damage<'a>(&'a self, original: &'a Original, bytes: &[u8]) -> Damaged<'a> {
        let path = self.dir.path().join(&original.relative);
        replace(&path, bytes);
        Damaged { path, original }
    }
}

/// A damaged table in a [`Workspace`], repaired when dropped.
struct Damaged<'a> {
    path: PathBuf,
    original: &'a Original,
}

impl Drop for Damaged<'_> {
    fn drop(&mut self) {
        replace(&self.path, &self.original.bytes);
    }
}

/// Runs `body`, aborting the whole test process if it takes longer than [`HANG`]: a hang
/// would otherwise hold the test run forever.
fn without_hanging<T>(case: &dyn std::fmt::Debug, body: impl FnOnce() -> T) -> T {
    let (done, finished) = mpsc::channel::<()>();
    let description = format!("{case:?}");
    let watcher = std::thread::spawn(move || {
        if finished.recv_timeout(HANG) == Err(mpsc::RecvTimeoutError::Timeout) {
            eprintln!("fuzz_tables: a case hangs (over {HANG:?}): {description}");
            std::process::abort();
        }
    });
    let out = body();
    drop(done);
    watcher.join().expect("the watcher ends");
    out
}

/// Opens a table and reads every block, each of which must be the undamaged block unless the
/// checksums were `forged`; returns whether an error said the table is damaged.
fn read_whole(original: &Original, path: &Path, forged: bool) -> bool {
    let f = &original.file;
    let table = match Table::open(path, f.kind, f.variant, f.material) {
        Ok(table) => table,
        Err(e) => {
            assert!(is_damage(&e), "opening {}: {e:?}", path.display());
            return true;
        }
    };
    let mut detected = false;
    for b in 0..table.header().blocks {
        match table.read_block(b) {
            Ok(data) if !forged => assert!(
                original.blocks.get(b as usize) == Some(&data),
                "block {b} of {} reads other values",
                path.display()
            ),
            Ok(_) => {}
            Err(e) => {
                assert!(is_damage(&e), "block {b} of {}: {e:?}", path.display());
                detected = true;
            }
        }
    }
    detected
}

/// Opens the damaged copy, reads the damaged table whole and probes the sample positions of
/// its variant. Unless the checksums were `forged`, every answer must be the reference one
/// or an error, and a change must be detected. Returns the probes' tally.
fn probe_damaged(
    fixture: &Fixture,
    workspace: &Workspace,
    damaged: usize,
    bytes: &[u8],
    forged: bool,
) -> Tally {
    let original = &fixture.originals[damaged];
    let changed = bytes != original.bytes.as_slice();
    let damage = workspace.damage(original, bytes);
    let detected = read_whole(original, &damage.path, forged);
    if !forged {
        assert_eq!(detected, changed, "damage detected when reading the table");
    }
    let tables = Tablebase::open(workspace.dir.path()).expect("the directory opens");
    let reference = &fixture.reference;
    let mut tally = Tally::default();
    for ((pos, counters), want) in reference.positions.iter().zip(&reference.answers) {
        if pos.variant() != original.file.variant {
            continue;
        }
        if forged {
            forged_probes(&tables, pos, *counters);
        } else {
            tally += check(&tables, pos, *counters, want, !changed);
        }
    }
    tally
}

/// Every probe of a position on forged tables: any value, or an error damage explains.
fn forged_probes(
    tables: &Tablebase,
    pos: &rafle_probe::draughts::Position,
    counters: rafle_probe::draughts::Counters,
) {
    let ok = |what: &str, e: Option<rafle_probe::ProbeError>| {
        if let Some(e) = e {
            assert!(is_damage(&e), "{what} of {pos:?}: {e:?}");
        }
    };
    ok("wdl", tables.probe_wdl(pos).err());
    ok("dtw", tables.probe_dtw(pos).err());
    ok("rules", tables.probe_draw_rules(pos, counters).err());
    ok("best move", tables.best_move(pos).err());
    let _ = tables.probe_wdl_cached(pos);
    let _ = tables.probe_draw_rules_cached(pos, counters);
}

/// A part of a table file.
#[derive(Debug, Clone, Copy)]
enum Region {
    Header,
    Index,
    Blocks,
    Anywhere,
}

/// One change to a table file's bytes. Places are taken modulo the region's length.
#[derive(Debug, Clone)]
enum Damage {
    Flip {
        region: Region,
        at: usize,
        mask: u8,
    },
    Overwrite {
        region: Region,
        at: usize,
        bytes: Vec<u8>,
    },
    Insert {
        region: Region,
        at: usize,
        bytes: Vec<u8>,
    },
    Remove {
        region: Region,
        at: usize,
        len: usize,
    },
    Truncate {
        keep: usize,
    },
    Extend {
        bytes: Vec<u8>,
    },
}

fn region() -> impl Strategy<Value = Region> {
    prop_oneof![
        Just(Region::Header),
        Just(Region::Index),
        Just(Region::Blocks),
        Just(Region::Anywhere),
    ]
}

fn damage() -> impl Strategy<Value = Damage> {
    let bytes = || vec(any::<u8>(), 1..24);
    prop_oneof![
        4 => (region(), any::<usize>(), 1..=255u8)
            .prop_map(|(region, at, mask)| Damage::Flip { region, at, mask }),
        2 => (region(), any::<usize>(), bytes())
            .prop_map(|(region, at, bytes)| Damage::Overwrite { region, at, bytes }),
        1 => (region(), any::<usize>(), bytes())
            .prop_map(|(region, at, bytes)| Damage::Insert { region, at, bytes }),
        1 => (region(), any::<usize>(), 1..64usize)
            .prop_map(|(region, at, len)| Damage::Remove { region, at, len }),
        1 => any::<usize>().prop_map(|keep| Damage::Truncate { keep }),
        1 => bytes().prop_map(|bytes| Damage::Extend { bytes }),
    ]
}

impl Damage {
    /// Applies the change to `bytes`, a table whose index ends at `index_end`.
    fn apply(&self, bytes: &mut Vec<u8>, index_end: usize) {
        let len = bytes.len();
        let span = |region: Region| {
            let (start, end) = match region {
                Region::Header => (0, HEADER_LEN),
                Region::Index => (HEADER_LEN, index_end),
                Region::Blocks => (index_end, len),
                Region::Anywhere => (0, len),
            };
            let end = end.min(len);
            if start < end {
                (start, end)
            } else {
                (0, len)
            }
        };
        let place = |region: Region, at: usize| {
            let (start, end) = span(region);
            start + at % (end - start).max(1)
        };
        match self {
            Damage::Flip { region, at, mask } => {
                if len > 0 {
                    bytes[place(*region, *at)] ^= mask;
                }
            }
            Damage::Overwrite {
                region,
                at,
                bytes: new,
            } => {
                let at = place(*region, *at);
                for (i, &b) in new.iter().enumerate() {
                    if let Some(old) = bytes.get_mut(at + i) {
                        *old = b;
                    }
                }
            }
            Damage::Insert {
                region,
                at,
                bytes: new,
            } => {
                let at = place(*region, *at).min(len);
                bytes.splice(at..at, new.iter().copied());
            }
            Damage::Remove { region, at, len: n } => {
                let at = place(*region, *at).min(len);
                bytes.drain(at..(at + n).min(len));
            }
            Damage::Truncate { keep } => bytes.truncate(keep % len.max(1)),
            Damage::Extend { bytes: new } => bytes.extend_from_slice(new),
        }
    }
}

/// Makes every checksum of a damaged table match its damaged bytes, as far as its header and
/// index can still be read: the block checksums, the index's, the header's.
fn forge_checksums(bytes: &mut [u8]) {
    if bytes.len() < HEADER_LEN {
        return;
    }
    let crc = crc32(&bytes[..60]);
    bytes[60..64].copy_from_slice(&crc.to_le_bytes());
    let Ok(header) = Header::decode(bytes) else {
        return;
    };
    let index_end = HEADER_LEN + header.index_len();
    if index_end > bytes.len() {
        return;
    }
    for b in 0..header.blocks as usize {
        let entry = HEADER_LEN + b * INDEX_ENTRY_LEN;
        let word = |at: usize, n: usize| {
            bytes[at..at + n]
                .iter()
                .rev()
                .fold(0u64, |acc, &x| acc << 8 | u64::from(x))
        };
        let (offset, len) = (word(entry, 8), word(entry + 8, 4));
        let Some(block) = usize::try_from(offset)
            .ok()
            .and_then(|start| bytes.get(start..start.checked_add(len as usize)?))
        else {
            continue;
        };
        let crc = crc32(block);
        bytes[entry + 12..entry + 16].copy_from_slice(&crc.to_le_bytes());
    }
    let crc = crc32(&bytes[HEADER_LEN..index_end - 4]);
    bytes[index_end - 4..index_end].copy_from_slice(&crc.to_le_bytes());
}

/// Writes `bytes` to `path` as a new file: truncating and rewriting a file makes some file
/// systems (ext4) flush it on every close, which slows thousands of writes to a crawl.
fn fresh_file(path: &Path, bytes: &[u8]) {
    let _ = std::fs::remove_file(path);
    std::fs::write(path, bytes).expect("the file is written");
}

fn fixture() -> &'static Fixture {
    static FIXTURE: std::sync::OnceLock<Fixture> = std::sync::OnceLock::new();
    FIXTURE.get_or_init(Fixture::new)
}

/// Cases per property test: `PROPTEST_CASES` if set.
fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(cases);
    ProptestConfig {
        cases,
        // A failure becomes a named regression test instead.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

#[test]
fn the_checksum_is_the_formats() {
    assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    let original = &fixture().originals[0];
    let mut bytes = original.bytes.clone();
    bytes[HEADER_LEN..].fill(0);
    forge_checksums(&mut bytes);
    assert_eq!(bytes[..HEADER_LEN], original.bytes[..HEADER_LEN]);
}

#[test]
fn every_flipped_byte_of_a_table_is_detected() {
    let fixture = fixture();
    let mut checked = 0;
    // The tables of two pieces, every kind: a few hundred bytes each.
    for (i, original) in fixture.originals.iter().enumerate() {
        if original.file.material.pieces() > 2 || original.file.variant != Variant::Brazilian {
            continue;
        }
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("table");
        for at in 0..original.bytes.len() {
            for mask in [1u8 << (at % 8), 0xff] {
                let mut bytes = original.bytes.clone();
                bytes[at] ^= mask;
                fresh_file(&path, &bytes);
                let case = (i, at, mask);
                assert!(
                    without_hanging(&case, || read_whole(original, &path, false)),
                    "{:?} byte {at} ^ {mask:#x} goes unnoticed",
                    original.file
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked} flips checked");
}

#[test]
fn every_cut_of_a_table_is_detected() {
    let fixture = fixture();
    let original = fixture
        .originals
        .iter()
        .find(|o| o.blocks.len() > 1)
        .expect("a table of two blocks");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("table");
    for keep in 0..original.bytes.len() {
        fresh_file(&path, &original.bytes[..keep]);
        assert!(read_whole(original, &path, false), "cut at {keep}");
    }
}

/// The damage of one case: a table and up to three changes to it.
fn case() -> impl Strategy<Value = (prop::sample::Index, Vec<Damage>)> {
    (any::<prop::sample::Index>(), vec(damage(), 1..4))
}

/// Runs `property` on the cases of [`case`], with a workspace of its own; panics with the
/// smallest failing case.
fn run_cases(cases: u32, property: impl Fn(&Fixture, &Workspace, usize, &[u8]) -> Tally) {
    let fixture = fixture();
    let workspace = Workspace::new(fixture);
    let mut runner = TestRunner::new(config(cases));
    let result = runner.run(&case(), |(file, damages)| {
        let damaged = file.index(fixture.originals.len());
        let original = &fixture.originals[damaged];
        let mut bytes = original.bytes.clone();
        for d in &damages {
            d.apply(&mut bytes, original.index_end);
        }
        let case = (&original.file, &damages);
        without_hanging(&case, || property(fixture, &workspace, damaged, &bytes));
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}

#[test]
fn damaged_tables_answer_the_reference_or_an_error() {
    run_cases(160, |fixture, workspace, damaged, bytes| {
        let tally = probe_damaged(fixture, workspace, damaged, bytes, false);
        assert!(tally.right > 0, "{tally:?}");
        tally
    });
}

#[test]
fn forged_checksums_never_panic_or_hang() {
    // Cases whose forged table opens: the reader gets past the checksums to the contents.
    let opened = AtomicU32::new(0);
    run_cases(160, |fixture, workspace, damaged, bytes| {
        let mut bytes = bytes.to_vec();
        forge_checksums(&mut bytes);
        let f = &fixture.originals[damaged].file;
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("table");
        fresh_file(&path, &bytes);
        if Table::open(&path, f.kind, f.variant, f.material).is_ok() {
            opened.fetch_add(1, Ordering::Relaxed);
        }
        probe_damaged(fixture, workspace, damaged, &bytes, true)
    });
    assert!(opened.load(Ordering::Relaxed) > 0);
}
