"""The module (and name) a façade class shows, as LangGraph's class of that name shows it.

A user sees a compiled graph's class in ``type(graph).__module__``, ``__name__`` and the
default ``repr`` (``<langgraph.graph.state.CompiledStateGraph object at 0x...>``), and
libraries key on them. The façade defines these classes in private modules; `shown_as` gives
each the public module that holds it here (``superstep_compat.graph.state``), or LangGraph's
(``langgraph.graph.state``) while the shim makes that name this module, so a program sees
the same under the shim as under LangGraph. `superstep_compat.shim.install` and
``uninstall`` call `name_all`.
"""

from __future__ import annotations

import sys

__all__ = ["name_all", "shown_as"]

_FACADE = "superstep_compat"
_LANGGRAPH = "langgraph"

# (class, its façade module); its LangGraph module is the same path under ``langgraph``
_SHOWN: list[tuple[type, str]] = []


def _aliased(module: str) -> bool:
    """Whether the shim is installed and maps ``module``'s LangGraph name to the façade."""
    from superstep_compat.shim import LangGraphAliasFinder  # stdlib only: no cycle

    subpackage = module.split(".")[1] if "." in module else ""
    return any(
        isinstance(finder, LangGraphAliasFinder) and subpackage not in finder.real
        for finder in sys.meta_path
    )


def _module(module: str, on: bool) -> str:
    return _LANGGRAPH + module[len(_FACADE) :] if on else module


def shown_as(cls: type, module: str, name: str | None = None) -> None:
    """Show ``cls`` as ``module.name`` (``module``: a public façade module holding it;
    ``name`` defaults to the class's own), or LangGraph's module while the shim is on."""
    if name is not None:
        cls.__name__ = cls.__qualname__ = name
    _SHOWN.append((cls, module))
    cls.__module__ = _module(module, _aliased(module))


def name_all(on: bool) -> None:
    """Show every registered class under LangGraph's module (``on``) or the façade's."""
    for cls, module in _SHOWN:
        cls.__module__ = _module(module, on and _aliased(module))
