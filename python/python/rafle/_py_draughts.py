"""py-draughts as rafle's examples import it, ``import draughts``, made to fail clearly.

py-draughts is optional: rafle takes FENs without it. Without it, ``import draughts`` run
from a clone of rafle's repository finds the Rust crate folder ``draughts/`` (a directory
without ``__init__.py``, which Python takes for an empty namespace package) and only fails at
the first attribute, with an ``AttributeError`` that names neither py-draughts nor the
folder. Importing rafle turns that empty module into one whose every attribute raises an
``ImportError`` saying what to install. A real py-draughts is a regular package, which Python
always prefers to a namespace folder, so it is never touched."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Iterable, Optional

__all__ = ["missing_message", "guard_rust_crate_folder"]

INSTALL = "pip install py-draughts"


def missing_message(folder: str) -> str:
    """What an attribute of the stand-in ``draughts`` raises: the cause and the fix."""
    return (
        f"py-draughts is not installed: `import draughts` found {folder}, the Rust crate "
        f"folder of the same name, not the Python package; install it with `{INSTALL}` "
        "(or `pip install 'rafle[draughts]'`), or pass FENs"
    )


def _crate_folder(locations: Optional[Iterable[str]]) -> Optional[str]:
    """The first of a namespace package's folders that is a Rust crate, None if none is."""
    for location in locations or ():
        if (Path(location) / "Cargo.toml").is_file():
            return location
    return None


class _MissingPyDraughts(ModuleType):
    """The empty namespace module ``draughts``, whose attributes name the missing package."""

    def __getattr__(self, name: str):
        # Dunder look-ups (``hasattr(m, "__file__")`` by inspect, pickle, test runners) keep
        # their plain answer, so that walking sys.modules never fails on this module.
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        folder = _crate_folder(self.__dict__.get("__path__")) or "a folder named draughts"
        raise ImportError(missing_message(folder), name="draughts")


def _is_namespace(module: ModuleType) -> bool:
    spec = getattr(module, "__spec__", None)
    return (
        getattr(module, "__file__", None) is None
        and spec is not None
        and spec.origin in (None, "namespace")
        and spec.submodule_search_locations is not None
    )


def guard_rust_crate_folder() -> None:
    """Makes ``draughts`` a module that explains itself when it would be (or already is) a
    namespace package made of a Rust crate folder; does nothing otherwise."""
    module = sys.modules.get("draughts")
    if module is not None:
        if _is_namespace(module) and _crate_folder(module.__spec__.submodule_search_locations):
            module.__class__ = _MissingPyDraughts
        return
    try:
        spec = importlib.util.find_spec("draughts")
    except (ImportError, ValueError):
        return
    if (
        spec is None
        or spec.origin not in (None, "namespace")
        or spec.submodule_search_locations is None
        or _crate_folder(spec.submodule_search_locations) is None
    ):
        return
    module = importlib.util.module_from_spec(spec)
    module.__class__ = _MissingPyDraughts
    sys.modules["draughts"] = module
