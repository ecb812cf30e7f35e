"""The package answers as `rafle probe --json` does, on a few hundred random positions of
each variant: values, rule class and count, every move's values and the best-first order,
the result with counters and the line."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import pytest

import rafle
from conftest import random_fens

POSITIONS = 300
VARIANTS = ["brazilian", "international"]


def cli_answers(
    rafle_bin: Path, tables: Path, variant: str, fens: Sequence[str], *extra: str
) -> List[Dict[str, Any]]:
    """`rafle probe --json` of every FEN (read on standard input), one object each."""
    done = subprocess.run(
        [str(rafle_bin), "probe", "--json", "--variant", variant, "--data", str(tables), *extra],
        input="\n".join(fens) + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(fens)
    return answers


def plies(dtw: Optional[int]) -> Optional[int]:
    """The unsigned distance the JSON gives."""
    return None if dtw is None else abs(dtw)


def name(value: Any) -> Optional[str]:
    return None if value is None else str(value)


def best_first_key(m: Dict[str, Any], with_counters: bool) -> tuple:
    """The order the docs give for moves (docs/python.md, `moves`), from a JSON move: written
    here independently of the library, to check the package's order against."""
    result = {"loss": 0, "draw": 1, "win": 2, None: 0}[m.get("result")] if with_counters else 0
    distance = m["dtw"] or 0
    count = m["count"] or 0
    cls = m["class"] or m["wdl"]
    return {
        "loss": (result, 0, distance, count),
        "blessed_loss": (result, 1, distance, 0),
        "draw": (result, 2, 0, 0),
        "cursed_win": (result, 3, -distance, 0),
        "win": (result, 4, -distance, -count),
    }[cls]


def mover_dtw(after: Optional[int]) -> Optional[int]:
    """A move's distance for its player from the distance after it: one ply longer."""
    if after is None:
        return None
    return -after + 1 if after <= 0 else -(after + 1)


@pytest.mark.parametrize("variant", VARIANTS)
def test_values_and_moves_equal_the_command_line(tb, tables, rafle_bin, variant):
    fens = random_fens(1 + VARIANTS.index(variant), variant, POSITIONS)
    answers = cli_answers(rafle_bin, tables, variant, fens)
    wins = 0
    for fen, cli in zip(fens, answers):
        assert "error" not in cli, cli
        wdl = tb.probe_wdl(fen, variant)
        dtw = tb.probe_dtw(fen, variant)
        rules = tb.probe_draw_rules(fen, variant)
        assert (str(wdl), plies(dtw)) == (cli["wdl"], cli["dtw"]), fen
        assert (str(rules.rule_class), rules.count, rules.rule) == (
            cli["class"], cli["count"], cli["rule"]
        ), fen
        limits = rules.limits
        assert cli["limits"] == f"6.2={limits.rule_6_2},6.3={limits.rule_6_3},6.4={limits.rule_6_4}"
        # The sign of the distance is the side to move's: 0 is a loss already suffered.
        assert dtw is None if wdl == rafle.Wdl.DRAW else (dtw > 0) == (wdl == rafle.Wdl.WIN)
        wins += wdl == rafle.Wdl.WIN

        moves = tb.moves(fen, variant)
        by_text = {m["move"]: m for m in cli["moves"]}
        assert sorted(m.text for m in moves) == sorted(by_text), fen
        for m in moves:
            j = by_text[m.text]
            assert (str(m.after.wdl), plies(m.after.dtw), name(m.after.rule_class), m.after.count) == (
                j["wdl"], j["dtw"], j["class"], j["count"]
            ), (fen, m.text)
            assert m.wdl == -m.after.wdl and m.dtw == mover_dtw(m.after.dtw), (fen, m.text)
            assert m.fen == rafle.normalize_fen(m.fen, variant)
            assert m.path[0] == m.from_square and m.path[-1] == m.to_square
        ordered = sorted(cli["moves"], key=lambda m: best_first_key(m, False))
        assert [m.text for m in moves] == [m["move"] for m in ordered], fen
        if moves:
            # The position's values are its best move's for the side playing it.
            assert (moves[0].wdl, moves[0].rule_class) == (wdl, rules.rule_class), fen
            best = tb.best_move(fen, variant)
            assert best is not None and best.dtw == dtw and best.wdl == wdl, fen
        else:
            assert tb.best_move(fen, variant) is None
    # Random positions of these sets hold wins, draws and losses: a test of all draws would
    # check little.
    assert 0.05 * POSITIONS < wins < 0.95 * POSITIONS


@pytest.mark.parametrize("variant", VARIANTS)
def test_counters_and_line_equal_the_command_line(tb, tables, rafle_bin, variant):
    fens = random_fens(10 + VARIANTS.index(variant), variant, 60)
    for counters in [(0, 0), (3, 7), (40, 30)]:
        k, c = counters
        answers = cli_answers(
            rafle_bin, tables, variant, fens, "--counters", f"{k},{c}", "--line"
        )
        for fen, cli in zip(fens, answers):
            rules = tb.probe_draw_rules(fen, variant, king_plies=k, category_plies=c)
            assert str(rules.result) == cli["result"], (fen, counters)
            assert (rules.king_plies, rules.category_plies) == counters
            moves = tb.moves(fen, variant, king_plies=k, category_plies=c)
            by_text = {m["move"]: m for m in cli["moves"]}
            for m in moves:
                j = by_text[m.text]
                assert name(m.after.result) == j["result"], (fen, m.text)
                assert m.counters_after == (j["king_plies"], j["category_plies"])
            ordered = sorted(cli["moves"], key=lambda m: best_first_key(m, True))
            assert [m.text for m in moves] == [m["move"] for m in ordered], (fen, counters)
            line = tb.line(fen, variant, king_plies=k, category_plies=c)
            assert list(line.moves) == [p["move"] for p in cli["line"]], (fen, counters)
            assert line.end.text == cli["end"]
            for ply, j in zip(line.plies, cli["line"]):
                assert (ply.king_plies, ply.category_plies) == (j["king_plies"], j["category_plies"])
                assert (str(ply.after.result), str(ply.after.rule_class), ply.after.count) == (
                    j["result"], j["class"], j["count"]
                )
                assert plies(ply.after.dtw) == j["dtw"]
