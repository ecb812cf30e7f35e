"""Random positions the tables cover, shared by the tests and the benchmark (no pytest here)."""

from __future__ import annotations

import random
from typing import List

SQUARES = {"brazilian": 32, "international": 50}
ROW = {"brazilian": 4, "international": 5}


def random_fen(rng: random.Random, variant: str, pieces: int) -> str:
    """A random position of `pieces` pieces (each side at least one), men off their
    promotion row, either side to move."""
    squares = SQUARES[variant]
    row = ROW[variant]
    white = rng.randint(1, pieces - 1)
    free = list(range(1, squares + 1))
    rng.shuffle(free)
    sides: List[List[str]] = [[], []]
    for n in range(pieces):
        side = 0 if n < white else 1
        king = rng.random() < 0.4
        for i, sq in enumerate(free):
            # White men promote on squares 1..row, black men on the last row.
            promotes = sq <= row if side == 0 else sq > squares - row
            if king or not promotes:
                free.pop(i)
                sides[side].append(("K" if king else "") + str(sq))
                break
    turn = rng.choice("WB")
    return f"{turn}:W{','.join(sides[0])}:B{','.join(sides[1])}"


def random_fens(seed: int, variant: str, count: int, max_pieces: int) -> List[str]:
    """`count` random positions of every size from 2 pieces up to `max_pieces`."""
    rng = random.Random(seed)
    return [random_fen(rng, variant, rng.randint(2, max_pieces)) for _ in range(count)]
