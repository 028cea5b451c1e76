"""The graph runtime: a pure, deterministic interpreter of compiled graphs.

Must never import: the host, persistence, llm, compat.
"""

from superstep_core.runtime.execution import Execution
from superstep_core.runtime.records import (
    EffectRequest,
    ExecutionFailure,
    ExecutionState,
    Instance,
    QuietSnapshot,
    Status,
    StepOutcome,
    TimerRequest,
)
from superstep_core.runtime.within import OpenSuperstep, WithinRetry

__all__ = [
    "EffectRequest",
    "Execution",
    "ExecutionFailure",
    "ExecutionState",
    "Instance",
    "OpenSuperstep",
    "QuietSnapshot",
    "Status",
    "StepOutcome",
    "TimerRequest",
    "WithinRetry",
]
