"""StateGraph builder: registration, validation errors and deprecated kwargs."""

import operator
from typing import Annotated, Any, Literal, TypedDict

import pytest
from langchain_core.runnables import RunnableConfig

from superstep_compat.constants import END, START
from superstep_compat.graph import MessageGraph, StateGraph
from superstep_compat.graph._draw import draw_graph
from superstep_compat.store.base import BaseStore
from superstep_compat.types import Command, RetryPolicy
from superstep_compat.warnings import LangGraphDeprecatedSinceV05, LangGraphDeprecatedSinceV10


class S(TypedDict):
    x: int
    log: Annotated[list[str], operator.add]


def noop(state: S) -> dict[str, Any]:
    return {}


def graph(*names: str) -> StateGraph[Any, Any, Any, Any]:
    builder: StateGraph[Any, Any, Any, Any] = StateGraph(S)
    for name in names:
        builder.add_node(name, noop)
    return builder


def test_builder_methods_chain() -> None:
    builder = graph().add_node("a", noop).add_edge(START, "a").add_edge("a", END)
    assert builder.edges == {(START, "a"), ("a", END)}


def test_add_node_takes_name_from_function() -> None:
    assert list(StateGraph(S).add_node(noop).nodes) == ["noop"]


def test_add_node_options_are_recorded() -> None:
    # the retry policy as given (one policy, not a tuple of one), as LangGraph's node spec
    policy = RetryPolicy(max_attempts=2)
    spec = (
        graph().add_node("a", noop, defer=True, retry_policy=policy, metadata={"k": 1}).nodes["a"]
    )
    assert (spec.defer, spec.retry_policy, spec.metadata) == (True, policy, {"k": 1})
    assert spec.retry_policies == (policy,)


def test_command_return_hint_gives_ends() -> None:
    def go(state: S) -> Command[Literal["b", "__end__"]]:
        return Command(goto="b")

    assert graph().add_node(go).nodes["go"].ends == ("b", "__end__")


def test_injectable_params_detected() -> None:
    def node(state: S, config: RunnableConfig, *, store: BaseStore, writer: Any = None) -> None:
        return None

    assert graph().add_node(node).nodes["node"].accepts == {"config", "store"}


def test_a_config_parameter_of_another_type_is_not_injected_and_warns() -> None:
    def node(state: S, config: dict[str, Any]) -> None:
        return None

    with pytest.warns(UserWarning, match="'config' parameter should be typed as 'RunnableConfig'"):
        accepts = graph().add_node(node).nodes["node"].accepts
    assert accepts == frozenset()


def test_list_source_is_a_waiting_edge() -> None:
    builder = graph("a", "b", "c").add_edge(["a", "b"], "c")
    assert builder.waiting_edges == {(("a", "b"), "c")}


def test_path_map_list_becomes_identity_ends() -> None:
    builder = graph("a", "b").add_conditional_edges("a", noop, ["b", END])
    assert builder.branches["a"]["noop"].ends == {"b": "b", END: END}


def test_add_sequence_chains_nodes() -> None:
    def one(state: S) -> None: ...
    def two(state: S) -> None: ...

    assert StateGraph(S).add_sequence([one, ("second", two)]).edges == {("one", "second")}


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: graph("a", "a"), "Node `a` already present."),
        (lambda: graph(START), "Node `__start__` is reserved."),
        (lambda: graph("a:b"), "':' is a reserved character"),
        (lambda: graph("a").add_edge(END, "a"), "END cannot be a start node"),
        (lambda: graph("a").add_edge("a", START), "START cannot be an end node"),
        (lambda: graph("a").add_edge(["zz"], "a"), "Need to add_node `zz` first"),
        (lambda: graph("a").validate(), "Graph must have an entrypoint"),
        (
            lambda: graph("a").add_edge(START, "a").add_edge("a", "zz").validate(),
            "Found edge ending at unknown node `zz`",
        ),
        (
            lambda: graph("a").add_edge(START, "a").add_edge("zz", "a").validate(),
            "Found edge starting at unknown node 'zz'",
        ),
        (
            lambda: (
                graph("a")
                .add_edge(START, "a")
                .add_conditional_edges("a", noop, {"x": "zz"})
                .validate()
            ),
            "At 'a' node, 'noop' branch found unknown target 'zz'",
        ),
        (
            lambda: graph("a").add_edge(START, "a").validate(["zz"]),
            "Interrupt node `zz` not found",
        ),
        (lambda: StateGraph(S).add_sequence([]), "Sequence requires at least one node."),
    ],
)
def test_validation_errors(build: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        build()


def test_deprecated_input_kwarg_warns() -> None:
    with pytest.warns(LangGraphDeprecatedSinceV05, match="`input` is deprecated"):
        builder = StateGraph(S, input=S)
    assert builder.input_schema is S


def test_deprecated_config_schema_warns() -> None:
    with pytest.warns(LangGraphDeprecatedSinceV10, match="`config_schema` is deprecated"):
        assert StateGraph(S, config_schema=dict).context_schema is dict


def test_message_graph_warns_and_has_root_channel() -> None:
    with pytest.warns(LangGraphDeprecatedSinceV10):
        assert list(MessageGraph().channels) == ["__root__"]


def test_spec_lists_input_and_output_keys() -> None:
    spec = graph("a").add_edge(START, "a").spec()
    assert spec.input_keys == ("x", "log") and spec.output_keys == ("x", "log")


def test_draw_mermaid_dict_labels() -> None:
    builder = graph("a", "b").add_edge(START, "a").add_edge("b", END)
    builder.add_conditional_edges("a", noop, {"go": "b", "stop": END})
    mermaid = draw_graph(builder.nodes, builder.edges, builder.waiting_edges, builder.branches)
    assert "\ta -. &nbsp;go&nbsp; .-> b;" in mermaid.draw_mermaid().splitlines()
