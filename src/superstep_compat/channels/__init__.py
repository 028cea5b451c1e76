"""`langgraph.channels`: declarative channel specs usable as ``Annotated[T, Spec(...)]``."""

from superstep_compat.channels.any_value import AnyValue
from superstep_compat.channels.base import BaseChannel
from superstep_compat.channels.binop import BinaryOperatorAggregate
from superstep_compat.channels.delta import DeltaChannel
from superstep_compat.channels.ephemeral_value import EphemeralValue
from superstep_compat.channels.last_value import LastValue, LastValueAfterFinish
from superstep_compat.channels.named_barrier_value import (
    NamedBarrierValue,
    NamedBarrierValueAfterFinish,
)
from superstep_compat.channels.topic import Topic
from superstep_compat.channels.untracked_value import UntrackedValue

__all__ = (
    "AnyValue",
    "BaseChannel",
    "BinaryOperatorAggregate",
    "DeltaChannel",
    "EphemeralValue",
    "LastValue",
    "LastValueAfterFinish",
    "NamedBarrierValue",
    "NamedBarrierValueAfterFinish",
    "Topic",
    "UntrackedValue",
)
