"""Façade channel specs as engine channel strategies.

Every LangGraph channel becomes an engine `Channel` whose `combine` folds one step's writes
with the spec's own `update` semantics; the two channels nearly every graph uses (`LastValue`
and `BinaryOperatorAggregate`) get direct strategies that skip the copy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from superstep_compat.channels.base import MISSING as FACADE_MISSING
from superstep_compat.channels.base import BaseChannel
from superstep_compat.channels.binop import BinaryOperatorAggregate, _get_overwrite
from superstep_compat.channels.ephemeral_value import EphemeralValue
from superstep_compat.channels.last_value import LastValue
from superstep_compat.channels.topic import Topic
from superstep_compat.channels.untracked_value import UntrackedValue
from superstep_compat.errors import (
    ErrorCode,
    InvalidUpdateError,
    create_error_message,
    one_overwrite_error,
)
from superstep_compat.types import Overwrite
from superstep_core.channel import MISSING, Channel, Write

__all__ = ["engine_channel", "without_empty"]


def _concurrent_update(key: str) -> InvalidUpdateError:
    return InvalidUpdateError(
        create_error_message(
            message=(
                f"At key '{key}': Can receive only one value per step. Use an Annotated key "
                "to handle multiple values."
            ),
            error_code=ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE,
        )
    )


class LastValueStrategy(Channel):
    """One write per step, else LangGraph's `InvalidUpdateError`."""

    def combine(self, channel: str, current: Any, writes: Sequence[Write]) -> Any:
        if len(writes) != 1:
            raise _concurrent_update(channel)
        return writes[0][1]


class ReducerStrategy(Channel):
    """``operator(current, write)`` per write; an `Overwrite` replaces the value, and the
    step's other writes are dropped."""

    def __init__(self, spec: BinaryOperatorAggregate) -> None:
        self.spec = spec
        self.operator = spec.operator

    def initial(self) -> Any:
        value = self.spec.initial()
        return MISSING if value is FACADE_MISSING else value

    def combine(self, channel: str, current: Any, writes: Sequence[Write]) -> Any:
        value = current
        overwritten = False
        for _, item in writes:
            if isinstance(item, (Overwrite, dict)):
                is_overwrite, replacement = _get_overwrite(item)
                if is_overwrite:
                    if overwritten:
                        raise one_overwrite_error()
                    overwritten = True
                    value = replacement
                    continue
            if overwritten:
                continue  # LangGraph: an Overwrite in a step also drops the writes after it
            value = item if value is MISSING else self.operator(value, item)
        return value


class SpecStrategy(Channel):
    """Any other channel: fold the writes with the spec's own ``update``."""

    def __init__(self, spec: BaseChannel[Any, Any]) -> None:
        self.spec = spec
        # LangGraph empties a non-accumulating `Topic` in every step that does not write
        # it, as an `EphemeralValue` (its ``update`` of no writes clears it)
        self.ephemeral = isinstance(spec, EphemeralValue) or (
            isinstance(spec, Topic) and not spec.accumulate
        )
        self.untracked = isinstance(spec, UntrackedValue)  # never checkpointed, as LangGraph
        self.topic = isinstance(spec, Topic)

    def initial(self) -> Any:
        value = self.spec.initial()
        return MISSING if value is FACADE_MISSING or self.empty(value) else value

    def combine(self, channel: str, current: Any, writes: Sequence[Write]) -> Any:
        clone = self.spec.copy()
        clone.value = FACADE_MISSING if current is MISSING else current
        if not clone.update([v for _, v in writes]):
            # not updated (a topic written only empty lists, a barrier names it had): the
            # value it held, the same object, so its checkpoint channel keeps its version
            # (`build_checkpoint` tells a changed channel by the object), as LangGraph's
            return current
        value = clone.value
        return MISSING if value is FACADE_MISSING or self.empty(value) else value

    def empty(self, value: Any) -> bool:
        """Whether ``value`` is no value, as LangGraph's channel is unavailable then: a
        `Topic` holding nothing (LangGraph's raises `EmptyChannelError` on ``get``, so
        state views, chunks and node inputs leave it out)."""
        return self.topic and not value


def engine_channel(spec: BaseChannel[Any, Any]) -> Channel:
    """The engine strategy for one façade channel spec."""
    if type(spec) is LastValue:
        return LastValueStrategy()
    if type(spec) is BinaryOperatorAggregate:
        return ReducerStrategy(spec)
    return SpecStrategy(spec)


def without_empty(channels: Mapping[str, Channel], values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` (a checkpoint's, LangGraph's layout) less those that are no value in the
    engine's ``channels``: LangGraph saves an emptied `Topic` as ``[]``, which it shows as no
    value (`SpecStrategy.empty`)."""
    return {
        k: v
        for k, v in values.items()
        if not (isinstance(c := channels.get(k), SpecStrategy) and c.empty(v))
    }
