"""Turn what a program observed into plain JSON data that does not vary between runs or
implementations: no ids, no timestamps, no configs, library objects by their public fields."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _kind(obj: Any) -> str | None:
    """The class name when `obj` is a LangGraph / façade / langchain-core object."""
    for cls in type(obj).__mro__:
        root = (cls.__module__ or "").split(".")[0]
        if root in ("langgraph", "superstep_compat", "langchain_core"):
            return cls.__name__
    return None


def message(m: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": m.type, "content": plain(m.content)}
    if getattr(m, "name", None) is not None:
        out["name"] = m.name
    if getattr(m, "tool_calls", None):
        out["tool_calls"] = [[c["name"], plain(c["args"])] for c in m.tool_calls]
    if getattr(m, "tool_call_id", None) is not None:
        out["tool_call_id"] = m.tool_call_id
    return out


def snapshot(s: Any) -> dict[str, Any]:
    metadata = s.metadata or {}
    return {
        "values": plain(s.values),
        "next": list(s.next),
        "step": metadata.get("step"),
        "source": metadata.get("source"),
        "tasks": [task(t) for t in s.tasks],
        "interrupts": plain(s.interrupts),
    }


def task(t: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": t.name, "interrupts": plain(t.interrupts)}
    if getattr(t, "error", None) is not None:
        out["error"] = type(t.error).__name__
    state = getattr(t, "state", None)
    if state is not None and _kind(state) == "StateSnapshot":
        out["state"] = snapshot(state)
    return out


def namespace(ns: tuple[str, ...]) -> list[str]:
    """A stream namespace without its task ids: ('child:<id>',) -> ['child']."""
    return [part.split(":")[0] for part in ns]


def plain(obj: Any) -> Any:
    if obj is None or isinstance(obj, bool | int | str):
        return obj
    if isinstance(obj, float):
        return round(obj, 6)
    kind = _kind(obj)
    if kind is not None and hasattr(obj, "content") and hasattr(obj, "type"):
        return message(obj)
    if kind == "Interrupt":
        return {"interrupt": plain(obj.value)}
    if kind == "Send":
        return {"send": [obj.node, plain(obj.arg)]}
    if kind == "Command":
        fields = {"goto": obj.goto, "update": obj.update, "resume": obj.resume}
        return {"command": {k: plain(v) for k, v in fields.items() if v not in (None, (), [])}}
    if kind == "StateSnapshot":
        return snapshot(obj)
    if kind == "PregelTask":
        return task(obj)
    if isinstance(obj, BaseException):
        return {"exception": type(obj).__name__}
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [plain(v) for v in obj]
    if isinstance(obj, set | frozenset):
        return sorted(plain(v) for v in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = {f.name: plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
        return {"dataclass": type(obj).__name__, **fields}
    if hasattr(type(obj), "model_fields") and hasattr(obj, "model_dump"):
        fields = {k: plain(getattr(obj, k)) for k in type(obj).model_fields}
        return {"model": type(obj).__name__, **fields}
    return _ADDRESS.sub("", repr(obj))
