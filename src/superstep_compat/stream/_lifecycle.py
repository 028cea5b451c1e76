"""Subgraph lifecycles inferred from ``tasks`` events: `LifecycleTransformer` (``run.lifecycle``:
``started``/``completed``/``failed``/``interrupted``/``drained`` payloads, also forwarded
into the main log as ``lifecycle`` events) and `SubgraphTransformer` (``run.subgraphs``: a
run-stream handle per direct child subgraph, fed with that subgraph's events).

The rules, shared by both through `_TasksLifecycleBase` (which langchain's agents subclass
for ``run.subagents``, so its hook names are an interface):
- a subgraph is discovered by the first task-start event at a namespace below the scope; its
  last segment ``node:task_id`` names it and the parent task that runs it;
- a task carrying an ``lc_agent_name`` in its metadata is a named agent: the name becomes
  the subgraph's name, and a tool call that scheduled the parent task (the task's input is
  a ``tool_call_with_context`` dict, or a list of tool calls) becomes its ``cause``;
- a subgraph ends when its parent task's result arrives (interrupts win over an error);
  subgraphs still open when the run ends are ``completed`` (or take the run's failure);
- ``tasks`` events themselves are kept out of the main log.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Literal, NotRequired

from typing_extensions import TypedDict

from superstep_compat.errors import GraphDrained, GraphInterrupt
from superstep_compat.stream._types import ProtocolEvent, StreamTransformer
from superstep_compat.stream.run_stream import AsyncSubgraphRunStream, SubgraphRunStream
from superstep_compat.stream.stream_channel import StreamChannel
from superstep_core.twin import Block, Twin, adrive, drive

if TYPE_CHECKING:
    from superstep_compat.stream._mux import StreamMux

__all__ = [
    "LifecyclePayload",
    "LifecycleTransformer",
    "SubgraphStatus",
    "SubgraphTransformer",
    "_TasksLifecycleBase",
]

_log = logging.getLogger(__name__)

SubgraphStatus = Literal["started", "completed", "failed", "interrupted", "drained"]
Handle = SubgraphRunStream | AsyncSubgraphRunStream


class LifecyclePayload(TypedDict, total=False):
    """One ``run.lifecycle`` item: the status, the subgraph's namespace, and when known its
    name, the parent task id, the tool call that caused it, the error text."""

    event: SubgraphStatus
    namespace: list[str]
    graph_name: NotRequired[str]
    trigger_call_id: NotRequired[str]
    cause: NotRequired[Any]
    error: NotRequired[str]


def _status_of_result(data: dict[str, Any]) -> tuple[SubgraphStatus, str | None]:
    if data.get("interrupts"):
        return "interrupted", None
    if error := data.get("error"):
        return "failed", str(error)
    return "completed", None


def _status_of_error(err: BaseException) -> tuple[SubgraphStatus, str | None]:
    if isinstance(err, GraphDrained):
        return "drained", None
    if isinstance(err, GraphInterrupt):
        return "interrupted", None
    return "failed", str(err)


def _tool_call_id(payload: Any) -> str | None:
    if isinstance(payload, dict) and isinstance(payload.get("tool_call"), dict):
        candidate = payload["tool_call"].get("id")
        return candidate if isinstance(candidate, str) else None
    if isinstance(payload, list):
        for call in payload:
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                return str(call["id"])
    return None


class _TasksLifecycleBase(StreamTransformer):
    """The shared discovery and ending rules (see the module docstring). Subclasses
    implement `_should_track(ns)`, `_on_started(ns, graph_name, trigger_call_id)` (the
    triggering cause is in ``self._pending_cause`` during the call) and
    `_on_terminal(ns, status, error)`."""

    required_stream_modes = ("tasks",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._seen: set[tuple[str, ...]] = set()
        self._open: dict[tuple[str, ...], str] = {}  # namespace -> parent task id
        self._lc_by_ns: dict[tuple[str, ...], str | None] = {}  # first task's agent name
        self._pending_tool_calls: dict[str, str] = {}  # task id -> tool call id
        self._pending_cause: Any = None

    def _should_track(self, ns: tuple[str, ...]) -> bool:
        raise NotImplementedError

    def _on_started(
        self, ns: tuple[str, ...], graph_name: str | None, trigger_call_id: str | None
    ) -> None:
        raise NotImplementedError

    def _on_terminal(self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None) -> None:
        raise NotImplementedError

    def process(self, event: ProtocolEvent) -> bool:
        ended = self._tasks_event(event)
        if ended is None:
            return True
        for child, status, error in ended:
            self._on_terminal(child, status, error)
        return False

    def _tasks_event(
        self, event: ProtocolEvent
    ) -> list[tuple[tuple[str, ...], SubgraphStatus, str | None]] | None:
        """`process`'s rules short of ending children: None for an event that is not a
        ``tasks`` one; else the tracked children its task result ends (removed), to be
        ended in order, or none for a task start (recorded, its subgraph discovered)."""
        if event["method"] != "tasks":
            return None
        ns = tuple(event["params"]["namespace"])
        data = event["params"]["data"]
        if "result" in data:
            return self._pop_terminal_transitions(ns, data)
        self._record_identity(ns, data)
        self._record_pending_tool_calls(data)
        self._handle_task_start(ns, data)
        return []

    def _record_identity(self, ns: tuple[str, ...], data: dict[str, Any]) -> None:
        if ns not in self._lc_by_ns:
            self._lc_by_ns[ns] = (data.get("metadata") or {}).get("lc_agent_name")

    def _record_pending_tool_calls(self, data: dict[str, Any]) -> None:
        task_id = data.get("id")
        if isinstance(task_id, str) and (call_id := _tool_call_id(data.get("input"))):
            self._pending_tool_calls[task_id] = call_id

    def _handle_task_start(self, ns: tuple[str, ...], data: dict[str, Any]) -> None:
        if ns in self._seen or not self._should_track(ns):
            return
        self._seen.add(ns)
        name, sep, task_id = ns[-1].partition(":")
        trigger = task_id if sep else None
        agent = (data.get("metadata") or {}).get("lc_agent_name")
        cause = None
        call_id = self._pending_tool_calls.get(trigger) if trigger is not None else None
        if agent is not None and call_id:
            cause = {"type": "toolCall", "tool_call_id": str(call_id)}
        self._pending_cause = cause
        self._on_started(ns, agent if agent is not None else (name or None), trigger)
        if trigger is not None:
            self._open[ns] = trigger

    def _pop_terminal_transitions(
        self, ns: tuple[str, ...], data: dict[str, Any]
    ) -> list[tuple[tuple[str, ...], SubgraphStatus, str | None]]:
        """The tracked children that the task result ``data`` at ``ns`` ends (removed)."""
        result_id = data.get("id")
        if not result_id:
            return []
        ended = [c for c, t in self._open.items() if c[:-1] == ns and t == result_id]
        for child in ended:
            del self._open[child]
        return [(child, *_status_of_result(data)) for child in ended]

    def finalize(self) -> None:
        for ns in list(self._open):
            self._on_terminal(ns, "completed", None)
        self._open.clear()

    def fail(self, err: BaseException) -> None:
        status, error = _status_of_error(err)
        for ns in list(self._open):
            self._on_terminal(ns, status, error)
        self._open.clear()


class LifecycleTransformer(_TasksLifecycleBase):
    """``run.lifecycle`` (native; events of method ``lifecycle`` in the main log) for
    subgraphs at every depth below the scope."""

    _native = True

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._channel: StreamChannel[LifecyclePayload] = StreamChannel("lifecycle")

    def init(self) -> dict[str, Any]:
        return {"lifecycle": self._channel}

    def _should_track(self, ns: tuple[str, ...]) -> bool:
        depth = len(self.scope)
        return len(ns) > depth and ns[:depth] == self.scope

    def _on_started(
        self, ns: tuple[str, ...], graph_name: str | None, trigger_call_id: str | None
    ) -> None:
        if trigger_call_id is None:
            return  # no parent task to end it: only the end-of-run sweep reports it
        payload: LifecyclePayload = {"event": "started", "namespace": list(ns)}
        if graph_name:
            payload["graph_name"] = graph_name
        payload["trigger_call_id"] = trigger_call_id
        if self._pending_cause is not None:
            payload["cause"] = self._pending_cause
        self._channel.push(payload)

    def _on_terminal(self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None) -> None:
        payload: LifecyclePayload = {"event": status, "namespace": list(ns)}
        if error is not None:
            payload["error"] = error
        self._channel.push(payload)


class SubgraphTransformer(_TasksLifecycleBase):
    """``run.subgraphs`` (native): a `SubgraphRunStream` per direct child subgraph, with a
    child mux of the same factories; the child's events are forwarded into it, so its own
    `SubgraphTransformer` finds the grandchildren. Runs on both lanes."""

    _native = True
    supports_sync = True

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[Handle] = StreamChannel()
        self._handles: dict[tuple[str, ...], Handle] = {}
        self._mux: StreamMux | None = None

    def init(self) -> dict[str, Any]:
        return {"subgraphs": self._log}

    def _on_register(self, mux: Any) -> None:
        self._mux = mux

    def _should_track(self, ns: tuple[str, ...]) -> bool:
        depth = len(self.scope)
        return len(ns) == depth + 1 and ns[:depth] == self.scope

    def _on_started(
        self, ns: tuple[str, ...], graph_name: str | None, trigger_call_id: str | None
    ) -> None:
        if self._mux is None:
            return
        try:
            child = self._mux._make_child(ns)
        except RuntimeError:
            return
        cls = AsyncSubgraphRunStream if child.is_async else SubgraphRunStream
        handle = cls(child, path=ns, graph_name=graph_name, trigger_call_id=trigger_call_id)
        self._handles[ns] = handle
        self._log.push(handle)

    def _mark_terminal(self, handle: Handle, status: SubgraphStatus, error: str | None) -> bool:
        """Record the handle's end once; False if it had ended already."""
        if handle._seen_terminal:
            return False
        handle.status = status
        if error is not None and handle.error is None:
            handle.error = error
        handle._seen_terminal = True
        return True

    # --- one core per sync/async pair (`superstep_core.twin`: drive / adrive) -------------

    def _ending(self, handle: Handle, status: SubgraphStatus, error: str | None) -> Twin[None]:
        """Close (or fail, for ``failed``) the handle's mux, unless it is closed already."""
        mux = handle._mux
        if mux is None or mux._events._closed:
            return
        if status == "failed":
            yield Block(mux.fail, mux.afail, (RuntimeError(error or "Subgraph failed"),))
        else:
            yield Block(mux.close, mux.aclose)

    def _terminal(
        self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None
    ) -> Twin[None]:
        handle = self._handles.get(ns)
        if handle is not None and self._mark_terminal(handle, status, error):
            yield from self._ending(handle, status, error)

    def _processing(self, event: ProtocolEvent) -> Twin[bool]:
        ended = self._tasks_event(event)  # first, so a new subgraph's handle exists
        for child, status, error in ended or ():
            yield from self._terminal(child, status, error)
        if (handle := self._handle_for_event(event)) is not None:
            handle._observe_event(event)
            yield Block(handle._mux.push, handle._mux.apush, (event,))
        return ended is None

    def _finalizing(self) -> Twin[None]:
        first: BaseException | None = None
        for handle in self._open_handles_to_close():
            try:
                yield from self._ending(handle, "completed", None)
            except BaseException as e:
                first = first or e
        if first is not None:
            raise first

    def _failing(self, err: BaseException) -> Twin[None]:
        status, error = _status_of_error(err)
        self._open.clear()
        for handle in self._handles.values():
            self._mark_terminal(handle, status, error)
            mux = handle._mux
            if mux is not None and not mux._events._closed:
                try:
                    yield Block(mux.fail, mux.afail, (err,))
                except Exception:
                    _log.warning("Error failing subgraph mux at %s", handle.path, exc_info=True)

    # --- the lanes -------------------------------------------------------------------------

    def _on_terminal(self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None) -> None:
        drive(self._terminal(ns, status, error))

    def process(self, event: ProtocolEvent) -> bool:
        return drive(self._processing(event))

    async def aprocess(self, event: ProtocolEvent) -> bool:
        return await adrive(self._processing(event))

    def finalize(self) -> None:
        drive(self._finalizing())

    async def afinalize(self) -> None:
        await adrive(self._finalizing())

    def fail(self, err: BaseException) -> None:
        drive(self._failing(err))

    async def afail(self, err: BaseException) -> None:
        await adrive(self._failing(err))

    def _handle_for_event(self, event: ProtocolEvent) -> Handle | None:
        """The open handle of the child subgraph ``event`` belongs to, if any."""
        ns = tuple(event["params"]["namespace"])
        depth = len(self.scope)
        if len(ns) <= depth:
            return None
        handle = self._handles.get(ns[: depth + 1])
        if handle is None or handle._mux is None or handle._mux._events._closed:
            return None
        return handle

    def _open_handles_to_close(self) -> list[Handle]:
        """Every handle not yet ended, now marked completed (open parents' first)."""
        order = [self._handles[ns] for ns in self._open if ns in self._handles]
        self._open.clear()
        order += self._handles.values()
        return [h for h in order if self._mark_terminal(h, "completed", None)]
