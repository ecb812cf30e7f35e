"""rafle: exact endgame tablebases for international (10x10) and Brazilian (8x8) draughts.

Probe the tables ``rafle generate`` writes, with the same functions as rafle's command line,
HTTP API and C library::

    import rafle

    with rafle.open_tablebase("data") as tb:
        tb.probe_wdl("B:W29:B25,22", variant="brazilian")      # Wdl.WIN
        tb.probe_dtw("B:W29:B25,22", variant="brazilian")      # 3: wins in 3 plies
        tb.probe_draw_rules("W:WK1,K2:BK28", "brazilian", category_plies=2).result
        [m.text for m in tb.moves("B:W29:B25,22", "brazilian")]  # best first
        tb.best_move(board)                                     # a py-draughts board
        tb.line("W:WK1,K2:BK28", "brazilian").end.text

Positions are PDN FENs or board objects with a ``.fen`` (py-draughts's ``StandardBoard`` and
``BrazilianBoard``, whose variant is taken from the board). Small sets can be built with
:func:`generate`. See docs/python.md in rafle's repository for the whole manual.
"""

from __future__ import annotations

from . import _native
from ._errors import (
    FenError,
    GenerateError,
    MissingTableError,
    RafleError,
    TableError,
    TablebaseClosedError,
    TooManyPiecesError,
    UnsupportedVariantError,
)
from ._generate import GenerateProgress, MaterialSummary, StderrProgress, generate
from ._position import Position
from ._py_draughts import guard_rust_crate_folder as _guard_rust_crate_folder
from ._tablebase import DEFAULT_CACHE_BYTES, Tablebase, open_tablebase
from ._types import (
    DrawRules,
    Limits,
    Line,
    LineEnd,
    Move,
    Ply,
    RuleClass,
    Values,
    Variant,
    Wdl,
)

# Run from rafle's repository without py-draughts, `import draughts` would silently find the
# Rust crate folder draughts/; make it say what to install instead.
_guard_rust_crate_folder()

__version__: str = _native.VERSION
"""The version of rafle this package was built from."""

MAX_COUNTER: int = _native.MAX_COUNTER
"""The largest draw-rule counter a probe takes, in plies."""


def normalize_fen(pos: Position, variant: "str | Variant | None" = None) -> str:
    """The FEN of ``pos`` as rafle writes it (pieces in order, ranges spelled out), which
    also checks it: raises :class:`FenError` for a FEN rafle cannot read.

    >>> rafle.normalize_fen("W:W32,31:B1-3:H0:F1")
    'W:W31,32:B1,2,3'
    """
    from ._position import resolve

    return _native.normalize_fen(*resolve(pos, variant))


__all__ = [
    "__version__",
    "DEFAULT_CACHE_BYTES",
    "MAX_COUNTER",
    "DrawRules",
    "FenError",
    "GenerateError",
    "GenerateProgress",
    "Limits",
    "Line",
    "LineEnd",
    "MaterialSummary",
    "MissingTableError",
    "Move",
    "Ply",
    "Position",
    "RafleError",
    "RuleClass",
    "StderrProgress",
    "TableError",
    "Tablebase",
    "TablebaseClosedError",
    "TooManyPiecesError",
    "UnsupportedVariantError",
    "Values",
    "Variant",
    "Wdl",
    "generate",
    "normalize_fen",
    "open_tablebase",
]
