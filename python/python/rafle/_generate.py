"""Building tables from Python: :func:`generate`, with progress."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Callable, List, Optional, TextIO, Union

from . import _native
from ._position import variant_name
from ._types import Variant

__all__ = ["generate", "GenerateProgress", "MaterialSummary", "StderrProgress"]


@dataclass(frozen=True)
class GenerateProgress:
    """One progress report of :func:`generate`.

    ``event`` is ``"started"`` (once, ``positions`` the whole plan's), ``"material_started"``
    and ``"material_finished"`` (``material`` like ``"KKvK"`` and its ``positions``), or
    ``"advance"`` (work done within the current material, at most five times a second).
    ``units_done`` out of ``units_total`` counts the work of the whole plan, three units a
    position (examined, solved, solved under the draw rules).
    """

    event: str
    variant: str
    material: Optional[str]
    positions: Optional[int]
    units_done: int
    units_total: int

    @property
    def fraction(self) -> float:
        """The part of the plan done, from 0.0 to 1.0."""
        return self.units_done / self.units_total if self.units_total else 1.0


@dataclass(frozen=True)
class MaterialSummary:
    """A material :func:`generate` built (or found built and valid, ``reused``): its
    positions, how many the side to move wins, draws and loses (both sides to move counted),
    the longest win in plies, the seconds it took, the bytes of its tables (0 for those not
    written) and whether they store one side to move (``compact``), as found on disk."""

    material: str
    positions: int
    wins: int
    draws: int
    losses: int
    longest_win: int
    seconds: float
    wdl_bytes: int
    dtw_bytes: int
    rules_bytes: int
    reused: bool
    compact: bool = False


class StderrProgress:
    """The default progress of :func:`generate`: a line per material finished on standard
    error (or the stream given), with the part of the plan done."""

    def __init__(self, stream: Optional[TextIO] = None) -> None:
        self.stream = stream

    def __call__(self, report: GenerateProgress) -> None:
        stream = self.stream if self.stream is not None else sys.stderr
        if report.event == "started":
            print(
                f"rafle: {report.variant}: generating {report.positions:,} positions",
                file=stream,
            )
        elif report.event == "material_finished":
            print(
                f"rafle: {report.variant} {report.material}: {report.positions:,} positions, "
                f"{report.fraction:.0%} done",
                file=stream,
            )


ProgressArg = Union[None, bool, Callable[[GenerateProgress], object]]


def generate(
    directory: Union[str, "os.PathLike[str]"],
    variant: Union[str, Variant],
    pieces: int,
    memory: Union[None, int, str] = None,
    threads: Optional[int] = None,
    progress: ProgressArg = None,
    tables: str = "all",
    compact: bool = False,
) -> List[MaterialSummary]:
    """Builds every table of ``variant`` up to ``pieces`` pieces into ``directory``
    (``<directory>/<variant>/``), as ``rafle generate --variant V --pieces N --data DIR``:
    win/draw/loss, distance to win and draw-rule tables under the FMJD limits. Tables already
    there and valid are checked and reused. Returns each material's summary, in the order
    built.

    ``tables="wdl"`` writes the win/draw/loss tables alone (``--tables wdl``); ``compact=True``
    writes tables that store one side to move, smaller and slower to probe where the other
    side is asked (``--compact``). Tables already valid in the other form are kept as they
    are: ``compact`` in each summary says which form is on disk.

    ``memory`` is the budget, in bytes or as ``"512M"``, ``"8G"`` (default: the memory
    available, less a tenth); a budget below what the largest material needs raises
    :class:`rafle.GenerateError` before anything is done. ``threads`` defaults to one per
    core. ``progress`` is a callable given a :class:`GenerateProgress` for each report
    (called from the generator's threads, one call at a time, with the GIL held); None
    prints a line per material on standard error (:class:`StderrProgress`), False prints
    nothing. An exception the callable raises, or Ctrl-C (``KeyboardInterrupt``), stops the
    generation at its next checkpoint (within seconds) and is raised: tables already written
    and the work of the material under way stay, and the next run resumes from them. The GIL
    is released while generating.

    >>> rafle.generate("tables", "brazilian", 3, progress=False)[0]   # doctest: +SKIP
    MaterialSummary(material='KvK', positions=992, ...)

    Sizes and times of the sets are in rafle's README: Brazilian up to 5 pieces and
    international up to 4 take about a minute on 2 cores.
    """
    name = variant_name(variant)
    # The ranges of pieces, memory and threads (and the messages out of them) are the
    # library's, as for every entry point: the native half checks them.
    if isinstance(memory, str):
        memory = _native.parse_memory(memory)
    if not isinstance(compact, bool):
        raise TypeError(f"compact must be a bool, not {type(compact).__name__}")
    if progress is None or progress is True:
        callback: Optional[Callable[[GenerateProgress], object]] = StderrProgress()
    elif progress is False:
        callback = None
    elif callable(progress):
        callback = progress
    else:
        raise TypeError("progress must be a callable, None, True or False")

    report = None
    if callback is not None:
        user = callback

        def report(event: tuple) -> None:  # type: ignore[type-arg]
            kind, material, positions, done, total = event
            user(GenerateProgress(kind, name, material, positions, done, total))

    summaries = _native.generate(
        os.fspath(directory), name, pieces, memory, threads, report, tables, compact
    )
    return [MaterialSummary(*s) for s in summaries]
