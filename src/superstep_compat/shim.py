"""`install()`: make ``import langgraph.X`` load ``superstep_compat.X`` (the same module
object under both names), so LangGraph programs and test suites run unmodified.

Three ways in: ``superstep_compat.shim.install()`` in code, ``python -m superstep_compat
app.py``, and the environment switch ``SUPERSTEP_AS_LANGGRAPH=1``, read at interpreter start
by the ``superstep_as_langgraph.pth`` file the package installs into site-packages (so
``SUPERSTEP_AS_LANGGRAPH=1 pytest`` runs a project's own tests on Superstep).

``langgraph.checkpoint``, ``langgraph.store`` and ``langgraph.cache`` (`PROTOCOL_SUBPACKAGES`)
are always the real modules of the `langgraph-checkpoint` distributions (a dependency of
Superstep; the official savers ``langgraph.checkpoint.sqlite``/``.postgres`` when installed):
the façade writes its checkpoints through that protocol. Further subpackages named in
``real`` (default `REAL_SUBPACKAGES`) are left to the installed distributions too.
``langgraph`` itself is then a namespace package whose search path is the real
distributions' (so ``import langgraph.checkpoint.base`` finds the real module) while every
other ``langgraph.X`` is ``superstep_compat.X``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from types import ModuleType

__all__ = [
    "PROTOCOL_SUBPACKAGES",
    "REAL_SUBPACKAGES",
    "LangGraphAliasFinder",
    "install",
    "uninstall",
]

_SOURCE = "langgraph"
_TARGET = "superstep_compat"

PROTOCOL_SUBPACKAGES: tuple[str, ...] = ("checkpoint", "store", "cache")
"""The `langgraph` subpackages of the `langgraph-checkpoint` distributions: always real."""

REAL_SUBPACKAGES: tuple[str, ...] = tuple(os.environ.get("SUPERSTEP_LANGGRAPH_REAL", "").split())
"""Further `langgraph` subpackages `install` leaves to the real distributions by default:
those named (space-separated) in ``SUPERSTEP_LANGGRAPH_REAL``."""


class _AliasLoader(importlib.abc.Loader):
    """Loads the superstep_compat module and registers it under the langgraph name."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.target)
        sys.modules[spec.name] = module
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the aliased module was executed under its own name."""


class LangGraphAliasFinder(importlib.abc.MetaPathFinder):
    """A `sys.meta_path` finder mapping ``langgraph[.X]`` to ``superstep_compat[.X]``, except
    the ``real`` subpackages (and everything under them)."""

    def __init__(self, real: Sequence[str] = ()) -> None:
        self.real = tuple(dict.fromkeys((*PROTOCOL_SUBPACKAGES, *real)))

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != _SOURCE and not fullname.startswith(_SOURCE + "."):
            return None
        if self.real:
            if fullname == _SOURCE:
                return _real_namespace(self.real)
            if fullname[len(_SOURCE) + 1 :].split(".")[0] in self.real:
                return None  # the path finder finds it on the real distributions' path
        aliased = _TARGET + fullname[len(_SOURCE) :]
        if importlib.util.find_spec(aliased) is None:
            return None
        is_package = hasattr(importlib.import_module(aliased), "__path__")
        return importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(aliased), is_package=is_package
        )


def _real_namespace(real: Sequence[str]) -> importlib.machinery.ModuleSpec:
    found = importlib.machinery.PathFinder.find_spec(_SOURCE)
    locations = list(found.submodule_search_locations or []) if found is not None else []
    if not locations:
        raise ImportError(
            f"superstep shim: langgraph.{'/'.join(real)} should come from the installed "
            "langgraph distributions, but none is installed (pip install langgraph-checkpoint)"
        )
    spec = importlib.machinery.ModuleSpec(_SOURCE, None, is_package=True)
    spec.submodule_search_locations = locations
    spec.loader_state = _TARGET  # marks the namespace as the shim's (see `uninstall`)
    return spec


def install(real: Sequence[str] | None = None) -> None:
    """Put the alias finder first on `sys.meta_path` (idempotent: a second call changes
    nothing). ``real``: subpackages left to the real distributions besides
    `PROTOCOL_SUBPACKAGES` (default `REAL_SUBPACKAGES`)."""
    if not any(isinstance(f, LangGraphAliasFinder) for f in sys.meta_path):
        chosen = REAL_SUBPACKAGES if real is None else tuple(real)
        sys.meta_path.insert(0, LangGraphAliasFinder(chosen))
        _name_errors(on="errors" not in chosen)
        _name_classes(on=True)


def uninstall() -> None:
    """Remove the finder and forget the ``langgraph`` aliases already imported."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, LangGraphAliasFinder)]
    _name_errors(on=False)
    _name_classes(on=False)
    for name in [n for n in sys.modules if n == _SOURCE or n.startswith(_SOURCE + ".")]:
        module = sys.modules[name]
        spec = getattr(module, "__spec__", None)
        if getattr(module, "__name__", "").startswith(_TARGET) or (
            getattr(spec, "loader_state", None) == _TARGET
        ):
            del sys.modules[name]


def _name_classes(*, on: bool) -> None:
    """Compiled graphs' classes show LangGraph's module while the shim is on (see
    `superstep_compat._internal._names`); not imported yet, they do so when they are."""
    names = sys.modules.get(f"{_TARGET}._internal._names")
    if names is not None:
        names.name_all(on)


def _name_errors(*, on: bool) -> None:
    """The façade's exception classes name ``langgraph.errors`` as their module while it
    is theirs (`superstep_compat.errors.as_langgraph`); not imported yet, they do so when
    they are."""
    errors = sys.modules.get(f"{_TARGET}.errors")
    if errors is not None:
        errors.as_langgraph(on)
