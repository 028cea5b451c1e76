"""A generative-UI agent (``langgraph.graph.ui``, as the LangGraph server's UI examples
write it): a node answers and pushes a weather card tied to its message, a later node
updates the card with merged props and pushes then deletes a spinner; the ``ui`` state key
uses `ui_message_reducer`. Seen: the ``custom`` and ``updates`` chunks, the final state (the
card merged, the spinner gone), the reducer's error for deleting an unknown component, and
`push_ui_message` with ``state_key=None`` (streamed, not written)."""

import operator
from collections.abc import Sequence
from typing import Annotated, Any

from langchain_core.messages import AIMessage, AnyMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.ui import (
    AnyUIMessage,
    delete_ui_message,
    push_ui_message,
    ui_message_reducer,
)
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    messages: Annotated[Sequence[AnyMessage], add_messages]
    ui: Annotated[Sequence[AnyUIMessage], ui_message_reducer]
    log: Annotated[list[str], operator.add]


def answer(state: State) -> dict[str, Any]:
    message = AIMessage("Here is the weather", id="ai-1")
    push_ui_message("weather", {"city": "Oslo", "temp": 3}, id="card", message=message)
    push_ui_message("toast", {"text": "streamed only"}, id="toast", state_key=None)
    return {"messages": [message], "log": ["answer"]}


def refresh(state: State) -> dict[str, Any]:
    push_ui_message("spinner", {}, id="spin")
    push_ui_message("weather", {"temp": 4}, id="card", merge=True)
    delete_ui_message("spin")
    return {"log": ["refresh"]}


def _shown(value: Any) -> Any:
    """``value`` with UI messages' run ids and tags left out (they vary between runs)."""
    if isinstance(value, list | tuple):
        return [_shown(v) for v in value]
    if not isinstance(value, dict):
        return value
    if value.get("type") == "ui":
        meta = {k: v for k, v in value["metadata"].items() if k not in ("run_id", "tags")}
        return {**value, "metadata": meta}
    return {k: _shown(v) for k, v in value.items()}


def run() -> dict[str, Any]:
    builder = StateGraph(State)
    builder.add_node("answer", answer)
    builder.add_node("refresh", refresh)
    builder.add_edge(START, "answer")
    builder.add_edge("answer", "refresh")
    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "ui"}}
    chunks = [
        _shown(c) for c in graph.stream({"messages": []}, config, stream_mode=["custom", "updates"])
    ]
    state = graph.get_state(config).values
    out: dict[str, Any] = {
        "chunks": chunks,
        "ui": [_shown(m) for m in state["ui"]],
        "log": state["log"],
    }
    try:
        ui_message_reducer([], {"type": "remove-ui", "id": "ghost"})
    except ValueError as e:
        out["unknown"] = str(e)
    out["one_each"] = ui_message_reducer(
        {"type": "ui", "id": "a", "name": "n", "props": {"x": 1}, "metadata": {}},
        [{"type": "remove-ui", "id": "a"}],
    )
    return out
