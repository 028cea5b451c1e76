"""``stream_mode="messages"`` of functional-API apps: the tokens of a chat model run in an
`@entrypoint`'s body and in the `@task`s it calls (sync and async), and the messages the
entrypoint returns (with ``entrypoint.final``, the value and what it saves), each with its node,
step and triggers, also with ``subgraphs=True`` and beside ``updates``. Before, an
entrypoint's run streamed no messages at all."""

import asyncio
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task


def _model(text: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(text)]))


@task
def draft(topic: str) -> str:
    return str(_model(f"draft on {topic}").invoke([HumanMessage(topic)]).content)


@task
async def think(question: str) -> AIMessage:
    return await _model(f"thinking {question}").ainvoke([HumanMessage(question)])


@entrypoint(checkpointer=InMemorySaver())
def writer(topic: str, *, previous: Any = None) -> dict[str, Any]:
    direct = _model(f"direct {topic}").invoke([HumanMessage(topic)])
    return {"direct": direct.content, "draft": draft(topic).result(), "again": previous is not None}


@entrypoint(checkpointer=InMemorySaver())
async def answerer(question: str) -> AIMessage:
    thought = await think(question)
    return AIMessage(f"final {thought.content}", id="final-1")


@entrypoint(checkpointer=InMemorySaver())
def saver(question: str) -> Any:
    return entrypoint.final(
        value=AIMessage(f"shown {question}", id="v1"), save=AIMessage("kept", id="s1")
    )


def _shown(chunk: Any) -> list[Any]:
    message, meta = chunk
    return [
        type(message).__name__,
        message.content,
        meta.get("langgraph_node"),
        meta.get("langgraph_step"),
        meta.get("langgraph_triggers"),
    ]


async def _answers() -> list[Any]:
    config = {"configurable": {"thread_id": "answers"}}
    return [_shown(c) async for c in answerer.astream("why", config, stream_mode="messages")]


def run() -> dict[str, Any]:
    config = {"configurable": {"thread_id": "writer"}}
    out: dict[str, Any] = {
        "first": [_shown(c) for c in writer.stream("owls", config, stream_mode="messages")],
        "second": [_shown(c) for c in writer.stream("bats", config, stream_mode="messages")],
        "async": asyncio.run(_answers()),
        "final": [
            _shown(c)
            for c in saver.stream("q", {"configurable": {"thread_id": "f"}}, stream_mode="messages")
        ],
    }
    out["with_updates"] = [
        [mode, _shown(data) if mode == "messages" else data]
        for mode, data in writer.stream(
            "cats", {"configurable": {"thread_id": "u"}}, stream_mode=["messages", "updates"]
        )
    ]
    out["subgraphs"] = [
        [ns, _shown(chunk)]
        for ns, chunk in writer.stream(
            "rats", {"configurable": {"thread_id": "s"}}, stream_mode="messages", subgraphs=True
        )
    ]
    return out
