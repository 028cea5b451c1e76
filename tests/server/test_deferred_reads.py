"""The read-only state endpoints (history, the viewer's history/steps, state, state at a
checkpoint) read checkpoints with their models deferred (`superstep_server.deferred`): the
JSON they answer is the JSON of the graph's own snapshots, models rebuilt, to the byte."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from pydantic import BaseModel

from server.conftest import LiveServer
from superstep_compat.graph import END, START, StateGraph
from superstep_compat.graph.message import add_messages
from superstep_compat.types import interrupt
from superstep_server import serde
from superstep_server.app import create_app
from superstep_server.deferred import DeferredModel, ServedSerializer, deferred_models
from superstep_server.state import state_json


class Order(BaseModel):
    item: str
    quantity: int
    notes: list[AIMessage] = []


class Chat(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    order: Order
    answer: Any


def reply(state: Chat) -> dict[str, Any]:
    count = len(state.get("messages", []))
    note = AIMessage(f"noted {count}", id=f"note-{count}")
    return {
        "messages": [AIMessage(f"reply {count}", id=f"ai-{count}")],
        "order": Order(item="tea", quantity=count, notes=[note]),
    }


def ask(state: Chat) -> dict[str, Any]:
    answer = interrupt({"question": AIMessage("how many?", id="q"), "order": state["order"]})
    return {"answer": answer}


def _graph() -> Any:
    builder = StateGraph(Chat)
    builder.add_node("reply", reply)
    builder.add_node("ask", ask)
    builder.add_edge(START, "reply")
    builder.add_edge("reply", "ask")
    builder.add_edge("ask", END)
    return builder.compile()


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = Path(tmp_path_factory.mktemp("deferred")) / "server.db"
    with LiveServer(create_app(database=str(db), graphs={"chat": _graph()}, workers=1)) as s:
        yield s


def test_a_deferred_model_is_written_as_the_model(live: LiveServer) -> None:
    served = ServedSerializer()
    order = Order(item="tea", quantity=2, notes=[AIMessage("x", id="n")])
    typed = served.dumps_typed({"order": order, "message": HumanMessage("hi", id="h")})
    with deferred_models():
        read = served.loads_typed(typed)
    assert isinstance(read["order"], DeferredModel)
    assert isinstance(served.loads_typed(typed)["order"], Order)  # outside: rebuilt
    assert serde.jsonable(read) == serde.jsonable(served.loads_typed(typed))


async def test_state_and_history_read_deferred_answer_the_snapshots_json(
    live: LiveServer,
) -> None:
    from langgraph_sdk import get_client

    client = get_client(url=live.url, api_key=None)
    tid = (await client.threads.create())["thread_id"]
    human = {"role": "human", "content": "an order", "id": "h-0"}
    await client.runs.wait(tid, "chat", input={"messages": [human]})
    await client.runs.wait(tid, "chat", command={"resume": {"n": 3}})
    await client.runs.wait(tid, "chat", input={"messages": [{**human, "id": "h-1"}]})

    server = live.app.state.server
    config = {"configurable": {"thread_id": tid}}
    with server.state.graph_of(tid) as graph:  # read here without deferring: rebuilt models
        snapshots = list(graph.get_state_history(config))
        whole = [state_json(s) for s in snapshots]
        latest = state_json(graph.get_state(config))
    assert any(s["interrupts"] for s in whole) and len(whole) > 6

    history = await client.threads.get_history(tid, limit=100)
    assert history == whole
    steps = await client.http.post(f"/threads/{tid}/history/steps", json={"limit": 100})
    assert steps == [{**s, "values": None} for s in whole]
    assert await client.threads.get_state(tid) == latest
    for state in whole[1:4]:
        at = state["checkpoint"]["checkpoint_id"]
        assert await client.threads.get_state(tid, checkpoint_id=at) == state
