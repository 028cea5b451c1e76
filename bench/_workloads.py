"""Shared builders for the engine micro-benchmarks (bench/): a sequential chain of n
`compute_node`s on the engine API, the same chain through the LangGraph façade, and a runner
that reports µs per node activation. Not part of `make test` (bench/ is outside tests/)."""

import gc
import statistics
import time
from collections.abc import Callable
from typing import Any, TypedDict

from superstep_core import Execution, Graph, Host, LastValue, compute_node
from superstep_core.node import (
    CompleteActivation,
    Effect,
    EffectCompleted,
    NodeContext,
    OneShotEffect,
    Reaction,
)

CHAIN_N = 1000


class ChainState(TypedDict):
    x: int
    last: str


def engine_chain(n: int = CHAIN_N) -> Any:
    """A compiled engine graph: n `compute_node`s in a chain, each writing two LastValue
    channels (the engine analogue of the shared bench's w01_chain)."""
    g = Graph(f"chain{n}").with_channels(x=LastValue(), last=LastValue())

    def make(i: int) -> Callable[..., dict[str, Any]]:
        name = f"n{i}"

        def node(state: Any, _payload: Any) -> dict[str, Any]:
            return {"x": state["x"] + 1, "last": name}

        node.__name__ = name
        return node

    for i in range(n):
        g.add_node(f"n{i}", compute_node(make(i)))
    for i in range(n - 1):
        g.connect(f"n{i}", f"n{i + 1}")
    return g.start_at("n0").end_at(f"n{n - 1}").compile()


def oneshot_chain(n: int = CHAIN_N) -> Any:
    """The shape the façade gives the engine: n `OneShotEffect` nodes in a chain, each asking
    for one within-step effect of kind ``"work"`` (performed by the host, `oneshot_host`) and
    settling on its result with two LastValue writes. The engine and host's share of w01."""
    g = Graph(f"oneshot{n}").with_channels(x=LastValue(), last=LastValue())

    def make(i: int) -> OneShotEffect:
        name = f"n{i}"

        def request(ctx: NodeContext, _event: Any) -> Effect:
            return Effect("work", ctx.state["x"], within_step=True)

        def settle(_ctx: NodeContext, done: EffectCompleted) -> Reaction:
            return Reaction({"x": done.result, "last": name}, disposition=CompleteActivation())

        return OneShotEffect(request, settle)

    for i in range(n):
        g.add_node(f"n{i}", make(i))
    for i in range(n - 1):
        g.connect(f"n{i}", f"n{i + 1}")
    return g.start_at("n0").end_at(f"n{n - 1}").compile()


def oneshot_host() -> Host:
    """A sync `Host` whose ``"work"`` handler adds one (for `oneshot_chain`)."""
    return Host({"work": lambda x, _ctx: x + 1})


def run_execution(graph: Any, n: int, *, record_trace: bool = True) -> Execution:
    """Drive an `Execution` directly (no host): the interpreter alone."""
    ex = Execution.start(graph, "bench", updates={"x": 0, "last": ""}, record_trace=record_trace)
    while ex.queue:
        ex.run_superstep()
    assert ex.values == {"x": n, "last": f"n{n - 1}"}, ex.values
    return ex


def run_host(graph: Any, n: int, host: Host) -> Execution:
    """The same through `Host.run_graph` (the sync host's loop, no effects)."""
    ex = host.run_graph(graph, updates={"x": 0, "last": ""})
    assert ex.values == {"x": n, "last": f"n{n - 1}"}, ex.values
    return ex


def facade_chain(n: int = CHAIN_N, checkpointer: Any = None) -> Callable[[], Any]:
    """w01_chain (w07 with a checkpointer) through `superstep_compat`."""
    import itertools

    from superstep_compat.graph import END, START, StateGraph

    builder = StateGraph(ChainState)

    def make(i: int) -> tuple[str, Callable[[Any], dict[str, Any]]]:
        name = f"n{i}"

        def node(state: Any) -> dict[str, Any]:
            return {"x": state["x"] + 1, "last": name}

        return name, node

    prev = START
    for i in range(n):
        name, fn = make(i)
        builder.add_node(name, fn)
        builder.add_edge(prev, name)
        prev = name
    builder.add_edge(prev, END)
    graph = builder.compile(checkpointer=checkpointer)
    counter = itertools.count()
    inp = {"x": 0, "last": ""}

    def run() -> Any:
        config: dict[str, Any] = {"recursion_limit": n + 10}
        if checkpointer is not None:
            config["configurable"] = {"thread_id": f"t{next(counter)}"}
        out = graph.invoke(inp, config)
        assert out == {"x": n, "last": f"n{n - 1}"}, out
        return out

    return run


def per_unit_us(fn: Callable[[], Any], units: int, *, min_time: float = 1.0) -> dict[str, float]:
    """Median/min µs per unit of ``fn`` (wall and CPU), gc collected before each call."""
    fn()  # warm-up
    walls: list[float] = []
    cpus: list[float] = []
    start = time.perf_counter()
    while len(walls) < 3 or time.perf_counter() - start < min_time:
        gc.collect()
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        cpus.append(time.process_time() - c0)
        walls.append(time.perf_counter() - w0)
    scale = 1e6 / units
    return {
        "median_wall_us": statistics.median(walls) * scale,
        "min_wall_us": min(walls) * scale,
        "median_cpu_us": statistics.median(cpus) * scale,
        "calls": float(len(walls)),
    }
