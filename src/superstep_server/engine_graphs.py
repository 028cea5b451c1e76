"""Engine graphs served as LangGraph graphs: `EngineGraph` gives any compiled engine graph
(a `superstep_core.graph.CompiledGraph`, with its effect handlers) the methods the server
calls on a served graph (``stream``, ``get_state``, ``get_state_history``), driving it with
the engine's own durable runner (`superstep_core.host.durable.DurableRunner`): one
checkpoint per superstep in the server's saver, under the thread's id. Nothing here
schedules anything: each superstep is `DurableExecution.run` with ``steps=1``, the engine's
step mode, so the run can stop between supersteps when the server cancels it.

What differs between kinds of engine graph (a plain graph, a workflow document, a plan) is a
`ServedKind`: how a run's input starts the execution, how a ``Command(resume=...)`` answers an
interrupt, which channels a client sees as the thread's values, and which steps are left when
the execution can go no further.

How engine runs look through the API:

- ``values`` chunks: the visible values after the input and after each committed superstep;
  ``updates`` chunks: one ``{node: {channel: value}}`` per activation that ran in a
  superstep, with the visible channels it wrote (the values it wrote, before the channels'
  strategies), as LangGraph streams one per task; a run that stops at an interrupt ends
  with an ``updates`` chunk ``{"__interrupt__": [...]}`` and its last ``values`` carry
  ``__interrupt__``, as LangGraph's do. ``tasks`` chunks: each activation of a superstep,
  started then with its result (both once the superstep committed); ``checkpoints``
  chunks: the checkpoint written after the input and after each superstep, as a snapshot;
  ``debug``: both, wrapped as LangGraph's (``type`` ``task``/``task_result``/
  ``checkpoint``). ``custom`` and ``messages`` give no chunks (engine nodes have no stream
  writer and stream no model tokens).
- An interrupt's id is the suspended activation's id; ``Command(resume=value)`` answers the
  only pending interrupt, ``Command(resume={id: value, ...})`` answers them by id.
- A node that fails ends the run with `EngineRunError` (the run's and the thread's ``error``);
  the execution keeps its last checkpoint.
- A thread's snapshot: ``next`` names the suspended activations' nodes, the queued ones, the
  other live ones (awaiting effects, a retry, or listening), and what the kind says is left
  (a blocked plan's steps that can never run): a thread whose execution stopped short of its
  end without an error (a cancelled run's too) is ``interrupted``, as the reference shows a
  thread stopped at a breakpoint, never ``idle``.
- A run given a ``control`` (`StopRequest`) stops after the superstep in progress when it
  is requested, raising ``GraphDrained`` (the server's graceful shutdown); the next run on
  the thread with no input continues it.
- A thread's state is written through the API (``update_state``) as one audited edit of the
  engine (`DurableExecution.edit`) by the actor the graph's ``edits`` names, which may
  write the channels listed there; without ``edits`` the API answers 422 saying so.

Must never be imported by the engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from superstep_core.graph import CompiledGraph
from superstep_core.host import Handler, StopRequest
from superstep_core.host.durable import DurableExecution, DurableRunner
from superstep_core.host.thread_checkpoints import StoredStep, ThreadCheckpoints
from superstep_core.runtime import Execution, Status
from superstep_server.served_kind import ServedKind

__all__ = ["EngineGraph", "EngineRunError", "ServedKind"]

INTERRUPT = "__interrupt__"


class EngineRunError(RuntimeError):
    """A node of an engine graph failed: the message names the node, the error type and
    the engine's message."""


class EngineGraph:
    """An engine graph (``graph``, run by ``kind``) with the served-graph methods. The server
    sets ``checkpointer`` (its saver) and ``store`` before use."""

    def __init__(
        self, graph: CompiledGraph, kind: ServedKind | None = None, *, name: str | None = None
    ) -> None:
        self.graph = graph
        self.kind = kind or ServedKind()
        self.name = name or graph.name
        self.checkpointer: Any = None
        self.store: Any = None
        # the actor the API's state updates are audited as, and the channels it may write
        # ("*": all); None: the API cannot write the state
        self.edits: tuple[str, str | tuple[str, ...]] | None = None
        self.nodes: dict[str, None] = dict.fromkeys(graph.nodes)

    def __repr__(self) -> str:
        return f"EngineGraph({self.name!r}, kind={self.kind.name!r})"

    # --- running -------------------------------------------------------------------------------

    def stream(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        stream_mode: Any = "values",
        subgraphs: bool = False,
        control: StopRequest | None = None,
        **options: Any,
    ) -> Iterator[Any]:
        """Run the thread of ``config`` (start it on ``input``, answer its interrupts with a
        ``Command(resume=...)``, or continue it on ``None``), yielding ``(ns, mode, chunk)``
        when ``subgraphs`` (the server's form), else ``(mode, chunk)``; without the mode when
        ``stream_mode`` is one mode's name. With ``control`` (a `StopRequest`, such as the
        façade's `RunControl`), a request ends the run after the superstep in progress, which
        is committed first: ``GraphDrained``, as a façade graph's drained run (continue the
        thread with no input). Raises
        `EngineRunError` when a node fails, ``ValueError`` for input it cannot take and for
        ``interrupt_before``/``interrupt_after`` (an engine graph pauses only where its own
        nodes ask: refused rather than silently ignored)."""
        for option in ("interrupt_before", "interrupt_after"):
            if options.get(option):
                raise ValueError(
                    f"{self.kind.name} {self.name!r} runs on the engine, which has no "
                    f"breakpoints: {option} cannot be used; it pauses where its nodes ask"
                )
        single = isinstance(stream_mode, str)  # then chunks come without their mode, as LangGraph's
        modes = [stream_mode] if single else list(stream_mode)
        run = self._run(
            input, _thread(config), (config or {}).get("metadata"), control, frozenset(modes)
        )
        for mode, chunk in run:
            if mode in modes:
                item = (chunk,) if single else (mode, chunk)
                out = ((), *item) if subgraphs else item
                yield out[0] if len(out) == 1 else out

    def astream_events(self, *args: Any, **kwargs: Any) -> Any:
        """Refused: the ``events`` stream mode is LangChain's callbacks of runnables, which
        engine nodes are not."""
        raise ValueError(
            f"{self.kind.name} {self.name!r} runs on the engine, whose nodes are not LangChain "
            f"runnables: stream it with values or updates, not events"
        )

    def invoke(self, input: Any, config: Mapping[str, Any] | None = None) -> Any:
        """Run like `stream` and give the last values."""
        last: Any = None
        for mode, chunk in self._run(input, _thread(config), None):
            if mode == "values":
                last = chunk
        return last

    def _run(
        self,
        input: Any,
        thread_id: str,
        run_meta: Any,
        control: StopRequest | None = None,
        modes: frozenset[str] = frozenset(("values", "updates")),
    ) -> Iterator[tuple[str, Any]]:
        outcomes: list[tuple[Execution, Any]] = []
        handlers, release = self.kind.open()
        try:
            opened = self._open(input, thread_id, run_meta, handlers, outcomes)
        except BaseException:
            release()
            raise
        with opened.dx:
            try:
                yield from self._drive(
                    opened.dx, outcomes, _resume_of(input), opened.started, control, modes
                )
            finally:
                release()

    def _open(
        self,
        input: Any,
        thread_id: str,
        run_meta: Any,
        handlers: Mapping[str, Handler],
        outcomes: list[tuple[Execution, Any]],
    ) -> _Opened:
        def noted(ex: Execution, outcome: Any) -> None:
            outcomes.append((ex, outcome))

        runner = DurableRunner(self.checkpointer, handlers, on_step=noted)
        metadata = {"run_id": run_meta["run_id"]} if isinstance(run_meta, Mapping) else {}
        if not runner.exists(thread_id):
            if _is_command(input):
                raise ValueError(
                    f"thread {thread_id!r} has not run yet: there is no interrupt to answer; "
                    f"start it with an input"
                )
            return _Opened(self.kind.start(runner, self.graph, thread_id, input, metadata), True)
        if _is_command(input) and (input.update is not None or input.goto not in ((), None)):
            raise ValueError(
                f"{self.kind.name} {self.name!r} runs on the engine: a command may resume its "
                f"interrupts, not write its state (update) or move it (goto)"
            )
        if input is not None and not _is_command(input):
            raise ValueError(
                f"thread {thread_id!r} already runs {self.kind.name} {self.name!r}: an engine "
                f"execution takes its input once; answer its interrupts with a command, "
                f"continue it with no input, or use a new thread"
            )
        dx = runner.recover(self.graph, thread_id)
        dx.metadata.update(metadata)  # its next checkpoints name the run that wrote them
        return _Opened(dx, False)

    def _drive(
        self,
        dx: DurableExecution,
        outcomes: list[tuple[Execution, Any]],
        resume: Any,
        started: bool,
        control: StopRequest | None = None,
        modes: frozenset[str] = frozenset(("values", "updates")),
    ) -> Iterator[tuple[str, Any]]:
        ex = dx.execution
        if started:
            yield "values", self.kind.values(ex.values)
            yield from self._checkpoint_chunks(dx, modes)
        if ex.failure is None:
            dx.run(steps=0)  # effects lost by a dead worker, timers already due
        if resume is not None:
            self._resume(ex, resume)
        while ex.failure is None and ex.status not in (Status.COMPLETED, Status.SUSPENDED):
            before = ex.step
            dx.run(steps=1)
            for done, outcome in outcomes:
                if outcome.committed and outcome.delivered:
                    tasks = self._tasks(done, outcome)
                    if modes & {"tasks", "debug"}:
                        yield from _task_chunks(tasks, done.step, modes)
                    for _aid, node, _given, update, _waits in tasks:
                        yield "updates", {node: update}
                    yield "values", self.kind.values(done.values)
                    yield from self._checkpoint_chunks(dx, modes)
            outcomes.clear()
            if ex.step == before and not ex.queue:
                break  # only timers far ahead are left: the run ends, the thread waits
            if (
                control is not None
                and control.requested
                and ex.failure is None
                and ex.status not in (Status.COMPLETED, Status.SUSPENDED)
            ):
                from superstep_compat.errors import GraphDrained

                raise GraphDrained(control.reason or "shutdown")
        if ex.failure is not None:
            f = ex.failure
            raise EngineRunError(f"node {f.node!r} failed: {f.error_type}: {f.message}")
        pending = _interrupts(ex.interrupts)
        if pending:
            yield "updates", {INTERRUPT: pending}
            yield "values", {**self.kind.values(ex.values), INTERRUPT: pending}

    def _resume(self, ex: Execution, resume: Any) -> None:
        asked = dict(ex.interrupts)
        if not asked:
            raise ValueError(f"thread {ex.execution_id!r} has no pending interrupt to resume")
        if isinstance(resume, Mapping) and resume and set(resume) <= set(asked):
            answers = dict(resume)  # by interrupt id
        elif len(asked) == 1:
            answers = {next(iter(asked)): resume}
        else:
            ids = ", ".join(asked)
            raise ValueError(
                f"thread {ex.execution_id!r} waits on several interrupts ({ids}): resume "
                f"with a mapping of interrupt id -> value"
            )
        # every answer is checked before any is given: a bad one changes nothing
        checked = {aid: self.kind.answer(asked[aid], value) for aid, value in answers.items()}
        for aid, value in checked.items():
            ex.resume(value, aid)

    def _checkpoint_chunks(
        self, dx: DurableExecution, modes: frozenset[str]
    ) -> Iterator[tuple[str, Any]]:
        """The ``checkpoints`` chunk of the checkpoint just written (LangGraph's shape:
        ``config``, ``parent_config``, ``values``, ``metadata``, ``next``, ``tasks`` with
        ``id``/``name``/``interrupts``/``state``), and its ``debug`` twin (``type``
        ``checkpoint``); read back only when one of those modes was asked for."""
        if not modes & {"checkpoints", "debug"}:
            return
        snapshot = self.get_state(_config(dx.thread_id, None))
        chunk = {
            "config": snapshot.config,
            "parent_config": snapshot.parent_config,
            "values": snapshot.values,
            "metadata": snapshot.metadata,
            "next": list(snapshot.next),
            "tasks": [
                {"id": t.id, "name": t.name, "interrupts": t.interrupts, "state": None}
                for t in snapshot.tasks
            ],
        }
        if "checkpoints" in modes:
            yield "checkpoints", chunk
        if "debug" in modes:
            step = (snapshot.metadata or {}).get("step", dx.execution.step)
            yield "debug", _debug("checkpoint", step, chunk)

    def _tasks(
        self, ex: Execution, outcome: Any
    ) -> list[tuple[str, str, Any, dict[str, Any] | None, list[Any]]]:
        """``(activation id, node, input, update, interrupts)`` per activation that ran in
        the superstep, in the order they were delivered: its event's payload as input, the
        visible channels it wrote (the values it wrote, before the channels' strategies;
        ``None`` when none) and the interrupt it waits on, if any."""
        by_writer: dict[str, dict[str, Any]] = {}
        for channel, writes in outcome.writes.items():
            for writer, value in writes:
                by_writer.setdefault(writer, {})[channel] = value
        asked = dict(ex.interrupts)
        tasks: list[tuple[str, str, Any, dict[str, Any] | None, list[Any]]] = []
        seen: set[str] = set()
        for recipient, event in outcome.delivered:
            if recipient in seen:
                continue
            seen.add(recipient)
            inst = ex.instances.get(recipient)
            # an activation that completed is gone; its id is derived from its node's key
            node = inst.node if inst is not None else recipient.rpartition(":")[0]
            if node not in self.nodes:
                continue
            update = self.kind.update(by_writer.get(recipient, {})) or None
            waits = _interrupts([(recipient, asked[recipient])]) if recipient in asked else []
            tasks.append((recipient, node, _event_input(event), update, waits))
        return tasks

    # --- reading -------------------------------------------------------------------------------

    def get_input_jsonschema(self, config: Any = None) -> Any:
        """JSON Schema of a run's input (the kind's; see `ServedKind.schemas`)."""
        return self.kind.schemas(self.graph)[0]

    def get_output_jsonschema(self, config: Any = None) -> Any:
        """JSON Schema of a run's output: the thread's values."""
        return self.kind.schemas(self.graph)[1]

    def get_state_jsonschema(self) -> Any:
        """JSON Schema of the thread's values (``state_schema`` of ``/schemas``)."""
        return self.kind.schemas(self.graph)[2]

    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> Any:
        """The thread's snapshot at the checkpoint ``config`` names (the latest by default);
        an empty snapshot for a thread with no (engine) checkpoint there."""
        thread_id = _thread(config)
        stored = ThreadCheckpoints(self.checkpointer, thread_id)
        if not stored.is_engine_thread():
            return _empty(thread_id)
        step = stored.load((config.get("configurable") or {}).get("checkpoint_id"))
        if step is None:
            return _empty(thread_id)
        found = self.checkpointer.get_tuple(_config(thread_id, step.checkpoint_id))
        ts = None if found is None else found.checkpoint.get("ts")
        return self._snapshot(thread_id, step, ts)

    def get_state_history(
        self,
        config: Mapping[str, Any],
        *,
        filter: Any = None,
        before: Any = None,
        limit: int | None = None,
    ) -> Iterator[Any]:
        """The thread's snapshots, newest first, whose metadata holds ``filter``, older than
        ``before``, at most ``limit`` (each decoded only when reached)."""
        thread_id = _thread(config)
        stored = ThreadCheckpoints(self.checkpointer, thread_id)
        if not stored.is_engine_thread():
            return
        older_than = ((before or {}).get("configurable") or {}).get("checkpoint_id")
        times = {
            t.config["configurable"]["checkpoint_id"]: t.checkpoint.get("ts")
            for t in self.checkpointer.list(_config(thread_id, None))
        }
        count = 0
        for step in reversed(stored.history()):
            if limit is not None and count >= limit:
                return
            if older_than is not None and step.checkpoint_id >= older_than:
                continue
            meta = {**step.metadata, "step": step.step}
            if filter and any(meta.get(k) != v for k, v in filter.items()):
                continue
            count += 1
            yield self._snapshot(thread_id, step, times.get(step.checkpoint_id))

    def get_graph(self, config: Any = None, *, xray: Any = False) -> _Drawing:
        """The graph as the API draws one (``/assistants/{id}/graph``): its nodes between
        ``__start__`` and ``__end__``, an edge per connection, branch target (conditional)
        and join source (to the join's target)."""
        g = self.graph
        edges: list[dict[str, Any]] = [{"source": "__start__", "target": k} for k in g.starts]
        edges += [{"source": c.source, "target": c.target} for c in g.connects]
        edges += [
            {"source": b.source, "target": t, "conditional": True}
            for b in g.branches
            for t in b.targets
        ]
        edges += [{"source": s, "target": j.target} for j in g.joins for s in j.sources]
        edges += [{"source": k, "target": "__end__"} for k in g.ends]
        nodes: list[dict[str, Any]] = [{"id": "__start__", "type": "schema", "data": "__start__"}]
        nodes += [{"id": k, "type": "runnable", "data": {"id": [k], "name": k}} for k in g.nodes]
        if g.ends:
            nodes.append({"id": "__end__", "type": "schema", "data": "__end__"})
        return _Drawing({"nodes": nodes, "edges": edges})

    def update_state(self, config: Any, values: Any, as_node: str | None = None) -> Any:
        """Write ``values`` (channel -> value, each replacing the channel's value through its
        strategy) to the thread's latest checkpoint as one audited edit (the engine's
        `DurableExecution.edit`) by the actor of ``edits``: its checkpoint names the actor,
        its permission and the time. With ``as_node`` the node's edges fire as if it had
        just run; a later run with no input continues from there. Returns the new
        checkpoint's config. Raises ``ValueError`` when the graph has no ``edits`` (the
        engine's edits are audited: someone must be allowed to make them), for a thread
        that has not run, at an older checkpoint (the engine edits the latest only), and
        for a channel the actor may not write (`PermissionDeniedError`'s message)."""
        from superstep_core.errors import SuperstepError

        thread_id = _thread(config)
        if self.edits is None:
            raise ValueError(
                f"{self.kind.name} {self.name!r} runs on the engine, whose state edits are "
                f"audited: give its langgraph.json entry "
                f'"edits": {{"actor": "<who>", "channels": "*"}} to let the API make them'
            )
        actor, channels = self.edits
        runner = DurableRunner(
            self.checkpointer,
            permissions={actor: channels if channels == "*" else list(channels)},
        )
        if not runner.exists(thread_id):
            raise ValueError(f"thread {thread_id!r} has not run {self.name!r}: nothing to edit")
        at = ((config or {}).get("configurable") or {}).get("checkpoint_id")
        latest = ThreadCheckpoints(self.checkpointer, thread_id).load(None)
        if at and latest is not None and at != latest.checkpoint_id:
            raise ValueError(
                f"checkpoint {at!r} is not the thread's latest: an engine execution is "
                f"edited at its latest checkpoint only"
            )
        if not isinstance(values, Mapping) or not values:
            raise ValueError("values: an object of channel -> value to write")
        if as_node is not None and as_node not in self.nodes:
            raise ValueError(f"as_node: {as_node!r} is not a node of {self.name!r}")
        with runner.recover(self.graph, thread_id) as dx:
            try:
                dx.edit(dict(values), actor=actor, as_node=as_node)
            except SuperstepError as e:  # PermissionDeniedError, an undeclared channel
                raise ValueError(str(e)) from None
        written = ThreadCheckpoints(self.checkpointer, thread_id).load(None)
        assert written is not None
        return _config(thread_id, written.checkpoint_id)

    def bulk_update_state(self, config: Any, supersteps: Any) -> Any:
        raise ValueError(
            f"{self.kind.name} {self.name!r} runs on the engine: a thread starts with a run's "
            f"input, not seeded supersteps"
        )

    def workflow(self, thread_id: str) -> dict[str, Any] | None:
        """``GET /threads/{id}/workflow``: the kind's workflow panel for the thread (a
        document's or a plan's run), ``None`` when the kind has none or the thread has no
        engine checkpoint."""
        runner = DurableRunner(self.checkpointer)
        if not runner.exists(thread_id):
            return None
        return self.kind.workflow(runner, thread_id)

    def _snapshot(self, thread_id: str, step: StoredStep, ts: str | None) -> Any:
        """The `StateSnapshot` of one stored engine checkpoint."""
        from superstep_compat.types import PregelTask, StateSnapshot

        state = DurableRunner(self.checkpointer).load_state(thread_id, step.checkpoint_id)
        suspended = [i for i in state.instances if i.state == "suspended"]
        pending = _interrupts([(i.id, i.interrupt) for i in suspended])
        tasks = [
            PregelTask(i.id, i.node, (), None, (p,))
            for i, p in zip(suspended, pending, strict=True)
        ]
        if state.failure is not None:
            f = state.failure
            error = EngineRunError(f"{f.error_type}: {f.message}")
            tasks.append(PregelTask(f"failed:{f.node}", f.node, (), error))
        queued = [n for n, _ in state.queue if n in self.nodes]
        # activations still live: awaiting their effects' results, a retry's backoff, or
        # listening; a run stopped (cancelled, drained) between their supersteps left them
        asking = {i.id for i in suspended}
        live = [i.node for i in sorted(state.instances, key=lambda i: i.seq) if i.id not in asking]
        unfinished = state.queue or suspended or live
        left = () if unfinished else self.kind.left(state.values)
        return StateSnapshot(
            self.kind.values(state.values),
            tuple(dict.fromkeys([*(i.node for i in suspended), *queued, *live, *left])),
            _config(thread_id, step.checkpoint_id),
            {**step.metadata, "step": step.step},
            ts,
            None if step.parent_id is None else _config(thread_id, step.parent_id),
            tuple(tasks),
            tuple(pending),
        )


@dataclass(frozen=True)
class _Drawing:
    drawn: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self.drawn


@dataclass(frozen=True)
class _Opened:
    dx: DurableExecution
    started: bool  # a new execution (else one recovered from the thread's checkpoints)


def _event_input(event: Any) -> Any:
    """A task's ``input`` in the ``tasks`` mode: the payload an activation was started (or
    sent) with, an effect's result, a resume's value; the event's fields otherwise."""
    for name in ("payload", "value"):
        if hasattr(event, name):
            return getattr(event, name)
    if dataclasses.is_dataclass(event) and not isinstance(event, type):
        return dataclasses.asdict(event)
    return None


def _debug(kind: str, step: int, payload: Any) -> dict[str, Any]:
    """A ``debug`` chunk as LangGraph's: ``step``, ``timestamp`` (ISO, UTC), ``type``,
    ``payload``."""
    return {
        "step": step,
        "timestamp": datetime.now(UTC).isoformat(),
        "type": kind,
        "payload": payload,
    }


def _task_chunks(
    tasks: list[tuple[str, str, Any, dict[str, Any] | None, list[Any]]],
    step: int,
    modes: frozenset[str],
) -> Iterator[tuple[str, Any]]:
    """The ``tasks`` chunks of a committed superstep (each activation's start, with its
    ``input``, then its result), and their ``debug`` twins (``task``, ``task_result``). Both
    come once the superstep committed: an engine node is a step of the superstep's reducer,
    which runs as a whole. A task's id is its activation's, which may run in several
    supersteps (started, then given its effect's result); ``triggers`` is empty (an
    activation is started by an event, not by channels)."""
    starts = [
        {"id": aid, "name": node, "input": given, "triggers": ()}
        for aid, node, given, _update, _waits in tasks
    ]
    results = [
        {"id": aid, "name": node, "error": None, "result": update or {}, "interrupts": waits}
        for aid, node, _given, update, waits in tasks
    ]
    for kind, chunks in (("task", starts), ("task_result", results)):
        for chunk in chunks:
            if "tasks" in modes:
                yield "tasks", chunk
            if "debug" in modes:
                yield "debug", _debug(kind, step, chunk)


def _resume_of(input: Any) -> Any:
    return getattr(input, "resume", None) if _is_command(input) else None


def _config(thread_id: str, checkpoint_id: str | None) -> Any:
    configurable = {"thread_id": thread_id, "checkpoint_ns": ""}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def _empty(thread_id: str) -> Any:
    from superstep_compat.types import StateSnapshot

    return StateSnapshot({}, (), {"configurable": {"thread_id": thread_id}}, {}, None, None, (), ())


def _interrupts(asked: list[tuple[str, Any]]) -> list[Any]:
    from superstep_compat.types import Interrupt

    return [Interrupt(value, id=aid) for aid, value in asked]


def _is_command(value: Any) -> bool:
    return type(value).__name__ == "Command" and hasattr(value, "resume")


def _thread(config: Mapping[str, Any] | None) -> str:
    thread_id = ((config or {}).get("configurable") or {}).get("thread_id")
    if not isinstance(thread_id, str) or not thread_id:
        raise ValueError("an engine graph runs on a thread: give configurable.thread_id")
    return thread_id
