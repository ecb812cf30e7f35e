"""Probes from many threads at once, with the GIL released; generation with progress."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import positions
import rafle
from conftest import random_fens


def test_many_threads_get_the_answers_of_one(tb):
    fens = random_fens(99, "brazilian", 200)
    alone = [(tb.probe_wdl(f, "brazilian"), tb.probe_dtw(f, "brazilian"),
              [m.text for m in tb.moves(f, "brazilian")]) for f in fens]

    def probe(fen):
        return (tb.probe_wdl(fen, "brazilian"), tb.probe_dtw(fen, "brazilian"),
                [m.text for m in tb.moves(fen, "brazilian")])

    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(3):
            assert list(pool.map(probe, fens)) == alone


def test_probes_release_the_gil(tables):
    """A pure-Python thread keeps running while another thread is inside one long probe
    (a line of a long win, read without a cache): with the GIL held through the probe it
    could not run at all until the probe returned."""
    with rafle.open_tablebase(tables, cache_bytes=0) as tb:
        fens = random_fens(5, "brazilian", 400)
        longest = max(fens, key=lambda f: abs(tb.probe_dtw(f, "brazilian") or 0))
        assert abs(tb.probe_dtw(longest, "brazilian")) > 40
        stop = threading.Event()
        ticks = []

        def count():
            while not stop.is_set():
                ticks.append(time.perf_counter())
                time.sleep(0.0002)

        counter = threading.Thread(target=count)
        counter.start()
        inside = []
        try:
            for _ in range(3):
                # The native call alone: the Python around it lets the other thread run anyway.
                start = time.perf_counter()
                tb._native.line("brazilian", longest, 0, 0)
                end = time.perf_counter()
                inside.append(sum(start < t < end for t in list(ticks)))
        finally:
            stop.set()
            counter.join()
    assert max(inside) >= 5, inside


def test_close_while_other_threads_probe(tables):
    tb = rafle.open_tablebase(tables)
    fens = random_fens(6, "brazilian", 300)
    errors = []

    def probe_all():
        for fen in fens:
            try:
                tb.moves(fen, "brazilian")
            except rafle.TablebaseClosedError:
                return
            except Exception as e:  # noqa: BLE001 - any other failure is the bug looked for
                errors.append(e)

    threads = [threading.Thread(target=probe_all) for _ in range(4)]
    for t in threads:
        t.start()
    time.sleep(0.02)
    tb.close()
    for t in threads:
        t.join()
    assert errors == []


def test_generate_reports_progress_and_builds_what_the_cli_would(tmp_path, tables):
    reports = []
    summaries = rafle.generate(tmp_path, "brazilian", 3, memory="1G", threads=2,
                               progress=reports.append)
    materials = [s.material for s in summaries]
    assert materials[0] == "KvK" and len(materials) == 9, materials
    assert sum(s.positions for s in summaries) == reports[0].positions
    assert reports[0].event == "started" and reports[-1].event == "material_finished"
    assert reports[-1].units_done == reports[-1].units_total == 3 * reports[0].positions
    finished = [r.material for r in reports if r.event == "material_finished"]
    assert finished == materials
    done = [r.units_done for r in reports]
    assert done == sorted(done), "progress never goes back"
    # The same tables as the command line's, byte for byte.
    for summary in summaries:
        for kind in ("wdl", "dtw", "rules"):
            ours = (tmp_path / "brazilian" / f"{summary.material}.{kind}").read_bytes()
            theirs = (tables / "brazilian" / f"{summary.material}.{kind}").read_bytes()
            assert ours == theirs, (summary.material, kind)
    # A second run reuses them.
    again = rafle.generate(tmp_path, rafle.Variant.BRAZILIAN, 3, progress=False)
    assert all(s.reused for s in again)


def test_generate_default_progress_and_errors(tmp_path, capsys):
    rafle.generate(tmp_path, "international", 2, threads=1)
    err = capsys.readouterr().err
    assert "rafle: international KvK:" in err and "100% done" in err, err

    def fails(report):
        raise KeyError("stop")

    with pytest.raises(KeyError, match="stop"):
        rafle.generate(tmp_path / "other", "brazilian", 2, progress=fails)
    with pytest.raises(rafle.GenerateError, match="memory"):
        rafle.generate(tmp_path / "small", "brazilian", 5, memory=1 << 20, progress=False)
    with pytest.raises(ValueError):
        rafle.generate(tmp_path, "brazilian", 1)
    with pytest.raises(rafle.UnsupportedVariantError):
        rafle.generate(tmp_path, "frisian", 2)
    with pytest.raises(ValueError):
        rafle.generate(tmp_path, "brazilian", 2, memory="lots")


def test_generate_writes_win_draw_loss_tables_alone_and_compact_ones(tmp_path, tables):
    summaries = rafle.generate(tmp_path, "brazilian", 3, tables="wdl", compact=True,
                               progress=False)
    assert len(summaries) == 9
    assert all(s.compact and not s.reused for s in summaries)
    assert all(s.wdl_bytes > 0 and s.dtw_bytes == s.rules_bytes == 0 for s in summaries)
    written = sorted(p.suffix for p in (tmp_path / "brazilian").iterdir() if p.is_file())
    assert written == [".wdl"] * 9, written
    # The same values as the default tables of the command line, on either side to move.
    full = {s.material: s for s in rafle.generate(tmp_path / "full", "brazilian", 3,
                                                  progress=False)}
    assert all(not s.compact for s in full.values())
    assert all(full[s.material].wdl_bytes > s.wdl_bytes for s in summaries
               if s.positions > 10_000), "one side to move takes less"
    with rafle.open_tablebase(tmp_path) as ours, rafle.open_tablebase(tables) as theirs:
        for fen in positions.random_fens(7, "brazilian", 300, 3):
            assert ours.probe_wdl(fen, "brazilian") == theirs.probe_wdl(fen, "brazilian"), fen
    # A default run over them keeps them, and says which form they have.
    again = rafle.generate(tmp_path, "brazilian", 3, tables="wdl", progress=False)
    assert all(s.reused and s.compact for s in again)
    with pytest.raises(ValueError, match="tables"):
        rafle.generate(tmp_path, "brazilian", 3, tables="dtw")
