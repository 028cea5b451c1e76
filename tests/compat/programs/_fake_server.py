"""A fake of ``langgraph-sdk``'s clients for the RemoteGraph programs (``rg*.py``): it
records every call (method name and keyword arguments, made plain) and answers with canned
data: a run stream of the chunks it was given, thread states, graphs. The same fake serves
real LangGraph's `RemoteGraph` and the façade's, so the recorded calls compare too."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langgraph_sdk.schema import StreamPart


def part(event: str, data: Any) -> StreamPart:
    return StreamPart(event=event, data=data)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    kind = type(value).__name__
    if kind == "Interrupt":
        return {"Interrupt": _plain(value.value), "id": value.id}
    if kind == "GraphOutput":
        return {"GraphOutput": _plain(value.value), "interrupts": _plain(value.interrupts)}
    return kind


class _Recorder:
    def __init__(self, log: list[Any], area: str, answers: dict[str, Any]) -> None:
        self._log = log
        self._area = area
        self._answers = answers

    def _record(self, name: str, kwargs: dict[str, Any]) -> Any:
        self._log.append([f"{self._area}.{name}", _plain(kwargs)])
        return self._answers[name]


class _SyncArea(_Recorder):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args: Any, **kwargs: Any) -> Any:
            answer = self._record(name, {**kwargs, **{f"arg{i}": a for i, a in enumerate(args)}})
            if name == "stream":
                return iter([part(e, _copy(d)) for e, d in answer])
            return _copy(answer)

        return call


class _AsyncArea(_Recorder):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name == "stream":

            async def stream(**kwargs: Any) -> Any:
                for e, d in self._record(name, kwargs):
                    yield part(e, _copy(d))

            return stream

        async def call(*args: Any, **kwargs: Any) -> Any:
            answer = self._record(name, {**kwargs, **{f"arg{i}": a for i, a in enumerate(args)}})
            return _copy(answer)

        return call


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


class FakeClient:
    """``client.runs``, ``client.threads``, ``client.assistants``; ``sync=False`` gives
    the async client's coroutine methods. ``answers`` maps a method name to its answer
    (``stream``: a list of (event, data) pairs)."""

    def __init__(self, answers: dict[str, Any], *, sync: bool = True) -> None:
        self.calls: list[Any] = []
        area = _SyncArea if sync else _AsyncArea
        self.runs = area(self.calls, "runs", answers)
        self.threads = area(self.calls, "threads", answers)
        self.assistants = area(self.calls, "assistants", answers)


def plain(value: Any) -> Any:
    """``value`` as JSON data (library objects by their class name)."""
    return _plain(value)


def chunks(items: Iterable[Any]) -> list[Any]:
    """Stream items made plain (a StreamPart as [event, data])."""
    out = []
    for item in items:
        if isinstance(item, StreamPart):
            out.append(["part", item.event, _plain(item.data)])
        else:
            out.append(_plain(item))
    return out
