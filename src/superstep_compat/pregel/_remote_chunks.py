"""What `RemoteGraph.stream`/`astream` do with the server's stream, written once for both
(LangGraph's ``langgraph.pregel.remote``): which stream modes to ask the server for
(`plan_stream`), and what each server chunk becomes (`ChunkRouter.route`): forwarded to the
calling graph's stream, raised (a parent command, an interrupt inside a calling graph, a
remote error), dropped, or yielded in the shape ``stream_mode``/``subgraphs``/``version``
ask for. No I/O; the client loop lives in `remote.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from superstep_compat._internal._constants import (
    CONF,
    CONFIG_KEY_CHECKPOINT_NS,
    CONFIG_KEY_STREAM,
    INTERRUPT,
    NS_SEP,
)
from superstep_compat.errors import GraphInterrupt, ParentCommand
from superstep_compat.pregel._task_context import CHILD_KEY, NodeParentCommand
from superstep_compat.pregel.protocol import StreamChunk, StreamProtocol
from superstep_compat.types import Command, Interrupt

__all__ = ["SKIP", "ChunkRouter", "RemoteException", "StreamPlan", "parent_stream", "plan_stream"]


class RemoteException(Exception):
    """The remote graph's run failed: the server streamed an ``error`` event; the
    exception's argument is that event's payload (``{"error": type name, "message": ...}``
    from a LangGraph server)."""


SKIP: Any = object()
"""`ChunkRouter.route`'s answer for a chunk the caller did not ask for."""


def parent_stream(config: Mapping[str, Any] | None) -> StreamProtocol | None:
    """The stream of the graph whose task runs this remote graph, if that graph streams
    subgraphs (LangGraph's condition for handing it down): a `StreamProtocol` under
    ``configurable["__pregel_stream"]`` as LangGraph passes it, else the façade's own link
    from the task (`_task_context.ChildLink`), whose chunks carry their full namespace."""
    configurable = (config or {}).get(CONF) or {}
    stream = configurable.get(CONFIG_KEY_STREAM)
    if stream is not None:
        return stream  # type: ignore[no-any-return]
    link = configurable.get(CHILD_KEY)
    if link is None or link.emit is None or not link.subgraphs:
        return None
    emit = link.emit

    def put(chunk: StreamChunk) -> None:
        ns, mode, data = chunk
        emit(mode, data, ns)

    return StreamProtocol(put, link.modes)


@dataclass(frozen=True, slots=True)
class StreamPlan:
    """The stream modes of one remote run.

    ``sent``: asked of the server: the caller's modes and its calling graph's, with
    ``messages`` as the server's ``messages-tuple``, ``updates`` always (interrupts arrive
    there) and never ``events``. ``requested``: what the caller asked for (``messages-tuple``
    named ``messages``, as chunks arrive). ``single``: one mode given as a string (chunks
    are then yielded without their mode). ``parent``: the calling graph's stream or None.
    """

    sent: list[str]
    requested: list[str]
    single: bool
    parent: StreamProtocol | None


def plan_stream(
    stream_mode: str | list[str] | None, config: Mapping[str, Any] | None, default: str = "updates"
) -> StreamPlan:
    """The `StreamPlan` for a call with ``stream_mode`` (``None``: ``default``) and the
    caller's ``config`` (where a calling graph's stream is found, `parent_stream`)."""
    single = not stream_mode or isinstance(stream_mode, str)
    if not stream_mode:
        modes = [default]
    elif isinstance(stream_mode, str):
        modes = [stream_mode]
    else:
        modes = list(stream_mode)
    requested = list(modes)
    parent = parent_stream(config)
    if parent is not None:
        modes.extend(parent.modes)
    if "messages" in modes:
        modes.remove("messages")
        modes.append("messages-tuple")
    if "messages-tuple" in requested:
        requested.remove("messages-tuple")
        requested.append("messages")
    if "updates" not in modes:
        modes.append("updates")
    if "events" in modes:  # a server-only mode a graph's stream never has
        modes.remove("events")
    return StreamPlan(modes, requested, single, parent)


class ChunkRouter:
    """Turns each server chunk (``langgraph_sdk.schema.StreamPart``: ``event`` is the mode,
    ``mode|ns1|ns2`` for a subgraph's, ``data`` the payload) into what the caller gets."""

    __slots__ = ("caller_ns", "plan", "subgraphs", "version")

    def __init__(
        self, plan: StreamPlan, config: Mapping[str, Any] | None, subgraphs: bool, version: str
    ) -> None:
        self.plan = plan
        self.subgraphs = subgraphs
        self.version = version
        # The namespace of the task running this remote graph inside a calling graph: the
        # server knows nothing of it, so it is put in front of every chunk's namespace.
        ns = ((config or {}).get(CONF) or {}).get(CONFIG_KEY_CHECKPOINT_NS)
        self.caller_ns: tuple[str, ...] = tuple(ns.split(NS_SEP)) if ns else ()

    def route(self, chunk: Any) -> Any:
        """What ``chunk`` becomes for the caller, or `SKIP`. Raises `ParentCommand` for a
        ``command`` chunk addressed to the parent graph, `GraphInterrupt` for an interrupt
        while running inside a calling graph, `RemoteException` for an ``error`` chunk.
        Chunks of the calling graph's modes are forwarded to its stream first."""
        event: str = chunk.event
        data = chunk.data
        mode, sep, rest = event.partition(NS_SEP)
        ns = tuple(rest.split(NS_SEP)) if sep else ()
        if mode == "command" and data.get("graph") == Command.PARENT:
            # inside a calling graph: as that node's own Command(graph=PARENT), for the
            # graph above the caller's
            raise (NodeParentCommand if self.caller_ns else ParentCommand)(Command(**data))
        if self.caller_ns:
            ns = self.caller_ns + ns
        parent = self.plan.parent
        if parent is not None and mode in parent.modes:
            parent((ns, mode, data))
        if mode == "updates":
            if self.caller_ns and isinstance(data, dict) and INTERRUPT in data:
                raise GraphInterrupt([Interrupt(**i) for i in data[INTERRUPT]])
        elif mode == "error":
            raise RemoteException(data)
        if mode not in self.plan.requested:
            return SKIP
        # A subgraph's chunks may have been asked for only for the calling graph. Messages
        # are kept: the server sends each message once, under the namespace it came from.
        if sep and not self.subgraphs and mode != "messages":
            return SKIP
        if mode == "messages":
            data = tuple(data)
            chunk = chunk._replace(data=data)
        if self.version == "v2":
            interrupts: tuple[Any, ...] = ()
            if mode == "values" and isinstance(data, dict) and INTERRUPT in data:
                data = dict(data)
                interrupts = tuple(
                    Interrupt(**i) if isinstance(i, dict) else i for i in data.pop(INTERRUPT)
                )
            return {"type": mode, "ns": ns, "data": data, "interrupts": interrupts}
        if self.subgraphs:
            return (ns, data) if self.plan.single else (ns, mode, data)
        return data if self.plan.single else chunk
