"""Superstep: a deterministic, durable compute-graph engine.

Build a `Graph`, compile it, and run it with a `Host`::

    from superstep_core import Graph, Host, LastValue, compute_node

    g = Graph("hello").with_channels(greeting=LastValue())
    g.add_node("greet", compute_node(lambda state, name: {"greeting": f"hello {name}"}))
    ex = Host().run_graph(g.start_at("greet").compile(), payload="world")
    ex.values  # {'greeting': 'hello world'}

The layers (DESIGN.md): graph-core (`graph`, `node`, `edge`, `channel`, `visualise`), the pure
runtime (`runtime`, `trace`), persistence (`persistence`, `checkpoint`), the `host`, libraries
on the engine, `llm`. This package root re-exports the public names of the lower layers.
"""

from superstep_core.channel import (
    MISSING,
    Append,
    Barrier,
    Channel,
    Ephemeral,
    LastValue,
    Reducer,
    ReducerError,
)
from superstep_core.edge import (
    All,
    AnyOf,
    AtLeast,
    ContinueWithSuccesses,
    FailFast,
    JoinFailure,
    RouteFailuresTo,
    WaitForAllThenFail,
)
from superstep_core.errors import (
    ChannelConflictError,
    ExecutionFailedError,
    GraphValidationError,
    StaleResumeError,
    SuperstepError,
    UndeclaredChannelError,
    UnknownInterruptError,
)
from superstep_core.functional import (
    Emit,
    FuncTask,
    FunctionWorkflow,
    TaskResult,
    build_function_graph,
    entrypoint,
    functask,
)
from superstep_core.graph import CompiledGraph, Graph, NodeSpec
from superstep_core.host import (
    AsyncHost,
    EffectContext,
    Host,
    RetryableEffectError,
    SystemClock,
    VirtualClock,
)
from superstep_core.kinds import compute_node, effect_node
from superstep_core.node import (
    Activate,
    Activated,
    BecomeInactive,
    CompleteActivation,
    Deactivate,
    Effect,
    EffectCompleted,
    EffectFailure,
    EndBranch,
    Event,
    External,
    FailActivation,
    Failure,
    FailureClass,
    NodeContext,
    NodeFailed,
    OneShotEffect,
    Publish,
    Reaction,
    RemainActive,
    RequestTimer,
    Resumed,
    RetryPolicy,
    Spawn,
    SuspendActivation,
    TimerElapsed,
)
from superstep_core.runtime import Execution, Status, StepOutcome
from superstep_core.trace import TraceRecord, format_trace
from superstep_core.visualise import to_dot, to_mermaid

__all__ = [
    "MISSING",
    "Activate",
    "Activated",
    "All",
    "AnyOf",
    "Append",
    "AsyncHost",
    "AtLeast",
    "Barrier",
    "BecomeInactive",
    "Channel",
    "ChannelConflictError",
    "CompiledGraph",
    "CompleteActivation",
    "ContinueWithSuccesses",
    "Deactivate",
    "Effect",
    "EffectCompleted",
    "EffectContext",
    "EffectFailure",
    "Emit",
    "EndBranch",
    "Ephemeral",
    "Event",
    "Execution",
    "ExecutionFailedError",
    "External",
    "FailActivation",
    "FailFast",
    "Failure",
    "FailureClass",
    "FuncTask",
    "FunctionWorkflow",
    "Graph",
    "GraphValidationError",
    "Host",
    "JoinFailure",
    "LastValue",
    "NodeContext",
    "NodeFailed",
    "NodeSpec",
    "OneShotEffect",
    "Publish",
    "Reaction",
    "Reducer",
    "ReducerError",
    "RemainActive",
    "RequestTimer",
    "Resumed",
    "RetryPolicy",
    "RetryableEffectError",
    "RouteFailuresTo",
    "Spawn",
    "StaleResumeError",
    "Status",
    "StepOutcome",
    "SuperstepError",
    "SuspendActivation",
    "SystemClock",
    "TaskResult",
    "TimerElapsed",
    "TraceRecord",
    "UndeclaredChannelError",
    "UnknownInterruptError",
    "VirtualClock",
    "WaitForAllThenFail",
    "build_function_graph",
    "compute_node",
    "effect_node",
    "entrypoint",
    "format_trace",
    "functask",
    "to_dot",
    "to_mermaid",
]
