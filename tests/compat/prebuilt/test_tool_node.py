"""ToolNode and tools_condition, through the façade's StateGraph (behaviour of LangGraph 1.2,
langgraph-prebuilt 1.1.3)."""

import re
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import BaseModel
from typing_extensions import TypedDict

from superstep_compat.graph import START, StateGraph, add_messages
from superstep_compat.prebuilt import InjectedState, InjectedStore, ToolNode, tools_condition
from superstep_compat.prebuilt._commands import combine, msg_content_output
from superstep_compat.prebuilt._errors import ToolInvocationError, handled_types
from superstep_compat.prebuilt._injection import injected_args_of
from superstep_compat.store.memory import InMemoryStore
from superstep_compat.types import Command, Send


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def fail(x: int) -> int:
    """Always fails."""
    raise ValueError("nope")


@tool
def see_foo(q: str, foo: Annotated[str, InjectedState("foo")]) -> str:
    """Reads one state key."""
    return f"{q}: foo={foo}"


@tool
def see_state(q: str, state: Annotated[dict[str, Any], InjectedState]) -> str:
    """Reads the whole state."""
    return f"{q}: {sorted(state)}"


@tool
def remember(q: str, store: Annotated[Any, InjectedStore()]) -> str:
    """Writes to the store."""
    store.put(("mem",), "k", {"q": q})
    return f"stored {q}"


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    foo: str


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": f"id_{name}", "type": "tool_call"}


def run_tools(node: ToolNode, *calls: dict[str, Any], store: Any = None) -> list[Any]:
    builder = StateGraph(State)
    builder.add_node("tools", node)
    builder.add_edge(START, "tools")
    graph = builder.compile(store=store)
    inp = {"messages": [HumanMessage("hi"), AIMessage("", tool_calls=list(calls))], "foo": "bar"}
    messages: list[Any] = graph.invoke(inp)["messages"][2:]
    return messages


def test_tool_calls_answer_in_call_order_with_tool_names() -> None:
    out = run_tools(
        ToolNode([add, fail]), call("add", a=1, b=2), {**call("add", a=3, b=4), "id": "x"}
    )
    assert [(m.content, m.name, m.tool_call_id) for m in out] == [
        ("3", "add", "id_add"),
        ("7", "add", "x"),
    ]


def test_default_error_handling_reports_invalid_arguments() -> None:
    (message,) = run_tools(ToolNode([add]), call("add", a="x", b=2))
    assert message.status == "error"
    assert message.content == (
        "Error invoking tool 'add' with kwargs {'a': 'x', 'b': 2} with error:\n"
        " a: Input should be a valid integer, unable to parse string as an integer\n"
        " Please fix the error and try again."
    )


def test_default_error_handling_reraises_other_exceptions() -> None:
    with pytest.raises(ValueError, match="nope"):
        run_tools(ToolNode([fail]), call("fail", x=1))


def test_handle_tool_errors_true_wraps_the_exception_repr() -> None:
    (message,) = run_tools(ToolNode([fail], handle_tool_errors=True), call("fail", x=1))
    assert message.content == "Error: ValueError('nope')\n Please fix your mistakes."
    assert message.status == "error"


def test_unknown_tool_answers_with_the_valid_names() -> None:
    (message,) = run_tools(ToolNode([add, fail], handle_tool_errors=False), call("zzz"))
    assert message.content == "Error: zzz is not a valid tool, try one of [add, fail]."
    assert message.status == "error"


def test_handler_annotation_chooses_the_caught_exceptions() -> None:
    def only_type_errors(e: TypeError) -> str:
        return "typed"

    assert handled_types(only_type_errors) == (TypeError,)
    assert handled_types((KeyError,)) == (KeyError,)
    with pytest.raises(ValueError):
        run_tools(ToolNode([fail], handle_tool_errors=only_type_errors), call("fail", x=1))


def test_injected_state_and_store_are_filled_and_hidden_from_the_model() -> None:
    assert "foo" not in see_foo.tool_call_schema.model_json_schema()["properties"]
    store = InMemoryStore()
    out = run_tools(
        ToolNode([see_foo, see_state, remember]),
        call("see_foo", q="a", foo="FORGED"),
        call("see_state", q="b"),
        call("remember", q="c"),
        store=store,
    )
    assert [m.content for m in out] == ["a: foo=bar", "b: ['foo', 'messages']", "stored c"]
    assert store.get(("mem",), "k").value == {"q": "c"}


def test_injected_store_without_a_store_is_an_error() -> None:
    with pytest.raises(ValueError, match="please compile your graph with a store"):
        run_tools(ToolNode([remember]), call("remember", q="c"))


def test_injection_analysis_finds_each_kind() -> None:
    found = injected_args_of(see_foo)
    assert dict(found.state) == {"foo": "foo"}
    assert injected_args_of(remember).store == "store"
    assert not injected_args_of(add)


def test_tool_node_outside_a_graph_is_an_error() -> None:
    node = ToolNode([add])
    expected = re.escape("Missing required config key 'N/A' for 'tools'.")
    with pytest.raises(ValueError, match=expected):
        node.invoke({"messages": [AIMessage("", tool_calls=[call("add", a=1, b=2)])]})


def test_tool_output_content_is_text_or_json() -> None:
    assert msg_content_output("x") == "x"
    assert msg_content_output({"a": "é"}) == '{"a": "é"}'
    assert msg_content_output([{"type": "text", "text": "t"}]) == [{"type": "text", "text": "t"}]
    assert msg_content_output(object).startswith("<class")


def test_commands_are_kept_beside_message_updates_and_parent_sends_merge() -> None:
    message = ToolMessage("r", tool_call_id="1")
    own = Command(update={"foo": "x"})
    sends = [
        Command(graph=Command.PARENT, goto=[Send("a", 1)]),
        Command(graph=Command.PARENT, goto=[Send("b", 2)]),
    ]
    out = combine([message, own, *sends], "dict", "messages")
    assert out[:2] == [{"messages": [message]}, own]
    assert out[2].goto == [Send("a", 1), Send("b", 2)]
    assert combine([message], "list", "messages") == [message]


def test_invocation_error_lists_only_model_arguments() -> None:
    from pydantic import ValidationError

    class Args(BaseModel):
        a: int

    with pytest.raises(ValidationError) as info:
        Args.model_validate({"a": "x"})
    error = ToolInvocationError("t", info.value, {"a": "x"}, [])
    assert error.message.startswith("Error invoking tool 't' with kwargs {'a': 'x'}")


def test_tools_condition_routes_on_the_last_message() -> None:
    asks = AIMessage("", tool_calls=[call("add")])
    assert tools_condition({"messages": [asks]}) == "tools"
    assert tools_condition([AIMessage("done")]) == "__end__"

    class Model(BaseModel):
        messages: list[Any]

    assert tools_condition(Model(messages=[asks])) == "tools"
    with pytest.raises(ValueError, match="No messages found in input state to tool_edge"):
        tools_condition({"messages": []})
