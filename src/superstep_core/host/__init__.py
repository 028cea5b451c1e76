"""The host: the only layer that performs I/O. It runs effects (threads or asyncio), realises
timers, times retry backoff and reports every superstep.

Must never import: llm, compat.
"""

from superstep_core.host.aio import AsyncHost
from superstep_core.host.clock import Clock, SystemClock, VirtualClock
from superstep_core.host.effects import (
    EffectContext,
    EffectLedger,
    Handler,
    RetryableEffectError,
    classify,
)
from superstep_core.host.sync import Host, StepCallback

__all__ = [
    "AsyncHost",
    "Clock",
    "EffectContext",
    "EffectLedger",
    "Handler",
    "Host",
    "RetryableEffectError",
    "StepCallback",
    "SystemClock",
    "VirtualClock",
    "classify",
]
