"""rafle against py-draughts, an independent implementation of both games (installed from
PyPI): random games played with py-draughts into positions the tables cover, where rafle's
legal moves must be py-draughts's, every best move legal there, and the games rafle plays
must end as rafle says, in py-draughts's rules."""

from __future__ import annotations

import random
from typing import Dict, FrozenSet, List, Tuple

# py-draughts is a requirement of these tests (scripts/python-test.sh installs it): missing,
# the test fails rather than being skipped.
import draughts
import pytest

import rafle
from conftest import PIECES
from positions import random_fen

BOARDS = {"brazilian": "BrazilianBoard", "international": "StandardBoard"}
GAMES = 25

Key = Tuple[int, int, FrozenSet[int]]


def board_of(variant: str, fen: str):
    return getattr(draughts, BOARDS[variant]).from_fen(fen)


def their_moves(board) -> Dict[Key, object]:
    """py-draughts's legal moves by start, end and captured squares (1-based, as rafle)."""
    moves = {}
    for m in board.legal_moves:
        path = [sq + 1 for sq in m.square_list]
        key = (path[0], path[-1], frozenset(sq + 1 for sq in m.captured_list))
        moves[key] = m
    return moves


def key(m) -> Key:
    return (m.from_square, m.to_square, frozenset(m.captured))


def push(board, move) -> None:
    """Plays rafle's `move` on the py-draughts board: it must be legal there, by the same
    path of squares."""
    found = their_moves(board).get(key(move))
    assert found is not None, f"{move.text} is not legal in py-draughts at {board.fen}"
    assert [sq + 1 for sq in found.square_list] == list(move.path), (move.text, board.fen)
    board.push(found)


def positions(variant: str, seed: int) -> List[object]:
    """Boards met in random py-draughts games started with two pieces more than the tables
    hold, from the first with few enough pieces on, while the game goes on."""
    rng = random.Random(seed)
    top = PIECES[variant]
    met = []
    for _ in range(GAMES):
        board = board_of(variant, random_fen(rng, variant, top + 2))
        for _ in range(60):
            legal = list(board.legal_moves)
            pieces = sum(bin(int(x)).count("1") for x in (
                board.white_men, board.white_kings, board.black_men, board.black_kings))
            if pieces <= top:
                met.append(board.copy())
            if not legal:
                break
            board.push(rng.choice(legal))
    return met


@pytest.mark.parametrize("variant", ["brazilian", "international"])
def test_games_of_py_draughts(tb, variant):
    boards = positions(variant, seed=7 + len(variant))
    assert len(boards) > 100, len(boards)
    decided = 0
    for board in boards:
        moves = tb.moves(board)  # the variant is the board's
        theirs = their_moves(board)
        assert {key(m) for m in moves} == set(theirs), board.fen
        for m in moves:
            assert [sq + 1 for sq in theirs[key(m)].square_list] == list(m.path), (m.text, board.fen)

        dtw = tb.probe_dtw(board)
        best = tb.best_move(board)
        if not moves:
            assert best is None and dtw == 0, board.fen
            continue
        # The quickest win (or longest loss) by best_move, played out in py-draughts: it
        # ends, the loser without a move, after exactly the distance rafle gave.
        if dtw is not None:
            decided += 1
            game = board.copy()
            for ply in range(abs(dtw)):
                assert list(game.legal_moves), (board.fen, ply)
                push(game, tb.best_move(game))
            assert not list(game.legal_moves), (board.fen, dtw)
            # The side to move at the end lost: it is the starting side iff dtw < 0.
            assert (game.turn == board.turn) == (dtw < 0), board.fen

        # The line, under the draw rules from fresh counters, in py-draughts.
        rules = tb.probe_draw_rules(board)
        line = tb.line(board)
        game = board.copy()
        for ply in line.plies:
            assert list(game.legal_moves), board.fen
            push(game, ply)
            assert rafle.normalize_fen(game) == ply.fen
        over = not list(game.legal_moves)
        if rules.result == rafle.Wdl.DRAW:
            assert line.end.kind == "draw_rule" and not over, board.fen
        else:
            assert line.end.kind in ("no_piece_left", "no_move") and over, board.fen
            winner = "white" if (rules.result == rafle.Wdl.WIN) == (board.turn == draughts.Color.WHITE) else "black"
            assert line.end.winner == winner, board.fen
    assert decided > 10


def test_other_games_of_py_draughts_are_refused(tb):
    for name in ["RussianBoard", "AmericanBoard", "FrisianBoard", "FryskBoard",
                 "AntidraughtsBoard", "BreakthroughBoard"]:
        board = getattr(draughts, name)()
        with pytest.raises(rafle.UnsupportedVariantError, match="no tables"):
            tb.probe_wdl(board)
    board = draughts.BrazilianBoard.from_fen("W:W29:B25,22")
    with pytest.raises(rafle.UnsupportedVariantError, match="contradicts"):
        tb.probe_wdl(board, variant="international")
    assert tb.probe_wdl(board, variant="brazilian") == rafle.Wdl.LOSS
    assert tb.probe_dtw(draughts.StandardBoard.from_fen("W:W28:B23")) == 1
