"""LangGraph's private ``CONFIG_KEY_READ``/``CONFIG_KEY_SEND`` config entries, as deepagents'
StateBackend uses them from a node and from a tool run by ToolNode: a send is one of the
task's writes (before its return value's), a fresh read sees the task's sends, a plain read
the committed state; an unknown key is a KeyError."""

from typing import Annotated, Any, NotRequired

from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph._internal._constants import CONFIG_KEY_READ, CONFIG_KEY_SEND
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode
from typing_extensions import TypedDict


def merge(a: dict, b: dict) -> dict:
    return {**(a or {}), **b}


class S(TypedDict):
    messages: Annotated[list, add_messages]
    files: NotRequired[Annotated[dict, merge]]
    x: NotRequired[int]


@tool
def write_file(name: str, text: str) -> str:
    """Write."""
    conf = get_config()["configurable"]
    before = conf[CONFIG_KEY_READ]("files", True)
    conf[CONFIG_KEY_SEND]([("files", {name: text})])
    after = conf[CONFIG_KEY_READ]("files", True)
    stale = conf[CONFIG_KEY_READ]("files")
    both = conf[CONFIG_KEY_READ](["files", "x"], True)
    return f"before={before} after={after} stale={stale} both={both}"


def node(s: S, config: RunnableConfig) -> dict[str, Any]:
    config["configurable"][CONFIG_KEY_SEND]([("x", 5), ("files", {"n": "N"})])
    call = {"name": "write_file", "args": {"name": "a", "text": "A"}, "id": "1"}
    return {"messages": [AIMessage("", tool_calls=[call])], "files": {"n": "later"}}


def bad(s: S, config: RunnableConfig) -> None:
    config["configurable"][CONFIG_KEY_READ]("nope")


def run() -> dict[str, Any]:
    g = StateGraph(S)
    g.add_node(node)
    g.add_node("tools", ToolNode([write_file]))
    g.add_edge(START, "node")
    g.add_edge("node", "tools")
    app = g.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    out = app.invoke({"messages": [("user", "hi")], "files": {"z": "Z"}}, config)
    result: dict[str, Any] = {"files": out["files"], "x": out["x"]}
    result["tool"] = out["messages"][-1].content
    result["updates"] = [
        next(iter(step.values()))
        for step in app.stream({"messages": []}, config, stream_mode="updates")
    ][:1]
    g2 = StateGraph(S)
    g2.add_node(bad)
    g2.add_edge(START, "bad")
    try:
        g2.compile().invoke({"messages": []})
    except KeyError as e:
        result["unknown"] = str(e)
    return result
