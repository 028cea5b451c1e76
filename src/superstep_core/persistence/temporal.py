"""Dates and times as plain lists, keeping time zones: the codec's ``datetime``, ``date``,
``time`` and ``timedelta`` forms.

A time zone is written as ``None`` (naive), an int (a fixed ``datetime.timezone`` offset in
microseconds; its display name is not kept) or a str (a ``zoneinfo.ZoneInfo`` key, e.g.
``"Europe/Paris"``). Other ``tzinfo`` classes are refused with `UnsupportedTzinfo`.

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.checkpoint.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

__all__ = [
    "UnsupportedTzinfo",
    "date_from_state",
    "date_to_state",
    "datetime_from_state",
    "datetime_to_state",
    "time_from_state",
    "time_to_state",
    "timedelta_from_state",
    "timedelta_to_state",
]

_US = dt.timedelta(microseconds=1)


class UnsupportedTzinfo(TypeError):
    """A ``tzinfo`` that is neither ``datetime.timezone`` nor a keyed ``zoneinfo.ZoneInfo``."""

    def __init__(self, tz: dt.tzinfo) -> None:
        self.tz_type = type(tz)
        super().__init__(type(tz).__qualname__)


def _tz_to_state(tz: dt.tzinfo | None) -> int | str | None:
    if tz is None:
        return None
    if type(tz) is dt.timezone:
        offset = tz.utcoffset(None)
        return offset // _US
    if type(tz) is zoneinfo.ZoneInfo and tz.key is not None:
        return tz.key
    raise UnsupportedTzinfo(tz)


def _tz_from_state(state: int | str | None) -> dt.tzinfo | None:
    if state is None:
        return None
    if isinstance(state, str):
        return zoneinfo.ZoneInfo(state)
    if state == 0:
        return dt.UTC
    return dt.timezone(dt.timedelta(microseconds=state))


def datetime_to_state(value: dt.datetime) -> list[Any]:
    """``[year, month, day, hour, minute, second, microsecond, fold, tz]``."""
    return [
        value.year,
        value.month,
        value.day,
        value.hour,
        value.minute,
        value.second,
        value.microsecond,
        value.fold,
        _tz_to_state(value.tzinfo),
    ]


def datetime_from_state(state: list[Any]) -> dt.datetime:
    """Inverse of `datetime_to_state`."""
    y, mo, d, h, mi, s, us, fold, tz = state
    return dt.datetime(y, mo, d, h, mi, s, us, tzinfo=_tz_from_state(tz), fold=fold)


def date_to_state(value: dt.date) -> list[int]:
    """``[year, month, day]``."""
    return [value.year, value.month, value.day]


def date_from_state(state: list[int]) -> dt.date:
    """Inverse of `date_to_state`."""
    return dt.date(*state)


def time_to_state(value: dt.time) -> list[Any]:
    """``[hour, minute, second, microsecond, fold, tz]``."""
    tz = _tz_to_state(value.tzinfo)
    return [value.hour, value.minute, value.second, value.microsecond, value.fold, tz]


def time_from_state(state: list[Any]) -> dt.time:
    """Inverse of `time_to_state`."""
    h, mi, s, us, fold, tz = state
    return dt.time(h, mi, s, us, tzinfo=_tz_from_state(tz), fold=fold)


def timedelta_to_state(value: dt.timedelta) -> list[int]:
    """``[days, seconds, microseconds]`` (normalised, as ``timedelta`` stores them)."""
    return [value.days, value.seconds, value.microseconds]


def timedelta_from_state(state: list[int]) -> dt.timedelta:
    """Inverse of `timedelta_to_state`."""
    days, seconds, microseconds = state
    return dt.timedelta(days=days, seconds=seconds, microseconds=microseconds)
