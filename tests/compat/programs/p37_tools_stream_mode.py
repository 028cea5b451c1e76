"""The ``tools`` stream mode: each tool call's started / output-delta / finished / error
events (``ToolRuntime.emit_output_delta``), a subgraph's tool calls under its namespace only
with ``subgraphs=True``, and v3 streaming's ``run.tool_calls`` built from them. In a v3 run
the ``messages`` mode carries a chat model's protocol events (message-start, content-block
start/delta/finish, message-finish), which ``run.messages`` assembles."""

from typing import Annotated, Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolCallTransformer, ToolNode, ToolRuntime
from typing_extensions import TypedDict


class S(TypedDict):
    messages: Annotated[list, add_messages]


@tool
def streamer(text: str, runtime: ToolRuntime) -> str:
    """Stream two partial outputs."""
    for chunk in ("one", "two"):
        runtime.emit_output_delta(chunk)
    return text


@tool
def boom() -> str:
    """Fail."""
    raise ValueError("nope")


def model(s: S) -> dict[str, Any]:
    calls = [
        {"name": "streamer", "args": {"text": "x"}, "id": "1"},
        {"name": "boom", "args": {}, "id": "2"},
    ]
    return {"messages": [AIMessage("", tool_calls=calls, id="m")]}


def _graph(**compile_kwargs: Any) -> Any:
    g = StateGraph(S)
    g.add_node(model)
    g.add_node("tools", ToolNode([streamer, boom], handle_tool_errors=True))
    g.add_edge(START, "model")
    g.add_edge("model", "tools")
    return g.compile(**compile_kwargs)


def _plain(data: dict[str, Any]) -> dict[str, Any]:
    out = dict(data)
    if isinstance(out.get("output"), ToolMessage):
        out["output"] = out["output"].content
    return out


def _by_call(chunks: list[Any]) -> dict[str, list[Any]]:
    """Each call's events in order (calls run on threads: their interleaving varies)."""
    calls: dict[str, list[Any]] = {}
    for ns, data in chunks:
        calls.setdefault(data["tool_call_id"], []).append([ns, _plain(data)])
    return calls


def run() -> dict[str, Any]:
    app = _graph()
    out: dict[str, Any] = {
        "flat": _by_call([((), d) for d in app.stream({"messages": []}, stream_mode="tools")])
    }
    outer = StateGraph(S)
    outer.add_node("sub", app)
    outer.add_edge(START, "sub")
    nested = outer.compile()
    chunks = nested.stream({"messages": []}, stream_mode=["tools"], subgraphs=True)
    out["nested"] = _by_call(
        [(tuple(n.split(":")[0] for n in ns), data) for ns, _mode, data in chunks]
    )
    out["nested_hidden"] = list(nested.stream({"messages": []}, stream_mode="tools"))
    v3 = _graph(transformers=[ToolCallTransformer]).stream_events({"messages": []}, version="v3")
    calls = []
    for call in v3.tool_calls:
        deltas = list(call.output_deltas)
        calls.append([call.tool_call_id, call.tool_name, deltas, call.error, call.completed])
    out["v3"] = sorted(calls)
    out["v3_messages"] = _v3_messages()
    return out


def _v3_messages() -> dict[str, Any]:
    chat = GenericFakeChatModel(messages=iter([AIMessage(content="final answer")]))

    def talk(s: S) -> dict[str, Any]:
        return {"messages": [chat.invoke(s["messages"])]}

    g = StateGraph(S)
    g.add_node(talk)
    g.add_edge(START, "talk")
    run = g.compile().stream_events({"messages": [("user", "hi")]}, version="v3")
    events = []
    for event in run:
        if event["method"] == "messages":
            data, meta = event["params"]["data"]
            kept = {k: v for k, v in data.items() if k not in ("id", "message_id")}
            events.append([kept, meta.get("langgraph_node"), "run_id" in meta])
    return {"events": events}
