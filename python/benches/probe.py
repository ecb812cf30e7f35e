"""What a probe costs from Python: warm probes (every block already in the cache) of random
positions the tables cover, as a script probing a database would make them.

    python python/benches/probe.py DATA [VARIANT] [MAX_PIECES]

Each function is run over the same 2,000 positions once to warm the cache, then seven
times; the median and the range of the seven per-call times are printed. The native calls
(the Rust extension without the Python layer) show what the Python layer adds.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Callable

import rafle

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from positions import random_fens  # noqa: E402 (after the path it is found on)



def main() -> None:
    data = sys.argv[1]
    variant = sys.argv[2] if len(sys.argv) > 2 else "brazilian"
    with rafle.open_tablebase(data) as tb:
        top = int(sys.argv[3]) if len(sys.argv) > 3 else tb.max_pieces(variant)
        fens = random_fens(1, variant, 2000, top)
        native = tb._native

        def run(name: str, probe: Callable[[str], object]) -> None:
            for fen in fens:
                probe(fen)
            rounds = []
            for _ in range(7):
                start = time.perf_counter()
                for fen in fens:
                    probe(fen)
                rounds.append((time.perf_counter() - start) / len(fens) * 1e6)
            print(f"{name:<28} median {statistics.median(rounds):7.2f} µs"
                  f"  (range {min(rounds):.2f}–{max(rounds):.2f})")

        print(f"{variant} up to {top} pieces, {len(fens)} random positions, warm")
        run("probe_wdl", lambda f: tb.probe_wdl(f, variant))
        run("probe_dtw", lambda f: tb.probe_dtw(f, variant))
        run("probe_draw_rules", lambda f: tb.probe_draw_rules(f, variant))
        run("moves (all, best first)", lambda f: tb.moves(f, variant))
        run("native probe_wdl", lambda f: native.probe_wdl(variant, f))
        run("native probe_dtw", lambda f: native.probe_dtw(variant, f))


if __name__ == "__main__":
    main()
