"""A run's cancel (`RunControl.request_cancel`, a Superstep extension) against a plain close of
its stream, sync and async: a consumer that stops a stream inside a step keeps the writes of
the step's tasks that had finished, as LangGraph does, but a run cancelled first does not
keep a task that finished after the cancel (as LangGraph's server, whose asyncio cancel never
lets such a task end). Here the consumer stops at the chunk of the late task's own update,
as the server's worker stops a cancelled run at the next chunk it sees. No sleeps: the late
task waits for an event the consumer sets."""

import asyncio
import operator
import threading
from typing import Annotated, Any, TypedDict

import pytest

from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.graph import START, StateGraph
from superstep_compat.runtime import RunControl

PATIENCE = 10.0  # seconds the late task waits for the consumer before giving up
MODES = ["updates", "custom"]  # a live stream: a task's update goes out as it ends


class State(TypedDict, total=False):
    x: Annotated[list[str], operator.add]


def _graph(log: list[str], release: threading.Event) -> Any:
    def early(state: State) -> State:
        log.append("early")
        return {"x": ["early"]}

    def late(state: State) -> State:
        log.append("late")
        if not release.wait(PATIENCE):
            raise TimeoutError("the consumer never released the late task")
        return {"x": ["late"]}

    def joined(state: State) -> State:
        log.append("joined")
        return {"x": ["joined"]}

    builder = StateGraph(State)
    builder.add_node("early", early)
    builder.add_node("late", late)
    builder.add_node("joined", joined)
    builder.add_edge(START, "early")
    builder.add_edge(START, "late")
    builder.add_edge(["early", "late"], "joined")
    return builder.compile(checkpointer=InMemorySaver())


def _stop_at(chunk: Any, control: RunControl, cancel: bool, release: threading.Event) -> bool:
    """What the consumer does with each chunk: at `early`'s update it cancels the run (or
    not) and lets `late` end; it stops at `late`'s update."""
    _, update = chunk
    if "early" in update:
        if cancel:
            control.request_cancel()
        release.set()
    return "late" in update


def _stream(cancel: bool) -> tuple[Any, list[str]]:
    log: list[str] = []
    release = threading.Event()
    graph = _graph(log, release)
    config = {"configurable": {"thread_id": "t"}}
    control = RunControl()
    stream = graph.stream({"x": []}, config, stream_mode=MODES, control=control)
    for chunk in stream:
        if _stop_at(chunk, control, cancel, release):
            stream.close()
    return graph, log


async def _astream(cancel: bool) -> tuple[Any, list[str]]:
    log: list[str] = []
    release = threading.Event()
    graph = _graph(log, release)
    config = {"configurable": {"thread_id": "t"}}
    control = RunControl()
    stream = graph.astream({"x": []}, config, stream_mode=MODES, control=control)
    async for chunk in stream:
        if _stop_at(chunk, control, cancel, release):
            await stream.aclose()
    return graph, log


def _run(driver: str, cancel: bool) -> tuple[Any, list[str]]:
    if driver == "sync":
        return _stream(cancel)
    return asyncio.run(_astream(cancel))


CONFIG = {"configurable": {"thread_id": "t"}}


@pytest.mark.parametrize("driver", ["sync", "async"])
def test_a_closed_stream_keeps_every_task_that_finished(driver: str) -> None:
    graph, log = _run(driver, cancel=False)
    snapshot = graph.get_state(CONFIG)
    assert sorted((t.name, t.result) for t in snapshot.tasks) == [
        ("early", {"x": ["early"]}),
        ("late", {"x": ["late"]}),
    ]
    assert graph.invoke(None, CONFIG) == {"x": ["early", "late", "joined"]}
    assert sorted(log) == ["early", "joined", "late"]  # neither ran again


@pytest.mark.parametrize("driver", ["sync", "async"])
def test_a_cancelled_run_keeps_no_task_that_finished_after_the_cancel(driver: str) -> None:
    graph, log = _run(driver, cancel=True)
    snapshot = graph.get_state(CONFIG)
    assert snapshot.values == {"x": ["early"]} and snapshot.next == ("late",)
    assert sorted((t.name, t.result) for t in snapshot.tasks) == [
        ("early", {"x": ["early"]}),
        ("late", None),
    ]
    assert graph.invoke(None, CONFIG) == {"x": ["early", "late", "joined"]}
    assert sorted(log) == ["early", "joined", "late", "late"]  # only `late` ran again


def test_a_control_is_cancelled_by_the_event_it_was_made_with() -> None:
    event = threading.Event()
    control = RunControl(cancel=event)
    assert not control.cancel_requested and not control.drain_requested
    event.set()
    assert control.cancel_requested and not control.drain_requested
