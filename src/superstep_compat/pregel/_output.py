"""The shapes of a compiled graph's results: ``stream`` chunks by mode and version,
``invoke``'s value (a state dict, a root state's bare value, or a low-level `Pregel`'s
output channel(s): one channel's value bare, several as a dict), and what a callback run
ends with."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from superstep_compat._internal._constants import INTERRUPT, ROOT_KEY, START
from superstep_compat.pregel._output_keys import OutputKeys, read_keys
from superstep_compat.types import GraphOutput, Interrupt
from superstep_core.host.stream import StreamAbandoned

if TYPE_CHECKING:
    from superstep_compat.pregel._run import GraphRun

__all__ = [
    "_ended_by",
    "_final_values",
    "_modes",
    "_output",
    "_shape",
    "v2_mappers",
]


def _modes(stream_mode: Any) -> tuple[list[str], bool]:
    if isinstance(stream_mode, str):
        return [stream_mode], True
    return list(stream_mode), False


Mapper = Callable[[dict[str, Any]], Any]


def v2_mappers(graph: Any) -> tuple[Mapper | None, Mapper | None]:
    """How v2 chunks show state (LangGraph's coercion of a pydantic or dataclass schema):
    ``values`` parts and ``invoke``'s `GraphOutput` as an instance of the output schema,
    the values of ``checkpoints`` and ``debug`` checkpoint payloads as one of the state
    schema; None for other schemas, a root state and a low-level graph."""
    if graph.lowlevel is not None:
        return None, None
    spec = graph.spec
    return (
        _mapper(spec.output_schema, graph.output_names),
        _mapper(spec.state_schema, graph.state_channels),
    )


def _mapper(schema: Any, keys: Sequence[str]) -> Mapper | None:
    if tuple(keys) == (ROOT_KEY,) or not isinstance(schema, type):
        return None
    if issubclass(schema, BaseModel) or dataclasses.is_dataclass(schema):
        return partial(_instance_of, schema)
    return None


def _instance_of(schema: type[Any], values: dict[str, Any]) -> Any:
    return schema(**values)


def _shape(
    ns: tuple[str, ...],
    mode: str,
    data: Any,
    single: bool,
    subgraphs: bool,
    version: str,
    mappers: tuple[Mapper | None, Mapper | None] = (None, None),
) -> Any:
    if version == "v2":
        return _v2_part(ns, mode, data, mappers)
    if single:
        return (ns, data) if subgraphs else data
    return (ns, mode, data) if subgraphs else (mode, data)


def _v2_part(
    ns: tuple[str, ...], mode: str, data: Any, mappers: tuple[Mapper | None, Mapper | None]
) -> dict[str, Any]:
    """A v2 `StreamPart`: a ``values`` part's interrupts apart and its data shown with the
    output mapper (the root graph's, in every namespace, as LangGraph); the state values
    of checkpoint payloads with the state mapper (not the input checkpoint's: its channels
    are not all set yet)."""
    output_mapper, state_mapper = mappers
    if mode == "values":
        interrupts: Any = ()
        if isinstance(data, dict):
            if INTERRUPT in data:
                interrupts = data[INTERRUPT]
                data = {k: v for k, v in data.items() if k != INTERRUPT}
            if output_mapper is not None:
                data = output_mapper(data)
        return {"type": mode, "ns": ns, "data": data, "interrupts": interrupts}
    if state_mapper is not None and mode in ("checkpoints", "debug") and isinstance(data, dict):
        if data.get("type") == "checkpoint" and isinstance(data.get("payload"), dict):
            data = {**data, "payload": _mapped_checkpoint(data["payload"], state_mapper)}
        else:
            data = _mapped_checkpoint(data, state_mapper)
    return {"type": mode, "ns": ns, "data": data}


def _mapped_checkpoint(payload: dict[str, Any], mapper: Mapper) -> dict[str, Any]:
    values = payload.get("values")
    if not isinstance(values, dict) or START in payload.get("next", ()):
        return payload
    return {**payload, "values": mapper(values)}


def _ended_by(error: BaseException) -> BaseException:
    """What a multiplexer ends with when its run stopped on ``error``: the run's exception,
    or `StreamAbandoned` when the caller stopped reading (closed or cancelled)."""
    if isinstance(error, GeneratorExit | asyncio.CancelledError):
        return StreamAbandoned("the stream's run stopped early: its caller stopped reading")
    return error


def _output_values(run: GraphRun) -> dict[str, Any]:
    last = run.values.last or {}
    return {k: last[k] for k in run.graph.output_names if k in last}


def _final_values(runs: list[GraphRun]) -> Any:
    """What a graph's callback run ends with: the output channels' values (as LangGraph)."""
    return _output_values(runs[-1]) if runs else None


def _keyed_output(
    run: GraphRun, keys: OutputKeys, interrupts: list[Interrupt[Any]], version: str
) -> Any:
    """``invoke``'s result read through output keys (LangGraph's: the last ``values`` chunk,
    which an interrupt's chunk replaces: one key's value is not shown then)."""
    values = run.values.last or {}
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
        value = lowlevel.output_of(run.values.last or {}, keys) if run.values.shown else None
        if interrupts and isinstance(keys, str):
            value = {}  # an interrupt's values chunk shows no value of one channel
        elif interrupts:  # LangGraph reads its output channels as the interrupt stops it
            value = lowlevel.output_of(run.values.last or {}, keys)
        if version == "v2":
            return GraphOutput(value, tuple(interrupts))
        return {**(value or {}), INTERRUPT: interrupts} if interrupts else value
    if not run.values.shown and not interrupts:
        return GraphOutput(None, ()) if version == "v2" else None
    keys = run.keys
    if keys is None and output_keys is not None:
        # (given every state channel: the run reads them all, not the output schema's)
        keys = run.graph.state_channels
    if keys is not None and keys != ROOT_KEY:
        return _keyed_output(run, keys, interrupts, version)
    values = _output_values(run)
    if run.graph.output_names == (ROOT_KEY,):
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
        if not run.values.shown:
            return {"__interrupt__": interrupts}
        values["__interrupt__"] = interrupts
    return values
