"""One call of a compiled graph (``stream``, ``astream``, ``invoke``, ``ainvoke``), written
once: `RunOptions` names the keyword options the four share, `GraphCall` builds the call's
run and turns its events into chunks and its result. `Pregel`'s four methods are thin sync
and async drivers over a `GraphCall` (httpx's one client core under two I/O surfaces): the
only lines written twice are the loops that pull events from ``events()`` or ``aevents()``.

A graph kind whose runs differ (`@entrypoint`'s) subclasses `GraphCall`; the drivers stay
the same. Imports the façade's run and output shapes; never the drivers' graph class.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Final, TypedDict, TypeVar

from superstep_compat._internal._constants import CONFIG_KEY_STREAM_MESSAGES_V2, ROOT_KEY
from superstep_compat.pregel._lifecycle import lifecycle_of
from superstep_compat.pregel._live import streams_live
from superstep_compat.pregel._messages import without_v2_handlers
from superstep_compat.pregel._output import (
    _ended_by,
    _final_values,
    _modes,
    _output,
    _shape,
    v2_mappers,
)
from superstep_compat.pregel._output_keys import OutputKeys, output_keys, read_keys
from superstep_compat.pregel._run import Event, GraphRun
from superstep_compat.runtime import RunControl
from superstep_compat.types import GraphOutput
from superstep_compat.warnings import LangGraphDeprecatedSinceV10
from superstep_core.host.stream import StreamMultiplexer

if TYPE_CHECKING:
    from superstep_compat.pregel._compile import Pregel

__all__ = ["SKIP", "GraphCall", "RunOptions", "signed"]

F = TypeVar("F", bound=Callable[..., Any])

SKIP: Final = object()
"""What `GraphCall.shape` returns for an event the caller does not see."""


class RunOptions(TypedDict, total=False):
    """The keyword options of ``stream``/``astream``/``invoke``/``ainvoke`` (LangGraph's
    names and meanings; ``stream_mode`` defaults to the graph's for a stream, "values" for
    an invoke). ``multiplexer`` and ``control`` are Superstep extensions (see `Pregel.stream`
    and `RunControl`); ``output_keys`` narrows the ``values`` and ``updates`` chunks and
    ``invoke``'s result (`_output_keys`); ``print_mode`` (``debug``: "updates" and
    "values") prints its modes' chunks to stdout as LangGraph does, streamed or not.
    ``v3_messages`` (private, set by ``stream_events(version="v3")``, whose own call is made
    with v1 chunks): the call streams "messages" as v3's message events (`messages_config`)."""

    context: Any
    stream_mode: Any
    print_mode: Any
    output_keys: Any
    interrupt_before: Any
    interrupt_after: Any
    durability: Any
    checkpoint_during: bool
    subgraphs: bool
    debug: bool | None
    version: str
    multiplexer: StreamMultiplexer | None
    control: RunControl | None
    v3_messages: bool


def _stream_parameters(
    self: Any,
    input: Any,
    config: Any = None,
    *,
    context: Any = None,
    stream_mode: Any = None,
    print_mode: Any = (),
    output_keys: Any = None,
    interrupt_before: Any = None,
    interrupt_after: Any = None,
    durability: Any = None,
    subgraphs: bool = False,
    debug: bool | None = None,
    version: str = "v1",
    multiplexer: StreamMultiplexer | None = None,
    control: RunControl | None = None,
    **kwargs: Any,
) -> None:
    """The parameters ``stream`` and ``astream`` show (`signed`); ``invoke``'s and
    ``ainvoke``'s are the same but ``stream_mode="values"`` (`_invoke_signature`)."""


_STREAM_SIGNATURE = inspect.signature(_stream_parameters)
_INVOKE_SIGNATURE = _STREAM_SIGNATURE.replace(
    parameters=[
        p.replace(default="values") if p.name == "stream_mode" else p
        for p in _STREAM_SIGNATURE.parameters.values()
        if p.name not in ("subgraphs", "multiplexer")
    ]
)


def signed(*, invoke: bool, returns: str) -> Callable[[F], F]:
    """Give a driver the signature LangGraph's has (its keyword options by name, as
    ``inspect.signature`` shows them: callers such as the server look for ``control``),
    while the driver itself takes ``**options`` (`RunOptions`), read once by `GraphCall`.
    ``returns``: the return annotation shown."""
    signature = (_INVOKE_SIGNATURE if invoke else _STREAM_SIGNATURE).replace(
        return_annotation=returns
    )

    def sign(driver: F) -> F:
        driver.__signature__ = signature  # type: ignore[attr-defined]
        return driver

    return sign


def streams_v3_messages(options: RunOptions) -> bool:
    """Whether a call that asks for "messages" streams them as v3's message events: LangGraph
    picks that handler only for ``version="v2"`` calls (v3 streaming's own among them)."""
    return options.get("version") == "v2" or bool(options.get("v3_messages"))


def keeps_v1_messages(given: Mapping[str, Any], config: Mapping[str, Any]) -> bool:
    """Whether `messages_config` took a v3 run's flag off ``given``: the call's tokens are
    its own then (its caller's v1 stream), not passed on to the v3 run above, as in
    LangGraph, where only the v3 run's own handler (dropped here) would hear them."""
    before = (given.get("configurable") or {}).get(CONFIG_KEY_STREAM_MESSAGES_V2)
    return bool(before) and not (config.get("configurable") or {}).get(
        CONFIG_KEY_STREAM_MESSAGES_V2
    )


def messages_config(config: dict[str, Any], modes: Any, v3_messages: bool) -> dict[str, Any]:
    """``config`` for a call's runs: a call asking for "messages" itself but not as v3's
    events drops the v3 flag and v3's messages handlers it inherited (a graph streamed from
    a node of a v3 streaming run, with that node's config), so it and the graphs it runs
    stream v1 chunks, to this call only, as LangGraph's. A call not asking for them keeps
    both: its tokens go to the v3 run above."""
    if v3_messages or "messages" not in modes:
        return config
    config = without_v2_handlers(config)
    configurable = config.get("configurable") or {}
    if not configurable.get(CONFIG_KEY_STREAM_MESSAGES_V2):
        return config
    configurable = {k: v for k, v in configurable.items() if k != CONFIG_KEY_STREAM_MESSAGES_V2}
    return {**config, "configurable": configurable}


def printed_modes(graph: Any, options: RunOptions) -> frozenset[str]:
    """The modes a call prints as they come (LangGraph's ``print_mode``; ``debug``, the
    call's or the graph's: "updates" and "values"), run whether streamed or not."""
    printed = options.get("print_mode") or ()
    if options.get("debug") or getattr(graph, "debug", False):
        printed = ("updates", "values")
    return frozenset([printed] if isinstance(printed, str) else printed)


def _run_keys(graph: Pregel[Any, Any, Any, Any], given: Any, *, invoke: bool) -> OutputKeys | None:
    """What a call's chunks show (`_output_keys`): the keys it was given, else an invoke's
    output schema (a root state's one key), a low-level graph's output channels; None: every
    state channel (a low-level graph's stream channels)."""
    channels = graph.state_channels
    if given is not None:
        keys = output_keys(given, channels)
    elif invoke and graph.lowlevel is not None:
        # (LangGraph's invoke streams its output channels: a step that wrote none shows no
        # values, so a run that wrote none returns None)
        keys = output_keys(graph.lowlevel.output_channels, channels)
    elif invoke:
        out = graph.output_names
        keys = ROOT_KEY if out == (ROOT_KEY,) else out
    else:
        return None
    return None if keys == channels and graph.lowlevel is None else keys


class GraphCall:
    """One ``stream``/``invoke`` call of a façade graph (its runs: one per callback run; the
    last one's values end the graph's callback run)."""

    as_stream = False
    """Whether ``invoke`` returns its stream's chunks as a list (`EntrypointCall`)."""

    def __init__(
        self, graph: Pregel[Any, Any, Any, Any], input: Any, options: RunOptions, *, invoke: bool
    ) -> None:
        self.graph = graph
        self.input = input
        self.name = graph.name or "LangGraph"
        self.context = options.get("context")
        self.interrupt_before = options.get("interrupt_before")
        self.interrupt_after = options.get("interrupt_after")
        self.control = options.get("control")
        self.version = options.get("version", "v1")
        self.v3_messages = streams_v3_messages(options)
        self.output_keys = options.get("output_keys")
        self.keys = _run_keys(graph, self.output_keys, invoke=invoke)
        # the warning names the line that called stream/invoke (through `Pregel._call`)
        self.durability = legacy_durability(options.get("durability"), options, stacklevel=5)
        self.runs: list[GraphRun] = []
        self.invoke = invoke
        if invoke:
            stream_mode = options.get("stream_mode", "values")
            # invoke's chunks (other modes than "values") are the root graph's only
            self.values_only = stream_mode == "values"
            self.modes, self.single = ([], True) if self.values_only else _modes(stream_mode)
            self.subgraphs = False
            self.chunk_version = "v1" if self.values_only else self.version
            self.multiplexer: StreamMultiplexer | None = None
        else:
            stream_mode = options.get("stream_mode")
            self.modes, self.single = _modes(
                stream_mode if stream_mode is not None else graph.stream_mode
            )
            self.values_only = False
            self.subgraphs = bool(options.get("subgraphs", False))
            self.chunk_version = self.version
            self.multiplexer = options.get("multiplexer")
        # (v2 shows pydantic and dataclass states as instances)
        self.mappers = v2_mappers(graph) if self.version == "v2" else (None, None)

        self.printed = printed_modes(graph, options)
        self.run_modes = [*self.modes, *sorted(self.printed.difference(self.modes))]

    def echo(self, event: Event) -> None:
        """Print ``event`` when its mode is printed, in LangGraph's words: the mode in bold,
        a subgraph's namespace in yellow (when the call streams subgraphs), the chunk."""
        ns, mode, data = event
        if mode in self.printed and (self.subgraphs or not ns):
            parts = [f"\033[1m[{mode}]\033[0m"]
            if self.subgraphs and ns:
                parts.append(f"\033[1;3{_YELLOW}m[graph={ns}]\033[0m")
            print(" ".join((*parts, repr(data))))

    def start(self, config: dict[str, Any], *, task_updates: bool | None = None) -> Any:
        """The run of one callback run. ``task_updates`` (streams only): whether the run
        reports each task's update as the task ends (`streams_live`); None: not live."""
        own_config = messages_config(config, self.modes, self.v3_messages)
        run = GraphRun(
            self.graph,
            self.input,
            own_config,
            modes=self.run_modes,
            context=self.context,
            interrupt_before=self.interrupt_before,
            interrupt_after=self.interrupt_after,
            subgraphs=self.subgraphs,
            durability=self.durability,
            control=self.control,
            output_keys=self.keys,
        )
        if keeps_v1_messages(config, own_config):
            run.forward_modes = run.forward_modes - {"messages"}
        if not self.runs:  # (a call's later runs are its own again)
            warn_unsaved_durability(self.durability, run.saver)
        if task_updates is not None:
            run.live = streams_live(
                self.run_modes, subgraphs=self.subgraphs, task_updates=task_updates
            )
            # live only for its tasks' updates: a step's lone task's goes out with the step
            run.watch.eager = streams_live(
                self.run_modes, subgraphs=self.subgraphs, task_updates=False
            )
        self.runs.append(run)
        return run

    def events(self, run: Any) -> Iterator[Event]:
        lifecycle = lifecycle_of(run, self.input)  # graph callback handlers hear the run
        if lifecycle is not None:
            return lifecycle.wrap(run.events())
        return run.events()  # type: ignore[no-any-return]

    def aevents(self, run: Any) -> AsyncIterator[Event]:
        lifecycle = lifecycle_of(run, self.input)
        if lifecycle is not None:
            return lifecycle.awrap(run.aevents())
        return run.aevents()  # type: ignore[no-any-return]

    def shape(self, event: Event) -> Any:
        """The chunk the caller sees for ``event`` (`SKIP`: none); a multiplexer receives
        every event."""
        if self.multiplexer is not None:
            self.multiplexer.push_event(event)
        if self.printed:
            self.echo(event)
        ns, mode, data = event
        if mode in self.modes and (self.subgraphs or not ns):
            version = self.chunk_version
            return _shape(ns, mode, data, self.single, self.subgraphs, version, self.mappers)
        return SKIP

    def ended(self, error: BaseException | None = None) -> None:
        """The stream ended (with ``error`` when it raised or was closed early)."""
        if self.multiplexer is not None:
            self.multiplexer.terminate(None if error is None else _ended_by(error))

    def output(self, run: Any) -> Any:
        """``invoke``'s result, once ``run`` ended (v2: its value shown as the output
        schema's instance, as the last ``values`` part shows it)."""
        result = _output(run, self.version, self.output_keys)
        mapper = self.mappers[0]
        if (
            mapper is not None
            and isinstance(result, GraphOutput)
            and isinstance(result.value, dict)
        ):
            return GraphOutput(mapper(result.value), result.interrupts)
        return result

    def final(self) -> Any:
        """What the graph's callback run ends with: LangGraph's loop output, the channels the
        call reads: the keys it was given, else an invoke's output schema, a stream's every
        state channel (private ones too: `astream_events` shows a create_agent run ending
        with its middleware's private keys). A low-level graph's keep the output
        channels."""
        given = self.output_keys is not None
        if self.runs and (given or not self.invoke) and self.graph.lowlevel is None:
            last = self.runs[-1].values.last or {}
            return dict(last) if self.keys is None else read_keys(last, self.keys)
        return _final_values(self.runs)

    def stream_options(self) -> RunOptions:
        """The options of the stream an `as_stream` invoke lists."""
        return {}

    def ending(self) -> _Ending:
        """Around a stream's loop: ends the multiplexer as the loop ends (with the error, or
        `StreamAbandoned` when the caller stopped reading)."""
        return _Ending(self)

    # --- the parts of the drivers (`Pregel.stream` and its twins) -------------------------

    def chunks(self, config: dict[str, Any]) -> Iterator[Any]:
        """The chunks of a sync stream's run (not live unless a mode needs it)."""
        run = self.start(config, task_updates=False)
        with self.ending():
            for chunk in map(self.shape, self.events(run)):
                if chunk is not SKIP:
                    yield chunk

    async def achunks(self, config: dict[str, Any]) -> AsyncGenerator[Any, None]:
        """`chunks` on asyncio; an async run reports each task's update as the task ends (a
        sync one only when it streams live anyway: a helper thread per step costs a plain
        stream). Closed with the stream: a consumer stopping early cancels the running
        tasks and saves what finished before the stream's close returns."""
        run = self.start(config, task_updates=True)
        with self.ending():
            async with aclosing(self.aevents(run)) as events:  # type: ignore[type-var]
                async for event in events:
                    if (chunk := self.shape(event)) is not SKIP:
                        yield chunk

    def collect(self, config: dict[str, Any]) -> Any:
        """``invoke``'s result (the chunks of a mode other than "values")."""
        run = self.start(config)
        if self.values_only:
            for event in self.events(run):
                if self.printed:
                    self.echo(event)
            return self.output(run)
        return [c for c in map(self.shape, self.events(run)) if c is not SKIP]

    async def acollect(self, config: dict[str, Any]) -> Any:
        """`collect` on asyncio."""
        run = self.start(config)
        if not self.values_only:
            return [c async for e in self.aevents(run) if (c := self.shape(e)) is not SKIP]
        async for event in self.aevents(run):
            if self.printed:
                self.echo(event)
        return self.output(run)


_YELLOW = "0;33"  # LangGraph's colour code for a printed chunk's namespace


class _Ending:
    __slots__ = ("call",)

    def __init__(self, call: GraphCall) -> None:
        self.call = call

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, error: BaseException | None, tb: Any) -> None:
        self.call.ended(error)


def warn_unsaved_durability(durability: str | None, saver: Any) -> None:
    """LangGraph's warning as a call's stream starts when the caller chose a ``durability``
    (not one a parent's config passed on) and the run has no checkpointer."""
    if durability is not None and saver is None:
        # stacklevel 1, as LangGraph's: the warning names the library's line, so the
        # default filter shows it once per process rather than once per calling line
        warnings.warn("`durability` has no effect when no checkpointer is present.", stacklevel=1)


def legacy_durability(
    durability: str | None, kwargs: Mapping[str, Any], *, stacklevel: int = 3
) -> str | None:
    """The ``durability`` of a call that may pass LangGraph's deprecated ``checkpoint_during``
    (True: "async", False: "exit"), with LangGraph's warning (``stacklevel`` as for
    `warnings.warn`, counted from here); both given is a ValueError."""
    checkpoint_during = kwargs.get("checkpoint_during")
    if checkpoint_during is None:
        return durability
    warnings.warn(
        "`checkpoint_during` is deprecated and will be removed. Please use `durability` instead.",
        LangGraphDeprecatedSinceV10,
        stacklevel=stacklevel,
    )
    if durability is not None:
        raise ValueError(
            "Cannot use both `checkpoint_during` and `durability` parameters. "
            "Please use `durability` instead."
        )
    return "async" if checkpoint_during else "exit"
