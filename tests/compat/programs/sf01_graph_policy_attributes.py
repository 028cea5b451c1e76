"""A compiled graph's LangGraph attributes a program can read besides running it: the
graph-wide ``retry_policy``/``cache_policy``, ``stream_eager``, the ``trigger_to_nodes``
index and the breakpoints as given (a list, ``"*"`` or a tuple), for a StateGraph (edges,
conditional edges, a join, a deferred node), an ``@entrypoint`` with and without policies
and a low-level ``Pregel``; and a run still stops at a StateGraph's breakpoint given as a
list or as ``"*"``."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.channels import LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint
from langgraph.graph import END, START, StateGraph
from langgraph.pregel import NodeBuilder, Pregel
from langgraph.types import CachePolicy, RetryPolicy

ATTRS = (
    "retry_policy",
    "cache_policy",
    "stream_eager",
    "trigger_to_nodes",
    "interrupt_before_nodes",
    "interrupt_after_nodes",
)


class State(TypedDict):
    x: Annotated[list[str], operator.add]


def _shown(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [_shown(v) for v in value]]
    if isinstance(value, RetryPolicy):
        return ["RetryPolicy", value.max_attempts]
    if isinstance(value, CachePolicy):
        return ["CachePolicy", value.ttl]
    if isinstance(value, dict):
        return {k: _shown(v) for k, v in value.items()}
    return [type(value).__name__, value]


def _attrs(graph: Any) -> dict[str, Any]:
    return {attr: _shown(getattr(graph, attr)) for attr in ATTRS}


def _builder() -> StateGraph:
    builder = StateGraph(State)
    for name in "abcde":
        builder.add_node(name, lambda s, n=name: {"x": [n]}, defer=name == "e")
    builder.add_edge(START, "a")
    builder.add_conditional_edges("a", lambda s: ["b", "c"])
    builder.add_edge(["b", "c"], "d")
    builder.add_edge("d", "e")
    builder.add_edge("e", END)
    return builder


def _lowlevel(**options: Any) -> Pregel:
    return Pregel(
        nodes={"one": NodeBuilder().subscribe_only("a").do(lambda v: v + 1).write_to("b")},
        channels={"a": LastValue(int), "b": LastValue(int)},
        input_channels="a",
        output_channels="b",
        **options,
    )


def _stops(graph: Any) -> list[Any]:
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"x": []}, config)
    return list(graph.get_state(config).next)


def run() -> dict[str, Any]:
    @entrypoint(retry_policy=RetryPolicy(max_attempts=2), cache_policy=CachePolicy(ttl=5))
    def with_policies(value: int) -> int:
        return value

    @entrypoint(retry_policy=[RetryPolicy(max_attempts=4)])
    def listed(value: int) -> int:
        return value

    @entrypoint()
    def plain(value: int) -> int:
        return value

    builder = _builder()
    return {
        "plain graph": _attrs(builder.compile()),
        "breakpoints": _attrs(builder.compile(interrupt_before=["c"], interrupt_after=["a"])),
        "all": _attrs(builder.compile(interrupt_before="*")),
        "entrypoint policies": _attrs(with_policies),
        "entrypoint list": _attrs(listed),
        "entrypoint": _attrs(plain),
        "lowlevel": _attrs(_lowlevel()),
        "lowlevel options": _attrs(
            _lowlevel(
                retry_policy=RetryPolicy(max_attempts=3),
                cache_policy=CachePolicy(ttl=1),
                stream_eager=True,
                interrupt_after_nodes=["one"],
            )
        ),
        "lowlevel list": _attrs(_lowlevel(retry_policy=[RetryPolicy()])),
        "lowlevel runs": _lowlevel(retry_policy=RetryPolicy()).invoke(1),
        "stops at '*'": _stops(builder.compile(InMemorySaver(), interrupt_before="*")),
        "stops at a list": _stops(builder.compile(InMemorySaver(), interrupt_after=["a"])),
    }
