"""`langgraph.types`: the values a LangGraph program builds and receives.

`Send`, `Command`, `Interrupt`, policies, snapshots and the stream-mode literals. `interrupt()`
delegates to the running task through `superstep_compat._internal.context`.
Must never import: the engine's runtime or host.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Generic,
    Literal,
    NamedTuple,
    TypeAlias,
    TypeVar,
)

from langchain_core.messages.tool import ToolOutputMixin
from typing_extensions import TypeVar as TypeVar_
from xxhash import xxh3_128_hexdigest

from superstep_compat._internal._constants import INTERRUPT, NS_SEP, OVERWRITE, ROOT_KEY
from superstep_compat._internal._policies import (
    CachePolicy,
    RetryPolicy,
    TimeoutPolicy,
    TracePolicy,
    coerce_timeout_policy,
    default_cache_key,
    default_retry_on,
    omit_payload,
)
from superstep_compat._internal._stream_types import (
    CheckpointPayload,
    CheckpointStreamPart,
    CheckpointTask,
    CustomStreamPart,
    DebugPayload,
    DebugStreamPart,
    MessagesStreamPart,
    StreamPart,
    TaskPayload,
    TaskResultPayload,
    TasksStreamPart,
    UpdatesStreamPart,
    ValuesStreamPart,
)
from superstep_compat._internal.context import current_task_context
from superstep_compat.warnings import LangGraphDeprecatedSinceV10, LangGraphDeprecatedSinceV11

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

__all__ = (
    "All",
    "CachePolicy",
    "CheckpointPayload",
    "CheckpointStreamPart",
    "CheckpointTask",
    "Checkpointer",
    "Command",
    "CustomStreamPart",
    "DebugPayload",
    "DebugStreamPart",
    "Durability",
    "GraphOutput",
    "Interrupt",
    "MessagesStreamPart",
    "Overwrite",
    "PregelExecutableTask",
    "PregelTask",
    "RetryPolicy",
    "Send",
    "StateSnapshot",
    "StateUpdate",
    "StreamMode",
    "StreamPart",
    "StreamWriter",
    "TaskPayload",
    "TaskResultPayload",
    "TasksStreamPart",
    "TimeoutPolicy",
    "TracePolicy",
    "UpdatesStreamPart",
    "ValuesStreamPart",
    "default_cache_key",
    "default_retry_on",
    "ensure_valid_checkpointer",
    "interrupt",
    "omit_payload",
)

All = Literal["*"]
"""`interrupt_before` / `interrupt_after` value meaning every node."""

StreamMode = Literal["values", "updates", "checkpoints", "tasks", "debug", "messages", "custom"]
"""How `stream` emits chunks."""

Durability = Literal["sync", "async", "exit"]
"""When checkpoints are written: before the next step, alongside it, or only at exit."""

StreamWriter: TypeAlias = Callable[[Any], None]
"""Type of the injectable ``writer`` parameter (writes to the `custom` stream)."""

Checkpointer: TypeAlias = Any
"""``None`` (inherit), ``True`` (own memory as a subgraph), ``False`` or a checkpoint saver."""

N = TypeVar("N", bound=str)
# LangGraph's module has type variables of its own (unbounded, unlike `langgraph.typing`'s),
# which applications import from here
StateT = TypeVar("StateT")
OutputT = TypeVar("OutputT")
ResponseT = TypeVar_("ResponseT", default=Any)
KeyFuncT = TypeVar("KeyFuncT", bound=Callable[..., str | bytes])

_DEFAULT_INTERRUPT_ID = "placeholder-id"


class Send:
    """Run ``node`` in the next step with ``arg`` as its whole input (a fan-out task)."""

    __slots__ = ("arg", "node", "timeout")

    node: str
    arg: Any
    timeout: TimeoutPolicy | None

    def __init__(
        self,
        /,
        node: str,
        arg: Any,
        *,
        timeout: float | timedelta | TimeoutPolicy | None = None,
    ) -> None:
        self.node = node
        self.arg = arg
        self.timeout = coerce_timeout_policy(timeout)

    def __hash__(self) -> int:
        return hash((self.node, self.arg))

    def __repr__(self) -> str:
        extra = "" if self.timeout is None else f", timeout={self.timeout!r}"
        return f"Send(node={self.node!r}, arg={self.arg!r}{extra})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Send)
            and self.node == other.node
            and self.arg == other.arg
            and self.timeout == other.timeout
        )


def _update_repr(update: Any) -> Any:
    if dataclasses.is_dataclass(update) and not isinstance(update, type):
        return {f.name: getattr(update, f.name) for f in dataclasses.fields(update)}
    return update


@dataclass(frozen=True, slots=True, kw_only=True)
class Command(Generic[N], ToolOutputMixin):
    """Returned by a node: apply ``update``, then go to ``goto`` (names and/or `Send`s).
    Passed as input: ``resume`` answers interrupts. ``graph=Command.PARENT`` targets the
    graph that contains the current subgraph."""

    graph: str | None = None
    update: Any | None = None
    resume: dict[str, Any] | Any | None = None
    goto: Send | Sequence[Send | N] | N = ()

    PARENT: ClassVar[Literal["__parent__"]] = "__parent__"

    def __repr__(self) -> str:
        # LangGraph shows the fields that are truthy: no empty goto, no ``graph=''`` (a
        # command that escaped the root graph), no ``resume=0`` either
        parts = []
        for name in ("graph", "update", "resume", "goto"):
            value = getattr(self, name)
            if name == "update":
                value = _update_repr(value)
            if not value:
                continue
            parts.append(f"{name}={value!r}")
        return f"Command({', '.join(parts)})"

    def _update_as_tuples(self) -> Sequence[tuple[str, Any]]:
        return update_as_tuples(self.update)


def update_as_tuples(update: Any) -> list[tuple[str, Any]]:
    """The ``(key, value)`` writes of a `Command.update`: a dict's items, a list of pairs as
    is, a model's or dataclass's fields; anything else is one write to ``__root__``."""
    if update is None:
        return []
    if isinstance(update, dict):
        return list(update.items())
    if isinstance(update, list) and all(isinstance(t, tuple) and len(t) == 2 for t in update):
        return list(update)
    fields = _object_fields(update)
    if fields is not None:
        return fields
    return [(ROOT_KEY, update)]


def _object_fields(value: Any) -> list[tuple[str, Any]] | None:
    """Fields of a pydantic model or a dataclass (all of them). A model's field whose value
    is None is written only when it was set explicitly or its default is not None (a required
    field's too), as LangGraph's update rule, so ``State(foo=None)`` clears ``foo``."""
    model_fields = getattr(type(value), "model_fields", None)
    if isinstance(model_fields, dict) and hasattr(value, "model_dump"):
        explicitly_set = getattr(value, "model_fields_set", ())
        return [
            (k, v)
            for k, info in model_fields.items()
            if (v := getattr(value, k, None)) is not None
            or k in explicitly_set
            or getattr(info, "default", None) is not None
        ]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value)]
    return None


def interrupt_id_from_ns(namespace: str) -> str:
    """The 32-hex-character id LangGraph derives from a task's checkpoint namespace (xxh3-128):
    a thread's interrupts keep their ids whichever of LangGraph and Superstep raised them."""
    return xxh3_128_hexdigest(namespace.encode())


@dataclass(init=False, slots=True, eq=True)
class Interrupt(Generic[OutputT]):
    """An interrupt raised in a node: what the caller sees under ``__interrupt__``."""

    value: Any
    id: str
    response_schema: Any

    def __init__(
        self,
        value: Any,
        id: str = _DEFAULT_INTERRUPT_ID,
        *,
        response_schema: Any = None,
        **deprecated_kwargs: Any,
    ) -> None:
        self.value = value
        ns = deprecated_kwargs.get("ns")
        if ns is not None and id == _DEFAULT_INTERRUPT_ID:
            joined = ns if isinstance(ns, str) else NS_SEP.join(ns)
            id = interrupt_id_from_ns(joined)
        self.id = id
        self.response_schema = response_schema

    @classmethod
    def from_ns(cls, value: Any, ns: str) -> Interrupt[Any]:
        """An interrupt whose id is derived from the namespace ``ns``."""
        return cls(value=value, id=interrupt_id_from_ns(ns))

    @property
    def interrupt_id(self) -> str:
        """Deprecated alias of `id`."""
        warnings.warn(
            "`interrupt_id` is deprecated. Use `id` instead.",
            LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        return self.id


def interrupt(value: Any, *, response_schema: dict[str, Any] | type | None = None) -> Any:
    """Pause the running node and surface ``value`` to the caller; returns the value given
    with ``Command(resume=...)`` when the node re-runs. Outside a run it raises RuntimeError."""
    return current_task_context().interrupt(value, response_schema)


@dataclass(slots=True)
class Overwrite:
    """Write ``value`` to a reducer channel as is, replacing its value instead of reducing."""

    value: Any
    type: Literal["__overwrite__"] = OVERWRITE


@dataclass(frozen=True)
class GraphOutput(Generic[OutputT]):
    """What ``invoke(..., version="v2")`` returns: the output and pending interrupts.

    ``result[key]`` and ``key in result`` (the v1 result's ways) still work, deprecated
    (`LangGraphDeprecatedSinceV11`): ``"__interrupt__"`` names the interrupts, any other key
    a key (dict output) or attribute of ``value``; a missing one is a `KeyError`."""

    value: OutputT
    interrupts: tuple[Interrupt[Any], ...] = ()

    def __getitem__(self, key: str) -> Any:
        warnings.warn(
            "Accessing GraphOutput via `result[key]` is deprecated. Use `result.value` to "
            "access the output value directly, or `result.interrupts` for interrupts.",
            LangGraphDeprecatedSinceV11,
            stacklevel=2,
        )
        if key == INTERRUPT:
            return self.interrupts
        if isinstance(self.value, dict):
            return self.value[key]
        try:
            return getattr(self.value, key)
        except AttributeError:
            raise KeyError(key) from None

    def __contains__(self, key: object) -> bool:
        warnings.warn(
            "Accessing GraphOutput via `key in result` is deprecated. Use `result.value` to "
            "access the output value directly, or `result.interrupts` for interrupts.",
            LangGraphDeprecatedSinceV11,
            stacklevel=2,
        )
        if key == INTERRUPT:
            return bool(self.interrupts)
        if isinstance(self.value, dict):
            return key in self.value
        return isinstance(key, str) and hasattr(self.value, key)


class CacheKey(NamedTuple):
    """Where a cached task result lives: its namespace, its key, and its time to live in
    seconds (None: for ever). LangGraph's shape, for applications that build or read one."""

    ns: tuple[str, ...]
    key: str
    ttl: int | None


class PregelTask(NamedTuple):
    """A task of a `StateSnapshot`: pending, failed, interrupted or finished."""

    id: str
    name: str
    path: tuple[str | int | tuple[Any, ...], ...]
    error: Exception | None = None
    interrupts: tuple[Interrupt[Any], ...] = ()
    state: RunnableConfig | StateSnapshot | None = None
    result: Any | None = None


class StateSnapshot(NamedTuple):
    """The state of a thread at one checkpoint, as returned by `get_state`."""

    values: dict[str, Any] | Any
    next: tuple[str, ...]
    config: RunnableConfig
    metadata: dict[str, Any] | None
    created_at: str | None
    parent_config: RunnableConfig | None
    tasks: tuple[PregelTask, ...]
    interrupts: tuple[Interrupt[Any], ...]


class StateUpdate(NamedTuple):
    """One update of `bulk_update_state`: values written as ``as_node``."""

    values: dict[str, Any] | None
    as_node: str | None = None
    task_id: str | None = None


@dataclass(frozen=True)
class PregelExecutableTask:
    """A task ready to run (exported for type annotations; built by the executor)."""

    name: str
    input: Any
    proc: Any
    writes: Any
    config: Any
    triggers: Sequence[str]
    retry_policy: Sequence[RetryPolicy]
    cache_key: Any
    id: str
    path: tuple[str | int | tuple[Any, ...], ...]
    writers: Sequence[Any] = ()
    subgraphs: Sequence[Any] = ()
    timeout: TimeoutPolicy | None = None


def ensure_valid_checkpointer(checkpointer: Checkpointer) -> Checkpointer:
    """Reject a `compile(checkpointer=...)` value that is not a saver, True, False or None."""
    if checkpointer is None or isinstance(checkpointer, bool):
        return checkpointer
    if all(hasattr(checkpointer, m) for m in ("get_tuple", "put", "put_writes")):
        return checkpointer
    raise TypeError(
        "Invalid checkpointer provided. Expected an instance of `BaseCheckpointSaver`, "
        f"`True`, `False`, or `None`. Received {type(checkpointer).__name__}. Pass a proper "
        "saver (e.g., InMemorySaver, AsyncPostgresSaver)."
    )


# --- the wire names of the types a checkpoint holds ------------------------------------------
#
# A saver's serializer (LangGraph's JsonPlusSerializer) writes a class as (module, name, data)
# and rebuilds it by importing that module. These types are written under LangGraph's module,
# ``langgraph.types``, so a thread Superstep wrote reads back as LangGraph's types in a
# LangGraph process (and is on its list of safe types), and one LangGraph wrote reads back as
# these. ``langgraph.types`` resolves to this module under the shim; without it, and without
# a real LangGraph installed, it is registered as this module's name for the serializer.
# `TimeoutPolicy` (defined beside the other policies) is one of them: a `Send`'s timeout is
# written inside the Send, and the serializer rebuilds only the allowed ``langgraph.types``
# names, so under any other module name the Send would come back as a plain list.
_WIRE_MODULE = "langgraph.types"
for _cls in (Send, Command, Interrupt, Overwrite, PregelTask, StateSnapshot, TimeoutPolicy):
    _cls.__module__ = _WIRE_MODULE


def _register_wire_module() -> None:
    import importlib.util
    import sys

    if _WIRE_MODULE in sys.modules:
        return
    try:
        real = importlib.util.find_spec(_WIRE_MODULE)
    except (ImportError, ValueError):
        real = None
    if real is None:
        sys.modules[_WIRE_MODULE] = sys.modules[__name__]


_register_wire_module()
