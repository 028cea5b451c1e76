"""A stream shows what a running task emits while the task is still running (LangGraph's
live streaming): each test's node or task waits, after emitting, for the consumer to have
received the chunk; a stream that held chunks until the step ended would never deliver it,
and the node's wait times out. No sleeps: the waits are events set by the consumer."""

import asyncio
import operator
import threading
from typing import Annotated, Any, TypedDict

import pytest

from superstep_compat.func import entrypoint, task
from superstep_compat.graph import START, StateGraph
from superstep_compat.types import StreamWriter

PATIENCE = 10.0  # seconds a node waits for the consumer before giving up


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def test_a_custom_chunk_reaches_the_stream_before_its_node_returns() -> None:
    received = threading.Event()

    def node(state: State, writer: StreamWriter) -> dict[str, Any]:
        writer("before")
        seen = received.wait(PATIENCE)
        return {"log": ["seen" if seen else "held back"]}

    builder = StateGraph(State)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    graph = builder.compile()

    chunks = []
    for mode, chunk in graph.stream({"log": []}, stream_mode=["custom", "updates"]):
        chunks.append((mode, chunk))
        if chunk == "before":
            received.set()
    assert chunks == [("custom", "before"), ("updates", {"node": {"log": ["seen"]}})]


def test_an_entrypoint_streams_each_task_update_as_the_task_finishes() -> None:
    received = threading.Event()

    @task
    def first() -> str:
        return "one"

    @task
    def second(seen: bool) -> str:
        return "two" if seen else "held back"

    @entrypoint()
    def workflow(inputs: Any) -> list[str]:
        one = first().result()
        return [one, second(received.wait(PATIENCE)).result()]

    chunks = []
    for chunk in workflow.stream({}):
        chunks.append(chunk)
        if chunk == {"first": "one"}:
            received.set()
    assert chunks == [{"first": "one"}, {"second": "two"}, {"workflow": ["one", "two"]}]


async def test_astream_shows_a_custom_chunk_while_the_async_node_waits() -> None:
    received = asyncio.Event()

    async def node(state: State, writer: StreamWriter) -> dict[str, Any]:
        writer("before")
        try:
            await asyncio.wait_for(received.wait(), PATIENCE)
        except TimeoutError:
            return {"log": ["held back"]}
        return {"log": ["seen"]}

    builder = StateGraph(State)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    graph = builder.compile()

    chunks = []
    async for mode, chunk in graph.astream({"log": []}, stream_mode=["custom", "updates"]):
        chunks.append((mode, chunk))
        if chunk == "before":
            received.set()
    assert chunks == [("custom", "before"), ("updates", {"node": {"log": ["seen"]}})]


async def test_closing_a_live_astream_cancels_the_running_node_soon() -> None:
    cancelled = asyncio.Event()

    async def node(state: State, writer: StreamWriter) -> dict[str, Any]:
        writer("started")
        try:
            await asyncio.sleep(PATIENCE)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return {"log": ["finished"]}

    builder = StateGraph(State)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    stream = builder.compile().astream({"log": []}, stream_mode="custom")
    assert await stream.__anext__() == "started"
    await stream.aclose()
    # the inner streams are closed by the loop's finaliser: soon, not necessarily at once
    await asyncio.wait_for(cancelled.wait(), PATIENCE)


def test_generators_are_refused_as_entrypoints() -> None:
    with pytest.raises(NotImplementedError, match="Generators are not supported"):

        @entrypoint()
        def gen(inputs: Any) -> Any:
            yield inputs

    with pytest.raises(NotImplementedError):

        @entrypoint()
        async def agen(inputs: Any) -> Any:
            yield inputs


def test_an_unparameterised_final_return_has_an_untyped_output_schema() -> None:
    @entrypoint()
    def plain(inputs: Any, *, previous: Any) -> entrypoint.final:  # type: ignore[type-arg]
        return entrypoint.final(value="v", save=1)

    @entrypoint()
    def typed(inputs: Any, *, previous: Any) -> entrypoint.final[str, int]:
        return entrypoint.final(value="v", save=1)

    assert plain.get_output_jsonschema() == {"title": "LangGraphOutput"}
    assert typed.get_output_jsonschema() == {"title": "LangGraphOutput", "type": "string"}
