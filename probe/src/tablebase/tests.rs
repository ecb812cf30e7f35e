//! What a directory's listing makes of damaged rule tables, of files only named like tables,
//! and of a finished game without rule tables; and that every probe agrees with all the moves
//! of its position, whichever side to move the tables store.

use std::path::{Path, PathBuf};

use super::*;
use crate::Counters;

/// Brazilian tables up to 2 pieces, every kind, in a directory of their own.
fn brazilian_two() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let plan = rafle_generator::Plan::new(Variant::Brazilian, 2, dir.path()).unwrap();
    rafle_generator::generate(&plan, &rafle_generator::NoProgress).unwrap();
    dir
}

/// Every file of `kind` of the Brazilian tables of `dir`, first in material order first.
fn files_of(dir: &Path, kind: TableKind) -> Vec<PathBuf> {
    let tables = Tablebase::open(dir).unwrap();
    tables.available[&(kind, Variant::Brazilian)]
        .iter()
        .map(|&m| table_path(dir, Variant::Brazilian, m, kind))
        .collect()
}

/// A way of damaging a file, with the message the first damaged file must give.
type Damage = (&'static str, fn(&Path), fn(&Path) -> String);

fn damages() -> Vec<Damage> {
    vec![
        (
            "emptied",
            |p| std::fs::write(p, b"").unwrap(),
            |p| format!("table {} is truncated: 0 bytes instead of 64", p.display()),
        ),
        (
            "cut inside its header",
            |p| {
                let bytes = std::fs::read(p).unwrap();
                std::fs::write(p, &bytes[..30]).unwrap();
            },
            |p| format!("table {} is truncated: 30 bytes instead of 64", p.display()),
        ),
        (
            "with a broken magic number",
            |p| {
                let mut bytes = std::fs::read(p).unwrap();
                bytes[..8].copy_from_slice(b"NOTRAFLE");
                std::fs::write(p, bytes).unwrap();
            },
            |p| {
                format!(
                    "table {} is corrupted: not a rafle table (bad magic number)",
                    p.display()
                )
            },
        ),
        (
            "with a flipped header byte",
            |p| {
                let mut bytes = std::fs::read(p).unwrap();
                bytes[20] ^= 0x40;
                std::fs::write(p, bytes).unwrap();
            },
            |p| {
                format!(
                    "table {} is corrupted: header checksum mismatch",
                    p.display()
                )
            },
        ),
        (
            "replaced by a directory",
            |p| {
                std::fs::remove_file(p).unwrap();
                std::fs::create_dir(p).unwrap();
            },
            |p| format!("{}: a directory, not a regular file", p.display()),
        ),
    ]
}

/// Found by hostile testing: with every rule table damaged, the directory read as one
/// without rule tables, and the probes answered without the draw rules, exit 0.
#[test]
fn all_rule_tables_damaged_are_an_error_naming_a_file_not_no_rule_tables() {
    let kvk = Position::from_fen(Variant::Brazilian, "W:WK1:BK28").unwrap();
    for (what, damage, message) in damages() {
        let dir = brazilian_two();
        let files = files_of(dir.path(), TableKind::DrawRules);
        assert!(files.len() > 1);
        for file in &files {
            damage(file);
        }
        let tables = Tablebase::open(dir.path()).unwrap();
        let expected = message(&files[0]);
        let err = tables.limits(Variant::Brazilian).unwrap_err();
        assert_eq!(err.to_string(), expected, "rule tables {what}");
        // Every probe that reads the limits says the same, each time it is asked.
        let err = tables.probe_draw_rules(&kvk, Counters::FRESH).unwrap_err();
        assert_eq!(err.to_string(), expected, "rule tables {what}");
        let err = tables.probe_moves_all(&kvk).unwrap_err();
        assert_eq!(err.to_string(), expected, "rule tables {what}");
        // The tables of the other kinds still answer.
        assert_eq!(tables.probe_wdl(&kvk).unwrap(), Wdl::Draw);
        // A variant without any rule table is not an error.
        assert_eq!(tables.limits(Variant::International).unwrap(), None);
    }
}

#[test]
fn one_damaged_rule_table_leaves_the_limits_to_the_others_and_fails_on_use() {
    let dir = brazilian_two();
    let files = files_of(dir.path(), TableKind::DrawRules);
    std::fs::write(&files[0], b"").unwrap();
    let tables = Tablebase::open(dir.path()).unwrap();
    assert_eq!(
        tables.limits(Variant::Brazilian).unwrap(),
        Some(Limits::fmjd(Variant::Brazilian))
    );
    let kvk = "KvK".parse().unwrap();
    let err = tables
        .table_of(TableKind::DrawRules, Variant::Brazilian, kvk)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "table {} is truncated: 0 bytes instead of 64",
            files[0].display()
        )
    );
}

/// Found by hostile testing: a junk file named like a 41-piece material made the directory
/// look like a set of 41 pieces with some 200,000 tables missing.
#[test]
fn files_named_like_a_material_no_table_has_are_stray_not_tables() {
    let dir = brazilian_two();
    let place = dir.path().join("brazilian");
    let names = [
        // 41 pieces, and more than the board holds.
        format!("{}v{}.wdl", "K".repeat(21), "K".repeat(20)),
        // Past the pieces rafle builds.
        format!("{}vK.dtw", "K".repeat(MAX_TABLE_PIECES as usize)),
        // A side without pieces.
        "KKv.rules".to_string(),
        // The colours the wrong way round.
        "KvKK.wdl".to_string(),
    ];
    for name in &names {
        std::fs::write(place.join(name), b"junk").unwrap();
    }
    // Not named like a table at all: not a stray table either.
    std::fs::write(place.join("notes.txt"), b"junk").unwrap();
    std::fs::write(place.join("KvK.wdl.old"), b"junk").unwrap();
    let tables = Tablebase::open(dir.path()).unwrap();
    let mut expected: Vec<PathBuf> = names.iter().map(|n| place.join(n)).collect();
    expected.sort();
    assert_eq!(tables.stray_files(Variant::Brazilian), expected.as_slice());
    for kind in TableKind::ALL {
        assert_eq!(tables.max_pieces_of(kind, Variant::Brazilian), 2);
    }
    assert!(tables.missing_tables(Variant::Brazilian).is_empty());
    assert!(tables.stray_files(Variant::International).is_empty());
}

/// Found by hostile testing of the C library: without rule tables the rule probe refused a
/// finished game that the win/draw/loss and distance probes answer from the rules alone.
#[test]
fn a_finished_game_is_answered_without_rule_tables() {
    let dir = brazilian_two();
    for file in files_of(dir.path(), TableKind::DrawRules) {
        std::fs::remove_file(file).unwrap();
    }
    let tables = Tablebase::open(dir.path()).unwrap();
    assert_eq!(tables.limits(Variant::Brazilian).unwrap(), None);
    let limits = Limits::fmjd(Variant::Brazilian);
    let cases = [
        // No piece to move.
        ("W:W:BK28", Wdl::Loss, RuleValue::NO_MOVE),
        // The opponent has none.
        ("W:WK1,K2,K3:B", Wdl::Win, RuleValue::win(0)),
        // Blocked: the white man on 29 has no move (its squares are Black's, and no capture).
        ("W:W29:B25,22", Wdl::Loss, RuleValue::NO_MOVE),
    ];
    for (fen, result, value) in cases {
        let pos = Position::from_fen(Variant::Brazilian, fen).unwrap();
        assert!(pos.game_over().is_some(), "{fen}");
        let outcome = tables
            .probe_draw_rules(&pos, Counters::FRESH)
            .unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!((outcome.result, outcome.value), (result, value), "{fen}");
        assert_eq!(outcome.limit, limits.rule_6_2, "{fen}");
        assert_eq!(
            tables.probe_draw_rules_cached(&pos, Counters::FRESH),
            Some(outcome),
            "{fen}"
        );
        assert_eq!(tables.probe_wdl(&pos).unwrap(), result, "{fen}");
    }
    // A game still going needs the rule tables.
    let pos = Position::from_fen(Variant::Brazilian, "W:WK1:BK28").unwrap();
    assert!(tables.probe_draw_rules(&pos, Counters::FRESH).is_err());
}

/// Found by hostile testing: a file that cannot be mapped (one of /proc in a table's place)
/// gave a bare "No such device".
#[cfg(target_os = "linux")]
#[test]
fn a_table_that_cannot_be_mapped_says_so() {
    let dir = brazilian_two();
    let table = table_path(
        dir.path(),
        Variant::Brazilian,
        "KvK".parse().unwrap(),
        TableKind::Wdl,
    );
    std::fs::remove_file(&table).unwrap();
    std::os::unix::fs::symlink("/proc/self/status", &table).unwrap();
    let tables = Tablebase::open(dir.path()).unwrap();
    let kvk = Position::from_fen(Variant::Brazilian, "W:WK1:BK28").unwrap();
    let err = tables.probe_wdl(&kvk).unwrap_err();
    assert!(matches!(err, ProbeError::Io { .. }), "{err}");
    assert!(
        err.to_string().starts_with(&format!(
            "{}: cannot be mapped into memory to be read: ",
            table.display()
        )),
        "{err}"
    );
}

/// A probe of a position the tables leave out reads only the moves that decide its value: the
/// value must still be the one all its moves give, and so must that of a stored position, for
/// the default tables (distance and rule tables of the side with more pieces) and the compact
/// ones (one side chosen for size). Every third position of Brazilian up to 3 pieces.
#[test]
fn every_value_is_the_one_all_its_moves_give() {
    for compact in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let plan = rafle_generator::Plan::new(Variant::Brazilian, 3, dir.path())
            .unwrap()
            .with_compact(compact);
        rafle_generator::generate(&plan, &rafle_generator::NoProgress).unwrap();
        let tables = Tablebase::open(dir.path()).unwrap();
        let limits = tables.limits(Variant::Brazilian).unwrap().unwrap();
        let mut derived = 0;
        for &material in &tables.available[&(TableKind::Dtw, Variant::Brazilian)] {
            let index = crate::PositionIndex::new(Variant::Brazilian, material);
            for i in (0..index.size()).step_by(3) {
                let pos = index.unrank(i);
                if pos.game_over().is_some() {
                    continue;
                }
                let limit = limits.of(Category::of_position(&pos));
                let moves = pos.legal_moves();
                let next: Vec<Position> = moves.iter().map(|mv| pos.play(mv)).collect();
                let wdl = <crate::codec::WdlCodec as crate::codec::Codec>::from_successors(
                    0,
                    next.iter().map(|n| (tables.probe_wdl(n).unwrap(), false)),
                );
                let dtw = Dtw::from_successors(next.iter().map(|n| tables.probe_dtw(n).unwrap()));
                let rules = RuleValue::from_successors(
                    limit,
                    moves.iter().zip(&next).map(|(mv, n)| {
                        let value = tables.probe_draw_rules(n, Counters::FRESH).unwrap().value;
                        (value, crate::resets_counter(&pos, mv, n))
                    }),
                );
                let fen = pos.to_fen();
                assert_eq!(
                    tables.probe_wdl(&pos).unwrap(),
                    wdl,
                    "{fen} compact {compact}"
                );
                assert_eq!(
                    tables.probe_dtw(&pos).unwrap(),
                    dtw,
                    "{fen} compact {compact}"
                );
                let found = tables
                    .probe_draw_rules(&pos, Counters::FRESH)
                    .unwrap()
                    .value;
                assert_eq!(found, rules, "{fen} compact {compact}");
                derived += usize::from(!tables.stores_side_to_move(TableKind::Dtw, &pos).unwrap());
            }
        }
        assert!(derived > 1000, "{derived} positions of the side not stored");
    }
}
