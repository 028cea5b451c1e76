"""The shapes of a compiled graph's results: ``stream`` chunks by mode and version,
``invoke``'s value (a state dict, a root state's bare value, or a low-level `Pregel`'s
output channel(s): one channel's value bare, several as a dict), and what a callback run
ends with."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from superstep_compat._internal._constants import INTERRUPT, ROOT_KEY
from superstep_compat.pregel._output_keys import OutputKeys, read_keys
from superstep_compat.types import GraphOutput, Interrupt
from superstep_core.host.stream import StreamAbandoned

if TYPE_CHECKING:
    from superstep_compat.pregel._run import GraphRun

__all__ = ["_breakpoints", "_ended_by", "_final_values", "_modes", "_output", "_shape"]


def _breakpoints(value: Any) -> frozenset[str]:
    if value is None:
        return frozenset()
    if value == "*":
        return frozenset({"*"})
    return frozenset(value)


def _modes(stream_mode: Any) -> tuple[list[str], bool]:
    if isinstance(stream_mode, str):
        return [stream_mode], True
    return list(stream_mode), False


def _shape(
    ns: tuple[str, ...], mode: str, data: Any, single: bool, subgraphs: bool, version: str
) -> Any:
    if version == "v2":
        part: dict[str, Any] = {"type": mode, "ns": ns, "data": data}
        if mode == "values" and isinstance(data, dict) and "__interrupt__" in data:
            part["data"] = {k: v for k, v in data.items() if k != "__interrupt__"}
            part["interrupts"] = data["__interrupt__"]
        elif mode == "values":
            part["interrupts"] = ()
        return part
    if single:
        return (ns, data) if subgraphs else data
    return (ns, mode, data) if subgraphs else (mode, data)


def _ended_by(error: BaseException) -> BaseException:
    """What a multiplexer ends with when its run stopped on ``error``: the run's exception,
    or `StreamAbandoned` when the caller stopped reading (closed or cancelled)."""
    if isinstance(error, GeneratorExit | asyncio.CancelledError):
        return StreamAbandoned("the stream's run stopped early: its caller stopped reading")
    return error


def _output_values(run: GraphRun) -> dict[str, Any]:
    last = run.last_values or {}
    return {k: last[k] for k in run.graph.output_channels if k in last}


def _final_values(runs: list[GraphRun]) -> Any:
    """What a graph's callback run ends with: the output channels' values (as LangGraph)."""
    return _output_values(runs[-1]) if runs else None


def _keyed_output(
    run: GraphRun, keys: OutputKeys, interrupts: list[Interrupt[Any]], version: str
) -> Any:
    """``invoke``'s result read through output keys (LangGraph's: the last ``values`` chunk,
    which an interrupt's chunk replaces: one key's value is not shown then)."""
    values = run.last_values or {}
    if interrupts:
        latest = {} if isinstance(keys, str) else read_keys(values, keys)
        if version == "v2":
            return GraphOutput(latest, tuple(interrupts))
        return {**latest, INTERRUPT: interrupts}
    latest = read_keys(values, keys)
    return GraphOutput(latest, ()) if version == "v2" else latest


def _output(run: GraphRun, version: str, output_keys: Any = None) -> Any:
    """``invoke``'s result (LangGraph's: the last ``values`` chunk; None when the run showed
    none, as when no channel was written; v1 adds the interrupts, v2 wraps both)."""
    interrupts: list[Interrupt[Any]] = list(run.interrupts)
    lowlevel = run.graph.lowlevel
    if lowlevel is not None:
        keys = lowlevel.output_channels if output_keys is None else output_keys
        # (a run that wrote no output channel showed no values: an older run's output is
        # still in the channels, but not this run's result)
        value = lowlevel.output_of(run.last_values or {}, keys) if run.values_shown else None
        if interrupts and isinstance(keys, str):
            value = {}  # an interrupt's values chunk shows no value of one channel
        if version == "v2":
            return GraphOutput(value, tuple(interrupts))
        return {**(value or {}), INTERRUPT: interrupts} if interrupts else value
    if not run.values_shown and not interrupts:
        return GraphOutput(None, ()) if version == "v2" else None
    keys = run.keys
    if keys is not None and keys != ROOT_KEY:
        return _keyed_output(run, keys, interrupts, version)
    values = _output_values(run)
    if run.graph.output_channels == (ROOT_KEY,):
        # A root state is returned bare; when interrupted LangGraph shows only the interrupts.
        if interrupts:
            return (
                GraphOutput({}, tuple(interrupts)) if version == "v2" else {INTERRUPT: interrupts}
            )
        value = values.get(ROOT_KEY)
        return GraphOutput(value, ()) if version == "v2" else value
    if version == "v2":
        return GraphOutput(values, tuple(interrupts))
    if interrupts:
        if not run.values_shown:
            return {"__interrupt__": interrupts}
        values["__interrupt__"] = interrupts
    return values
