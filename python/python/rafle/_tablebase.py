"""Probing a table directory: :func:`open_tablebase` and :class:`Tablebase`."""

from __future__ import annotations

import os
from types import TracebackType
from typing import List, Optional, Type, Union

from . import _native
from ._position import Position, resolve, variant_name
from ._types import DrawRules, Line, Move, Variant, Wdl

__all__ = ["Tablebase", "open_tablebase", "DEFAULT_CACHE_BYTES"]

# Wdl by its code plus one: an enum's lookup by value costs more than the probe's Python call.
_WDL = (Wdl.LOSS, Wdl.DRAW, Wdl.WIN)

DEFAULT_CACHE_BYTES: int = _native.DEFAULT_CACHE_BYTES
"""The cache of decompressed blocks when ``cache_bytes`` is not given: 256 MiB."""

VariantLike = Optional[Union[str, Variant]]


def _counter(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    return value


class Tablebase:
    """The tables of a directory (``<dir>/<variant>/<material>.wdl``, ``.dtw``, ``.rules``),
    as ``rafle generate`` writes them.

    Open it with :func:`open_tablebase`, best in a ``with`` block. Files are listed at
    opening and each table is mapped when a probe first needs it. One object serves any
    number of threads at once; probes release the GIL.

    >>> with rafle.open_tablebase("data") as tb:                     # doctest: +SKIP
    ...     tb.probe_wdl("B:W29:B25,22", variant="brazilian")
    <Wdl.WIN: 1>
    """

    def __init__(
        self, directory: Union[str, "os.PathLike[str]"], cache_bytes: Optional[int] = None
    ) -> None:
        # The range (and the message out of it) is the library's, as for every entry point.
        self._native = _native.Tablebase(os.fspath(directory), cache_bytes)

    def __enter__(self) -> "Tablebase":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = " closed" if self.closed else ""
        return f"<rafle.Tablebase {str(self.directory)!r}{state}>"

    @property
    def directory(self) -> str:
        """The directory the tables were opened from."""
        return str(self._native.directory)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._native.closed

    def close(self) -> None:
        """Releases the tables and their cache; probes running in other threads finish first.
        Any later probe raises :class:`rafle.TablebaseClosedError`. Closing twice is fine."""
        self._native.close()

    def cache_budget(self) -> int:
        """The most bytes of decompressed blocks the cache may hold (``cache_bytes``)."""
        return self._native.cache_budget()

    def cache_bytes(self) -> int:
        """The bytes of decompressed blocks the cache holds now."""
        return self._native.cache_bytes()

    def max_pieces(self, variant: Union[str, Variant]) -> int:
        """The most pieces a position of ``variant`` may have for every probe to answer it
        (0 when the directory has no table of it)."""
        return self._native.max_pieces(variant_name(variant))

    def probe_wdl(self, pos: Position, variant: VariantLike = None) -> Wdl:
        """Win, draw or loss for the side to move, the draw rules ignored.

        >>> tb.probe_wdl("W:WK1,K2:BK28", "brazilian")                   # doctest: +SKIP
        <Wdl.WIN: 1>
        """
        return _WDL[self._native.probe_wdl(*resolve(pos, variant)) + 1]

    def probe_dtw(self, pos: Position, variant: VariantLike = None) -> Optional[int]:
        """The distance to win in plies for the side to move, the draw rules ignored: ``+n``
        wins in n plies (odd), ``-n`` loses in n plies (even), ``0`` has lost already (no
        piece or no move), None is a draw. Its sign always agrees with :meth:`probe_wdl`
        (``0`` is a loss).

        >>> tb.probe_dtw("B:W29:B25,22", "brazilian")                     # doctest: +SKIP
        3
        """
        return self._native.probe_dtw(*resolve(pos, variant))

    def probe_draw_rules(
        self,
        pos: Position,
        variant: VariantLike = None,
        king_plies: int = 0,
        category_plies: int = 0,
    ) -> DrawRules:
        """The value under the draw rules 6.2-6.4: the class and count with fresh counters,
        and the result with the live counters given (``king_plies``: plies of king moves
        without capture, rule 6.2; ``category_plies``: plies in the endgame category, rules
        6.3/6.4; each from 0 to 10000). Needs the rule tables.

        >>> tb.probe_draw_rules("W:WK1,K2:BK28", "brazilian", category_plies=2)  # doctest: +SKIP
        DrawRules(rule_class=<RuleClass.WIN: 2>, count=7, result=<Wdl.WIN: 1>, rule='6.4', ...)
        """
        name, fen = resolve(pos, variant)
        return DrawRules._from_native(
            self._native.probe_draw_rules(
                name,
                fen,
                _counter(king_plies, "king_plies"),
                _counter(category_plies, "category_plies"),
            )
        )

    def moves(
        self,
        pos: Position,
        variant: VariantLike = None,
        king_plies: Optional[int] = None,
        category_plies: Optional[int] = None,
    ) -> List[Move]:
        """Every legal move with its values, best first, as ``rafle serve``'s explorer lists
        them: the winning moves quickest first (by distance, then rule count), then the
        moves that the rules still save, the draws, and the losing moves, longest first.
        With counters (either given; the other is then 0), the result under the rules with
        them comes first. A finished game has no moves.

        >>> [str(m) for m in tb.moves("B:W29:B25,22", "brazilian")]       # doctest: +SKIP
        ['25-30', '22-26']
        """
        name, fen = resolve(pos, variant)
        counters = None
        if king_plies is not None or category_plies is not None:
            counters = (
                _counter(king_plies or 0, "king_plies"),
                _counter(category_plies or 0, "category_plies"),
            )
        return [Move._from_native(m) for m in self._native.moves(name, fen, counters)]

    def best_move(self, pos: Position, variant: VariantLike = None) -> Optional[Move]:
        """The move to play by distance to win, the draw rules ignored: the quickest win,
        else a drawing move, else the longest loss (ties: the first in the order of
        ``rafle moves``). None when the game is over. Its ``dtw`` equals
        :meth:`probe_dtw`'s. For play under the draw rules with live counters, take the
        first ply of :meth:`line` or the first of :meth:`moves` with counters.

        >>> tb.best_move("B:W29:B25,22", "brazilian").text                # doctest: +SKIP
        '25-30'
        """
        found = self._native.best_move(*resolve(pos, variant))
        return None if found is None else Move._from_native(found)

    def line(
        self,
        pos: Position,
        variant: VariantLike = None,
        king_plies: int = 0,
        category_plies: int = 0,
    ) -> Line:
        """The game played to its end with best play under the draw rules, from the live
        counters given: the winner hurries (smallest distance, then count), the loser holds
        out, a drawn side keeps the draw. As ``rafle probe --line``. Needs the rule tables.

        >>> line = tb.line("W:WK1,K2:BK28", "brazilian", category_plies=2)  # doctest: +SKIP
        >>> line.moves[0], len(line.plies), line.end.text                   # doctest: +SKIP
        ('2-9', 7, 'White wins: Black has no piece left')
        """
        name, fen = resolve(pos, variant)
        return Line._from_native(
            self._native.line(
                name,
                fen,
                _counter(king_plies, "king_plies"),
                _counter(category_plies, "category_plies"),
            )
        )


def open_tablebase(
    directory: Union[str, "os.PathLike[str]"], cache_bytes: Optional[int] = None
) -> Tablebase:
    """Opens the tables of ``directory``; ``cache_bytes`` bounds the decompressed blocks kept
    in memory (default :data:`DEFAULT_CACHE_BYTES`, 256 MiB). Raises :class:`rafle.TableError`
    if the directory cannot be read.

    >>> with rafle.open_tablebase("data", cache_bytes=64 << 20) as tb:  # doctest: +SKIP
    ...     print(tb.probe_wdl("W:WK1,K2,K3:BK32", "brazilian"))
    Wdl.WIN
    """
    return Tablebase(directory, cache_bytes)
