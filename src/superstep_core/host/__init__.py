"""The host: the only layer that performs I/O. It runs effects (threads or asyncio), realises
timers, times retry backoff, reports every superstep, multiplexes each execution's stream
(`StreamMultiplexer`), and (`DurableRunner`) checkpoints executions to a LangGraph checkpoint
saver so they survive their process.

Must never import: llm, compat.
"""

from typing import Any

from superstep_core.host.aio import AsyncHost
from superstep_core.host.clock import Clock, SystemClock, VirtualClock, WallClock
from superstep_core.host.deadlines import (
    DeadlineExceeded,
    current_heartbeat,
    deadline_stop,
    heartbeat,
    within,
)
from superstep_core.host.effects import (
    EffectCancelledError,
    EffectContext,
    EffectLedger,
    EffectTimeoutError,
    Handler,
    ResultObserver,
    RetryableEffectError,
    SplitHandler,
    StepTimeoutError,
    classify,
)
from superstep_core.host.nested import AttemptObserver, NestedEffect, NestedEffects
from superstep_core.host.stop import RunStopped, StopRequest
from superstep_core.host.stream import (
    CHUNK_OVERHEAD,
    COMMITTED_MODES,
    TRANSIENT_MODES,
    StreamAbandoned,
    StreamChunk,
    StreamEvent,
    StreamEvictedError,
    StreamMultiplexer,
    StreamTerminated,
    Subscription,
    estimate_size,
)
from superstep_core.host.sync import Host, StepCallback
from superstep_core.host.timers import RandomSource
from superstep_core.host.writes import OrderedWrites

__all__ = [
    "CHUNK_OVERHEAD",
    "COMMITTED_MODES",
    "TRANSIENT_MODES",
    "AsyncHost",
    "AttemptObserver",
    "Clock",
    "DeadlineExceeded",
    "DurableExecution",
    "DurableRunner",
    "EffectCancelledError",
    "EffectContext",
    "EffectLedger",
    "EffectTimeoutError",
    "Handler",
    "Host",
    "NestedEffect",
    "NestedEffects",
    "OrderedWrites",
    "RandomSource",
    "RecoveryError",
    "ResultObserver",
    "RetryableEffectError",
    "RunStopped",
    "SplitHandler",
    "StepCallback",
    "StepTimeoutError",
    "StopRequest",
    "StreamAbandoned",
    "StreamChunk",
    "StreamEvent",
    "StreamEvictedError",
    "StreamMultiplexer",
    "StreamTerminated",
    "Subscription",
    "SystemClock",
    "UnknownThreadError",
    "VirtualClock",
    "WallClock",
    "aresume_from_saver",
    "classify",
    "current_heartbeat",
    "deadline_stop",
    "estimate_size",
    "heartbeat",
    "resume_from_saver",
    "within",
]

# The durable runner pulls in the codec and the savers: load it on first use, so importing
# the engine stays light (`from superstep_core.host import DurableRunner` still works).
_DURABLE = {
    "DurableExecution",
    "DurableRunner",
    "RecoveryError",
    "UnknownThreadError",
    "aresume_from_saver",
    "resume_from_saver",
}


def __getattr__(name: str) -> Any:
    if name in _DURABLE:
        from superstep_core.host import durable

        return getattr(durable, name)
    raise AttributeError(f"module 'superstep_core.host' has no attribute {name!r}")
