"""`ToolNode._inject_tool_args`, called from outside the node as langgraph-bigtool does: its
router fills each tool call's injected arguments itself and sends the call to the ToolNode
(``Send("tools", [call])``). Seen: the calls the method returns for tools taking state (whole
or one key), a store, a runtime, a model-forged injected argument (dropped), a tool the node
does not know (as is) or passes as ``tool``; the error for a store that is not there; and
the bigtool-shaped graph run end to end, synchronously and asynchronously."""

import asyncio
from typing import Annotated, Any

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedState, InjectedStore, ToolNode, ToolRuntime
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from langgraph.types import Send


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def multiply(a: int, b: int) -> int:
    """Multiply two numbers."""
    return a * b


@tool
def count_messages(note: str, messages: Annotated[list[Any], InjectedState("messages")]) -> str:
    """Count the conversation's messages."""
    return f"{note}: {len(messages)}"


@tool
def whole_state(state: Annotated[dict[str, Any], InjectedState]) -> str:
    """Name the state's keys."""
    return ",".join(sorted(state))


@tool
def remember(key: str, store: Annotated[BaseStore, InjectedStore()]) -> str:
    """Save a key in the store."""
    store.put(("notes",), key, {"saved": True})
    return f"saved {key}"


@tool
def who(runtime: ToolRuntime) -> str:
    """Say which call this is."""
    return str(runtime.tool_call_id)


@tool
def unlisted(x: int, messages: Annotated[list[Any], InjectedState("messages")]) -> str:
    """A tool the node was not built with."""
    return str(x)


TOOLS = [add, count_messages, whole_state, remember, who]


def _call(name: str, args: dict[str, Any], call_id: str = "c1") -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def _runtime(state: Any, store: BaseStore | None) -> Any:
    return ToolRuntime(
        state=state,
        context=None,
        config={},
        stream_writer=lambda _: None,
        tool_call_id="c1",
        store=store,
    )


def _shown(call: dict[str, Any]) -> dict[str, Any]:
    args = {
        k: (type(v).__name__ if k in ("store", "runtime") else v) for k, v in call["args"].items()
    }
    return {**call, "args": args}


def _direct() -> dict[str, Any]:
    node = ToolNode(TOOLS)
    store = InMemoryStore()
    state = {"messages": [HumanMessage("hi", id="h1")], "extra": 1}
    runtime = _runtime(state, store)
    out: dict[str, Any] = {}
    cases = {
        "plain": _call("add", {"a": 1, "b": 2}),
        "state_key": _call("count_messages", {"note": "n"}),
        "whole_state": _call("whole_state", {}),
        "store": _call("remember", {"key": "k"}),
        "runtime": _call("who", {}),
        "forged": _call("count_messages", {"note": "n", "messages": ["forged"]}),
        "unknown": _call("nope", {"messages": ["kept"]}),
    }
    for label, call in cases.items():
        injected = node._inject_tool_args(call, runtime)
        out[label] = [_shown(injected), injected is call, call["args"] == cases[label]["args"]]
    dynamic = node._inject_tool_args(_call("unlisted", {"x": 3}), runtime, unlisted)
    out["dynamic_tool"] = _shown(dynamic)
    list_runtime = _runtime([HumanMessage("a", id="a1"), HumanMessage("b", id="b1")], None)
    out["list_state"] = _shown(
        node._inject_tool_args(_call("count_messages", {"note": "l"}), list_runtime)
    )
    try:
        node._inject_tool_args(_call("remember", {"key": "k"}), _runtime(state, None))
    except ValueError as e:
        out["no_store"] = str(e)
    # bigtool's call shape (state, store) for a tool that injects: the state is no runtime
    try:
        node._inject_tool_args(_call("count_messages", {"note": "n"}), state, store)  # type: ignore[arg-type]
    except Exception as e:
        out["state_as_runtime"] = type(e).__name__
    return out


def _bigtool_graph(store: BaseStore) -> Any:
    """The shape of langgraph-bigtool's agent: the router injects, then sends each call. It
    passes the state and the store where the method now takes a runtime and a tool, which
    holds for tools with nothing to inject (those it is used with here)."""
    node = ToolNode([add, multiply])
    turns = [
        AIMessage(
            "",
            id="ai1",
            tool_calls=[
                _call("add", {"a": 2, "b": 3}, "t1"),
                _call("multiply", {"a": 4, "b": 5}, "t2"),
            ],
        ),
        AIMessage("done", id="ai2"),
    ]

    def agent(state: MessagesState) -> dict[str, Any]:
        turn = sum(1 for m in state["messages"] if m.type == "ai")
        return {"messages": [turns[turn]]}

    def route(state: MessagesState, *, store: BaseStore) -> Any:
        last = state["messages"][-1]
        if not isinstance(last, AIMessage) or not last.tool_calls:
            return END
        inject = node._inject_tool_args
        return [Send("tools", [inject(call, state, store)]) for call in last.tool_calls]

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", node)
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route, ["tools", END])
    builder.add_edge("tools", "agent")
    return builder.compile(store=store)


def run() -> dict[str, Any]:
    out: dict[str, Any] = {"direct": _direct()}
    for label in ("sync", "async"):
        store = InMemoryStore()
        graph = _bigtool_graph(store)
        request = {"messages": [HumanMessage("go", id="h1")]}
        if label == "sync":
            result = graph.invoke(request)
        else:
            result = asyncio.run(graph.ainvoke(request))
        out[label] = result
    return out
