"""Graphs the server tests serve (built on the façade)."""

from __future__ import annotations

import asyncio
import operator
import threading
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from superstep_compat.config import get_store, get_stream_writer
from superstep_compat.errors import NodeTimeoutError
from superstep_compat.func import entrypoint, task
from superstep_compat.graph import START, MessagesState, StateGraph
from superstep_compat.runtime import Runtime
from superstep_compat.types import Command, RetryPolicy, TimeoutPolicy, interrupt


class Numbers(TypedDict):
    x: int


def add_one(state: Numbers) -> dict[str, int]:
    return {"x": state["x"] + 1}


def double(state: Numbers) -> dict[str, int]:
    return {"x": state["x"] * 2}


def two_nodes() -> Any:
    """a: x+1, then b: x*2."""
    builder = StateGraph(Numbers)
    builder.add_node("a", add_one)
    builder.add_node("b", double)
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    return builder.compile()


class Review(TypedDict):
    text: str
    log: Annotated[list[str], operator.add]


def draft(state: Review) -> dict[str, Any]:
    return {"text": state["text"] + " (drafted)", "log": ["draft"]}


def review(state: Review) -> dict[str, Any]:
    answer = interrupt({"question": "approve?", "text": state["text"]})
    return {"text": f"{state['text']} -> {answer}", "log": ["review"]}


def publish(state: Review) -> dict[str, Any]:
    get_stream_writer()({"published": state["text"]})
    return {"log": ["publish"]}


def jump(state: Review) -> Command[Any]:
    return Command(goto="publish", update={"log": ["jump"]})


def reviewed() -> Any:
    """draft -> review (interrupt) -> publish (writes a custom chunk); ``jump`` is reached
    only by a ``goto``."""
    builder = StateGraph(Review)
    builder.add_node("draft", draft)
    builder.add_node("review", review)
    builder.add_node("publish", publish)
    builder.add_node("jump", jump)
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "review")
    builder.add_edge("review", "publish")
    return builder.compile()


def failing() -> Any:
    def boom(state: Numbers) -> dict[str, int]:
        raise ValueError(f"boom at x={state['x']}")

    builder = StateGraph(Numbers)
    builder.add_node("a", add_one)
    builder.add_node("boom", boom)
    builder.add_edge(START, "a")
    builder.add_edge("a", "boom")
    return builder.compile()


class Gate:
    """Holds a node until the test opens it (no clocks: the test decides when it moves)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.opened = threading.Event()
        self.calls = 0

    def reset(self) -> None:
        self.entered.clear()
        self.opened.clear()
        self.calls = 0


GATE = Gate()


def gated() -> Any:
    """a -> wait (blocks until GATE opens) -> b."""

    def wait(state: Numbers) -> dict[str, int]:
        GATE.calls += 1
        GATE.entered.set()
        if not GATE.opened.wait(60):
            raise TimeoutError("the test never opened the gate")
        return {"x": state["x"] + 100}

    builder = StateGraph(Numbers)
    builder.add_node("a", add_one)
    builder.add_node("wait", wait)
    builder.add_node("b", double)
    builder.add_edge(START, "a")
    builder.add_edge("a", "wait")
    builder.add_edge("wait", "b")
    return builder.compile()


def nested() -> Any:
    """outer: child (a subgraph: a -> b) then a."""
    child = two_nodes()
    builder = StateGraph(Numbers)
    builder.add_node("child", child)
    builder.add_node("a", add_one)
    builder.add_edge(START, "child")
    builder.add_edge("child", "a")
    return builder.compile()


class Scratch(TypedDict):
    x: int
    scratch: str


def narrowed() -> Any:
    """outer: ``inner`` (a subgraph whose state has ``x`` and ``scratch`` but whose output is
    only ``x``)."""

    def note(state: Scratch) -> dict[str, Any]:
        return {"x": state["x"] + 1, "scratch": "noted"}

    inner = StateGraph(Scratch, output_schema=Numbers)
    inner.add_node("note", note)
    inner.add_edge(START, "note")
    builder = StateGraph(Numbers)
    builder.add_node("inner", inner.compile())
    builder.add_edge(START, "inner")
    return builder.compile()


def chat() -> Any:
    """One node calling a fake chat model (for ``messages-tuple``)."""
    model = GenericFakeChatModel(messages=iter([AIMessage("hello there", id="ai-1")] * 100))

    def respond(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    return builder.compile()


class Visit(TypedDict):
    user: str
    visits: int


def remember() -> Any:
    """Counts a user's visits in the store (``get_store()``: the API's store)."""

    def count(state: Visit) -> dict[str, Any]:
        store = get_store()
        found = store.get(("visits", state["user"]), "count")
        visits = (found.value["n"] if found else 0) + 1
        store.put(("visits", state["user"]), "count", {"n": visits})
        return {"visits": visits}

    builder = StateGraph(Visit)
    builder.add_node("count", count)
    builder.add_edge(START, "count")
    return builder.compile()


def tooled() -> Any:
    """ask (an AI message calling the ``add`` tool) -> tools (LangGraph's ToolNode)."""
    from langchain_core.tools import tool

    from superstep_compat.prebuilt import ToolNode

    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    def ask(state: MessagesState) -> dict[str, Any]:
        call = {"name": "add", "args": {"a": 1, "b": 2}, "id": "call-1"}
        return {"messages": [AIMessage("", tool_calls=[call])]}

    builder = StateGraph(MessagesState)
    builder.add_node("ask", ask)
    builder.add_node("tools", ToolNode([add]))
    builder.add_edge(START, "ask")
    builder.add_edge("ask", "tools")
    return builder.compile()


_TRIES: dict[int, int] = {}


def retried() -> Any:
    """``flaky`` fails its first two attempts for a given ``x`` (the message names the
    attempt), then adds 100; a negative ``x`` fails every attempt. Three attempts at most."""

    def flaky(state: Numbers) -> dict[str, int]:
        tries = _TRIES[state["x"]] = _TRIES.get(state["x"], 0) + 1
        if tries <= 2 or state["x"] < 0:
            raise ValueError(f"flaky attempt {tries} at x={state['x']}")
        return {"x": state["x"] + 100}

    builder = StateGraph(Numbers)
    builder.add_node("a", add_one)
    builder.add_node(
        "flaky",
        flaky,
        retry_policy=RetryPolicy(
            max_attempts=3, initial_interval=0.01, jitter=False, retry_on=ValueError
        ),
    )
    builder.add_edge(START, "a")
    builder.add_edge("a", "flaky")
    return builder.compile()


_CALLS: dict[int, int] = {}


def called() -> Any:
    """An entrypoint calling ``fetch`` (a `@task`) twice, on ``x`` and ``x + 1``: a call
    fails its first attempt for a given argument (the message names the attempt), then
    returns its argument times ten. Two attempts at most."""

    @task(retry_policy=RetryPolicy(max_attempts=2, initial_interval=0.01, jitter=False))
    def fetch(x: int) -> int:
        tries = _CALLS[x] = _CALLS.get(x, 0) + 1
        if tries == 1:
            raise ConnectionError(f"fetch attempt {tries} of {x}")
        return x * 10

    @entrypoint()
    def workflow(x: int) -> int:
        return int(fetch(x).result() + fetch(x + 1).result())

    return workflow


def node_calls() -> Any:
    """``a``, a graph node, calls ``fetch`` (a `@task` failing its first attempt for a given
    argument) on ``x + 100``: the `called` entrypoint's task, from a node."""

    @task(retry_policy=RetryPolicy(max_attempts=2, initial_interval=0.01, jitter=False))
    def fetch(x: int) -> int:
        tries = _CALLS[x] = _CALLS.get(x, 0) + 1
        if tries == 1:
            raise ConnectionError(f"fetch attempt {tries} of {x}")
        return x * 10

    def a(state: Numbers) -> dict[str, int]:
        return {"x": fetch(state["x"] + 100).result()}

    builder = StateGraph(Numbers)
    builder.add_node("a", a)
    builder.add_edge(START, "a")
    return builder.compile()


_SLOW: dict[int, int] = {}


def timed_call() -> Any:
    """An async entrypoint awaiting ``slow`` (an async `@task` with a run timeout of 0.2 s,
    retried on `NodeTimeoutError`), which sleeps past it on its first attempt for a given
    argument, then returns it plus 1000."""

    @task(
        timeout=0.2,
        retry_policy=RetryPolicy(
            max_attempts=2, initial_interval=0.01, jitter=False, retry_on=NodeTimeoutError
        ),
    )
    async def slow(x: int) -> int:
        tries = _SLOW[x] = _SLOW.get(x, 0) + 1
        if tries == 1:
            await asyncio.sleep(5)
        return x + 1000

    @entrypoint()
    async def workflow(x: int) -> int:
        return int(await slow(x))

    return workflow


def timed() -> Any:
    """``slow`` (a run timeout of 0.2 s, retried on `NodeTimeoutError`) sleeps past its
    timeout on its first attempt for a given ``x``, then adds 1000. Timeouts need an async run:
    the server runs a graph asynchronously for a run that streams ``events``."""

    async def slow(state: Numbers) -> dict[str, int]:
        tries = _SLOW[state["x"]] = _SLOW.get(state["x"], 0) + 1
        if tries == 1:
            await asyncio.sleep(5)
        return {"x": state["x"] + 1000}

    builder = StateGraph(Numbers)
    builder.add_node(
        "slow",
        slow,
        timeout=TimeoutPolicy(run_timeout=0.2),
        retry_policy=RetryPolicy(
            max_attempts=2, initial_interval=0.01, jitter=False, retry_on=NodeTimeoutError
        ),
    )
    builder.add_edge(START, "slow")
    return builder.compile()


@dataclass
class Caller:
    user: str = "nobody"


class Said(TypedDict, total=False):
    said: str


def contextual() -> Any:
    """One node saying the run's context (a ``Caller`` dataclass) as LangGraph hands it."""

    def say(state: Said, runtime: Runtime[Caller]) -> dict[str, str]:
        return {"said": repr(runtime.context)}

    builder = StateGraph(Said, context_schema=Caller)
    builder.add_node("say", say)
    builder.add_edge(START, "say")
    return builder.compile()


def all_graphs() -> dict[str, Any]:
    return {
        "two": two_nodes(),
        "review": reviewed(),
        "failing": failing(),
        "gated": gated(),
        "nested": nested(),
        "narrowed": narrowed(),
        "chat": chat(),
        "remember": remember(),
        "tooled": tooled(),
        "retried": retried(),
        "called": called(),
        "timed": timed(),
        "node_calls": node_calls(),
        "timed_call": timed_call(),
        "contextual": contextual(),
    }
