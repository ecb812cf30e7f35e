"""Type stubs of ``rafle._native``, the Rust half of the package (python/src). Use the
``rafle`` module instead: it names every field of these tuples."""

from os import PathLike
from pathlib import Path
from typing import Callable, List, Optional, Tuple, Union

DEFAULT_CACHE_BYTES: int
MAX_COUNTER: int
VERSION: str

# wdl (1, 0, -1), signed dtw or None, rule class (2..-2) or None, count or None, result or None.
ValuesTuple = Tuple[int, Optional[int], Optional[int], Optional[int], Optional[int]]
# text, from, to, path, captured, FEN after, resets, values for the mover, values after,
# counters after.
MoveTuple = Tuple[
    str, int, int, List[int], List[int], str, bool, ValuesTuple, ValuesTuple,
    Optional[Tuple[int, int]],
]
# class, count, result, rule ("6.2"), limit, (6.2, 6.3, 6.4 limits), (king, category plies).
RulesTuple = Tuple[int, Optional[int], int, str, int, Tuple[int, int, int], Tuple[int, int]]
# text, from, to, path, captured, FEN after, side to move after, (king, category) after,
# values for the side to move after.
PlyTuple = Tuple[str, int, int, List[int], List[int], str, str, Tuple[int, int], ValuesTuple]
# kind, winner, rule, limit, plies, text.
EndTuple = Tuple[str, Optional[str], Optional[str], Optional[int], Optional[int], str]
# event, material, positions, units done, units total.
EventTuple = Tuple[str, Optional[str], Optional[int], int, int]
# material, positions, wins, draws, losses, longest win, seconds, .wdl, .dtw, .rules bytes,
# reused.
SummaryTuple = Tuple[str, int, int, int, int, int, float, int, int, int, bool, bool]

class Tablebase:
    def __new__(
        cls, directory: Union[str, "PathLike[str]"], cache_bytes: Optional[int] = None
    ) -> "Tablebase": ...
    @property
    def directory(self) -> Path: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    def cache_budget(self) -> int: ...
    def cache_bytes(self) -> int: ...
    def max_pieces(self, variant_name: str) -> int: ...
    def probe_wdl(self, variant_name: str, fen: str) -> int: ...
    def probe_dtw(self, variant_name: str, fen: str) -> Optional[int]: ...
    def probe_draw_rules(
        self, variant_name: str, fen: str, king_plies: int, category_plies: int
    ) -> RulesTuple: ...
    def moves(
        self, variant_name: str, fen: str, counters: Optional[Tuple[int, int]] = None
    ) -> List[MoveTuple]: ...
    def best_move(self, variant_name: str, fen: str) -> Optional[MoveTuple]: ...
    def line(
        self, variant_name: str, fen: str, king_plies: int, category_plies: int
    ) -> Tuple[List[PlyTuple], EndTuple]: ...

def generate(
    directory: Union[str, "PathLike[str]"],
    variant_name: str,
    pieces: int,
    memory: Optional[int] = None,
    threads: Optional[int] = None,
    progress: Optional[Callable[[EventTuple], object]] = None,
    tables: str = "all",
    compact: bool = False,
) -> List[SummaryTuple]: ...
def parse_memory(text: str) -> int: ...
def normalize_fen(variant: str, fen: str) -> str: ...
def variant_name(name: str) -> str: ...
