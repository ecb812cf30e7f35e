"""The values rafle gives, as enums and frozen dataclasses (docs/rules.md, section 5)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple, Optional, Tuple

__all__ = [
    "Variant",
    "Wdl",
    "RuleClass",
    "Limits",
    "Values",
    "DrawRules",
    "Move",
    "Ply",
    "LineEnd",
    "Line",
]


class Variant(str, enum.Enum):
    """The two games rafle has tables for. Wherever a variant is taken, its name as a string
    (``"international"``, ``"brazilian"``, or an alias like ``"brazil"``) does as well."""

    INTERNATIONAL = "international"
    """International draughts: 10x10 board, squares 1-50."""
    BRAZILIAN = "brazilian"
    """Brazilian draughts: 8x8 board, squares 1-32, the international rules."""

    def __str__(self) -> str:
        return self.value


class Wdl(enum.IntEnum):
    """Win, draw or loss for the side to move, with perfect play and the draw rules 6.2-6.4
    ignored (a repetition is still a draw). ``str()`` gives rafle's name: ``"win"``,
    ``"draw"``, ``"loss"``; ``-wdl`` is the value for the other side."""

    LOSS = -1
    DRAW = 0
    WIN = 1

    def __str__(self) -> str:
        return self.name.lower()

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __neg__(self) -> "Wdl":  # type: ignore[override]
        return Wdl(-int(self))


class RuleClass(enum.IntEnum):
    """A position's value when the draw rules 6.2-6.4 are applied with fresh counters.

    ``CURSED_WIN`` is won without the rules and drawn by them; ``BLESSED_LOSS`` is the other
    side of it. Larger is better for the side to move. ``str()`` gives the name
    ``rafle probe --json`` uses (``"cursed_win"``).
    """

    LOSS = -2
    BLESSED_LOSS = -1
    DRAW = 0
    CURSED_WIN = 1
    WIN = 2

    def __str__(self) -> str:
        """rafle's name, as in ``rafle probe --json``: ``"cursed_win"``, ``"win"``..."""
        return self.name.lower()

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    @property
    def wdl(self) -> Wdl:
        """The result without the rules: a cursed win is a win, a blessed loss a loss."""
        return Wdl((self > 0) - (self < 0))


class Limits(NamedTuple):
    """The draw-rule limits in plies the rule tables were computed with (FMJD: 50, 32 or 40
    for Brazilian, 10)."""

    rule_6_2: int
    rule_6_3: int
    rule_6_4: int


def _code(enum_type, code):  # type: ignore[no-untyped-def]
    return None if code is None else enum_type(code)


@dataclass(frozen=True)
class Values:
    """What the tables say of a position for the side to move there.

    ``dtw`` is the distance to win in plies, signed: ``+n`` wins in n plies (always odd),
    ``-n`` loses in n plies (even); ``0`` means the side to move has lost already (no piece or
    no move left); None is a draw. ``rule_class`` and ``count`` are the value under the draw
    rules with fresh counters (``count`` only for ``WIN`` and ``LOSS``); both are None without
    rule tables. ``result`` is the result under the rules with the counters asked, None when
    none were.
    """

    wdl: Wdl
    dtw: Optional[int]
    rule_class: Optional[RuleClass]
    count: Optional[int]
    result: Optional[Wdl]

    @classmethod
    def _from_native(cls, t: tuple) -> "Values":  # type: ignore[type-arg]
        wdl, dtw, rule_class, count, result = t
        return cls(Wdl(wdl), dtw, _code(RuleClass, rule_class), count, _code(Wdl, result))


@dataclass(frozen=True)
class DrawRules:
    """The value of a position under the draw rules 6.2-6.4 (docs/rules.md, section 5.3).

    ``rule_class`` and ``count`` hold with fresh counters: the side to move wins if the class
    is ``WIN`` and ``count <= limit - used``, where ``used`` is the live counter of ``rule``
    (``king_plies`` for 6.2, ``category_plies`` for 6.3 and 6.4). ``result`` is that worked
    out for the counters given.
    """

    rule_class: RuleClass
    count: Optional[int]
    result: Wdl
    rule: str
    """The rule whose counter is live in the position: ``"6.2"``, ``"6.3"`` or ``"6.4"``."""
    limit: int
    """That rule's limit in plies."""
    limits: Limits
    king_plies: int
    category_plies: int

    @classmethod
    def _from_native(cls, t: tuple) -> "DrawRules":  # type: ignore[type-arg]
        rule_class, count, result, rule, limit, limits, (king, category) = t
        return cls(
            RuleClass(rule_class), count, Wdl(result), rule, limit, Limits(*limits), king, category
        )


@dataclass(frozen=True)
class Move:
    """A legal move with its values.

    ``text`` is the move as rafle writes it among the position's legal moves (``32-28``,
    ``28x19``; the full path ``28x19x10`` only when two captures share start and end).
    ``path`` is every square the piece stands on, start, landings and end; ``captured`` the
    squares of the pieces taken, in increasing order; ``fen`` the position after the move.

    ``wdl``, ``dtw``, ``rule_class``, ``count`` and ``result`` are what the move is worth to
    the side **playing** it (a winning move shows ``Wdl.WIN``, its ``dtw`` counted from before
    the move; its rule value counted from before the move too). ``after`` holds the values of
    the position reached for the side to move **there**, as the tables store them and as
    ``rafle probe --json`` prints a move's. ``counters_after`` is ``(king_plies,
    category_plies)`` after the move when counters were given.
    """

    text: str
    from_square: int
    to_square: int
    path: Tuple[int, ...]
    captured: Tuple[int, ...]
    fen: str
    resets: bool
    """Whether the move resets the draw-rule counter (a man move or a capture)."""
    wdl: Wdl
    dtw: Optional[int]
    rule_class: Optional[RuleClass]
    count: Optional[int]
    result: Optional[Wdl]
    after: Values
    counters_after: Optional[Tuple[int, int]]

    def __str__(self) -> str:
        return self.text

    @property
    def is_capture(self) -> bool:
        """Whether the move takes pieces."""
        return bool(self.captured)

    @classmethod
    def _from_native(cls, t: tuple) -> "Move":  # type: ignore[type-arg]
        text, src, dst, path, captured, fen, resets, mover, after, counters = t
        wdl, dtw, rule_class, count, result = mover
        return cls(
            text,
            src,
            dst,
            tuple(path),
            tuple(captured),
            fen,
            resets,
            Wdl(wdl),
            dtw,
            _code(RuleClass, rule_class),
            count,
            _code(Wdl, result),
            Values._from_native(after),
            None if counters is None else (counters[0], counters[1]),
        )


@dataclass(frozen=True)
class Ply:
    """One ply of a :class:`Line`: the move (as in :class:`Move`), the position after it, who
    is to move there, the counters after it and the values for the side to move there
    (``after.result`` is the result under the rules with those counters)."""

    text: str
    from_square: int
    to_square: int
    path: Tuple[int, ...]
    captured: Tuple[int, ...]
    fen: str
    turn: str
    """``"white"`` or ``"black"``: the side to move after the ply."""
    king_plies: int
    category_plies: int
    after: Values

    def __str__(self) -> str:
        return self.text

    @classmethod
    def _from_native(cls, t: tuple) -> "Ply":  # type: ignore[type-arg]
        text, src, dst, path, captured, fen, turn, (king, category), after = t
        return cls(
            text,
            src,
            dst,
            tuple(path),
            tuple(captured),
            fen,
            turn,
            king,
            category,
            Values._from_native(after),
        )


@dataclass(frozen=True)
class LineEnd:
    """How a :class:`Line` ends.

    ``kind`` is ``"no_piece_left"`` or ``"no_move"`` (``winner`` won: the loser has no piece
    or no move), ``"draw_rule"`` (the live counter of ``rule`` reached its ``limit``) or
    ``"stopped"`` (``plies`` played without an end, which best play never reaches). ``text``
    is the sentence ``rafle probe --line`` prints.
    """

    kind: str
    winner: Optional[str]
    rule: Optional[str]
    limit: Optional[int]
    plies: Optional[int]
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Line:
    """A game played to its end with best play under the draw rules."""

    plies: Tuple[Ply, ...]
    end: LineEnd

    @property
    def moves(self) -> Tuple[str, ...]:
        """The moves' texts, in order."""
        return tuple(p.text for p in self.plies)

    @classmethod
    def _from_native(cls, t: tuple) -> "Line":  # type: ignore[type-arg]
        plies, end = t
        return cls(tuple(Ply._from_native(p) for p in plies), LineEnd(*end))
