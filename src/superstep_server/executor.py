"""Running one claimed run: the graph's public ``stream`` in a worker thread, its chunks
published as SSE events the way the LangGraph server names them, then the run's status,
output and the thread's status written back.

Events: ``metadata`` first (``{"run_id", "attempt"}``); then one event per chunk of the
requested modes: ``values``, ``updates``, ``custom``, ``debug``, ``tasks``,
``checkpoints``, ``messages`` for the ``messages-tuple`` mode (``[message, metadata]``),
``messages/metadata``, ``messages/partial`` and ``messages/complete`` for ``messages``,
``events`` (LangChain's ``astream_events`` v2, run with ``asyncio.run`` in the worker thread);
``tools`` and ``lifecycle`` are the graph's own modes of those names, relayed as they come;
with ``stream_subgraphs`` a subgraph's chunks are named ``mode|ns`` (``updates|child:1``);
``error`` (``{"error", "message"}``) when the graph raises. The run's output (``/wait``,
``/join``) is the last ``values`` chunk of the root graph (with ``__interrupt__`` when it
stopped at an interrupt), or ``{"__error__": {"error", "message"}}``.

Why sync ``stream`` in threads: the checkpoint savers LangGraph ships for SQLite are
synchronous (their async methods refuse), nodes are often blocking code, and a thread per
worker keeps the event loop free for HTTP. Only ``events`` runs the graph's async API
(``astream_events``): it needs a saver with async methods, which the façade's savers have;
LangGraph's own sync ``SqliteSaver`` refuses them (`superstep_server.saver` would then build
an ``AsyncSqliteSaver`` for such runs).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import threading
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import message_chunk_to_message

from superstep_compat.errors import GraphDrained
from superstep_compat.runtime import RunControl
from superstep_compat.version import __version__ as langgraph_version
from superstep_server import serde
from superstep_server.checkpoints import delete_for_runs
from superstep_server.context_config import fitted_context, run_context
from superstep_server.state import (
    checkpoint_of,
    command_from_json,
    interrupts_by_task,
    status_after,
)
from superstep_server.task_times import TaskClock

__all__ = ["GRAPH_MODES", "SUPPORTED_MODES", "Cancelled", "RunContext", "execute_run"]

log = logging.getLogger("superstep.server")

SUPPORTED_MODES = (
    "values",
    "updates",
    "custom",
    "debug",
    "tasks",
    "checkpoints",
    "messages-tuple",
    "messages",
    "events",
    "tools",
    "lifecycle",
)
GRAPH_MODES = {"messages-tuple": "messages"}


class Cancelled(Exception):
    """The run was cancelled (``interrupt``) while it ran."""


class RunContext:
    """What a run needs from the server: the tables, graphs, streams and cancel flags."""

    def __init__(
        self,
        *,
        assistants: Any,
        threads: Any,
        runs: Any,
        graphs: Any,
        streams: Any,
    ) -> None:
        self.assistants = assistants
        self.threads = threads
        self.runs = runs
        self.graphs = graphs
        self.streams = streams
        self.cancel_flags: dict[str, threading.Event] = {}
        self.controls: dict[str, RunControl] = {}
        self.draining = False
        self.lock = threading.Lock()

    def cancel_flag(self, run_id: str) -> threading.Event:
        with self.lock:
            flag = self.cancel_flags.get(run_id)
            if flag is None:
                flag = self.cancel_flags[run_id] = threading.Event()
            return flag

    def drop_flag(self, run_id: str) -> None:
        with self.lock:
            self.cancel_flags.pop(run_id, None)

    def control(self, run_id: str) -> RunControl:
        """The drain switch of a run starting in this process (already drained when the
        process is shutting down), cancelled by the run's cancel flag: the worker stops the
        run's stream when it next sees a chunk, and a task of the run that ended after the
        cancel is then not kept, as the reference's asyncio cancel never lets it end
        (`RunControl.request_cancel`); `drop_control` when it ends."""
        control = RunControl(cancel=self.cancel_flag(run_id))
        with self.lock:
            self.controls[run_id] = control
            if self.draining:
                control.request_drain("shutdown")
        return control

    def drop_control(self, run_id: str) -> None:
        with self.lock:
            self.controls.pop(run_id, None)

    def drain(self, reason: str = "shutdown") -> int:
        """Ask every run of this process to stop at its next step boundary (its step in
        progress finishes and is checkpointed; the worker then puts the run back in the
        queue); runs that start afterwards stop at once. Returns how many were running."""
        with self.lock:
            self.draining = True
            controls = list(self.controls.values())
        for control in controls:
            control.request_drain(reason)
        return len(controls)


def _config(
    assistant: Mapping[str, Any], kwargs: Mapping[str, Any], row: Mapping[str, Any]
) -> dict[str, Any]:
    """The assistant's config under the run's, with the thread and the run named."""
    base = dict(assistant.get("config") or {})
    given = dict(kwargs.get("config") or {})
    config: dict[str, Any] = {**base, **given}
    configurable = {**(base.get("configurable") or {}), **(given.get("configurable") or {})}
    configurable["thread_id"] = row["thread_id"]
    configurable.setdefault("checkpoint_ns", "")
    for key, value in (kwargs.get("checkpoint") or {}).items():
        if value is not None and key != "thread_id":
            configurable[key] = value
    if kwargs.get("checkpoint_id"):
        configurable["checkpoint_id"] = kwargs["checkpoint_id"]
    configurable.setdefault("graph_id", assistant["graph_id"])
    configurable.setdefault("assistant_id", assistant["assistant_id"])
    configurable.setdefault("run_id", row["run_id"])
    config["configurable"] = configurable
    config["metadata"] = {
        # the run's metadata (which holds the config's): the reference's checkpoints keep it
        **(serde.loads(row["metadata"]) if row.get("metadata") else {}),
        **(config.get("metadata") or {}),
        "run_id": row["run_id"],
        "thread_id": row["thread_id"],
        "graph_id": assistant["graph_id"],
        "assistant_id": assistant["assistant_id"],
        "run_attempt": row["attempt"],
        # as the reference's run metadata (langgraph-api's stream.py): the LangGraph release
        # the graph runs on (the façade's, `superstep_compat.version`), where it is hosted
        # (always one's own servers here) and the API URL its LANGGRAPH_API_URL names (a
        # checkpoint's metadata keeps no None: unset, it is absent there as in the
        # reference's). Left out: langgraph_api_version (no langgraph-api here; /info has
        # Superstep's version) and langgraph_plan (a LangSmith licence tier)
        "langgraph_version": langgraph_version,
        "langgraph_host": "self-hosted",
        "langgraph_api_url": os.environ.get("LANGGRAPH_API_URL"),
    }
    return config


def _debug_payload(chunk: Any) -> Any:
    """A debug ``checkpoint`` chunk carries ``checkpoint``/``parent_checkpoint`` objects
    beside its configs, as the reference adds them."""
    if isinstance(chunk, Mapping) and chunk.get("type") == "checkpoint":
        payload = dict(chunk.get("payload") or {})
        payload["checkpoint"] = checkpoint_of(payload.get("config"))
        payload["parent_checkpoint"] = checkpoint_of(payload.get("parent_config"))
        return {**chunk, "payload": payload}
    return chunk


class _Relay:
    """Publishes a run's stream chunks as the SSE events the client asked for; keeps the
    root graph's last ``values`` chunk (the run's output)."""

    def __init__(
        self,
        run_id: str,
        publish: Any,
        user_modes: list[str],
        subgraphs: bool,
        protocol: bool = False,
    ) -> None:
        self.run_id = run_id
        self.protocol = protocol  # messages as v3 protocol events (`_protocol_messages`)
        self.publish = publish
        self.user_modes = user_modes
        self.subgraphs = subgraphs
        self.messages = _MessageAccumulator()
        self.output: Any = None
        self.clock = TaskClock()

    def chunk(self, ns: tuple[str, ...], mode: str, chunk: Any) -> None:
        if mode == "values" and not ns:
            self.output = chunk
        if mode == "tasks":
            self.clock.event(ns, chunk)
        wanted = [m for m in self.user_modes if GRAPH_MODES.get(m, m) == mode]
        if not wanted or (ns and not self.subgraphs):
            return
        suffix = f"|{'|'.join(ns)}" if ns else ""
        if mode == "messages" and self.protocol:
            for pair in _protocol_messages(chunk):
                self.publish(self.run_id, "messages" + suffix, serde.dumps(pair))
            return
        if mode == "messages":
            if "messages-tuple" in wanted:
                self.publish(self.run_id, "messages" + suffix, serde.dumps(chunk))
            if "messages" in wanted:
                for name, data in self.messages.add(chunk):
                    self.publish(self.run_id, name + suffix, serde.dumps(data))
            return
        data = _debug_payload(chunk) if mode == "debug" else chunk
        self.publish(self.run_id, mode + suffix, serde.dumps(data))

    def event(self, event: Mapping[str, Any]) -> None:
        self.publish(self.run_id, "events", serde.dumps(event))


def _protocol_messages(pair: Any) -> list[tuple[Any, Any]]:
    """A ``messages`` chunk of a v3 run as ``(protocol event, metadata)`` pairs: a chat
    model's streamed events come as they are (the façade's v3 messages handler emits them);
    a whole message a node returned is replayed as the events a live call gives
    (langchain-core's ``message_to_events``, as LangGraph's ``MessagesTransformer``)."""
    item, metadata = pair
    if isinstance(item, Mapping):
        return [(item, metadata)]
    from langchain_core.language_models._compat_bridge import message_to_events

    return [(dict(event), metadata) for event in message_to_events(item, message_id=item.id)]


async def _with_events(
    graph: Any,
    payload: Any,
    config: dict[str, Any],
    modes: list[str],
    options: dict[str, Any],
    relay: _Relay,
    cancel: threading.Event,
) -> None:
    """The ``events`` mode: LangChain's ``astream_events`` (v2) of the graph, each event
    relayed (but those tagged ``langsmith:hidden``), the root graph's ``on_chain_stream``
    chunks handled as the other modes' chunks (as the reference does)."""
    events = graph.astream_events(
        payload, config, version="v2", stream_mode=modes, subgraphs=True, **options
    )
    async for event in events:
        if cancel.is_set():
            raise Cancelled
        if "langsmith:hidden" in (event.get("tags") or ()):
            continue
        if event.get("event") == "on_chain_stream" and not event.get("parent_ids"):
            ns, mode, chunk = event["data"]["chunk"]
            relay.chunk(tuple(ns), mode, chunk)
        else:
            relay.event(event)


class _MessageAccumulator:
    """The ``messages`` stream mode as the reference writes it, from LangGraph's
    ``(message, metadata)`` pairs: ``messages/metadata`` (``{id: {"metadata": ...}}``) the
    first time a message id is seen, then ``messages/partial`` with the message so far for
    a streamed chunk, or ``messages/complete`` for a whole message; the message so far shown
    as a whole message (``"type": "ai"``, not a chunk's fields), as the reference shows it."""

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    def add(self, pair: Any) -> list[tuple[str, Any]]:
        message, metadata = pair
        message_id = getattr(message, "id", None)
        if message_id is None:
            return []
        out: list[tuple[str, Any]] = []
        is_chunk = type(message).__name__.endswith("Chunk")
        if message_id not in self.seen:
            self.seen[message_id] = message
            out.append(("messages/metadata", {message_id: {"metadata": metadata}}))
        elif is_chunk:
            self.seen[message_id] = self.seen[message_id] + message
        else:
            self.seen[message_id] = message
        name = "messages/partial" if is_chunk else "messages/complete"
        out.append((name, [message_chunk_to_message(self.seen[message_id])]))
        return out


def _continues(graph: Any, row: Mapping[str, Any]) -> bool:
    """A run on its second attempt (its worker died) whose first attempt already saved a
    checkpoint: it continues from there instead of taking its input again."""
    if int(row["attempt"]) <= 1:
        return False
    snapshot = graph.get_state({"configurable": {"thread_id": row["thread_id"]}})
    return bool((snapshot.metadata or {}).get("run_id") == row["run_id"])


def _publisher(ctx: RunContext, row: Mapping[str, Any], worker: str, resumable: bool) -> Any:
    """Publish to this process's stream of the run; when the run was asked for in another
    process (its ``origin`` is another pool), or is ``resumable`` (a client may rejoin it
    after this process forgot it, or restarted), also keep each event in the database,
    where followers read them."""
    pool = worker.rsplit("/", 1)[0]
    relayed = resumable or (row.get("origin") is not None and row.get("origin") != pool)
    seq = 0
    if relayed and int(row["attempt"]) > 1:  # after what the earlier attempts relayed
        try:
            seq = ctx.runs.next_event_seq(row["run_id"])
        except Exception:
            log.exception("run %s: cannot read its relayed events", row["run_id"])

    def publish(run_id: str, event: str, data: bytes) -> None:
        nonlocal seq
        ctx.streams.publish(run_id, event, data)
        if relayed:
            try:
                ctx.runs.add_event(run_id, seq, event, data)
            except Exception:  # a lost event must not fail the run
                log.exception("run %s: cannot relay event %d", run_id, seq)
        seq += 1

    return publish


def execute_run(ctx: RunContext, row: Mapping[str, Any], worker: str) -> None:
    """Run a claimed run to its end; never raises (a failure is the run's ``error``)."""
    scope = contextlib.ExitStack()  # holds a graph factory's context open until the end
    try:
        _execute(ctx, row, worker, scope)
    finally:
        try:
            scope.close()
        except Exception:
            log.exception("run %s: the graph factory's clean-up failed", row["run_id"])


def _execute(
    ctx: RunContext, row: Mapping[str, Any], worker: str, scope: contextlib.ExitStack
) -> None:
    run_id = row["run_id"]
    kwargs = serde.loads(row["kwargs"]) or {}
    publish = _publisher(ctx, row, worker, bool(kwargs.get("resumable")))
    cancel = ctx.cancel_flag(run_id)
    control = ctx.control(run_id)
    status = "success"
    output: Any = None
    failure: BaseException | None = None
    graph: Any = None
    relay: _Relay | None = None
    try:
        publish(run_id, "metadata", serde.dumps({"run_id": run_id, "attempt": row["attempt"]}))
        assistant = ctx.assistants.get(row["assistant_id"])
        config = _config(assistant, kwargs, row)
        context = run_context(assistant.get("context"), kwargs.get("context"))
        graph = scope.enter_context(
            ctx.graphs.open(assistant["graph_id"], "threads.create_run", config, context)
        )
        context = fitted_context(graph, context)
        if _continues(graph, row):
            payload: Any = None
        elif kwargs.get("command"):
            payload = command_from_json(kwargs["command"])
        else:
            payload = kwargs.get("input")
        user_modes: list[str] = list(kwargs.get("stream_mode") or ["values"])
        # values: the run's output; tasks: when each task ran (`superstep_server.task_times`)
        wanted = {GRAPH_MODES.get(m, m) for m in user_modes if m != "events"}
        modes = sorted(wanted | {"values", "tasks"})
        options: dict[str, Any] = {}
        for key in ("interrupt_before", "interrupt_after", "durability"):
            if kwargs.get(key) is not None:
                options[key] = kwargs[key]
        options["context"] = context  # {} too: a context schema's defaults, as LangGraph's
        if _takes_control(graph):
            options["control"] = control
        protocol = kwargs.get("stream_protocol") == "v3"
        relay = _Relay(run_id, publish, user_modes, bool(kwargs.get("subgraphs")), protocol)
        # each attempt of each task, retries included (the tasks stream names a task once)
        from superstep_compat._internal._constants import (
            CONFIG_KEY_ATTEMPT_OBSERVER,
            CONFIG_KEY_STREAM_MESSAGES_V2,
        )

        config["configurable"][CONFIG_KEY_ATTEMPT_OBSERVER] = relay.clock.attempt
        if protocol:  # chat models report v3 protocol events, as in LangGraph's v3 runs
            config["configurable"][CONFIG_KEY_STREAM_MESSAGES_V2] = True
            if _takes_v3_messages(graph):
                # the call's own "messages" are v3's events (a call asking for v1 chunks
                # drops the flag, as a graph streamed from a node of a v3 run does)
                options["v3_messages"] = True
        if "events" in user_modes:
            asyncio.run(_with_events(graph, payload, config, modes, options, relay, cancel))
        else:
            chunks = graph.stream(payload, config, stream_mode=modes, subgraphs=True, **options)
            try:
                for ns, mode, chunk in chunks:
                    if cancel.is_set():
                        raise Cancelled
                    relay.chunk(ns, mode, chunk)
            finally:
                close = getattr(chunks, "close", None)
                if callable(close):
                    close()
        output = relay.output
    except GraphDrained:
        # the process is stopping: the step in progress was committed; the run goes back
        # to the queue and its next attempt continues from that checkpoint (`_continues`)
        ctx.drop_control(run_id)
        _requeue(ctx, row, worker, relay)
        return
    except Cancelled:
        status = "interrupted"
        # as the reference: a cancelled run's result is the last values it streamed
        output = relay.output if relay is not None else None
    except Exception as e:
        status = "error"
        failure = e
        log.info("run %s failed: %s: %s", run_id, type(e).__name__, e)
        publish(run_id, "error", serde.dumps({"error": type(e).__name__, "message": str(e)}))
    ctx.drop_control(run_id)
    if relay is not None and not row.get("temporary"):
        try:
            relay.clock.save(ctx.runs.db, row["thread_id"], run_id)
        except Exception:  # the timings are for the viewer: never the run's failure
            log.exception("run %s: cannot keep its task times", run_id)
    _settle(ctx, row, worker, graph, status, output, failure)


def _takes_v3_messages(graph: Any) -> bool:
    """Whether the graph's ``stream`` takes the façade's private ``v3_messages`` option (its
    compiled graphs do: `superstep_compat.pregel._calls.RunOptions`)."""
    from superstep_compat.pregel import Pregel

    return isinstance(graph, Pregel)


def _takes_control(graph: Any) -> bool:
    """Whether the graph's ``stream`` takes a ``control`` (`RunControl`): the façade's
    compiled graphs and `superstep_server.engine_graphs.EngineGraph` do (both take their
    options as keywords, so their signatures do not name it), as does any graph whose
    ``stream`` names a ``control`` parameter."""
    from superstep_compat.pregel import Pregel
    from superstep_server.engine_graphs import EngineGraph

    if isinstance(graph, (Pregel, EngineGraph)):
        return True
    try:
        return "control" in inspect.signature(graph.stream).parameters
    except (TypeError, ValueError):
        return False


def _requeue(ctx: RunContext, row: Mapping[str, Any], worker: str, relay: _Relay | None) -> None:
    """A drained run back in the queue (``pending``, no worker), its stream left open: the
    followers in the process that took its request read what its next attempt relays."""
    run_id = row["run_id"]
    if relay is not None and not row.get("temporary"):
        try:
            relay.clock.save(ctx.runs.db, row["thread_id"], run_id)
        except Exception:
            log.exception("run %s: cannot keep its task times", run_id)
    try:
        if ctx.runs.release(run_id, worker):
            log.info("run %s: drained after a committed step, queued again", run_id)
    except Exception:  # its lease runs out and the sweeper queues it again
        log.exception("run %s: cannot queue it again", run_id)
    finally:
        ctx.drop_flag(run_id)


def _settle(
    ctx: RunContext,
    row: Mapping[str, Any],
    worker: str,
    graph: Any,
    status: str,
    output: Any,
    failure: BaseException | None,
) -> None:
    """Write the thread's status and values, then the run's end; close its stream. A run
    cancelled with ``rollback`` is deleted instead, with the checkpoints it wrote."""
    run_id, thread_id = row["run_id"], row["thread_id"]
    rollback = False
    if status == "interrupted":
        try:
            rollback = ctx.runs.cancel_requested(run_id) == "rollback"
            if rollback and not row.get("temporary"):
                delete_for_runs(ctx.threads.saver, thread_id, [run_id])
        except Exception:  # then it ends interrupted, its checkpoints kept
            log.exception("run %s: cannot roll it back", run_id)
            rollback = False
    error = None if failure is None else {"error": type(failure).__name__, "message": str(failure)}
    thread_update: dict[str, Any] = {"status": "error", "error": error}
    try:
        if graph is not None and not row.get("temporary"):
            snapshot = graph.get_state({"configurable": {"thread_id": thread_id}})
            thread_update = {
                "status": "error" if failure is not None else status_after(snapshot),
                # a thread rolled back to before its first checkpoint has no values again
                "values": None
                if rollback and snapshot.created_at is None
                else serde.jsonable(snapshot.values),
                "interrupts": interrupts_by_task(snapshot),
                "error": error,
            }
    except Exception:  # the run's own end must still be written
        log.exception("run %s: cannot read thread %s", run_id, thread_id)

    def update_thread(tx: Any) -> None:
        if not row.get("temporary"):
            ctx.threads.set_status(thread_id, tx=tx, **thread_update)

    result = {"__error__": error} if error is not None else serde.jsonable(output)
    if rollback:  # its values were taken back with its checkpoints
        result = None
    ended = False
    try:
        if rollback:
            ended = ctx.runs.discard(run_id, worker, then=update_thread)
        else:
            ended = ctx.runs.finish(run_id, worker, status, result, then=update_thread)
        if ended and row.get("temporary"):
            # a stateless run's thread (on_completion=delete); the run row stays a while
            ctx.threads.delete(thread_id, keep_runs=True)
    except Exception:
        log.exception("run %s: cannot record its end", run_id)
    finally:
        ctx.drop_flag(run_id)
        ctx.streams.close(run_id, result)
    if ended and row.get("webhook") and not rollback:  # after the waiters have their answer
        _notify(str(row["webhook"]), row, status, result)


def _notify(url: str, row: Mapping[str, Any], status: str, result: Any) -> None:
    """POST the ended run (the API's run object with its ``status`` and ``values``, the
    output) to its webhook; a failing webhook is logged, never the run's failure."""
    import httpx

    from superstep_server.runs import run_out

    body = {**run_out(dict(row)), "status": status, "values": result}
    try:
        httpx.post(
            url,
            content=serde.dumps(body),
            headers={"content-type": "application/json"},
            timeout=10.0,
        )
    except httpx.HTTPError as e:
        log.warning("run %s: webhook %s failed: %s", row["run_id"], url, e)
