"""The low-level `Pregel` API of the façade: how it is built and refused. Its runs are
compared with real LangGraph in programs/p50_lowlevel_pregel.py."""

from __future__ import annotations

from typing import TypedDict

import pytest

from superstep_compat.channels.last_value import LastValue
from superstep_compat.graph import START, StateGraph
from superstep_compat.graph.state import CompiledStateGraph
from superstep_compat.pregel import NodeBuilder, Pregel


def _add_one(x: int) -> int:
    return x + 1


def _chain() -> Pregel[object, object, object, object]:
    return Pregel(
        nodes={
            "one": NodeBuilder().subscribe_only("input").do(_add_one).write_to("mid"),
            "two": NodeBuilder().subscribe_only("mid").do(_add_one).write_to("output"),
        },
        channels={"input": LastValue(int), "mid": LastValue(int), "output": LastValue(int)},
        input_channels="input",
        output_channels="output",
    )


def test_a_compiled_state_graph_is_a_pregel() -> None:
    class State(TypedDict):
        x: int

    graph = StateGraph(State).add_node("a", lambda s: s).add_edge(START, "a").compile()
    assert isinstance(graph, Pregel)
    assert isinstance(graph, CompiledStateGraph)
    assert not isinstance(_chain(), CompiledStateGraph)


def test_each_node_runs_in_the_step_after_its_channel_was_written() -> None:
    steps = [c for c in _chain().stream(1, stream_mode="debug") if c["type"] == "task"]
    assert [(c["step"], c["payload"]["name"]) for c in steps] == [(0, "one"), (1, "two")]


def test_without_input_or_output_channels_pregel_raises_type_error() -> None:
    one = NodeBuilder().subscribe_only("between").do(_add_one).write_to("output")
    with pytest.raises(TypeError):
        Pregel(nodes={"one": one})  # type: ignore[call-arg]


def test_a_node_reading_an_undeclared_channel_is_refused_naming_it() -> None:
    one = NodeBuilder().subscribe_only("nope").do(_add_one).write_to("output")
    with pytest.raises(ValueError, match="'nope'"):
        Pregel(
            nodes={"one": one},
            channels={"input": LastValue(int), "output": LastValue(int)},
            input_channels="input",
            output_channels="output",
        )


def test_input_channels_nobody_subscribes_to_are_refused() -> None:
    one = NodeBuilder().subscribe_only("output").do(_add_one).write_to("output")
    with pytest.raises(ValueError, match="must be subscribed to"):
        Pregel(
            nodes={"one": one},
            channels={"input": LastValue(int), "output": LastValue(int)},
            input_channels="input",
            output_channels="output",
        )


def test_subscribing_to_one_channel_alone_excludes_others() -> None:
    with pytest.raises(ValueError):
        NodeBuilder().subscribe_only("a").subscribe_to("b")
    with pytest.raises(ValueError):
        NodeBuilder().subscribe_to("a").subscribe_only("b")


def test_a_low_level_pregel_has_no_start_node_and_streams_values_by_default() -> None:
    app = _chain()
    assert list(app.nodes) == ["one", "two"]
    assert list(app.stream(1)) == [
        {"input": 1, "mid": 2},
        {"input": 1, "mid": 2, "output": 3},
    ]


def test_a_sync_runnable_writer_of_a_timed_node_is_refused_for_its_timeout_first() -> None:
    """LangGraph's validation names the timeout of a node whose writers include a sync
    runnable; a writer that is no channel write is refused (TypeError) only after that."""
    from langchain_core.runnables import RunnableLambda

    from superstep_compat.channels import EphemeralValue
    from superstep_compat.pregel._read import PregelNode
    from superstep_compat.types import TimeoutPolicy

    async def bound(value: int) -> int:
        return value + 1

    def build(timeout: TimeoutPolicy | None) -> Pregel:
        node = PregelNode(
            channels="input",
            triggers=["input"],
            bound=RunnableLambda(bound),
            writers=[RunnableLambda(lambda value: value)],
            timeout=timeout,
        )
        return Pregel(
            nodes={"slow": node},
            channels={"input": EphemeralValue(int), "output": LastValue(int)},
            input_channels="input",
            output_channels="output",
        )

    with pytest.raises(ValueError, match="only supported for async nodes"):
        build(TimeoutPolicy(run_timeout=1))
    with pytest.raises(TypeError, match="node 'slow': a PregelNode's writers"):
        build(None)
