"""py-draughts is optional; run from rafle's repository without it, `import draughts` finds the
Rust crate folder draughts/ (an empty namespace package to Python). After `import rafle`,
that module says what is missing instead of failing later with an unrelated AttributeError,
and a real py-draughts, or any other folder named draughts, is left as it is.

Each case runs a new interpreter without site-packages (`python -S`), so that the installed
py-draughts is out of reach, with the installed rafle package alone on PYTHONPATH and the
current directory holding a draughts/ folder, as a clone of the repository does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

import rafle

from conftest import ROOT

INSTALL = "pip install py-draughts"


def run(code: str, cwd: Path, tmp_path: Path, site: bool = False) -> subprocess.CompletedProcess:
    """`python -c code` in `cwd`: without site-packages and with only the installed rafle on
    the path, unless `site`."""
    packages = tmp_path / "packages"
    if not packages.exists():
        packages.mkdir()
        (packages / "rafle").symlink_to(Path(rafle.__file__).resolve().parent)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    args = [sys.executable, "-c", code]
    if not site:
        args.insert(1, "-S")
        env["PYTHONPATH"] = str(packages)
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def clone_like(tmp_path: Path, cargo_toml: Optional[Path]) -> Path:
    """A directory with a draughts/ folder (rafle's crate manifest in it unless None)."""
    root = tmp_path / "clone"
    (root / "draughts").mkdir(parents=True)
    if cargo_toml is not None:
        shutil.copy(cargo_toml, root / "draughts" / "Cargo.toml")
    return root


def test_without_py_draughts_the_crate_folder_says_what_to_install(tmp_path: Path):
    root = clone_like(tmp_path, ROOT / "draughts" / "Cargo.toml")
    folder = str((root / "draughts").resolve())
    code = """
import rafle, draughts
for attempt in ("draughts.BrazilianBoard", "__import__('draughts').StandardBoard"):
    try:
        eval(attempt)
    except ImportError as e:
        print("ImportError:", e)
try:
    from draughts import BrazilianBoard
except ImportError as e:
    print("from:", e)
# Tools that walk sys.modules ask for dunders with hasattr: those stay plain.
print("has __version__:", hasattr(draughts, "__version__"))
"""
    out = run(code, root, tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 4, out.stdout
    for line in lines[:3]:
        assert INSTALL in line, line
        assert f"found {folder}, the Rust crate folder" in line, line
    assert lines[3] == "has __version__: False"


def test_draughts_imported_before_rafle_says_it_too(tmp_path: Path):
    root = clone_like(tmp_path, ROOT / "draughts" / "Cargo.toml")
    out = run("import draughts, rafle\ndraughts.BrazilianBoard", root, tmp_path)
    assert out.returncode == 1
    assert out.stderr.rstrip().splitlines()[-1].startswith(
        "ImportError: py-draughts is not installed: `import draughts` found "
    ), out.stderr
    assert INSTALL in out.stderr


def test_another_folder_named_draughts_is_left_alone(tmp_path: Path):
    # Not a Rust crate: rafle has nothing to say about it, and Python's own error stands.
    root = clone_like(tmp_path, None)
    out = run("import rafle, draughts\ndraughts.BrazilianBoard", root, tmp_path)
    assert out.returncode == 1
    assert "AttributeError" in out.stderr and INSTALL not in out.stderr, out.stderr


def test_a_real_py_draughts_wins_over_the_crate_folder(tmp_path: Path):
    pytest.importorskip("draughts")
    root = clone_like(tmp_path, ROOT / "draughts" / "Cargo.toml")
    code = """
import rafle, draughts
board = draughts.BrazilianBoard.from_fen("B:W29:B25,22")
print(type(draughts).__name__, draughts.__file__ is not None, rafle.normalize_fen(board))
"""
    out = run(code, root, tmp_path, site=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["module", "True", "B:W29:B22,25"]
