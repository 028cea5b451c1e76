"""A graph invoked inside a tool (an agent calling a sub-agent): it takes the calling task's
runtime context and store unless given its own, and streams as a subgraph of the caller
(``subgraphs=True``). A tool parameter named ``runtime`` gets the ToolRuntime whatever its
annotation. `ToolCallRequest.override` outside a graph (runtime None) and the deprecation of
assigning its fields."""

from dataclasses import dataclass
from typing import Annotated, Any

from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore
from typing_extensions import TypedDict


@dataclass
class Ctx:
    user: str


class S(TypedDict):
    messages: Annotated[list, add_messages]


def inner_node(s: S, runtime: Runtime[Ctx]) -> dict[str, Any]:
    item = runtime.store.get(("ns",), "k") if runtime.store is not None else None
    text = f"ctx={runtime.context} store={item.value if item else None}"
    return {"messages": [AIMessage(text, id="inner")]}


inner_builder = StateGraph(S, context_schema=Ctx)
inner_builder.add_node("inner", inner_node)
inner_builder.add_edge(START, "inner")
# bound with its own config (as create_agent's graphs are): still a subgraph of the caller
inner = inner_builder.compile(name="sub").with_config(
    {"recursion_limit": 50, "metadata": {"bound": True}}
)


@tool
def call_sub(q: str) -> str:
    """Call the sub-graph."""
    own = inner.invoke({"messages": [("user", q)]}, context=Ctx("own"))["messages"][-1].content
    inherited = inner.invoke({"messages": [("user", q)]})["messages"][-1].content
    return f"{inherited} | {own}"


@tool
def by_name(x: int, runtime: Any) -> str:
    """A runtime parameter without a ToolRuntime annotation."""
    return f"{x} {type(runtime).__name__} {runtime.tool_call_id} {len(runtime.state['messages'])}"


def model(s: S) -> dict[str, Any]:
    if len(s["messages"]) > 2:
        return {"messages": [AIMessage("done", id="done")]}
    calls = [
        {"name": "call_sub", "args": {"q": "x"}, "id": "1"},
        {"name": "by_name", "args": {"x": 42}, "id": "2"},
    ]
    return {"messages": [AIMessage("", tool_calls=calls, id="m1")]}


def run() -> dict[str, Any]:
    store = InMemoryStore()
    store.put(("ns",), "k", {"v": "stored"})
    g = StateGraph(S, context_schema=Ctx)
    g.add_node("model", model)
    g.add_node("tools", ToolNode([call_sub, by_name]))
    g.add_edge(START, "model")
    g.add_edge("model", "tools")
    g.add_conditional_edges("tools", lambda s: END if len(s["messages"]) > 3 else "model")
    app = g.compile(store=store)
    events = []
    for ns, mode, data in app.stream(
        {"messages": [("user", "hi")]},
        stream_mode=["updates"],
        subgraphs=True,
        context=Ctx("caller"),
    ):
        node, update = next(iter(data.items()))
        contents = [m.content for m in (update or {}).get("messages", [])]
        events.append([[n.split(":")[0] for n in ns], mode, node, contents])
    return {"events": events, "override": _override()}


def _override() -> list[Any]:
    import warnings

    call = {"name": "by_name", "args": {"x": 1}, "id": "9", "type": "tool_call"}
    request = ToolCallRequest(tool_call=call, tool=by_name, state={"a": 1}, runtime=None)
    changed = request.override(state={"a": 2}, tool_call={**call, "args": {"x": 2}})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        request.state = {"a": 3}
    return [
        changed.state,
        changed.tool_call["args"],
        changed.runtime,
        request.state,
        [w.category.__name__ for w in caught],
    ]
