"""Progress reporting with langchain's custom events, as apps built on ``astream_events``
do: ``adispatch_custom_event`` from an async node, ``dispatch_custom_event`` from a sync
tool run by ToolNode inside a subgraph, both seen as ``on_custom_event`` (name, data,
metadata's node and namespace); the stream filtered by ``include_names``,
``include_types`` and ``exclude_tags``."""

from typing import Any

from langchain_core.callbacks.manager import adispatch_custom_event, dispatch_custom_event
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition


class Model(FakeMessagesListChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> "Model":
        return self


@tool
def index_docs(folder: str) -> str:
    """Index a folder."""
    for i in range(2):
        dispatch_custom_event("index_progress", {"folder": folder, "done": i + 1})
    return f"indexed {folder}"


def build() -> Any:
    model = Model(
        responses=[
            AIMessage(
                "",
                tool_calls=[
                    {
                        "name": "index_docs",
                        "args": {"folder": "docs"},
                        "id": "t1",
                        "type": "tool_call",
                    }
                ],
            ),
            AIMessage("indexed."),
        ]
    )

    async def agent(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        await adispatch_custom_event("thinking", {"n": len(state["messages"])}, config=config)
        return {"messages": [await model.ainvoke(state["messages"])]}

    sub = StateGraph(MessagesState)
    sub.add_node("agent", agent)
    sub.add_node("tools", ToolNode([index_docs]))
    sub.add_edge(START, "agent")
    sub.add_conditional_edges("agent", tools_condition)
    sub.add_edge("tools", "agent")

    async def intake(state: MessagesState) -> dict[str, Any]:
        await adispatch_custom_event("intake", {"chars": len(state["messages"][-1].content)})
        return {}

    g = StateGraph(MessagesState)
    g.add_node("intake", intake)
    g.add_node("worker", sub.compile(name="worker"))
    g.add_edge(START, "intake")
    g.add_edge("intake", "worker")
    g.add_edge("worker", END)
    return g.compile()


def ev(e: dict[str, Any]) -> list[Any]:
    meta = e.get("metadata", {})
    ns = meta.get("langgraph_checkpoint_ns")
    out = [e["event"], e["name"], meta.get("langgraph_node")]
    out.append(None if ns is None else [p.split(":")[0] for p in ns.split("|")])
    if e["event"] == "on_custom_event":
        out.append(e["data"])
    return out


async def run() -> dict[str, Any]:
    app = build()
    inp = {"messages": [("user", "index the docs")]}
    out: dict[str, Any] = {}
    everything = [ev(e) async for e in app.astream_events(inp, version="v2")]
    out["custom"] = [e for e in everything if e[0] == "on_custom_event"]
    out["chains"] = [e[:3] for e in everything if e[0] in ("on_chain_start", "on_chain_end")]
    out["tools"] = [e[:3] for e in everything if e[0].startswith("on_tool")]
    out["by_name"] = [
        ev(e) async for e in app.astream_events(inp, version="v2", include_names=["worker"])
    ]
    out["by_type"] = [
        ev(e) async for e in app.astream_events(inp, version="v2", include_types=["tool"])
    ]
    out["no_seq"] = [
        ev(e)[:2]
        async for e in app.astream_events(
            inp, version="v2", exclude_tags=["seq:step:1"], include_types=["chain"]
        )
    ]
    return out
