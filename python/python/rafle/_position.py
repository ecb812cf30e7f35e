"""Positions as rafle's functions take them: a PDN FEN string, or a board object with a
``.fen`` attribute (py-draughts boards and the like), with the variant they are of."""

from __future__ import annotations

import re
from typing import Any, Optional, Tuple, Union

from . import _native
from ._errors import UnsupportedVariantError
from ._types import Variant

__all__ = ["Position", "resolve", "variant_name"]

Position = Union[str, Any]
"""A PDN FEN (``"W:W31,32:B1,2"``, ranges ``31-35``, ``K`` before a king, lidraughts'
``:H0:F1`` suffixes ignored; also inside a PDN tag ``[FEN "..."]``), or an object with a
``.fen`` attribute giving one (py-draughts's boards give the tag)."""

# py-draughts boards rafle has tables for: the exact class, never a subclass (antidraughts
# and breakthrough subclass the standard board, and their rules differ).
_PY_DRAUGHTS = {
    ("draughts.boards.standard", "Board"): Variant.INTERNATIONAL,
    ("draughts.boards.brazilian", "Board"): Variant.BRAZILIAN,
}

_WRAPPED = re.compile(r'^\s*\[\s*FEN\s+"(.*)"\s*\]\s*$', re.DOTALL)


def _unwrap(fen: str) -> str:
    """The FEN inside a PDN tag ``[FEN "..."]``, or the text as it is."""
    # A bare FEN never holds '[': most calls skip the pattern.
    if "[" not in fen:
        return fen
    match = _WRAPPED.match(fen)
    return match.group(1) if match else fen


def _board_variant(board: Any) -> Optional[Variant]:
    """The variant of a py-draughts board, None for any other object; a py-draughts board of a
    game without rafle tables raises."""
    cls = type(board)
    module = getattr(cls, "__module__", "") or ""
    name = getattr(cls, "__qualname__", cls.__name__)
    if module != "draughts" and not module.startswith("draughts."):
        return None
    variant = _PY_DRAUGHTS.get((module, name))
    if variant is None:
        game = getattr(board, "VARIANT_NAME", None) or getattr(board, "GAME_TYPE", None)
        shown = f"{module}.{name}" + (f" ({game})" if game is not None else "")
        raise UnsupportedVariantError(
            f"rafle has no tables for the py-draughts board {shown}: only "
            "draughts.StandardBoard (international) and draughts.BrazilianBoard (brazilian)"
        )
    return variant


def variant_name(variant: Union[str, Variant]) -> str:
    """rafle's name of a variant given by name, alias or :class:`Variant`."""
    if isinstance(variant, Variant):
        return variant.value
    if not isinstance(variant, str):
        raise TypeError(f"variant must be a str or rafle.Variant, not {type(variant).__name__}")
    known = _NAMES.get(variant)
    if known is None:
        known = _native.variant_name(variant)
        if len(_NAMES) < 64:
            _NAMES[variant] = known
    return known


# Names already read, so that a probe in a loop does not read its variant's name again (a
# handful of spellings at most; bounded all the same).
_NAMES: "dict[str, str]" = {}


def resolve(pos: Position, variant: Optional[Union[str, Variant]]) -> Tuple[str, str]:
    """The variant name and the FEN of ``pos``: the variant given, else the board's, else
    international. A variant given that contradicts a py-draughts board's raises
    :class:`UnsupportedVariantError`."""
    board_variant: Optional[Variant] = None
    if isinstance(pos, str):
        fen = _unwrap(pos)
    else:
        fen_attribute = getattr(pos, "fen", None)
        if fen_attribute is None:
            raise TypeError(
                "a position is a FEN string or an object with a .fen attribute, not "
                f"{type(pos).__name__}"
            )
        # A method (as some libraries have) or a property.
        if callable(fen_attribute):
            fen_attribute = fen_attribute()
        if not isinstance(fen_attribute, str):
            raise TypeError(f".fen of {type(pos).__name__} is not a string")
        fen = _unwrap(fen_attribute)
        board_variant = _board_variant(pos)
    if variant is None:
        return (board_variant or Variant.INTERNATIONAL).value, fen
    name = variant_name(variant)
    if board_variant is not None and name != board_variant.value:
        raise UnsupportedVariantError(
            f"variant={name!r} contradicts the board, a {type(pos).__module__}."
            f"{type(pos).__qualname__} of {board_variant.value} draughts"
        )
    return name, fen
