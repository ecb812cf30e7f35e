"""Counts of any size, inputs of any length, and a generation stopped half-way: out-of-range
counts raise ValueError with the command line's words, messages quote bounded excerpts, and
Ctrl-C (or the progress callable's exception) stops `generate` at its next checkpoint, from
which the next run resumes."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

import rafle

FEN = "W:W18:B1"


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("small")
    rafle.generate(directory, "brazilian", 2, progress=False)
    return directory


def cli_error(rafle_bin: Path, *args: str) -> str:
    done = subprocess.run([str(rafle_bin), *args], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    return done.stderr


def test_counts_out_of_range_raise_value_error_with_the_cli_words(tmp_path, small, rafle_bin):
    started = time.monotonic()
    for threads in (2**31, 2**80, 0, -1, 1025):
        with pytest.raises(ValueError) as caught:
            rafle.generate(tmp_path, "brazilian", 2, threads=threads, progress=False)
        expected = f"threads must be from 1 to 1024, not {threads}"
        assert str(caught.value) == expected
        assert expected in cli_error(rafle_bin, "generate", f"--threads={threads}")
    assert time.monotonic() - started < 30, "refused before any thread or table"
    assert not (tmp_path / "brazilian").exists()
    for pieces in (2**64, 9, 1):
        with pytest.raises(ValueError) as caught:
            rafle.generate(tmp_path, "brazilian", pieces, progress=False)
        expected = f"pieces must be from 2 to 8, not {pieces}"
        assert str(caught.value) == expected
        assert expected in cli_error(rafle_bin, "generate", f"--pieces={pieces}")
    with pytest.raises(ValueError, match=r"memory must be from 1 to 18446744073709551615 bytes, "
                                         r"not 18446744073709551616"):
        rafle.generate(tmp_path, "brazilian", 2, memory=2**64, progress=False)
    with pytest.raises(TypeError, match="threads must be an int"):
        rafle.generate(tmp_path, "brazilian", 2, threads=2.0, progress=False)
    with pytest.raises(ValueError, match="empty path"):
        rafle.generate("", "brazilian", 2, progress=False)
    with pytest.raises(ValueError, match=rf"cache_bytes must be from 0 to \d+ bytes, not {2**70}"):
        rafle.open_tablebase(small, cache_bytes=2**70)
    with rafle.open_tablebase(small) as tb:
        expected = "king_plies (K, rule 6.2) must be from 0 to 10000 plies, not 9223372036854775808"
        with pytest.raises(ValueError) as caught:
            tb.probe_draw_rules(FEN, "brazilian", king_plies=2**63)
        assert str(caught.value) == expected
        assert expected in cli_error(rafle_bin, "probe", "--counters", f"{2**63},0", FEN)
        with pytest.raises(ValueError, match=r"category_plies \(C, rules 6.3/6.4\) must be from "
                                             r"0 to 10000 plies, not -1267650600228229401496703205376"):
            tb.moves(FEN, "brazilian", category_plies=-(2**100))
        with pytest.raises(ValueError, match="king_plies"):
            tb.line(FEN, "brazilian", king_plies=10_001)
        assert tb.probe_draw_rules(FEN, "brazilian", king_plies=10_000).result is not None


def test_long_inputs_are_quoted_as_bounded_excerpts(small):
    with rafle.open_tablebase(small) as tb:
        with pytest.raises(rafle.FenError) as caught:
            tb.probe_wdl(FEN + "," + "9" * (1 << 20), "brazilian")
        assert len(str(caught.value)) < 1000
        assert "(1048585 characters)" in str(caught.value)
        with pytest.raises(rafle.UnsupportedVariantError) as caught:
            tb.probe_wdl(FEN, "x" * 20_000)
        assert len(str(caught.value)) < 1000 and "(20000 characters)" in str(caught.value)
    with pytest.raises(rafle.TableError) as caught:
        rafle.open_tablebase("d/" * 100_000)
    assert len(str(caught.value)) < 1000 and "(200000 characters)" in str(caught.value)


def table_count(directory: Path) -> int:
    return len(list((directory / "brazilian").glob("*.wdl")))


def verify(rafle_bin: Path, directory: Path) -> None:
    done = subprocess.run(
        [str(rafle_bin), "verify", "--variant", "brazilian", "--data", str(directory)],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_ctrl_c_stops_generate_and_the_next_run_resumes(tmp_path, rafle_bin):
    """SIGINT once the third material is done: KeyboardInterrupt at the next checkpoint, long
    before the set is done (Brazilian up to 4 pieces takes tens of seconds unoptimized)."""
    sent = []

    def interrupt(report: rafle.GenerateProgress) -> None:
        if report.event == "material_finished" and not sent and table_count(tmp_path) == 3:
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)

    # Python turns SIGINT into KeyboardInterrupt only if SIGINT was not ignored when it started
    # (a shell's background job without job control starts with it ignored): set it here.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            rafle.generate(tmp_path, "brazilian", 4, threads=2, progress=interrupt)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert sent, "the signal was sent"
    assert time.monotonic() - sent[0] < 15, "stopped at a checkpoint, not at the end"
    stopped_at = table_count(tmp_path)
    summaries = rafle.generate(tmp_path, "brazilian", 4, threads=2, progress=False)
    assert 3 <= stopped_at < len(summaries), stopped_at
    assert [s.reused for s in summaries[:3]] == [True] * 3
    assert not summaries[-1].reused
    verify(rafle_bin, tmp_path)


def test_the_callback_exception_stops_generate_at_a_checkpoint(tmp_path, rafle_bin):
    calls = []

    def fails(report: rafle.GenerateProgress) -> None:
        calls.append(report.event)
        if report.event == "material_finished" and table_count(tmp_path) == 2:
            raise KeyError("enough")

    with pytest.raises(KeyError, match="enough"):
        rafle.generate(tmp_path, "brazilian", 3, threads=2, progress=fails)
    # Stopped before the next material: no report after the exception.
    assert calls[-1] == "material_finished"
    assert table_count(tmp_path) == 2
    rafle.generate(tmp_path, "brazilian", 3, threads=2, progress=False)
    verify(rafle_bin, tmp_path)
