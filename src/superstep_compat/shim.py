"""`install()`: make ``import langgraph.X`` load ``superstep_compat.X`` (the same module
object under both names), so LangGraph programs and test suites run unmodified."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType

__all__ = ["LangGraphAliasFinder", "install", "uninstall"]

_SOURCE = "langgraph"
_TARGET = "superstep_compat"


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
    """A `sys.meta_path` finder mapping ``langgraph[.X]`` to ``superstep_compat[.X]``."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != _SOURCE and not fullname.startswith(_SOURCE + "."):
            return None
        aliased = _TARGET + fullname[len(_SOURCE) :]
        if importlib.util.find_spec(aliased) is None:
            return None
        is_package = hasattr(importlib.import_module(aliased), "__path__")
        return importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(aliased), is_package=is_package
        )


def install() -> None:
    """Put the alias finder first on `sys.meta_path` (idempotent)."""
    if not any(isinstance(f, LangGraphAliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, LangGraphAliasFinder())


def uninstall() -> None:
    """Remove the finder and forget the ``langgraph`` aliases already imported."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, LangGraphAliasFinder)]
    for name in [n for n in sys.modules if n == _SOURCE or n.startswith(_SOURCE + ".")]:
        if getattr(sys.modules[name], "__name__", "").startswith(_TARGET):
            del sys.modules[name]
