"""`superstep_core.twin`: one generator core, driven in a thread or on a loop."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from superstep_core.twin import Block, Twin, adrive, async_only, drive, sync_only


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
