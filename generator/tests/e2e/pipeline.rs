//! The whole pipeline on small materials: generation, read-back through the probe, the
//! independent forward check, damaged files, resumption and determinism.

use std::path::Path;

use rafle_generator::{generate, verify_table, NoProgress, Plan};
use rafle_probe::{
    draughts::{Limits, Material, Position, Variant},
    Dtw, ProbeError, Tablebase, Wdl,
};

/// Tables of both variants up to 3 pieces, generated once for the tests that only read them.
fn shared_tables() -> &'static Path {
    rafle_testkit::tables_of(&Variant::ALL, 3)
}

fn copy_dir(from: &Path, to: &Path) {
    for v in Variant::ALL {
        let (src, dst) = (from.join(v.name()), to.join(v.name()));
        std::fs::create_dir_all(&dst).unwrap();
        for entry in std::fs::read_dir(src).unwrap() {
            let entry = entry.unwrap();
            // The tables, not the work directory.
            if entry.file_type().unwrap().is_file() {
                std::fs::copy(entry.path(), dst.join(entry.file_name())).unwrap();
            }
        }
    }
}

fn pos(v: Variant, fen: &str) -> Position {
    Position::from_fen(v, fen).unwrap()
}

#[test]
fn every_table_agrees_with_its_successors() {
    let tb = Tablebase::open(shared_tables()).unwrap();
    for v in Variant::ALL {
        let materials = tb.materials(v);
        assert_eq!(materials.len(), 9, "{v}");
        assert_eq!(tb.max_pieces(v), 3);
        for m in materials {
            let report = verify_table(&tb, v, m, &|_| {}).unwrap();
            assert_eq!(report.mismatches, 0, "{v} {m}: {:?}", report.examples);
            assert!(report.capture_positions > 0 && report.capture_positions < report.positions);
        }
    }
}

/// Whether the side to move can force a win within `plies` plies, by plain search.
fn wins_within(p: &Position, plies: u32) -> bool {
    plies > 0
        && p.legal_moves()
            .iter()
            .any(|m| loses_within(&p.play(m), plies - 1))
}

/// Whether the side to move loses within `plies` plies whatever it does.
fn loses_within(p: &Position, plies: u32) -> bool {
    let moves = p.legal_moves();
    moves.is_empty() || (plies > 0 && moves.iter().all(|m| wins_within(&p.play(m), plies - 1)))
}

/// 1 king against 1 king is mostly drawn, and what is decided is decided within a few plies
/// (a king shut in a corner, as in `W:WK5:BK46` where every move of the king on 5 is taken).
#[test]
fn king_against_king() {
    let tb = Tablebase::open(shared_tables()).unwrap();
    for v in Variant::ALL {
        let index = rafle_probe::toolkit::PositionIndex::new(v, "KvK".parse().unwrap());
        let (mut wins, mut draws, mut losses) = (0, 0, 0);
        for i in 0..index.size() {
            let p = index.unrank(i);
            match tb.probe_wdl(&p).unwrap() {
                Wdl::Win => {
                    wins += 1;
                    assert!(wins_within(&p, 3), "{p:?} is no win in 3 plies");
                }
                Wdl::Draw => {
                    draws += 1;
                    assert!(!wins_within(&p, 5) && !loses_within(&p, 4), "{p:?}");
                }
                Wdl::Loss => {
                    losses += 1;
                    assert!(loses_within(&p, 4), "{p:?} is no loss in 4 plies");
                }
            }
        }
        assert!(
            draws > 4 * wins && wins > 0 && losses > 0,
            "{v}: {wins}/{draws}/{losses}"
        );
    }
    let corner = pos(Variant::International, "W:WK5:BK46");
    assert_eq!(tb.probe_wdl(&corner).unwrap(), Wdl::Loss);
}

#[test]
fn known_values() {
    let tb = Tablebase::open(shared_tables()).unwrap();
    let i = Variant::International;
    // Capturing the last piece wins.
    assert_eq!(tb.probe_wdl(&pos(i, "W:WK46:B37")).unwrap(), Wdl::Win);
    assert_eq!(tb.probe_wdl(&pos(i, "B:WK46:B37")).unwrap(), Wdl::Draw);
    // No legal move loses: the black man on 45 is blocked by the white man on 50.
    assert_eq!(tb.probe_wdl(&pos(i, "B:W50:B45")).unwrap(), Wdl::Loss);
    // A side with no piece has lost.
    assert_eq!(tb.probe_wdl(&pos(i, "W:W:B1")).unwrap(), Wdl::Loss);
    // Two kings cannot catch a king in the open, but win when it is stuck in front of them:
    // on 45, the black king is caught in 7 plies (the longest KKvK win of the board).
    assert_eq!(tb.probe_wdl(&pos(i, "W:WK1,K2:BK50")).unwrap(), Wdl::Draw);
    let stuck = pos(i, "W:WK1,K2:BK45");
    assert_eq!(tb.probe_wdl(&stuck).unwrap(), Wdl::Win);
    assert_eq!(tb.probe_dtw(&stuck).unwrap(), Dtw::Win(7));
    // The white man in the corner a1 can neither move to b2 nor jump it: c3 is taken.
    let b = Variant::Brazilian;
    assert_eq!(tb.probe_wdl(&pos(b, "W:W29:B22,25")).unwrap(), Wdl::Loss);
    // Every move value is the negation-consistent one.
    for (v, fen) in [(i, "W:WK28:B19,K45"), (b, "B:W22,K30:B9")] {
        let p = pos(v, fen);
        let value = tb.probe_wdl(&p).unwrap();
        let best = tb
            .probe_moves(&p)
            .unwrap()
            .iter()
            .map(|(_, after)| -*after)
            .max()
            .unwrap();
        assert_eq!(value, best, "{fen}");
    }
}

#[test]
fn known_distances() {
    let tb = Tablebase::open(shared_tables()).unwrap();
    let (i, b) = (Variant::International, Variant::Brazilian);
    let dtw = |v, fen| tb.probe_dtw(&pos(v, fen)).unwrap();
    // Capturing the last piece wins in 1; no move at all loses in 0.
    assert_eq!(dtw(i, "W:WK46:B37"), Dtw::Win(1));
    assert_eq!(dtw(i, "B:W50:B45"), Dtw::Loss(0));
    assert_eq!(dtw(b, "W:W29:B22,25"), Dtw::Loss(0));
    // The king in the corner must step onto the diagonal the other king watches.
    assert_eq!(dtw(i, "W:WK5:BK46"), Dtw::Loss(2));
    assert_eq!(dtw(i, "W:WK1,K2:BK50"), Dtw::Draw);
    // Distances agree with values everywhere, and with the successors' distances.
    for v in Variant::ALL {
        for m in tb.materials(v) {
            let index = rafle_probe::toolkit::PositionIndex::new(v, m);
            for k in (0..index.size()).step_by(97) {
                let p = index.unrank(k);
                let d = tb.probe_dtw(&p).unwrap();
                assert_eq!(d.wdl(), tb.probe_wdl(&p).unwrap(), "{p:?}");
                let successors = tb.probe_moves_dtw(&p).unwrap().into_iter().map(|(_, d)| d);
                assert_eq!(d, Dtw::from_successors(successors), "{p:?}");
            }
        }
    }
}

#[test]
fn too_many_pieces_and_missing_tables_are_typed_errors() {
    let tb = Tablebase::open(shared_tables()).unwrap();
    let i = Variant::International;
    assert!(matches!(
        tb.probe_wdl(&pos(i, "W:W31,32:B1,2")),
        Err(ProbeError::TooManyPieces {
            pieces: 4,
            max: 3,
            ..
        })
    ));
    let dir = tempfile::tempdir().unwrap();
    copy_dir(shared_tables(), dir.path());
    std::fs::remove_file(dir.path().join("international/KKvK.wdl")).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    let err = tb.probe_wdl(&pos(i, "W:WK1,K2:BK50")).unwrap_err();
    assert!(
        matches!(err, ProbeError::MissingTable { material, .. } if material.to_string() == "KKvK")
    );
    assert!(err.to_string().contains("KKvK"));
    assert!(Tablebase::open(dir.path().join("nowhere")).is_err());
}

#[test]
fn damaged_files_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(shared_tables(), dir.path());
    let v = Variant::Brazilian;
    let kkvk: Material = "KKvK".parse().unwrap();
    let path = dir.path().join("brazilian/KKvK.wdl");
    let bytes = std::fs::read(&path).unwrap();
    let probe_all = |tb: &Tablebase| -> Result<(), ProbeError> {
        let index = rafle_probe::toolkit::PositionIndex::new(v, kkvk);
        (0..index.size()).try_for_each(|i| tb.stored_wdl(&index.unrank(i)).map(drop))
    };

    // A flipped byte in a block, in the index, in the header.
    for at in [bytes.len() - 3, 70, 20] {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x40;
        std::fs::write(&path, &damaged).unwrap();
        let tb = Tablebase::open(dir.path()).unwrap();
        let err = probe_all(&tb).unwrap_err();
        assert!(
            matches!(err, ProbeError::Corrupted { .. }),
            "byte {at}: {err}"
        );
        assert!(err.to_string().contains("KKvK.wdl"), "{err}");
    }
    // Truncated anywhere.
    for len in [bytes.len() - 1, 100, 10, 0] {
        std::fs::write(&path, &bytes[..len]).unwrap();
        let tb = Tablebase::open(dir.path()).unwrap();
        let err = probe_all(&tb).unwrap_err();
        assert!(
            matches!(err, ProbeError::Truncated { .. }),
            "length {len}: {err}"
        );
    }
    // A table of the other variant under this name.
    std::fs::copy(dir.path().join("international/KKvK.wdl"), &path).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    assert!(matches!(
        probe_all(&tb).unwrap_err(),
        ProbeError::WrongTable { .. }
    ));
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for v in Variant::ALL {
        let Ok(entries) = std::fs::read_dir(dir.join(v.name())) else {
            continue;
        };
        for entry in entries {
            let entry = entry.unwrap();
            if !entry.file_type().unwrap().is_file() {
                continue;
            }
            out.push((
                format!("{v}/{}", entry.file_name().to_string_lossy()),
                std::fs::read(entry.path()).unwrap(),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn same_bytes_whatever_the_thread_count() {
    let mut outputs = Vec::new();
    for threads in [1, 2, 3] {
        let dir = tempfile::tempdir().unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            for v in Variant::ALL {
                generate(&Plan::new(v, 3, dir.path()).unwrap(), &NoProgress).unwrap();
            }
        });
        outputs.push(files(dir.path()));
    }
    assert_eq!(outputs[0].len(), 54);
    assert!(outputs[0] == outputs[1] && outputs[1] == outputs[2]);
    assert_eq!(outputs[0], files(shared_tables()));
}

#[test]
fn an_interrupted_generation_resumes() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(shared_tables(), dir.path());
    let b = dir.path().join("brazilian");
    // As a run stopped part way leaves it: a table missing, one cut short, one damaged, and a
    // temporary file that was being written.
    std::fs::remove_file(b.join("KKvM.wdl")).unwrap();
    let cut = std::fs::read(b.join("KMvK.wdl")).unwrap();
    std::fs::write(b.join("KMvK.wdl"), &cut[..cut.len() / 2]).unwrap();
    let mut flipped = std::fs::read(b.join("MMvM.wdl")).unwrap();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    std::fs::write(b.join("MMvM.wdl"), &flipped).unwrap();
    let leftover = rafle_generator::temporary_path(&b.join("KKvK.wdl"));
    std::fs::write(&leftover, b"half a table").unwrap();
    // A rule table cut short, and a distance table missing.
    let cut = std::fs::read(b.join("KKvK.rules")).unwrap();
    std::fs::write(b.join("KKvK.rules"), &cut[..cut.len() - 3]).unwrap();
    std::fs::remove_file(b.join("KMvM.dtw")).unwrap();
    let summaries = generate(
        &Plan::new(Variant::Brazilian, 3, dir.path()).unwrap(),
        &NoProgress,
    )
    .unwrap();
    let mut rebuilt: Vec<String> = summaries
        .iter()
        .filter(|s| !s.reused)
        .map(|s| s.material.to_string())
        .collect();
    rebuilt.sort();
    assert_eq!(rebuilt, ["KKvK", "KKvM", "KMvK", "KMvM", "MMvM"]);
    assert!(summaries
        .iter()
        .filter(|s| !s.reused)
        .all(|s| s.material.to_string() == "KKvM" || s.rebuilt_because.is_some()));
    assert!(!leftover.exists());
    assert_eq!(files(dir.path()), files(shared_tables()));
    // Reused tables report the same counts as generated ones.
    let fresh = generate(
        &Plan::new(Variant::Brazilian, 3, dir.path()).unwrap(),
        &NoProgress,
    )
    .unwrap();
    for (a, b) in fresh.iter().zip(&summaries) {
        assert!(a.reused);
        assert_eq!(
            (a.wins, a.draws, a.losses, a.cursed_wins, a.blessed_losses),
            (b.wins, b.draws, b.losses, b.cursed_wins, b.blessed_losses),
            "{}",
            a.material
        );
    }
}

#[test]
fn other_limits_recompute_only_the_rule_tables() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(shared_tables(), dir.path());
    let v = Variant::International;
    let tight = Limits::parse(v, "6.2=6,6.3=4,6.4=3").unwrap();
    let plan = Plan::new(v, 3, dir.path()).unwrap().with_limits(tight);
    let summaries = generate(&plan, &NoProgress).unwrap();
    assert!(summaries.iter().all(|s| !s.reused
        && s.rebuilt_because
            .as_deref()
            .is_some_and(|r| r.contains("limits"))));
    assert!(summaries.iter().map(|s| s.cursed_wins).sum::<u64>() > 0);
    let changed: Vec<String> = files(dir.path())
        .into_iter()
        .filter(|f| !files(shared_tables()).contains(f))
        .map(|(name, _)| name)
        .collect();
    assert!(!changed.is_empty());
    assert!(
        changed.iter().all(|name| name.ends_with(".rules")),
        "{changed:?}"
    );
    let tb = Tablebase::open(dir.path()).unwrap();
    assert_eq!(tb.limits(v).unwrap(), Some(tight));
    // The other variant's tables keep the real limits; one tight table among them is refused.
    let b = Variant::Brazilian;
    assert_eq!(tb.limits(b).unwrap(), Some(Limits::fmjd(b)));
    let tight_b = tempfile::tempdir().unwrap();
    let plan = Plan::new(b, 2, tight_b.path()).unwrap();
    generate(
        &plan.with_limits(Limits::parse(b, "6.4=3").unwrap()),
        &NoProgress,
    )
    .unwrap();
    std::fs::copy(
        tight_b.path().join("brazilian/KvK.rules"),
        dir.path().join("brazilian/KvK.rules"),
    )
    .unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    assert!(matches!(
        tb.limits(b),
        Err(rafle_probe::ProbeError::MixedLimits { .. })
    ));
    // A rule table of the other variant in its place is named as such, whatever its limits.
    std::fs::copy(
        dir.path().join("international/KvK.rules"),
        dir.path().join("brazilian/KvK.rules"),
    )
    .unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    let err = tb.limits(b).unwrap_err();
    assert!(
        matches!(err, rafle_probe::ProbeError::WrongTable { .. }),
        "{err}"
    );
}

#[test]
fn a_write_that_fails_leaves_no_table() {
    let dir = tempfile::tempdir().unwrap();
    // The variant directory is a file: nothing can be written under it.
    std::fs::write(dir.path().join("brazilian"), b"not a directory").unwrap();
    let err = generate(
        &Plan::new(Variant::Brazilian, 2, dir.path()).unwrap(),
        &NoProgress,
    )
    .unwrap_err();
    assert!(
        matches!(err, rafle_generator::GenerateError::Io { .. }),
        "{err}"
    );
}

#[test]
fn win_draw_loss_alone() {
    use rafle_generator::Tables;
    let dir = tempfile::tempdir().unwrap();
    let v = Variant::Brazilian;
    let wdl_plan = |pieces| {
        Plan::new(v, pieces, dir.path())
            .unwrap()
            .with_tables(Tables::Wdl)
    };
    let first = generate(&wdl_plan(2), &NoProgress).unwrap();
    assert!(first.iter().all(|s| !s.reused && !s.rules_solved));
    // Up to 3: the 2-piece materials are solved again (the 3-piece ones read their values,
    // which their win/draw/loss tables alone do not give), with the same bytes.
    let summaries = generate(&wdl_plan(3), &NoProgress).unwrap();
    assert!(summaries.iter().all(|s| !s.reused));
    let shared: Vec<(String, Vec<u8>)> = files(shared_tables())
        .into_iter()
        .filter(|(name, _)| name.starts_with("brazilian/") && name.ends_with(".wdl"))
        .collect();
    assert_eq!(shared.len(), 9);
    assert_eq!(files(dir.path()), shared);
    // The counts agree with the full run's; distances were not solved.
    let full = generate(&Plan::new(v, 3, shared_tables()).unwrap(), &NoProgress).unwrap();
    for (a, b) in summaries.iter().zip(&full) {
        assert_eq!(
            (a.material, a.wins, a.draws, a.losses),
            (b.material, b.wins, b.draws, b.losses)
        );
        assert_eq!((a.longest_win, a.dtw_bytes), (0, 0));
    }
    // probe_wdl answers from the win/draw/loss tables alone, as from the full set.
    let (alone, full_set) = (
        Tablebase::open(dir.path()).unwrap(),
        Tablebase::open(shared_tables()).unwrap(),
    );
    for fen in [
        "W:WK1,K2:BK28",
        "B:W29:B25,22",
        "W:W10,11:B25",
        "B:WK3:B20,21",
    ] {
        let p = pos(v, fen);
        assert_eq!(
            alone.probe_wdl(&p).unwrap(),
            full_set.probe_wdl(&p).unwrap(),
            "{fen}"
        );
    }
    // Run again: nothing reads the values any more, so everything is reused.
    let again = generate(&wdl_plan(3), &NoProgress).unwrap();
    assert!(again.iter().all(|s| s.reused));
    for (a, b) in again.iter().zip(&summaries) {
        assert_eq!((a.wins, a.draws, a.losses), (b.wins, b.draws, b.losses));
    }
    // A damaged win/draw/loss table is found and rebuilt.
    let path = dir.path().join("brazilian/KMvK.wdl");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let repaired = generate(&wdl_plan(3), &NoProgress).unwrap();
    let rebuilt: Vec<String> = repaired
        .iter()
        .filter(|s| !s.reused)
        .map(|s| s.material.to_string())
        .collect();
    assert!(rebuilt.contains(&"KMvK".to_string()), "{rebuilt:?}");
    assert_eq!(files(dir.path()), shared);
}

#[test]
fn one_material_alone_from_finished_tables() {
    use rafle_generator::GenerateError;
    let dir = tempfile::tempdir().unwrap();
    let v = Variant::Brazilian;
    let unit = |name: &str| Plan::for_material(v, name.parse().unwrap(), dir.path()).unwrap();
    // Nothing finished: every material KKvM reads is named.
    match generate(&unit("KKvM"), &NoProgress) {
        Err(GenerateError::MissingTables {
            material, missing, ..
        }) => {
            assert_eq!(material.to_string(), "KKvM");
            let names: Vec<String> = missing.iter().map(|(m, _)| m.to_string()).collect();
            assert_eq!(names, ["KvK", "KvM", "KKvK"]);
        }
        other => panic!("{other:?}"),
    }
    copy_dir(shared_tables(), dir.path());
    for kind in ["wdl", "dtw", "rules"] {
        std::fs::remove_file(dir.path().join(format!("brazilian/KKvM.{kind}"))).unwrap();
    }
    // A raw file an older version left is removed once the packed values replace it.
    let work = dir.path().join("brazilian").join(rafle_generator::WORK_DIR);
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("KvK.values"), b"old raw values").unwrap();
    // Either orientation names it; only it is solved, with the bytes of a whole run.
    let summaries = generate(&unit("MvKK"), &NoProgress).unwrap();
    let solved: Vec<String> = summaries
        .iter()
        .filter(|s| !s.reused)
        .map(|s| s.material.to_string())
        .collect();
    assert_eq!(solved, ["KKvM"]);
    // What it read stays packed for the units after it, and its own values stay in their
    // band files, for the units that read it; its raw work file is gone.
    assert!(!work.join("KvK.values").exists());
    for name in ["KvK", "KvM", "KKvK"] {
        assert!(work.join(format!("{name}.packed")).is_file(), "{name}");
    }
    assert!(work.join("KKvM.band-000").is_file());
    assert!(!work.join("KKvM.packed").exists());
    assert!(!work.join("KKvM.partial").exists());
    let ours: Vec<(String, Vec<u8>)> = files(dir.path());
    let shared = files(shared_tables());
    for name in ["KKvM.wdl", "KKvM.dtw", "KKvM.rules"] {
        let name = format!("brazilian/{name}");
        let find = |set: &[(String, Vec<u8>)]| set.iter().find(|f| f.0 == name).cloned();
        assert_eq!(find(&ours), find(&shared), "{name}");
        assert!(find(&ours).is_some());
    }
    // Done already: checked and reused.
    assert!(generate(&unit("KKvM"), &NoProgress)
        .unwrap()
        .iter()
        .all(|s| s.reused));
    // The smallest unit reads nothing.
    let kvk = unit("KvK");
    assert_eq!(kvk.materials.len(), 1);
    assert_eq!(kvk.unit.map(|m| m.to_string()).as_deref(), Some("KvK"));
}

/// Stops a run as a kill would (unwinding, without the noise of a panic message), when
/// material `material` starts (`after == 0`) or at the `after`th report of progress inside it.
struct StopAt {
    material: &'static str,
    after: u64,
    inside: std::sync::atomic::AtomicBool,
    reports: std::sync::atomic::AtomicU64,
}

impl StopAt {
    fn new(material: &'static str, after: u64) -> StopAt {
        StopAt {
            material,
            after,
            inside: Default::default(),
            reports: Default::default(),
        }
    }

    fn stop(&self) {
        std::panic::resume_unwind(Box::new(format!("stopped in {}", self.material)));
    }
}

impl rafle_generator::Progress for StopAt {
    fn material_started(&self, _: Variant, material: Material, _: u64) {
        let inside = material.to_string() == self.material;
        self.inside
            .store(inside, std::sync::atomic::Ordering::SeqCst);
        if inside && self.after == 0 {
            self.stop();
        }
    }

    fn advance(&self, _: u64) {
        use std::sync::atomic::Ordering::SeqCst;
        if self.inside.load(SeqCst) && self.reports.fetch_add(1, SeqCst) + 1 == self.after {
            self.stop();
        }
    }
}

/// The work files of a directory's Brazilian tables, by name.
fn work_files(dir: &Path) -> Vec<String> {
    let work = dir.join("brazilian").join(rafle_generator::WORK_DIR);
    let mut names: Vec<String> = std::fs::read_dir(work)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn work_files_resume_after_a_stop_anywhere() {
    use rafle_generator::GenerateError;
    let dir = tempfile::tempdir().unwrap();
    let v = Variant::Brazilian;
    let plan = Plan::new(v, 3, dir.path()).unwrap();
    let stopped = |progress: &StopAt| {
        let run = std::panic::AssertUnwindSafe(|| generate(&plan, progress));
        assert!(std::panic::catch_unwind(run).is_err());
    };
    let work = dir.path().join("brazilian").join(rafle_generator::WORK_DIR);
    // Stopped between materials: the finished ones a later one reads are packed (materials
    // of few kings keep raw work files while solved: those up to two pieces here), nothing of
    // the raw files is left.
    stopped(&StopAt::new("KKvK", 0));
    let names = work_files(dir.path());
    assert!(names.iter().any(|n| n.ends_with(".packed")), "{names:?}");
    assert!(!names.iter().any(|n| n.ends_with(".partial")), "{names:?}");
    // Stopped while packing KKvK, its tables written: the packing fails (a directory holds
    // its name), which leaves what a kill would, its raw file and journal whole, and a
    // temporary file half written.
    let blocked = work.join("KKvK.packed");
    std::fs::create_dir(&blocked).unwrap();
    let err = generate(&plan, &NoProgress).unwrap_err();
    assert!(matches!(err, GenerateError::Io { .. }), "{err}");
    assert!(dir.path().join("brazilian/KKvK.rules").exists());
    std::fs::remove_dir(&blocked).unwrap();
    let tmp = rafle_generator::temporary_path(&blocked);
    std::fs::write(&tmp, b"half a packed file").unwrap();
    let names = work_files(dir.path());
    assert!(names.contains(&"KKvK.journal".to_string()), "{names:?}");
    assert!(!names.contains(&"KKvK.packed".to_string()), "{names:?}");
    // Packed files damaged since they were written: found and rebuilt from the tables.
    let packed: Vec<String> = names
        .into_iter()
        .filter(|n| n.ends_with(".packed"))
        .collect();
    assert!(!packed.is_empty());
    for (k, name) in packed.iter().enumerate() {
        let path = work.join(name);
        let mut bytes = std::fs::read(&path).unwrap();
        if k == 0 {
            bytes.pop();
        } else {
            let middle = bytes.len() / 2;
            bytes[middle] ^= 0x55;
        }
        std::fs::write(&path, bytes).unwrap();
    }
    // Stopped inside a material: it starts again, KKvK's finished raw file is packed.
    stopped(&StopAt::new("MMvM", 2));
    let names = work_files(dir.path());
    assert!(names.contains(&"MMvM.partial".to_string()), "{names:?}");
    assert!(!names.contains(&"KKvK.partial".to_string()), "{names:?}");
    // The last run finishes with the bytes of a run never stopped, and leaves only the
    // counts behind.
    let summaries = generate(&plan, &NoProgress).unwrap();
    assert!(summaries.iter().any(|s| s.reused));
    let shared: Vec<(String, Vec<u8>)> = files(shared_tables())
        .into_iter()
        .filter(|(name, _)| name.starts_with("brazilian/"))
        .collect();
    assert_eq!(files(dir.path()), shared);
    let names = work_files(dir.path());
    assert!(
        names
            .iter()
            .all(|n| n.ends_with(".summary") || n == "writer.lock"),
        "{names:?}"
    );
    assert!(!tmp.exists());
}

/// Progress adds up to the units of each material, whether its slices report one by one (KKvK:
/// one slice of 29,760 positions) or in groups (materials with men: slices of a few hundred).
#[test]
fn progress_adds_up_to_every_materials_units() {
    use rafle_generator::{MaterialSummary, Progress, UNITS_PER_POSITION};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Mutex;

    #[derive(Default)]
    struct Counted {
        units: AtomicU64,
        expected: AtomicU64,
        wrong: Mutex<Vec<String>>,
    }
    impl Progress for Counted {
        fn material_started(&self, _: Variant, _: Material, positions: u64) {
            self.units.store(0, Ordering::Relaxed);
            self.expected
                .store(UNITS_PER_POSITION * positions, Ordering::Relaxed);
        }
        fn advance(&self, units: u64) {
            self.units.fetch_add(units, Ordering::Relaxed);
        }
        fn material_finished(&self, summary: &MaterialSummary) {
            let (units, expected) = (
                self.units.load(Ordering::Relaxed),
                self.expected.load(Ordering::Relaxed),
            );
            if units != expected {
                let line = format!("{}: {units} of {expected}", summary.material);
                self.wrong.lock().unwrap().push(line);
            }
        }
    }

    let dir = tempfile::tempdir().unwrap();
    let counted = Counted::default();
    let plan = Plan::new(Variant::Brazilian, 3, dir.path()).unwrap();
    let summaries = generate(&plan, &counted).unwrap();
    assert_eq!(summaries.len(), 9);
    assert!(summaries.iter().all(|s| !s.reused));
    assert_eq!(counted.wrong.into_inner().unwrap(), Vec::<String>::new());
}
