"""Bad input raises the exception its kind documents, with rafle's message."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest

import rafle


def test_bad_fens(tb):
    with pytest.raises(rafle.FenError, match="column 1") as caught:
        tb.probe_wdl("X:W31:B1")
    assert caught.value.column == 1 and isinstance(caught.value, ValueError)
    with pytest.raises(rafle.FenError, match="out of range"):
        tb.probe_dtw("W:W33:B1", variant="brazilian")
    with pytest.raises(rafle.FenError):
        tb.moves("")
    with pytest.raises(TypeError):
        tb.probe_wdl(42)
    # Lidraughts' move-counter fields and PDN's tag are read.
    assert tb.probe_wdl("W:W28:B23:H0:F1") == rafle.Wdl.WIN
    assert rafle.normalize_fen('[FEN "W:W32,31:B1-3"]', "brazilian") == "W:W31,32:B1,2,3"


def test_unknown_variants_and_counters(tb):
    with pytest.raises(rafle.UnsupportedVariantError, match="russian"):
        tb.probe_wdl("W:W28:B23", variant="russian")
    with pytest.raises(ValueError):
        tb.probe_wdl("W:W28:B23", variant="")
    assert tb.probe_wdl("W:W29:B25,22", variant="brazil") == rafle.Wdl.LOSS
    assert tb.probe_wdl("W:W29:B25,22", variant=rafle.Variant.BRAZILIAN) == rafle.Wdl.LOSS
    with pytest.raises(ValueError, match="king_plies"):
        tb.probe_draw_rules("W:W28:B23", king_plies=-1)
    with pytest.raises(ValueError, match="category_plies"):
        tb.line("W:W28:B23", category_plies=rafle.MAX_COUNTER + 1)
    with pytest.raises(TypeError):
        tb.probe_draw_rules("W:W28:B23", king_plies="3")


def test_too_many_pieces(tb):
    fen = "W:W31,32,33,34,35:B1,2,3"
    with pytest.raises(rafle.TooManyPiecesError) as caught:
        tb.probe_wdl(fen)
    e = caught.value
    assert (e.pieces, e.max_pieces, e.variant) == (8, tb.max_pieces("international"), "international")
    assert "8 pieces" in str(e), str(e)
    again = pickle.loads(pickle.dumps(e))
    assert (type(again), again.pieces, str(again)) == (rafle.TooManyPiecesError, 8, str(e))


def test_missing_and_damaged_tables(tables, tmp_path):
    copy = tmp_path / "tables"
    shutil.copytree(tables / "brazilian", copy / "brazilian")
    (copy / "brazilian" / "KKvK.wdl").unlink()
    damaged = copy / "brazilian" / "KMvK.wdl"
    data = bytearray(damaged.read_bytes())
    for i in range(len(data) // 2, len(data)):
        data[i] ^= 0x5A
    damaged.write_bytes(bytes(data))
    with rafle.open_tablebase(copy) as tb:
        with pytest.raises(rafle.MissingTableError) as caught:
            tb.probe_wdl("W:WK1,K2:BK28", "brazilian")
        assert caught.value.path == str(copy / "brazilian" / "KKvK.wdl")
        assert caught.value.material == "KKvK"
        assert caught.value.path in str(caught.value)
        with pytest.raises(rafle.TableError) as caught:
            for fen in ["W:WK1,5:BK28", "B:WK1,5:BK28", "W:WK10,13:BK32", "B:WK32,9:BK1"]:
                tb.probe_wdl(fen, "brazilian")
        assert caught.value.path == str(damaged)
        assert tb.probe_wdl("W:WK1:BK28", "brazilian") == rafle.Wdl.DRAW
    with pytest.raises(rafle.TableError, match="nowhere"):
        rafle.open_tablebase(tmp_path / "nowhere")


def test_probe_after_close(tables):
    tb = rafle.open_tablebase(tables)
    with tb:
        assert tb.probe_wdl("W:W28:B23") == rafle.Wdl.WIN
    assert tb.closed
    tb.close()
    for probe in (tb.probe_wdl, tb.probe_dtw, tb.moves, tb.best_move, tb.line, tb.probe_draw_rules):
        with pytest.raises(rafle.TablebaseClosedError, match="closed"):
            probe("W:W28:B23")
    with pytest.raises(ValueError):
        tb.cache_bytes()


def test_bad_open_arguments(tables):
    with pytest.raises(ValueError, match="cache_bytes"):
        rafle.open_tablebase(tables, cache_bytes=-1)
