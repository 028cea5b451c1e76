"""`langgraph.pregel._algo`, as far as the façade has it: `task_path_str`, the string form of a
task's path that savers order a step's pending writes by. LangGraph's step planner
(``prepare_next_tasks`` and its helpers) has no counterpart: the engine plans steps."""

from __future__ import annotations

from typing import Any

__all__ = ["task_path_str"]


def task_path_str(path: Any) -> str:
    """A task path as LangGraph writes it for savers: a tuple (or list) as ``~`` followed by
    its parts joined by ``", "``, an int zero-padded to ten digits (so that the order of the
    strings is the order of the numbers; a bool counts as its int), anything else as ``str``."""
    if isinstance(path, tuple | list):
        return "~" + ", ".join(task_path_str(p) for p in path)
    if isinstance(path, int):  # a bool too, as LangGraph's
        return f"{path:010d}"
    return str(path)
