"""The prebuilt ReAct agent seen through callbacks: `astream_events` (v2) and a sync
callback handler show the ``call_model`` and ``generate_structured_response`` runs under
their tasks (tag ``seq:step:1``), the model's runs beside them, the router after them;
with and without a ``response_format``."""

import asyncio

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from langgraph.prebuilt import create_react_agent
from pydantic import BaseModel


class Model(FakeMessagesListChatModel):
    def bind_tools(self, tools, **kw):
        return self

    def with_structured_output(self, schema, **kw):
        return RunnableLambda(lambda x: schema(answer="forty-two"), name="structured")


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Answer(BaseModel):
    answer: str


def _model() -> Model:
    return Model(
        responses=[
            AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}]),
            AIMessage("3"),
        ]
    )


def _kwargs(structured: bool) -> dict:
    return {"response_format": Answer} if structured else {}


class Seen(BaseCallbackHandler):
    def __init__(self) -> None:
        self.runs: dict = {}
        self.seen: list = []

    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kw):
        self.runs[run_id] = kw.get("name")
        parent = self.runs.get(parent_run_id)
        self.seen.append(("start", kw.get("name"), parent, sorted(kw.get("tags") or [])))

    def on_chain_end(self, outputs, *, run_id, **kw):
        shown = sorted(outputs) if isinstance(outputs, dict) else type(outputs).__name__
        self.seen.append(("end", self.runs.get(run_id), shown))


async def _events(structured: bool) -> list:
    agent = create_react_agent(_model(), [add], **_kwargs(structured))
    names: dict = {}
    out = []
    async for e in agent.astream_events({"messages": [("user", "hi")]}, version="v2"):
        if not e["event"].startswith("on_chain"):
            continue
        names[e["run_id"]] = e["name"]
        parent = names.get(e["parent_ids"][-1]) if e["parent_ids"] else None
        out.append(
            (
                e["event"],
                e["name"],
                parent,
                len(e["parent_ids"]),
                sorted(e.get("tags", [])),
                e["metadata"].get("langgraph_node"),
                e["metadata"].get("langgraph_step"),
            )
        )
    return out


def _callbacks(structured: bool) -> list:
    seen = Seen()
    agent = create_react_agent(_model(), [add], **_kwargs(structured))
    agent.invoke({"messages": [("user", "hi")]}, {"callbacks": [seen]})
    return seen.seen


def run() -> dict:
    return {
        "events": asyncio.run(_events(False)),
        "events_structured": asyncio.run(_events(True)),
        "callbacks": _callbacks(False),
        "callbacks_structured": _callbacks(True),
    }
