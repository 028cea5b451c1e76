"""`superstep_core.twin`: one generator core, driven in a thread or on a loop."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator
from contextlib import contextmanager
from typing import Any

import pytest

from superstep_core.twin import (
    EXHAUSTED,
    Block,
    Emit,
    Twin,
    TwinIter,
    adrive,
    adrive_iter,
    async_of,
    async_only,
    closing,
    drive,
    drive_iter,
    in_thread,
    iter_of,
    iter_twins,
    next_of,
    plain_of,
    sync_only,
    twins,
)


def _add(a: int, b: int) -> int:
    return a + b


async def _aadd(a: int, b: int) -> int:
    await asyncio.sleep(0)
    return a + b + 100  # tells the async spelling apart


def _core(fail: BaseException | None = None) -> Twin[Any]:
    total = yield Block(_add, _aadd, (1, 2))
    if fail is not None:
        try:
            yield Block(_raise, _araise, (fail,))
        except ValueError as e:
            return ("caught", str(e), total)
    return total


def _raise(error: BaseException) -> None:
    raise error


async def _araise(error: BaseException) -> None:
    raise error


def test_each_driver_performs_its_own_spelling() -> None:
    assert drive(_core()) == 3
    assert asyncio.run(adrive(_core())) == 103


def test_an_operation_error_is_thrown_into_the_core() -> None:
    assert drive(_core(ValueError("v"))) == ("caught", "v", 3)
    assert asyncio.run(adrive(_core(ValueError("v")))) == ("caught", "v", 103)
    with pytest.raises(KeyError):
        drive(_core(KeyError("k")))
    with pytest.raises(KeyError):
        asyncio.run(adrive(_core(KeyError("k"))))


def test_a_stop_iteration_the_core_lets_out_stays_itself() -> None:
    # a generator turns an escaping StopIteration into RuntimeError; the plain spelling of
    # the pair raised it as is, so the driver hands back the original
    with pytest.raises(StopIteration) as caught:
        drive(_core(StopIteration(7)))
    assert caught.value.value == 7


def test_one_sided_blocks_refuse_the_other_driver() -> None:
    def core() -> Twin[int]:
        value: int = yield sync_only(_add, 2, 3)
        return value

    assert drive(core()) == 5
    with pytest.raises(TypeError, match="other driver"):
        asyncio.run(adrive(core()))

    def acore() -> Twin[int]:
        value: int = yield async_only(_aadd, 2, 3)
        return value

    assert asyncio.run(adrive(acore())) == 105
    with pytest.raises(TypeError, match="other driver"):
        drive(acore())


# --- streams and method pairs -------------------------------------------------------------


def _counting(log: list[str]) -> TwinIter[int]:
    """Emits each sum of a block; holds a resource it releases with a block."""
    try:
        for n in (1, 2):
            total = yield Block(_add, _aadd, (n, 0))
            yield Emit(total)
    finally:
        log.append("released")
        yield Block(_add, _aadd, (0, 0))


def _consume_async(stream: Any) -> list[Any]:
    async def run() -> list[Any]:
        return [item async for item in stream]

    return asyncio.run(run())


def test_a_streaming_core_emits_on_either_lane() -> None:
    log: list[str] = []
    assert list(drive_iter(_counting(log))) == [1, 2]
    assert _consume_async(adrive_iter(_counting(log))) == [101, 102]
    assert log == ["released", "released"]


def test_closing_the_consumer_runs_the_cores_clean_up_blocks() -> None:
    log: list[str] = []
    plain = drive_iter(_counting(log))
    assert next(plain) == 1
    plain.close()

    async def early_stop() -> None:
        aio = adrive_iter(_counting(log))
        assert await anext(aio) == 101
        await aio.aclose()

    asyncio.run(early_stop())
    assert log == ["released", "released"]


def test_an_error_in_a_with_body_is_thrown_into_the_core() -> None:
    seen: list[str] = []

    def holding() -> TwinIter[str]:
        try:
            yield Emit("held")
        except KeyError as error:
            seen.append(f"core saw {error}")
            raise

    with pytest.raises(KeyError), contextmanager(drive_iter)(holding()) as value:
        assert value == "held"
        raise KeyError("body")
    assert seen == ["core saw 'body'"]


def test_next_of_reads_the_lanes_iterator_to_exhausted() -> None:
    def reading(items: Any) -> TwinIter[Any]:
        while (item := (yield next_of(items))) is not EXHAUSTED:
            yield Emit(item)

    async def agen() -> AsyncIterator[int]:
        for n in (7, 8):
            yield n

    assert list(drive_iter(reading(iter([4, 5])))) == [4, 5]
    assert _consume_async(adrive_iter(reading(agen()))) == [7, 8]


def test_iter_of_makes_the_lanes_iterator_of_an_iterable() -> None:
    class Both:
        def __iter__(self) -> Any:
            return iter([1, 2])

        def __aiter__(self) -> Any:
            return _agen([3])

    def reading(iterable: Any) -> TwinIter[Any]:
        items = yield iter_of(iterable)
        while (item := (yield next_of(items))) is not EXHAUSTED:
            yield Emit(item)

    assert list(drive_iter(reading(Both()))) == [1, 2]
    assert _consume_async(adrive_iter(reading(Both()))) == [3]


async def _agen(items: list[int]) -> AsyncIterator[int]:
    for item in items:
        yield item


class _Pair:
    def _total(self, a: int, *, b: int = 0) -> Twin[int]:
        """The sum, on the lane's spelling."""
        result: int = yield Block(_add, _aadd, (a, b))
        return result

    def _totals(self, a: int) -> TwinIter[int]:
        """Two sums."""
        for b in (0, 1):
            yield Emit((yield Block(_add, _aadd, (a, b))))

    def count(self, n: int) -> list[int]:
        return list(range(n))

    total, atotal = twins(_total)
    totals, atotals = iter_twins(_totals)
    acount = in_thread(count)


class _Overriding(_Pair):
    def count(self, n: int) -> list[int]:
        return [-n]


def test_method_twins_are_named_after_their_core_and_keep_its_signature() -> None:
    pair = _Pair()
    assert pair.total(1, b=2) == 3
    assert asyncio.run(pair.atotal(1, b=2)) == 103
    assert list(pair.totals(1)) == [1, 2]
    assert _consume_async(pair.atotals(1)) == [101, 102]
    assert [_Pair.total.__name__, _Pair.atotal.__name__] == ["total", "atotal"]
    assert _Pair.atotals.__qualname__ == "_Pair.atotals"
    core = inspect.signature(_Pair._total)  # the generator it returns is no spelling's
    assert inspect.signature(_Pair.atotal) == core.replace(return_annotation=core.empty)
    assert inspect.isgeneratorfunction(_Pair.totals)
    assert inspect.isasyncgenfunction(_Pair.atotals)
    assert inspect.iscoroutinefunction(_Pair.atotal)


class _PlainLane(_Pair):
    total = plain_of(_Pair._total)


class _AsyncLane(_Pair):
    total = async_of(_Pair._total)


def test_a_lane_class_takes_its_one_spelling_under_the_cores_name() -> None:
    assert _PlainLane().total(1, b=2) == 3
    assert asyncio.run(_AsyncLane().total(1, b=2)) == 103
    assert _PlainLane.total.__name__ == _AsyncLane.total.__name__ == "total"
    assert inspect.iscoroutinefunction(_AsyncLane.total)
    assert not inspect.iscoroutinefunction(_PlainLane.total)
    core = inspect.signature(_Pair._total)
    assert inspect.signature(_AsyncLane.total) == core.replace(return_annotation=core.empty)


def test_in_thread_runs_the_instances_own_method() -> None:
    assert asyncio.run(_Pair().acount(2)) == [0, 1]
    assert asyncio.run(_Overriding().acount(2)) == [-2]


def test_closing_closes_the_lanes_generator_and_skips_a_plain_iterator() -> None:
    closed: list[str] = []

    def plain() -> Any:
        try:
            yield 1
        finally:
            closed.append("plain")

    async def aio() -> AsyncIterator[int]:
        try:
            yield 1
        finally:
            closed.append("async")

    def reading(items: Any) -> TwinIter[Any]:
        try:
            yield Emit((yield next_of(items)))
        finally:
            yield closing(items)

    stream = drive_iter(reading(plain()))
    assert next(stream) == 1
    stream.close()

    async def early_stop() -> None:
        stream = adrive_iter(reading(aio()))
        assert await anext(stream) == 1
        await stream.aclose()

    asyncio.run(early_stop())
    assert list(drive_iter(reading(iter([5])))) == [5]
    assert closed == ["plain", "async"]
