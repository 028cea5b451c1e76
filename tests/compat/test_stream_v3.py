"""v3 streaming's building blocks (`superstep_compat.stream`), one behaviour each; whole
runs are compared with real LangGraph by programs p31/p32 and LangGraph's own suite."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from superstep_compat.stream import StreamChannel, StreamTransformer
from superstep_compat.stream._convert import event_from_tuple
from superstep_compat.stream._mux import StreamMux
from superstep_compat.stream._types import ProtocolEvent


def _event(method: str, data: Any = None, namespace: list[str] | None = None) -> ProtocolEvent:
    return {
        "type": "event",
        "method": method,
        "params": {"namespace": namespace or [], "timestamp": 0, "data": data},
    }


class Keep(StreamTransformer):
    def init(self) -> dict[str, Any]:
        return {}

    def process(self, event: ProtocolEvent) -> bool:
        return event["method"] != "drop"


class Named(StreamTransformer):
    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self.out: StreamChannel[int] = StreamChannel("named")

    def init(self) -> dict[str, Any]:
        return {"named": self.out}

    def process(self, event: ProtocolEvent) -> bool:
        self.out.push(1)
        return True


def _bound(is_async: bool = False) -> StreamChannel[int]:
    channel: StreamChannel[int] = StreamChannel()
    channel._bind(is_async=is_async)
    return channel


def test_channel_keeps_only_what_is_pushed_after_its_subscriber_arrives() -> None:
    channel = _bound()
    channel.push(1)
    reader = iter(channel)
    channel.push(2)
    channel.close()
    assert list(reader) == [2]


def test_channel_allows_one_subscriber() -> None:
    channel = _bound()
    iter(channel)
    with pytest.raises(RuntimeError, match="already has a subscriber"):
        iter(channel)


def test_channel_raises_its_error_after_the_queued_items() -> None:
    channel = _bound()
    reader = iter(channel)
    channel.push(1)
    channel.fail(ValueError("boom"))
    assert next(reader) == 1
    with pytest.raises(ValueError, match="boom"):
        next(reader)


def test_unbound_channel_cannot_be_iterated() -> None:
    with pytest.raises(TypeError, match="not been bound"):
        iter(StreamChannel())


def test_tee_gives_every_reader_every_item() -> None:
    channel = _bound()
    left, right = channel.tee(2)
    channel.push(1)
    channel.push(2)
    channel.close()
    assert list(left) == [1, 2] and list(right) == [1, 2]


def test_channel_pulls_the_run_forward_when_empty() -> None:
    channel = _bound()
    pending = [3, 2, 1]

    def pump() -> bool:
        if not pending:
            channel.close()
            return False
        channel.push(pending.pop())
        return True

    channel._request_more = pump
    assert list(channel) == [1, 2, 3]


async def test_async_channel_reads_on_the_async_lane() -> None:
    channel = _bound(is_async=True)
    reader = aiter(channel)
    channel.push(1)
    channel.close()
    assert [item async for item in reader] == [1]


def test_mux_logs_events_no_transformer_rejected_and_numbers_them() -> None:
    mux = StreamMux([Keep()])
    log = iter(mux._events)
    for method in ("values", "drop", "updates"):
        mux.push(_event(method))
    mux.close()
    assert [(e["method"], e.get("seq")) for e in log] == [("values", 1), ("updates", 2)]


def test_named_channel_events_enter_the_log_before_the_event_that_caused_them() -> None:
    mux = StreamMux([Named()])
    log = iter(mux._events)
    mux.push(_event("values"))
    mux.close()
    assert [(e["method"], e["seq"]) for e in log] == [("custom:named", 1), ("values", 2)]


def test_mux_rejects_a_projection_key_twice() -> None:
    with pytest.raises(ValueError, match="'named' \\(owned by Named\\)"):
        StreamMux([Named(), Named()])


def test_mux_rejects_an_async_transformer_on_the_sync_lane() -> None:
    class NeedsLoop(Keep):
        async def aprocess(self, event: ProtocolEvent) -> bool:
            return True

    with pytest.raises(RuntimeError, match="requires an async run"):
        StreamMux([NeedsLoop()])


def test_child_mux_needs_factories() -> None:
    with pytest.raises(RuntimeError, match="factories"):
        StreamMux([Keep()])._make_child(("sub:1",))


def test_mux_failure_reaches_the_projections() -> None:
    named = Named()
    mux = StreamMux([named])
    reader = iter(named.out)
    mux.fail(ValueError("run failed"))
    with pytest.raises(ValueError, match="run failed"):
        list(reader)


async def test_scheduled_work_finishes_before_the_run_closes() -> None:
    done: list[int] = []

    class Later(Keep):
        requires_async = True

        def process(self, event: ProtocolEvent) -> bool:
            async def work() -> None:
                await asyncio.sleep(0)
                done.append(1)

            self.schedule(work())
            return True

    mux = StreamMux([Later()], is_async=True)
    await mux.apush(_event("values"))
    await mux.aclose()
    assert done == [1]


def test_values_event_moves_interrupts_out_of_the_state() -> None:
    event = event_from_tuple(("sub:1",), "values", {"x": 1, "__interrupt__": ("i",)})
    assert event["params"]["data"] == {"x": 1}
    assert event["params"]["interrupts"] == ("i",)
    assert event["params"]["namespace"] == ["sub:1"]
