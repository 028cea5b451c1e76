"""`RemoteGraph` (`superstep_compat.pregel.remote`) against LangGraph's: each
`programs/rg*.py` drives one behaviour through a fake of ``langgraph-sdk``'s clients
(`programs/_fake_server.py`, shared by both sides) and records what the graph sent and what
it returned; the run under real LangGraph and the run under the façade must be equal.
Skipped when no real LangGraph is found. The v3 ``stream_events`` handles and the rest of
the class are also checked here without the reference, as specifications.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest

from compat.langgraph_venv import differential_program_tests
from superstep_compat.pregel._remote_run_stream import (
    _AsyncRemoteGraphRunStream,
    _ChannelProjection,
    _ProjectionRegistry,
    _RemoteGraphRunStream,
    _translate_command_input,
)
from superstep_compat.pregel.protocol import PregelProtocol, StreamProtocol
from superstep_compat.pregel.remote import RemoteGraph
from superstep_compat.types import Command

PROGRAMS, results, test_program_runs_under_langgraph, test_program_matches_langgraph = (
    differential_program_tests("rg[0-9]*.py")
)


def test_every_behaviour_has_a_program() -> None:
    assert len(PROGRAMS) == 3


# --- specifications of the v3 handles (a fake SDK thread stream) ----------------------------


class FakeThreadStream:
    """What `_RemoteGraphRunStream` uses of ``langgraph_sdk``'s ``SyncThreadStream``."""

    def __init__(self, *, start_error: Exception | None = None) -> None:
        self.log: list[Any] = []
        self.thread_id = "thread-1"
        self.start_error = start_error
        self.run = self
        self.events = iter([{"method": "values"}, {"method": "updates"}])
        self.values = "values-projection"
        self.messages = "messages-projection"
        self.tool_calls = "tools-projection"
        self.subgraphs = "subgraphs-projection"
        self.extensions = {"mine": "custom-projection"}

    def __enter__(self) -> FakeThreadStream:
        self.log.append("enter")
        return self

    def __exit__(self, *exc: Any) -> None:
        self.log.append(("exit", exc[0]))

    def start(self, **kwargs: Any) -> dict[str, str]:
        self.log.append(("start", kwargs))
        if self.start_error is not None:
            raise self.start_error
        return {"run_id": "run-1"}

    def close(self) -> None:
        self.log.append("close")

    def subscribe(self, channels: list[str]) -> Any:
        self.log.append(("subscribe", channels))
        return iter(
            [
                {"method": "updates", "params": {"data": 1}},
                {"method": "updates", "params": {}},
                {"method": "tasks", "params": {"data": 2}},
                {"method": "updates", "params": {"data": 3}},
            ]
        )


class FakeRuns:
    def __init__(self, fail: bool = False) -> None:
        self.cancelled: list[Any] = []
        self.fail = fail

    def cancel(self, thread_id: str, run_id: str, *, wait: bool) -> None:
        self.cancelled.append((thread_id, run_id, wait))
        if self.fail:
            raise RuntimeError("cancel failed")


class FakeSyncClient:
    def __init__(self, fail_cancel: bool = False) -> None:
        self.runs = FakeRuns(fail_cancel)


def _handle(
    sdk: FakeThreadStream, client: FakeSyncClient | None = None, input: Any = None
) -> _RemoteGraphRunStream:
    return _RemoteGraphRunStream(
        sync_client=client or FakeSyncClient(),
        sdk_thread=sdk,
        input={"x": 1} if input is None else input,
        config={"configurable": {}},
        metadata={"m": 1},
    )


def test_entering_the_handle_starts_the_run() -> None:
    sdk = FakeThreadStream()
    with _handle(sdk) as run:
        assert run._run_id == "run-1"
    start = {"input": {"x": 1}, "config": {"configurable": {}}, "metadata": {"m": 1}}
    assert sdk.log == ["enter", ("start", start), ("exit", None)]


def test_a_failed_start_leaves_the_sdk_stream_with_the_error() -> None:
    sdk = FakeThreadStream(start_error=RuntimeError("no run"))
    with pytest.raises(RuntimeError, match="no run"), _handle(sdk):
        pytest.fail("the body must not run")
    assert sdk.log[-1] == ("exit", RuntimeError)


def test_abort_cancels_the_started_run_once_and_closes() -> None:
    sdk, client = FakeThreadStream(), FakeSyncClient(fail_cancel=True)
    with _handle(sdk, client) as run:
        run.abort()
        run.abort()
    assert client.runs.cancelled == [("thread-1", "run-1", False)]
    assert sdk.log.count("close") == 1
    assert ("exit", None) not in sdk.log  # an aborted handle is closed already


def test_abort_before_the_run_started_only_closes() -> None:
    sdk, client = FakeThreadStream(), FakeSyncClient()
    _handle(sdk, client).abort()
    assert client.runs.cancelled == [] and sdk.log == ["close"]


def test_iterating_twice_continues_one_subscription() -> None:
    with _handle(FakeThreadStream()) as run:
        assert iter(run) is iter(run)
        assert [e["method"] for e in run] == ["values", "updates"]


def test_projections_by_name() -> None:
    sdk = FakeThreadStream()
    with _handle(sdk) as run:
        ext = run.extensions
        assert list(ext) == [
            "values", "messages", "tool_calls", "subgraphs",
            "updates", "checkpoints", "tasks", "custom",
        ]  # fmt: skip
        assert ext["tool_calls"] == "tools-projection" and ext["mine"] == "custom-projection"
        assert list(ext["updates"]) == [1, 3]
        assert isinstance(ext["checkpoints"], _ChannelProjection)
        assert run.values == "values-projection"
    assert len(_ProjectionRegistry(sdk)) == 8


def test_a_resume_command_is_sent_as_its_value() -> None:
    assert _translate_command_input(Command(resume={"ok": True})) == {"ok": True}
    assert _handle(FakeThreadStream(), input=Command(resume=1))._start_kwargs["input"] == 1
    with pytest.raises(NotImplementedError, match="goto"):
        _translate_command_input(Command(goto="n"))


def test_v3_rejects_what_the_wire_cannot_carry() -> None:
    rg = RemoteGraph("agent", sync_client=FakeSyncClient())  # type: ignore[arg-type]
    with pytest.raises(NotImplementedError, match="`interrupt_before=`"):
        rg.stream_events({}, version="v3", interrupt_before=["a"])
    with pytest.raises(NotImplementedError, match="context"):
        rg.stream_events({}, version="v3", context={})
    with pytest.raises(NotImplementedError, match="version='v2'"):
        rg.stream_events({}, version="v2")


class FakeAsyncThreadStream(FakeThreadStream):
    """What `_AsyncRemoteGraphRunStream` uses of ``AsyncThreadStream``: the same calls,
    awaited."""

    async def __aenter__(self) -> FakeAsyncThreadStream:
        return self.__enter__()  # type: ignore[return-value]

    async def __aexit__(self, *exc: Any) -> None:
        self.__exit__(*exc)

    async def start(self, **kwargs: Any) -> dict[str, str]:  # type: ignore[override]
        return super().start(**kwargs)

    async def close(self) -> None:  # type: ignore[override]
        super().close()


class FakeAsyncRuns(FakeRuns):
    async def cancel(self, thread_id: str, run_id: str, *, wait: bool) -> None:  # type: ignore[override]
        super().cancel(thread_id, run_id, wait=wait)


class FakeAsyncClient:
    def __init__(self, fail_cancel: bool = False, sdk: Any = None) -> None:
        self.runs = FakeAsyncRuns(fail_cancel)
        self.threads = self
        self.sdk = sdk

    def stream(self, **request: Any) -> Any:
        return self.sdk


def test_the_async_handle_enters_starts_aborts_and_leaves_as_the_sync_one() -> None:
    async def run() -> tuple[list[Any], list[Any], list[Any]]:
        sdk, client = FakeAsyncThreadStream(), FakeAsyncClient(fail_cancel=True)
        handle = _AsyncRemoteGraphRunStream(
            client=client, sdk_thread=sdk, input={"x": 1}, config={}, metadata=None
        )
        async with handle as entered:
            assert entered._run_id == "run-1"
            await entered.abort()
            await entered.abort()
        failing = FakeAsyncThreadStream(start_error=RuntimeError("no run"))
        with pytest.raises(RuntimeError, match="no run"):
            async with _AsyncRemoteGraphRunStream(
                client=client, sdk_thread=failing, input={}, config={}, metadata=None
            ):
                pytest.fail("the body must not run")
        return sdk.log, client.runs.cancelled, failing.log

    log, cancelled, failed = asyncio.run(run())
    assert log[0] == "enter" and log.count("close") == 1 and ("exit", None) not in log
    assert cancelled == [("thread-1", "run-1", False)]
    assert failed[-1] == ("exit", RuntimeError)


def test_each_spelling_of_stream_events_makes_its_own_handle() -> None:
    sdk = FakeThreadStream()
    sync = FakeAsyncClient(sdk=sdk)  # the sync client's calls are the same, not awaited
    rg = RemoteGraph("agent", sync_client=sync, client=FakeAsyncClient(sdk=sdk))  # type: ignore[arg-type]
    assert isinstance(rg.stream_events({}, version="v3"), _RemoteGraphRunStream)
    handle = asyncio.run(rg.astream_events({}, version="v3"))
    assert isinstance(handle, _AsyncRemoteGraphRunStream)


def test_each_spelling_of_stream_events_names_itself_when_not_v3() -> None:
    rg = RemoteGraph("agent")
    with pytest.raises(NotImplementedError, match=r"RemoteGraph.stream_events.*use stream\("):
        rg.stream_events({}, version="v2")
    with pytest.raises(NotImplementedError, match=r"RemoteGraph.astream_events.*use astream\("):
        asyncio.run(rg.astream_events({}, version="v2"))


def test_the_public_pairs_keep_their_names_and_signatures() -> None:
    for name in ("get_graph", "get_state", "get_state_history", "update_state", "stream"):
        plain, aio = getattr(RemoteGraph, name), getattr(RemoteGraph, f"a{name}")
        assert (plain.__name__, aio.__name__) == (name, f"a{name}")
        assert inspect.signature(plain) == inspect.signature(aio)
    assert inspect.isgeneratorfunction(RemoteGraph.stream)
    assert inspect.isasyncgenfunction(RemoteGraph.astream)
    assert inspect.iscoroutinefunction(RemoteGraph.ainvoke)
    assert list(inspect.signature(RemoteGraph.get_state).parameters)[:2] == ["self", "config"]


def test_remote_graph_is_a_pregel_protocol() -> None:
    assert isinstance(RemoteGraph("agent"), PregelProtocol)


def test_stream_protocol_calls_its_function() -> None:
    seen: list[Any] = []
    stream = StreamProtocol(seen.append, ["values"])
    stream(((), "values", 1))
    assert seen == [((), "values", 1)] and stream.modes == {"values"}
