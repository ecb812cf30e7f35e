"""The Python examples of the manual are run: every ```python (or ```pycon) block of
docs/python.md, python/README.md and README.md is a doctest session (`>>> ` and `... `
prompts, then the output), and each page's blocks run in order as one session, in a new
directory whose `data` holds the tables of conftest's `tables` (Brazilian up to 4 pieces,
international up to 3). What the examples generate (`rafle.generate("tables", ...)`) goes
into that directory too.

Outputs are compared with ELLIPSIS (`...` matches any text: use it for what differs between
runs, such as seconds, never to hide a value an example is about) and NORMALIZE_WHITESPACE
(a long repr may be wrapped where it has a space). A Python block without `>>> ` would be an
example no test runs, and fails the test."""

from __future__ import annotations

import doctest
import io
import shutil
from pathlib import Path
from typing import List, Tuple

import pytest

from conftest import ROOT

PYTHON_BLOCKS = {"python", "py", "python3", "pycon"}
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# The pages whose examples must run; README.md's only once it has a session.
PAGES = {"docs/python.md": True, "python/README.md": True, "README.md": False}


def python_blocks(text: str) -> Tuple[str, List[int]]:
    """The page with everything but its Python blocks' lines blanked (so that doctest's line
    numbers are the page's), and the opening line (from 1) of each block without a session."""
    lines = text.splitlines()
    kept = [""] * len(lines)
    untested: List[int] = []
    open_at = None
    session = False
    for number, line in enumerate(lines, 1):
        fence = line.strip()
        if open_at is None:
            if fence.startswith("```") and fence[3:].strip().lower() in PYTHON_BLOCKS:
                open_at, session = number, False
            continue
        if fence == "```":
            if not session:
                untested.append(open_at)
            open_at = None
            continue
        kept[number - 1] = line
        session = session or line.lstrip().startswith(">>>")
    assert open_at is None, f"the Python block at line {open_at} is not closed"
    return "\n".join(kept) + "\n", untested


def test_python_blocks_are_found():
    """The block reader itself: a session, a block without one, another language."""
    text = "\n".join([
        "Intro",                  # 1
        "```python",              # 2
        ">>> 1 + 1",              # 3
        "2",                      # 4
        "```",                    # 5
        "```sh",                  # 6
        ">>> not python",         # 7
        "```",                    # 8
        "```pycon",               # 9
        "x = 1",                  # 10
        "```",                    # 11
    ])
    kept, untested = python_blocks(text)
    assert kept.splitlines()[2:4] == [">>> 1 + 1", "2"]
    assert ">>> not python" not in kept
    assert untested == [9]
    test = doctest.DocTestParser().get_doctest(kept, {}, "t", "t", 0)
    assert [(e.source, e.want, e.lineno) for e in test.examples] == [("1 + 1\n", "2\n", 2)]


@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_python_examples_of_the_page_run(page: str, tables: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch):
    path = ROOT / page
    kept, untested = python_blocks(path.read_text(encoding="utf-8"))
    assert not untested, (
        f"{page}: the Python blocks at lines {untested} have no `>>> ` session: no test runs them"
    )
    test = doctest.DocTestParser().get_doctest(kept, {"__name__": "__main__"}, page, str(path), 0)
    if not test.examples and not PAGES[page]:
        pytest.skip(f"{page} has no Python session")

    shutil.copytree(tables, tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    report = io.StringIO()
    runner = doctest.DocTestRunner(verbose=False, optionflags=OPTIONS)
    result = runner.run(test, out=report.write)
    assert result.attempted > 0, f"{page}: no example found"
    assert result.failed == 0, (
        f"{page}: {result.failed} of {result.attempted} examples fail:\n{report.getvalue()}"
    )
