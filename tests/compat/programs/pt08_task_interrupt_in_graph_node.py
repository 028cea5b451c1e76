"""`@task` calls made from a `StateGraph` node whose function asks with `interrupt()`: the
node pauses on the call's interrupt and ``Command(resume=...)`` answers it (before, the
answer never reached the call: the node asked again on every resume). A publishing node
drafts (a task), asks an editor (a task that interrupts), then asks again for the final
go (a second interrupting call); answered one at a time, synchronously and on asyncio,
with the calls that finished not run again."""

import asyncio
import operator
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import task
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict

CALLS: list[str] = []


class S(TypedDict, total=False):
    topic: str
    log: Annotated[list[str], operator.add]


@task
def draft(topic: str) -> str:
    CALLS.append(f"draft:{topic}")
    return f"all about {topic}"


@task
def ask(question: str, text: str) -> str:
    CALLS.append(f"ask:{question}")
    return interrupt({"question": question, "text": text})


def publish(state: S) -> dict[str, Any]:
    text = draft(state["topic"]).result()
    edit = ask("edit?", text).result()
    if edit:
        text = f"{text} ({edit})"
    go = ask("publish?", text).result()
    return {"log": [text if go == "yes" else "held back"]}


async def apublish(state: S) -> dict[str, Any]:
    text = await draft(state["topic"])
    go = await ask("publish?", text)
    return {"log": [f"{text}: {go}"]}


def _run(builder_node: Any, answers: list[Any], label: str) -> list[Any]:
    builder = StateGraph(S)
    builder.add_node("publish", builder_node)
    builder.add_edge(START, "publish")
    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": label}}
    seen: list[Any] = [graph.invoke({"topic": "owls"}, config)]
    for answer in answers:
        seen.append(graph.invoke(Command(resume=answer), config))
        seen.append(graph.get_state(config))
    return seen


async def _arun() -> list[Any]:
    builder = StateGraph(S)
    builder.add_node("publish", apublish)
    builder.add_edge(START, "publish")
    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "async"}}
    first = await graph.ainvoke({"topic": "bats"}, config)
    second = await graph.ainvoke(Command(resume="later"), config)
    return [first, second, await graph.aget_state(config)]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {"sync": _run(publish, ["more photos", "yes"], "sync")}
    out["sync_calls"] = list(CALLS)
    CALLS.clear()
    out["async"] = asyncio.run(_arun())
    out["async_calls"] = list(CALLS)
    return out
