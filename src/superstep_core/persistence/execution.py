"""A whole execution as bytes: the engine's records and events registered with the codec.

`ExecutionState` (see ``superstep_core.runtime.records``) is everything an `Execution` is as
plain data: committed values and versions, the event queue (`Activated`, `External`,
`EffectCompleted` with its `EffectFailure`, `TimerElapsed`, `Resumed`), live instances with
their memory, awaited effects, timers, barriers, outputs, deferred activations, a failure and the
id counters. Importing this module registers those classes with `default_registry` under stable
``"superstep:<Name>"`` tags (independent of the module layout, so moving a class never breaks
stored checkpoints); `engine_registry` does the same for any other registry.

``encode_execution(state)`` and ``decode_execution(data)`` round-trip a state with equal values
of the same types; channel values must themselves be codec-writable (a value of a type outside
the registry is refused at write time with `UnsupportedTypeError` naming the channel).

This module sits in the persistence layer, above the runtime (see ``.importlinter``): it imports
the runtime's records and the node events, and nothing of the host, llm or compat.
"""

from __future__ import annotations

from typing import Any

from superstep_core.node import (
    Activated,
    EffectCompleted,
    EffectFailure,
    External,
    Failure,
    FailureClass,
    Resumed,
    TimerElapsed,
)
from superstep_core.persistence.codec import Codec
from superstep_core.persistence.errors import DecodeError, TooDeepError, UnsupportedTypeError
from superstep_core.persistence.registry import TypeRegistry, default_registry
from superstep_core.runtime.records import (
    Barrier,
    ExecutionFailure,
    ExecutionState,
    Instance,
    Status,
)

__all__ = [
    "ENGINE_TYPES",
    "decode_execution",
    "encode_execution",
    "engine_registry",
]

_TAG_PREFIX = "superstep:"

ENGINE_TYPES: tuple[type, ...] = (
    # events (what the queue holds)
    Activated,
    External,
    EffectCompleted,
    EffectFailure,
    TimerElapsed,
    Resumed,
    # failures
    Failure,
    FailureClass,
    # runtime records
    Instance,
    Barrier,
    ExecutionFailure,
    ExecutionState,
    Status,
)
"""The engine classes an `ExecutionState` may contain, registered by `engine_registry`."""


def engine_registry(registry: TypeRegistry | None = None) -> TypeRegistry:
    """Register `ENGINE_TYPES` in ``registry`` (default: `default_registry`) under their
    ``"superstep:<Name>"`` tags and return it. Idempotent."""
    target = registry if registry is not None else default_registry
    for cls in ENGINE_TYPES:
        tag = _TAG_PREFIX + cls.__name__
        handler = target.for_type(cls)
        if handler is None or handler.tag != tag:
            target.register(cls, tag=tag)
    return target


engine_registry()

_CODEC = Codec()


def encode_execution(state: ExecutionState, codec: Codec | None = None) -> bytes:
    """``state`` as codec bytes. ``codec`` defaults to a codec on `default_registry`; a codec
    with another registry must have been given `engine_registry(its_registry)`. Raises
    `UnsupportedTypeError` (a type it cannot write) or `TooDeepError` (nested too deep)
    naming the channel when a value cannot be written."""
    if type(state) is not ExecutionState:
        raise TypeError(f"expected an ExecutionState, got {type(state).__name__}")
    use = codec if codec is not None else _CODEC
    try:
        return use.dumps(state, "execution", kind="execution state")
    except (UnsupportedTypeError, TooDeepError):
        # say which channel holds the value, when it is a channel value
        for channel, value in state.values.items():
            use.dumps(value, channel)
        raise


def decode_execution(data: bytes, codec: Codec | None = None) -> ExecutionState:
    """The `ExecutionState` written by `encode_execution`. Raises `DecodeError` when the bytes
    hold anything else."""
    use = codec if codec is not None else _CODEC
    value: Any = use.loads(data)
    if type(value) is not ExecutionState:
        raise DecodeError(f"expected an encoded ExecutionState, got {type(value).__name__}")
    return value
