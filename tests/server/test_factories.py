"""Graph factories in ``langgraph.json`` (a function building the graph each time the server
needs one), driven through the official ``langgraph-sdk``: called with the run's config,
with a ``ServerRuntime`` (access context, store, the run's context), with nothing; async
ones and context managers held open while the run uses their graph; a factory giving
something else fails the run with a message naming it."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langgraph_sdk.runtime import ServerRuntime

from server.conftest import LiveServer
from superstep_compat.graph import START, StateGraph
from superstep_server.app import create_app

CALLS: list[tuple[str, Any]] = []
OPEN: set[str] = set()


class Said(TypedDict, total=False):
    text: str
    seen: str


def _saying(word: str, check_open: str | None = None) -> Any:
    def say(state: Said) -> dict[str, Any]:
        if check_open is not None:
            assert check_open in OPEN, "the factory's context is closed while its graph runs"
        return {"text": f"{word} {state.get('text', '')}".strip()}

    builder = StateGraph(Said)
    builder.add_node("say", say)
    builder.add_edge(START, "say")
    return builder.compile()


def by_config(config: dict[str, Any]) -> Any:
    configurable = config.get("configurable") or {}
    CALLS.append(("by_config", configurable))
    return _saying(str(configurable.get("greeting", "hello")))


async def by_runtime(runtime: ServerRuntime) -> Any:
    run = runtime.execution_runtime
    context = run.context if run is not None else None
    CALLS.append(("by_runtime", (runtime.access_context, context, runtime.store is not None)))
    word = (context or {}).get("greeting", "hi") if isinstance(context, dict) else "hi"
    return _saying(word)


def without_arguments() -> Any:
    CALLS.append(("without_arguments", None))
    return _saying("plain")


@contextlib.asynccontextmanager
async def async_managed(config: dict[str, Any]) -> AsyncIterator[Any]:
    OPEN.add("async")
    try:
        yield _saying("managed", check_open="async")
    finally:
        OPEN.discard("async")
        CALLS.append(("async_managed closed", None))


@contextlib.contextmanager
def managed(config: dict[str, Any]) -> Iterator[Any]:
    OPEN.add("sync")
    try:
        yield _saying("sync-managed", check_open="sync")
    finally:
        OPEN.discard("sync")
        CALLS.append(("managed closed", None))


def not_a_graph(config: dict[str, Any]) -> Any:
    return {"nodes": []}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("factories") / "server.db"
    graphs = {
        "by_config": by_config,
        "by_runtime": by_runtime,
        "plain": without_arguments,
        "async_managed": async_managed,
        "managed": managed,
        "broken": not_a_graph,
    }
    with LiveServer(create_app(database=str(db), graphs=graphs, workers=2)) as server:
        yield server


async def test_a_factory_gets_the_assistants_and_the_runs_config(client: Any) -> None:
    CALLS.clear()
    assert (await client.runs.wait(None, "by_config", input={"text": "x"}))["text"] == "hello x"
    assistant = await client.assistants.create(
        "by_config", config={"configurable": {"greeting": "hola"}}
    )
    tid = (await client.threads.create())["thread_id"]
    out = await client.runs.wait(tid, assistant["assistant_id"], input={"text": "ana"})
    assert out == {"text": "hola ana"}
    configurable = [c for name, c in CALLS if name == "by_config"][-1]
    assert configurable["thread_id"] == tid
    assert configurable["assistant_id"] == assistant["assistant_id"]
    # reading the thread builds the graph again, with the thread's config
    state = await client.threads.get_state(tid)
    assert state["values"] == {"text": "hola ana"}
    assert [c for name, c in CALLS if name == "by_config"][-1]["thread_id"] == tid


async def test_a_runtime_factory_learns_why_it_is_called_and_the_runs_context(
    client: Any,
) -> None:
    CALLS.clear()
    tid = (await client.threads.create())["thread_id"]
    out = await client.runs.wait(
        tid, "by_runtime", input={"text": "bo"}, context={"greeting": "hey"}
    )
    assert out == {"text": "hey bo"}
    await client.threads.get_state(tid)
    await client.threads.update_state(tid, {"text": "edited"}, as_node="say")
    drawing = await client.assistants.get_graph("by_runtime")
    assert {n["id"] for n in drawing["nodes"]} >= {"__start__", "say"}
    await client.assistants.get_schemas("by_runtime")
    seen = [args for name, args in CALLS if name == "by_runtime"]
    assert ("threads.create_run", {"greeting": "hey"}, True) in seen
    assert {a for a, _context, _store in seen} >= {
        "threads.create_run",
        "threads.read",
        "threads.update",
        "assistants.read",
    }
    assert all(context is None for access, context, _ in seen if access != "threads.create_run")


async def test_factories_without_arguments_and_context_managers_sync_and_async(
    client: Any,
) -> None:
    CALLS.clear()
    assert (await client.runs.wait(None, "plain", input={}))["text"] == "plain"
    out = await client.runs.wait(None, "async_managed", input={"text": "a"})
    assert out == {"text": "managed a"}
    out = await client.runs.wait(None, "managed", input={"text": "s"})
    assert out == {"text": "sync-managed s"}
    # a factory's context closes once the run has ended (after its result is written)
    for _ in range(100):
        names = [name for name, _ in CALLS]
        if "async_managed closed" in names and "managed closed" in names and not OPEN:
            break
        await asyncio.sleep(0.05)
    assert "async_managed closed" in names and "managed closed" in names
    assert not OPEN


async def test_a_factory_that_gives_no_graph_fails_the_run_naming_it(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    run = await client.runs.create(tid, "broken", input={})
    await client.runs.join(tid, run["run_id"])
    ended = await client.runs.get(tid, run["run_id"])
    assert ended["status"] == "error"
    thread = await client.threads.get(tid)
    assert "'broken'" in json.dumps(thread["error"]) and "dict" in json.dumps(thread["error"])


def test_superstep_serve_loads_a_factory_from_langgraph_json(tmp_path: Path) -> None:
    from superstep_server.cli import _load_all  # the config check `superstep serve` makes

    (tmp_path / "agent.py").write_text(
        "from superstep_compat.graph import START, StateGraph\n"
        "from typing import TypedDict\n"
        "class S(TypedDict):\n    x: int\n"
        "def make_graph(config):\n"
        "    b = StateGraph(S)\n    b.add_node('a', lambda s: {'x': s['x'] + 1})\n"
        "    b.add_edge(START, 'a')\n    return b.compile()\n"
        "builder = StateGraph(S)\n"
    )
    config = tmp_path / "langgraph.json"
    config.write_text(json.dumps({"graphs": {"made": "./agent.py:make_graph"}}))
    graphs = _load_all(_Args(str(config)))[0]
    assert callable(graphs["made"])
    config.write_text(json.dumps({"graphs": {"builder": "./agent.py:builder"}}))
    from superstep_core.cli_support import UsageError

    with pytest.raises(UsageError, match="not a compiled graph or a function"):
        _load_all(_Args(str(config)))


class _Args:
    def __init__(self, config: str) -> None:
        self.config = config
