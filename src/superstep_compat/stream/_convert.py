"""Graph stream events -> `ProtocolEvent`s (the envelope of LangGraph's v3 streaming)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from superstep_compat.stream._types import ProtocolEvent, _ProtocolEventParams

__all__ = ["convert_to_protocol_event", "event_from_tuple"]

_INTERRUPT = "__interrupt__"


def _now_ms() -> int:
    return int(time.time() * 1000)


def convert_to_protocol_event(part: Mapping[str, Any]) -> ProtocolEvent:
    """A v2 stream part (``{"type", "ns", "data", "interrupts"?}``) as a protocol event:
    ``method`` is its type, the namespace a list, the timestamp now in milliseconds."""
    params: _ProtocolEventParams = {
        "namespace": list(part["ns"]),
        "timestamp": _now_ms(),
        "data": part["data"],
    }
    if "interrupts" in part:
        params["interrupts"] = part["interrupts"]
    return {"type": "event", "method": part["type"], "params": params}


def event_from_tuple(ns: tuple[str, ...], mode: str, data: Any) -> ProtocolEvent:
    """A façade run event ``(namespace, mode, data)`` as a protocol event. A ``values``
    event always carries ``interrupts`` (empty, or the ``__interrupt__`` entry moved out of
    the state values), as LangGraph's v2 stream parts do."""
    params: _ProtocolEventParams = {"namespace": list(ns), "timestamp": _now_ms(), "data": data}
    if mode == "values":
        interrupts: tuple[Any, ...] = ()
        if isinstance(data, dict) and _INTERRUPT in data:
            params["data"] = {k: v for k, v in data.items() if k != _INTERRUPT}
            interrupts = tuple(data[_INTERRUPT])
        params["interrupts"] = interrupts
    return {"type": "event", "method": mode, "params": params}
