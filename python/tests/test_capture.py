"""A capture under way (lidraughts' ghost pieces): answered by its completions, each worth
what the whole move from the position before the capture is worth; never read as squares."""

from __future__ import annotations

import pytest

import rafle

BEFORE = "W:WK31:B16,2,K27"  # 31x7 and 31x11, over the king on 27, then over 16
MID = "W:WK20:B16,2,P27"  # the first jump made: the king on 20, the king on 27 a ghost


def test_a_capture_under_way_is_worth_the_whole_move(tb):
    assert tb.probe_wdl(MID, "brazilian") == tb.probe_wdl(BEFORE, "brazilian") == rafle.Wdl.WIN
    assert tb.probe_dtw(MID, "brazilian") == tb.probe_dtw(BEFORE, "brazilian") == 9
    completions = tb.moves(MID + ":H0:F1", "brazilian")
    assert [m.text for m in completions] == ["20x11", "20x7"]
    whole = {m.fen: m for m in tb.moves(BEFORE, "brazilian")}
    for m in completions:
        assert m.from_square == 20 and m.captured == (16, 27)
        assert m.path == (20, m.to_square)
        same = whole[m.fen]
        assert (m.wdl, m.dtw, m.rule_class, m.count, m.resets) == (
            same.wdl, same.dtw, same.rule_class, same.count, same.resets)


def test_ghosts_that_cannot_be_placed_are_refused(tb):
    # G7 was once read as the square g7, answering for another position.
    with pytest.raises(rafle.FenError, match="the ghost piece on 7 is in the list of the side"):
        tb.probe_wdl("B:WK46:BG7,K5:H0:F1")
    with pytest.raises(rafle.FenError, match="piece on 21 or on 22"):
        tb.moves("W:W21,22:BG27,17,18,5")
    # What only a position between moves has is refused, naming the ghost.
    for call in (tb.best_move, tb.probe_draw_rules):
        with pytest.raises(rafle.FenError, match="'P27' is a ghost piece"):
            call(MID, "brazilian")
