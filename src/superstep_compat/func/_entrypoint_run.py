"""One run of an `@entrypoint` graph: the façade's `GraphRun` (owned, given the functional
API's input checkpoint and task journal) and the projection of its dict-shaped values and
chunks onto the function's single return value (with the chunks LangGraph emits around
interrupts).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from superstep_compat.errors import UnknownInterruptError
from superstep_compat.func._entrypoint_policy import EntrypointPolicy
from superstep_compat.func._journal import TaskJournal, resolve_durability
from superstep_compat.func._runner import END_CHANNEL, START_CHANNEL
from superstep_compat.pregel._calls import (
    SKIP,
    GraphCall,
    RunOptions,
    keeps_v1_messages,
    legacy_durability,
    messages_config,
    printed_modes,
    streams_v3_messages,
    warn_unsaved_durability,
)
from superstep_compat.pregel._live import streams_live
from superstep_compat.pregel._output import _modes, _shape
from superstep_compat.pregel._run import Event, GraphRun
from superstep_compat.pregel._run_input import INPUT_EVENT
from superstep_compat.types import Command, GraphOutput, Interrupt
from superstep_core.node import External
from superstep_core.runtime import Execution

if TYPE_CHECKING:  # the graph creates its runs; only its type is named here
    from superstep_compat.func._entrypoint import EntrypointGraph

INTERRUPT = "__interrupt__"


class EntrypointRun:
    """One run of an `@entrypoint` graph: it owns the `GraphRun` that drives the function's
    one-node graph, gives it the functional API's kind of run (`RunKind`: the task journal,
    an unfinished call continued, the chunks a parent sees) and its checkpoints'
    `EntrypointPolicy`, and projects its dict-shaped chunks onto the function's return value.

    The input checkpoint keeps the input (channel ``__start__``, as LangGraph's does), so a
    thread whose call never finished (its process died, or the function raised) can be
    continued: ``invoke(None, config)`` sends the input again, and the task calls that
    finished before, saved as pending writes of that checkpoint, return their results without
    running.
    """

    fresh_resume_starts = False  # a Command on a new thread is the function's input

    def __init__(
        self,
        graph: EntrypointGraph,
        input: Any,
        config: Any,
        *,
        durability: str | None,
        **kw: Any,
    ) -> None:
        self.graph = graph
        self.current: Any = None
        self.held: list[Event] = []
        # the node's task result follows its updates chunk: the result it reports, once seen
        self.node_result: dict[str, Any] | None = None
        self.run = run = GraphRun(graph, input, config, durability=durability, kind=self, **kw)
        # (the run's own durability stays as given: none given writes as "sync", see README)
        resolved = resolve_durability(durability, run.config)
        run.recorder.step_writes = resolved != "exit"
        self.journal = TaskJournal.for_run(run.saver, run.thread_id, run.ns, durability=resolved)
        run.recorder.use(EntrypointPolicy(graph.spec, graph.node_name, self.journal))

    @property
    def interrupts(self) -> list[Interrupt[Any]]:
        """The interrupts the run stopped on."""
        return self.run.interrupts

    def task_options(self) -> dict[str, Any]:
        return {"journal": self.journal}  # the runner's: the task calls' saved results

    def chunks(self) -> Iterator[Event]:
        """The projected events of the whole run."""
        yield from self.project(self.run.events())
        yield from self._release()

    async def achunks(self) -> AsyncIterator[Event]:
        journal = self.journal
        ended = False
        try:
            async for event in self.run.aevents():
                for projected in self.project((event,)):
                    yield projected
            ended = True
        finally:
            if journal is not None:  # what a stopping step handed to the background
                await journal.asettle(raising=ended)
        for projected in self._release():
            yield projected

    def prepared(self, ex: Execution) -> None:
        """A resume needs a checkpoint; an unfinished call is continued (`RunKind`)."""
        run = self.run
        inp = run.input
        # (a Command on a new thread is the function's input, as LangGraph's: `RunSetup`)
        resuming = inp is None or (
            isinstance(inp, Command) and inp.resume is not None and run.record is not None
        )
        if inp is None and run.record is None:
            raise UnknownInterruptError(
                f"entrypoint {self.graph.node_name!r}: nothing to resume on thread "
                f"{run.thread_id!r}: it has no checkpoint. Call it with an input first; "
                "Command(resume=...) answers an interrupt() of an earlier call "
                "(and needs a checkpointer).",
                reason="not_pending",
            )
        self.current = run.values.of(ex.values).get(END_CHANNEL)
        if resuming:  # (the driver has shown the state it continues from)
            self._restart_unfinished(ex)
        if self.journal is not None and run.record is not None:
            self.journal.attach(run.record.checkpoint_id, fresh=False, read=run.record.pending)

    def _restart_unfinished(self, ex: Execution) -> None:
        """A checkpoint whose call never finished (the process died, or the function raised)
        keeps the call due next but no engine work: send its input again. An interrupted
        call is not unfinished: it waits for its answer."""
        record = self.run.record
        if record is None or self.graph.node_name not in record.next:
            return
        if ex.queue or ex.instances or START_CHANNEL not in record.values:
            return
        ex.send(External(INPUT_EVENT, record.values[START_CHANNEL]))

    def project(self, events: Iterable[Event]) -> Iterator[Event]:
        """Map the driver's events onto the functional API's chunk shapes and order: the
        node's task-result events follow its updates chunk (and the interrupt chunks)."""
        node_name = self.graph.node_name
        for event in events:
            _, mode, data = event
            if self._is_node_result(mode, data):
                self.held.append(event)
                if self.node_result is not None:
                    yield from self._release(self.node_result or None)
            elif mode != "updates" or not isinstance(data, Mapping):
                yield from self.forwarded(event)
            elif INTERRUPT in data:
                yield from self.forwarded(event)
                yield from self._release()
                self.node_result = {}
            elif node_name in data:
                yield event
                self.node_result = {END_CHANNEL: data[node_name]}
                yield from self._release(self.node_result)
            else:
                yield event

    def forwarded(self, event: Event) -> Iterator[Event]:
        """The functional API's shapes of ``event`` (`RunKind`): what a parent streaming
        this run's events sees (an entrypoint invoked in a node, ``subgraphs=True``; the
        task results in the order they arrive: the node invoking it waits anyway), and what
        `project` shows of all but the node's results and updates."""
        ns, mode, data = event
        if mode == "values":
            if isinstance(data, Mapping) and INTERRUPT in data:
                return
            yield ns, mode, data.get(END_CHANNEL) if isinstance(data, Mapping) else data
        elif mode == "updates" and isinstance(data, Mapping) and INTERRUPT in data:
            yield event
            merged = {INTERRUPT: data[INTERRUPT]}
            if isinstance(self.current, Mapping):
                merged.update(self.current)
            yield ns, "values", merged
        elif mode in ("checkpoints", "debug"):
            yield ns, mode, _checkpoint_values(mode, data)
        else:
            yield event

    def _is_node_result(self, mode: str, data: Any) -> bool:
        if mode == "debug" and isinstance(data, Mapping) and data.get("type") == "task_result":
            data = data.get("payload")
        elif mode != "tasks":
            return False
        return (
            isinstance(data, Mapping)
            and data.get("name") == self.graph.node_name
            and "result" in data
        )

    def _release(self, result: Any = None) -> Iterator[Event]:
        held, self.held = self.held, []
        for ns, mode, data in held:
            payload = data["payload"] if mode == "debug" else data
            if result is not None and payload.get("error") is None:
                payload = {**payload, "result": result}
            yield ns, mode, {**data, "payload": payload} if mode == "debug" else payload


def _checkpoint_values(mode: str, data: Any) -> Any:
    """A checkpoint event's ``values`` as the functional API shows them: the return value."""
    if mode == "debug":
        if not isinstance(data, Mapping) or data.get("type") != "checkpoint":
            return data
        return {**data, "payload": _checkpoint_values("checkpoints", data["payload"])}
    if isinstance(data, Mapping) and isinstance(data.get("values"), Mapping):
        return {**data, "values": data["values"].get(END_CHANNEL)}
    return data


class _Latest:
    """What `invoke` returns, tracked over the projected events."""

    def __init__(self) -> None:
        self.value: Any = None
        self.seen = False

    def see(self, event: Event) -> None:
        _, mode, data = event
        if mode == "values" and not (isinstance(data, Mapping) and INTERRUPT in data):
            self.value = data
            self.seen = True

    def final(self) -> Any:
        """What the graph's callback run ends with: the last return value seen."""
        return self.value

    def output(self, run: EntrypointRun, version: str) -> Any:
        value = self.value if self.seen else run.current
        interrupts = list(run.interrupts)
        if version == "v2":
            return GraphOutput(value, tuple(interrupts))
        if not interrupts:
            return value
        out: dict[str, Any] = dict(value) if isinstance(value, Mapping) else {}
        out[INTERRUPT] = interrupts
        return out


class EntrypointCall(GraphCall):
    """One call of an `@entrypoint` graph for `Pregel`'s drivers: its runs are `EntrypointRun`s, its
    events the projected ones, and ``invoke`` returns the last return value (a mode other
    than "values": the list of its stream's chunks). Every run is live (its tasks report
    their updates as they end) and shows every chunk of the modes asked, subgraphs' too."""

    graph: EntrypointGraph

    def __init__(
        self, graph: EntrypointGraph, input: Any, options: RunOptions, *, invoke: bool
    ) -> None:
        self.graph = graph
        self.input = input
        self.name = graph.name or "LangGraph"
        self.options = options
        self.context = options.get("context")
        self.control = options.get("control")
        # the warning names the line that called stream/invoke (through `Pregel._call`)
        self.durability = legacy_durability(options.get("durability"), options, stacklevel=5)
        self.version = options.get("version", "v1")
        self.v3_messages = streams_v3_messages(options)
        self.subgraphs = bool(options.get("subgraphs", False))
        self.latest = _Latest()
        self.multiplexer = None
        self.printed = printed_modes(graph, options)
        if invoke:
            stream_mode = options.get("stream_mode", "values")
            self.values_only = stream_mode == "values"
            self.as_stream = not self.values_only
            self.modes, self.single = ["values"], True
        else:
            stream_mode = options.get("stream_mode")
            self.values_only = False
            self.modes, self.single = _modes(
                stream_mode if stream_mode is not None else graph.stream_mode
            )

    def start(self, config: dict[str, Any], *, task_updates: bool | None = None) -> EntrypointRun:
        """The run (a stream's, live: its tasks report their updates as they finish)."""
        given = self.graph._config(config)  # type: ignore[arg-type]
        merged = messages_config(given, self.modes, self.v3_messages)
        run = EntrypointRun(
            self.graph,
            self.input,
            merged,
            modes=sorted({*self.modes, *self.printed, "values", "updates"}),
            context=self.context,
            durability=self.durability,
            control=self.control,
        )
        if keeps_v1_messages(given, merged):
            run.run.forward_modes = run.run.forward_modes - {"messages"}
        warn_unsaved_durability(self.durability, run.run.saver)
        run.run.live = task_updates is not None and streams_live(
            self.modes, subgraphs=False, task_updates=True
        )
        return run

    def events(self, run: Any) -> Iterator[Event]:
        return map(self._seen, run.chunks())

    async def aevents(self, run: Any) -> AsyncGenerator[Event, None]:
        seen = self._seen
        async for event in run.achunks():
            yield seen(event)

    def _seen(self, event: Event) -> Event:
        self.latest.see(event)
        return event

    def shape(self, event: Event) -> Any:
        if self.printed:
            self.echo(event)
        ns, mode, data = event
        if mode in self.modes:
            return _shape(ns, mode, data, self.single, self.subgraphs, self.version)
        return SKIP

    def output(self, run: Any) -> Any:
        return self.latest.output(run, self.version)

    def final(self) -> Any:
        return self.latest.final()

    def stream_options(self) -> RunOptions:
        options = self.options
        return {
            "context": options.get("context"),
            "stream_mode": options.get("stream_mode"),
            "durability": self.durability,
            "control": options.get("control"),
        }
