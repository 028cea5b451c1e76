"""Redirect target for the shared bench runner (``run.py --impl superstep --target
superstep_bench_langgraph``, as `make bench` passes it).

``run.py`` maps ``langgraph[.X]`` to ``<target>[.X]`` for every X. With the façade itself as
target that loops: ``superstep_compat.checkpoint`` (like ``store``/``cache``) re-exports the
real ``langgraph.checkpoint`` of the `langgraph-checkpoint` distributions, which the runner
sends back to ``superstep_compat.checkpoint``. This package is the target instead and mirrors
what `superstep_compat.shim` gives a program:

- ``<target>.checkpoint``, ``.store``, ``.cache`` (and below) are the installed distributions'
  code: this package's ``__path__`` is the real ``langgraph`` namespace's search path, so the
  ordinary path finder loads them from there (under this package's name, once each);
- every other ``<target>.X`` is the module object ``superstep_compat.X`` itself (an alias,
  like the shim's), never real LangGraph code, even if LangGraph is installed.

Standard library only at import: the runner imports this package while importing
``langgraph``, before anything of the façade can be imported safely.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType

_FACADE = "superstep_compat"
_REAL = ("checkpoint", "store", "cache")

_namespace = importlib.machinery.PathFinder.find_spec("langgraph")
if _namespace is None or not _namespace.submodule_search_locations:
    raise ImportError(
        "superstep_bench_langgraph: the langgraph-checkpoint distribution is not installed "
        "in this interpreter (it provides langgraph.checkpoint/store/cache)"
    )
__path__ = list(_namespace.submodule_search_locations)


class _FacadeAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``superstep_bench_langgraph.X`` (X not in `_REAL`) is ``superstep_compat.X``."""

    def __init__(self) -> None:
        self._specs: dict[str, object] = {}

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(__name__ + "."):
            return None
        rest = fullname[len(__name__) + 1 :]
        if rest.split(".")[0] in _REAL:
            return None  # the path finder loads the real distribution from __path__
        facade = importlib.import_module(_FACADE + "." + rest)
        return importlib.machinery.ModuleSpec(
            fullname, self, loader_state=facade, is_package=hasattr(facade, "__path__")
        )

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module: ModuleType = spec.loader_state
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system set the alias spec on the shared module: give it its own back.
        alias = module.__spec__.name if module.__spec__ is not None else None
        if alias in self._specs:
            module.__spec__ = self._specs.pop(alias)  # type: ignore[assignment]


if not any(isinstance(f, _FacadeAlias) for f in sys.meta_path):
    sys.meta_path.insert(0, _FacadeAlias())
