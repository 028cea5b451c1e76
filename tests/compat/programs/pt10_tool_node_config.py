"""What a tool run by `ToolNode` sees of its config, and what its changes to that config
reach. The node hands each call its own completed copy of the task's config (LangChain's
`get_config_list`): seen are the plain keys, tags, metadata and configurable entries a tool
reads (with and without the node's own ``tags``, which LangGraph's tools never see; one call
and two in parallel; sync and async; a ToolNode invoked by hand inside a node, with no config
and with the node's own), and that a tool writing into its config's metadata, tags or
configurable changes neither its sibling call's copy, nor the next step's tool, nor the
node's own config read after the tools ran."""

import asyncio
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

SEEN: list[dict[str, Any]] = []


def _plain(config: RunnableConfig, limit: bool = True) -> dict[str, Any]:
    # (the configurable's private ``__pregel_*`` entries and, for a ToolNode invoked by hand
    # with no config, the recursion limit are LangGraph's internals: left out)
    metadata = config.get("metadata") or {}
    configurable = config.get("configurable") or {}
    return {
        "keys": sorted(k for k in config if k not in ("callbacks", "run_id")),
        "tags": list(config.get("tags") or []),
        "metadata": {
            k: v
            for k, v in metadata.items()
            if isinstance(v, str | int | bool)
            and k not in ("langgraph_checkpoint_ns",)
            and not k.startswith("checkpoint_ns")
        },
        "configurable": sorted(
            k
            for k, v in configurable.items()
            if isinstance(v, str | int) and "checkpoint" not in k and not k.startswith("__")
        ),
        "recursion_limit": config.get("recursion_limit") if limit else None,
    }


@tool
def peek(label: str, config: RunnableConfig) -> str:
    """Record the config this call sees, then write into it."""
    SEEN.append({"label": label, **_plain(config, not label.startswith("h0"))})
    config["metadata"]["written_by_tool"] = label
    config["tags"].append(f"tag-{label}")
    config["configurable"]["written_by_tool"] = label
    return f"saw {label}"


def _ask(labels: list[str], step: int) -> AIMessage:
    calls = [
        {"name": "peek", "args": {"label": f"{label}{step}"}, "id": f"c{label}{step}"}
        for label in labels
    ]
    return AIMessage("", tool_calls=calls, id=f"ai{step}")


def _graph(tags: list[str] | None, labels: list[str]) -> Any:
    def agent(state: MessagesState) -> dict[str, Any]:
        done = sum(1 for m in state["messages"] if getattr(m, "type", "") == "tool")
        if done >= 2 * len(labels):
            return {"messages": [AIMessage("done", id="final")]}
        return {"messages": [_ask(labels, done)]}

    def route(state: MessagesState) -> str:
        return "tools" if state["messages"][-1].tool_calls else END

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode([peek], tags=tags))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route, ["tools", END])
    builder.add_edge("tools", "agent")
    return builder.compile()


def _by_hand() -> Any:
    """A node that runs a ToolNode itself (with no config: the task's, found as the current
    one; then with the node's own config object), then reads its own config again."""
    node = ToolNode([peek])

    def outer(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        first = node.invoke({"messages": [_ask(["h"], 0)]})
        second = node.invoke({"messages": [_ask(["h"], 1)]}, config)
        SEEN.append({"label": "outer-after", **_plain(config)})
        return {"messages": first["messages"] + second["messages"]}

    builder = StateGraph(MessagesState)
    builder.add_node("outer", outer)
    builder.add_edge(START, "outer")
    return builder.compile()


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    request = {"messages": [HumanMessage("go", id="h1")]}
    for tags in (None, ["node-tag"]):
        for labels in (["a"], ["a", "b"]):
            for mode in ("sync", "async"):
                SEEN.clear()
                graph = _graph(tags, labels)
                config: RunnableConfig = {"metadata": {"who": "caller"}, "tags": ["run-tag"]}
                if mode == "sync":
                    result = graph.invoke(request, config)
                else:
                    result = asyncio.run(graph.ainvoke(request, config))
                key = f"{mode}-{'tagged' if tags else 'plain'}-{len(labels)}"
                out[key] = {
                    "seen": sorted(SEEN, key=lambda s: s["label"]),
                    "messages": [m.content for m in result["messages"]],
                }
    SEEN.clear()
    _by_hand().invoke(request, {"configurable": {"user": "u1"}})
    out["by-hand"] = sorted(SEEN, key=lambda s: s["label"])
    return out
