//! Verification against damaged values: a table whose stored value was changed (and its block
//! checksum fixed, so that the file opens and reads cleanly) fails the check, whichever table
//! holds the value, whether checked whole, in a session with other materials, within a small
//! memory budget, or sampled; and the reports do not depend on the budget, on the session, or
//! on memory given back along the way.

use std::path::{Path, PathBuf};

use rafle_generator::{generate, verify_table, NoProgress, Plan, Verifier, VerifyBudget};
use rafle_probe::toolkit::format::{BlockEntry, TableKind, HEADER_LEN};
use rafle_probe::{
    draughts::{Counters, Material, Position, Variant},
    toolkit::{table_path, PositionIndex, Table},
    Tablebase, Wdl,
};

const VARIANT: Variant = Variant::Brazilian;

/// Brazilian tables up to 4 pieces, generated once; tests that damage them work on a copy.
fn shared_tables() -> &'static Path {
    rafle_testkit::tables(VARIANT, 4)
}

/// A copy of the shared tables up to `pieces` pieces.
fn copy_tables(pieces: u32) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    rafle_testkit::copy_tables(shared_tables(), VARIANT, pieces, copy.path());
    copy
}

/// Rewrites a table with `edit` applied to the decompressed contents of its block `block`:
/// every block compressed again, the block index and its checksum recomputed, so that the file
/// opens and every checksum matches.
fn rewrite_block(
    path: &Path,
    kind: TableKind,
    material: Material,
    block: u32,
    edit: impl FnOnce(&mut [u8]),
) {
    let (header, mut blocks) = {
        let table = Table::open(path, kind, VARIANT, material).unwrap();
        let blocks: Vec<Vec<u8>> = (0..table.header().blocks)
            .map(|b| table.read_block(b).unwrap())
            .collect();
        (*table.header(), blocks)
    };
    edit(&mut blocks[block as usize]);
    let compressed: Vec<Vec<u8>> = blocks
        .iter()
        .map(|b| zstd::bulk::compress(b, 3).unwrap())
        .collect();
    let mut offset = (HEADER_LEN + header.index_len()) as u64;
    let mut index = Vec::new();
    for c in &compressed {
        let entry = BlockEntry {
            offset,
            len: c.len() as u32,
            crc: crc32fast::hash(c),
        };
        index.extend_from_slice(&entry.encode());
        offset += c.len() as u64;
    }
    let mut bytes = header.encode().to_vec();
    bytes.extend_from_slice(&index);
    bytes.extend_from_slice(&crc32fast::hash(&index).to_le_bytes());
    bytes.extend(compressed.concat());
    // A new file renamed over the old one, as rafle writes tables: never a mapped file changed.
    let temporary = path.with_extension("new");
    std::fs::write(&temporary, bytes).unwrap();
    std::fs::rename(&temporary, path).unwrap();
}

/// The first position of `material` of the side to move its tables store, no capture to make,
/// and not drawn: one whose three values are stored.
fn stored_decided(tables: &Tablebase, material: Material) -> (u64, Position) {
    let index = PositionIndex::new(VARIANT, material);
    (0..index.size())
        .map(|i| (i, index.unrank(i)))
        .find(|(_, p)| {
            !p.must_capture()
                && tables.stores_side_to_move(TableKind::Dtw, p).unwrap()
                && tables.probe_wdl(p).unwrap() != Wdl::Draw
        })
        .unwrap()
}

/// The table file of `kind` of `material` in `dir`.
fn file(dir: &Path, material: Material, kind: TableKind) -> PathBuf {
    table_path(dir, VARIANT, material, kind)
}

/// Changes the stored value of one decided position of KKvK in its table of `kind`; returns
/// the position and its value before.
fn damage_one(dir: &Path, kind: TableKind) -> (Position, Wdl) {
    damage("KKvK".parse().unwrap(), dir, kind)
}

/// Changes the stored value of one decided position of `material` in its table of `kind`;
/// returns the position and its value before.
fn damage(material: Material, dir: &Path, kind: TableKind) -> (Position, Wdl) {
    let tables = Tablebase::open(dir).unwrap();
    let (i, pos) = stored_decided(&tables, material);
    let before = tables.probe_wdl(&pos).unwrap();
    drop(tables);
    let (block, k) = ((i / 65_536) as u32, (i % 65_536) as usize);
    rewrite_block(
        &file(dir, material, kind),
        kind,
        material,
        block,
        |data| match kind {
            // A win (code 1) made a loss (code 2), or the other way.
            TableKind::Wdl => data[k / 4] ^= 0b11 << (2 * (k % 4)),
            // Two plies longer: the same result, by the parity of the distance.
            TableKind::Dtw => data[k] += 2,
            // A count one larger (count c is stored as 2c + 1 for a win, 2c + 4 for a loss).
            TableKind::DrawRules => data[k] += 2,
        },
    );
    (pos, before)
}

#[test]
fn a_changed_value_fails_the_check_whichever_table_holds_it() {
    let material: Material = "KKvK".parse().unwrap();
    for kind in TableKind::ALL {
        let dir = copy_tables(3);
        let (pos, before) = damage_one(dir.path(), kind);
        let tables = Tablebase::open(dir.path()).unwrap();
        // The file opens and reads: the damage is only in the value.
        let fresh = Tablebase::open(dir.path()).unwrap();
        match kind {
            TableKind::Wdl => assert_eq!(fresh.probe_wdl(&pos).unwrap(), -before),
            TableKind::Dtw => assert_eq!(fresh.probe_dtw(&pos).unwrap().wdl(), before),
            TableKind::DrawRules => {
                fresh.probe_draw_rules(&pos, Counters::FRESH).unwrap();
            }
        }
        let report = verify_table(&tables, VARIANT, material, &|_| {}).unwrap();
        assert!(report.mismatches > 0, "{kind:?}: {report:?}");
        assert!(!report.examples.is_empty() && report.examples.len() <= 5);
        let fen = pos.to_fen();
        let verifier = Verifier::new(&tables, VARIANT);
        let tight = verifier.with_memory(1).verify(material, &|_| {}).unwrap();
        assert_eq!(format!("{tight:?}"), format!("{report:?}"), "{kind:?}");
        // The sample looks at every position of a material no larger than it.
        let sample = verifier.verify_sample(material, 1 << 20, 7, &|_| {});
        assert_eq!(sample.unwrap().mismatches, report.mismatches, "{kind:?}");
        // Those that never reach KKvK still pass.
        for other in ["KvK", "KvM", "MvM"] {
            let m: Material = other.parse().unwrap();
            let r = verify_table(&tables, VARIANT, m, &|_| {}).unwrap();
            assert_eq!(r.mismatches, 0, "{kind:?} {other} after damage at {fen}");
        }
    }
}

/// A material of kings alone whose pages do not fit the budget is checked with its values held
/// a byte or so a position, every value at once or in two passes, whichever half its tables
/// store (White to move by default, here Black to move with compact tables): the same report
/// as in pages, on sound tables and after a value of each kind was changed.
#[test]
fn kings_held_compactly_give_the_reports_of_pages() {
    let material: Material = "KKKvK".parse().unwrap();
    for compact in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let plan = Plan::new(VARIANT, 4, dir.path())
            .unwrap()
            .with_compact(compact);
        generate(&plan, &NoProgress).unwrap();
        let black = Tablebase::open(dir.path())
            .unwrap()
            .table_of(TableKind::Dtw, VARIANT, material)
            .unwrap()
            .header()
            .stored
            == rafle_probe::toolkit::format::StoredHalf::Black;
        assert_eq!(black, compact);
        for kind in [
            None,
            Some(TableKind::Wdl),
            Some(TableKind::Dtw),
            Some(TableKind::DrawRules),
        ] {
            // Each kind of damage alone, on a copy.
            let copy = tempfile::tempdir().unwrap();
            let (src, dst) = (
                dir.path().join(VARIANT.name()),
                copy.path().join(VARIANT.name()),
            );
            std::fs::create_dir_all(&dst).unwrap();
            for m in Material::all_up_to(VARIANT, 4) {
                for kind in TableKind::ALL {
                    let name = format!("{m}.{}", kind.extension());
                    std::fs::copy(src.join(&name), dst.join(&name)).unwrap();
                }
            }
            if let Some(kind) = kind {
                damage(material, copy.path(), kind);
            }
            let tables = Tablebase::open(copy.path()).unwrap();
            let verifier = Verifier::new(&tables, VARIANT);
            let pages = verifier.with_memory(1 << 30);
            assert!(!pages.holds_compactly(material));
            let report = pages.verify(material, &|_| {}).unwrap();
            assert_eq!(
                report.mismatches > 0,
                kind.is_some(),
                "{kind:?}: {report:?}"
            );
            assert_eq!(report.checked, report.positions);
            // 3 pages of budget hold every value at once (2.25 bytes a position: 394 KB), one
            // page a value at a time.
            for memory in [1 << 20, 1] {
                let compactly = verifier.with_memory(memory);
                assert!(compactly.holds_compactly(material));
                let done = std::sync::atomic::AtomicU64::new(0);
                let advance = |n| {
                    done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
                };
                let held = compactly.verify(material, &advance).unwrap();
                assert_eq!(
                    format!("{held:?}"),
                    format!("{report:?}"),
                    "compact {compact}, {kind:?}, {memory}"
                );
                assert_eq!(done.into_inner(), report.positions);
            }
        }
    }
}

/// The same reports whatever the memory budget, alone or in a session, a damaged table
/// included (the materials whose moves reach its damaged value may fail too, the same way).
#[test]
fn reports_do_not_depend_on_the_budget_or_the_session() {
    let dir = copy_tables(4);
    damage_one(dir.path(), TableKind::Wdl);
    let tables = Tablebase::open(dir.path()).unwrap();
    let materials = tables.materials(VARIANT);
    assert_eq!(materials.len(), Material::all_up_to(VARIANT, 4).len());
    let mut session = Vec::new();
    let verifier = Verifier::new(&tables, VARIANT);
    verifier
        .with_memory(1 << 30)
        .verify_each(&materials, &|_| {}, &mut |m, r| {
            session.push((m, r.unwrap()));
            true
        });
    let mut tight = Vec::new();
    verifier
        .with_memory(1)
        .verify_each(&materials, &|_| {}, &mut |m, r| {
            tight.push((m, r.unwrap()));
            true
        });
    // The materials of kings alone whose pages do not fit are held a byte or so a position:
    // with a one-page budget, in two passes (one for the smallest); within 1 MiB (3 pages),
    // every value at once, KvK (2 pages) in pages.
    let compactly = |memory: usize| -> Vec<String> {
        let verifier = verifier.with_memory(memory);
        let held = materials.iter().filter(|&&m| verifier.holds_compactly(m));
        held.map(|m| m.to_string()).collect()
    };
    assert_eq!(compactly(1), ["KvK", "KKvK", "KKvKK", "KKKvK"]);
    assert_eq!(compactly(1 << 20), ["KKvK", "KKvKK", "KKKvK"]);
    let mut compact = Vec::new();
    verifier
        .with_memory(1 << 20)
        .verify_each(&materials, &|_| {}, &mut |m, r| {
            compact.push((m, r.unwrap()));
            true
        });
    assert_eq!(format!("{compact:?}"), format!("{tight:?}"));
    // Past its mark from the start (the mark is one byte), the check gives memory back before,
    // during and after every step and lowers the pages' budget to a single page, with the
    // same reports.
    let mut squeezed = Vec::new();
    verifier.with_memory(1 << 30).releasing_past(1).verify_each(
        &materials,
        &|_| {},
        &mut |m, r| {
            squeezed.push((m, r.unwrap()));
            true
        },
    );
    assert_eq!(session.len(), materials.len());
    assert_eq!(format!("{squeezed:?}"), format!("{session:?}"));
    for ((m, whole), (_, small)) in session.iter().zip(&tight) {
        let alone = verify_table(&tables, VARIANT, *m, &|_| {}).unwrap();
        assert_eq!(format!("{whole:?}"), format!("{alone:?}"), "{m}");
        assert_eq!(format!("{small:?}"), format!("{alone:?}"), "{m}");
        assert_eq!(alone.checked, alone.positions);
        if m.to_string() == "KKvK" {
            assert!(alone.mismatches > 0, "{alone:?}");
        }
        assert!(alone.capture_positions > 0 && alone.capture_positions < alone.positions);
    }
}

#[test]
fn a_sample_meets_the_damage_and_is_repeatable() {
    let material: Material = "KKvM".parse().unwrap();
    let dir = copy_tables(3);
    let path = file(dir.path(), material, TableKind::Wdl);
    // Every win made a loss and every loss a win.
    rewrite_block(&path, TableKind::Wdl, material, 0, |data| {
        for byte in data.iter_mut() {
            for k in 0..4 {
                let code = *byte >> (2 * k) & 3;
                if code == 1 || code == 2 {
                    *byte ^= 0b11 << (2 * k);
                }
            }
        }
    });
    let tables = Tablebase::open(dir.path()).unwrap();
    let verifier = Verifier::new(&tables, VARIANT);
    let sample = |seed| {
        verifier
            .verify_sample(material, 500, seed, &|_| {})
            .unwrap()
    };
    let report = sample(1);
    assert_eq!((report.checked, report.positions), (500, 26_040));
    assert!(report.mismatches > 100, "{report:?}");
    assert_eq!(format!("{report:?}"), format!("{:?}", sample(1)));
    assert_ne!(format!("{report:?}"), format!("{:?}", sample(2)));
    let clean = Tablebase::open(shared_tables()).unwrap();
    let r = Verifier::new(&clean, VARIANT)
        .verify_sample(material, 500, 1, &|_| {})
        .unwrap();
    assert_eq!((r.checked, r.mismatches), (500, 0));
    assert_eq!(
        r.capture_positions, report.capture_positions,
        "the same positions drawn"
    );
}

/// What a check holds whatever its budget: a material of kings alone whole, with the kings
/// alone its captures reach (KKvK: Black taking a king leaves KvK; White taking the last
/// king leaves no material), in pages of 65,536 positions with one side to move; one with men
/// a window's allowance.
#[test]
fn the_least_memory_of_a_check_counts_what_is_decoded_whole() {
    let tables = Tablebase::open(shared_tables()).unwrap();
    let verifier = Verifier::new(&tables, VARIANT);
    // 272 KiB a page: 4 bytes of codes and a capture bit a position, and 8 KiB for what the
    // allocator adds.
    let page = 65_536 * 4 + 65_536 / 8 + 8192;
    let pages =
        |m: &str| 2 * (PositionIndex::count(VARIANT, m.parse().unwrap()) / 2).div_ceil(65_536);
    assert_eq!((pages("KKvK"), pages("KvK")), (2, 2));
    assert_eq!(verifier.least_memory("KKvK".parse().unwrap()), 4 * page);
    // KKvKK (2 × 496 × 465 positions) reaches KKvK whoever captures (KvKK is its mirror
    // image, read from its pages), and through it KvK.
    assert_eq!(pages("KKvKK"), 8);
    assert_eq!(
        verifier.least_memory("KKvKK".parse().unwrap()),
        (8 + 2 + 2) * page
    );
    for men in ["KvM", "KMvK", "MMvMM"] {
        assert_eq!(
            verifier.least_memory(men.parse().unwrap()),
            Verifier::WINDOW_MEMORY,
            "{men}"
        );
    }
}

/// The line `rafle verify` gives up front says how a material of kings alone will be held with
/// the pages' budget: decoded whole if its pages fit (KKKvK with those its captures reach: 10
/// pages of 272 KiB), else a byte or so a position, in one pass if every value fits.
#[test]
fn the_budget_line_says_how_kings_alone_are_held() {
    let tables = Tablebase::open(shared_tables()).unwrap();
    let line = |pages: u64| {
        let budget = VerifyBudget {
            budget: Some(1 << 40),
            probe_cache: 0,
            rest: 0,
            pages,
            release_at: u64::MAX,
        };
        let kkkvk: Material = "KKKvK".parse().unwrap();
        budget
            .check(&tables, VARIANT, &[kkkvk], 0)
            .unwrap()
            .unwrap()
    };
    for (pages, ends) in [
        (64 << 20, "KKKvK decoded whole)"),
        (10 * 278_528, "KKKvK decoded whole)"),
        (
            10 * 278_528 - 1,
            "KKKvK held a byte or so a position, in one pass)",
        ),
        (1, "KKKvK held a byte or so a position, in two passes)"),
    ] {
        let said = line(pages);
        assert!(said.ends_with(ends), "{pages}: {said}");
    }
}
