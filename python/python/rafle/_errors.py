"""The exceptions rafle raises.

Every one derives from :class:`RafleError`. Those about what the caller gave (a FEN, a variant
name) are also :class:`ValueError`, so code written for any Python library keeps working.
"""

from __future__ import annotations

from os import PathLike
from typing import Optional, Union

__all__ = [
    "RafleError",
    "FenError",
    "UnsupportedVariantError",
    "TooManyPiecesError",
    "MissingTableError",
    "TableError",
    "TablebaseClosedError",
    "GenerateError",
]


class RafleError(Exception):
    """The base of every rafle exception; ``str(e)`` is rafle's message."""

    def __init__(self, message: str, *details: object) -> None:
        # Every argument is kept in ``args``, so that the exception pickles and copies whole.
        super().__init__(message, *details)
        self.message = message

    def __str__(self) -> str:
        return self.message


class FenError(RafleError, ValueError):
    """A FEN rafle cannot read; ``column`` is the 1-based place of the problem."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message, column)
        self.column = column


class UnsupportedVariantError(RafleError, ValueError):
    """A variant rafle has no tables for: an unknown name, or a py-draughts board of another
    game (Russian, American, Frisian, antidraughts...)."""


class TooManyPiecesError(RafleError):
    """The position has more pieces than the tables of its variant cover.

    ``pieces`` is the number on the board, ``max_pieces`` the most the tables cover (0 when
    the directory has no table of the variant).
    """

    def __init__(self, message: str, variant: str, pieces: int, max_pieces: int) -> None:
        super().__init__(message, variant, pieces, max_pieces)
        self.variant = variant
        self.pieces = pieces
        self.max_pieces = max_pieces


class MissingTableError(RafleError):
    """A table a probe needs is not in the directory.

    ``path`` is where it was looked for (for missing rule tables, the variant's directory),
    ``material`` its material (like ``"KKvK"``), or None for the rule tables as a whole.
    """

    def __init__(
        self,
        message: str,
        path: Union[str, "PathLike[str]"],
        variant: str,
        material: Optional[str],
    ) -> None:
        super().__init__(message, path, variant, material)
        self.path = str(path)
        self.variant = variant
        self.material = material


class TableError(RafleError):
    """A table or the directory cannot be read: damaged or truncated bytes, an older format,
    a file in another table's place, rule tables of different limits, an I/O error.

    ``path`` is the file or directory at fault, when there is one.
    """

    def __init__(self, message: str, path: Optional[Union[str, "PathLike[str]"]] = None) -> None:
        super().__init__(message, path)
        self.path = None if path is None else str(path)


class TablebaseClosedError(RafleError, ValueError):
    """A probe of a :class:`rafle.Tablebase` after ``close()`` (or after its ``with`` block)."""


class GenerateError(RafleError):
    """A generation that could not be done or stopped: not enough memory, a file that cannot
    be written, another run writing the same directory... ``path`` is the file at fault, when
    there is one."""

    def __init__(self, message: str, path: Optional[Union[str, "PathLike[str]"]] = None) -> None:
        super().__init__(message, path)
        self.path = None if path is None else str(path)
