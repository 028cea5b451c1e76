"""`langgraph.pregel._call`'s `identifier`: the ``<module>.<qualname>`` name of a node's or a
`@task`'s function, which names its cache namespace (``("__pregel_ns_writes", identifier or
"__dynamic__", ...)``) so that entries outlive the process that wrote them."""

from __future__ import annotations

import sys
import types
from typing import Any

from superstep_compat._internal._runnable import RunnableCallable

__all__ = ["identifier"]


def identifier(obj: Any, name: str | None = None) -> str | None:
    """``"<module>.<name>"`` of ``obj``: a low-level `PregelNode` is named by its bound
    runnable, a `RunnableCallable` by its function; ``name`` defaults to the object's
    ``__qualname__`` (else ``__name__``). The module is ``obj.__module__``, else the loaded
    module that holds ``obj`` under that name. None when there is no name or no module (an
    instance, a dynamic object: LangGraph's ``"__dynamic__"``)."""
    from superstep_compat.pregel._lowlevel import PregelNode  # (it imports the graph layer)

    if isinstance(obj, PregelNode):
        obj = obj.bound
    if isinstance(obj, RunnableCallable):
        obj = obj.func
    if name is None:
        name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if name is None:
        return None
    module = getattr(obj, "__module__", None)
    if module is None:
        module = _module_holding(obj, name)
    if module is None:
        return None
    return f"{module}.{name}"


def _module_holding(obj: Any, name: str) -> str | None:
    """The name of a loaded module (not ``__main__``) where the dotted ``name`` leads to
    ``obj`` itself; None when none does (a local object never does)."""
    if "<locals>" in name.split("."):
        return None
    for module_name, module in sys.modules.copy().items():
        if module_name in ("__main__", "__mp_main__") or not isinstance(module, types.ModuleType):
            continue
        found: Any = module
        try:
            for part in name.split("."):
                found = getattr(found, part)
        except Exception:  # a module whose attributes raise is no match
            continue
        if found is obj:
            return module_name
    return None
