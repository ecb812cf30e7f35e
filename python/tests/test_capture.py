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
    with pytest.raises(rafle.FenError, match="piece on 21 or on 22"):
        tb.best_move("W:W21,22:BG27,17,18,5")
    with pytest.raises(rafle.FenError, match="the ghost piece on 7 is in the list of the side"):
        tb.probe_draw_rules("B:WK46:BG7,K5:H0:F1")
    # A line starts between moves: refused, naming the ghost.
    with pytest.raises(rafle.FenError, match="'P27' is a ghost piece"):
        tb.line(MID, "brazilian")


def test_the_best_completion_is_the_best_move_from_before_the_capture(tb):
    best = tb.best_move(MID, "brazilian")
    whole = tb.best_move(BEFORE, "brazilian")
    assert best.text == "20x" + str(whole.to_square)
    assert (best.from_square, best.captured, best.path) == (20, (16, 27), (20, whole.to_square))
    assert (best.fen, best.wdl, best.dtw, best.rule_class, best.count, best.resets) == (
        whole.fen, whole.wdl, whole.dtw, whole.rule_class, whole.count, whole.resets)
    assert best.dtw == tb.probe_dtw(MID, "brazilian") == 9


def test_a_capture_under_way_under_the_draw_rules(tb):
    results = set()
    for king_plies, category_plies in [(0, 0), (0, 40), (49, 0), (50, 0)]:
        mid = tb.probe_draw_rules(MID, "brazilian", king_plies, category_plies)
        whole = tb.probe_draw_rules(BEFORE, "brazilian", king_plies, category_plies)
        assert mid == whole
        assert (mid.king_plies, mid.category_plies) == (king_plies, category_plies)
        results.add(mid.result)
    # The counters are used: at the 6.2 limit the rules draw the win.
    assert results == {rafle.Wdl.WIN, rafle.Wdl.DRAW}
