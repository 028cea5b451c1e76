"""Typed shapes of stream chunks and debug payloads (`version="v2"` streaming)."""

from __future__ import annotations

from typing import Any, Generic, Literal, NotRequired, TypeAlias, TypedDict, TypeVar

__all__ = [
    "CheckpointPayload",
    "CheckpointStreamPart",
    "CheckpointTask",
    "CustomStreamPart",
    "DebugPayload",
    "DebugStreamPart",
    "MessagesStreamPart",
    "StreamPart",
    "TaskPayload",
    "TaskResultPayload",
    "TasksStreamPart",
    "UpdatesStreamPart",
    "ValuesStreamPart",
]

StateT = TypeVar("StateT")


class TaskPayload(TypedDict):
    """A task start event of the `tasks` stream."""

    id: str
    name: str
    input: Any
    triggers: list[str]


class TaskResultPayload(TypedDict):
    """A task result event of the `tasks` stream."""

    id: str
    name: str
    error: str | None
    result: Any
    interrupts: list[dict[str, Any]]


class CheckpointTask(TypedDict):
    """A task as listed in a `checkpoints` stream payload."""

    id: str
    name: str
    interrupts: list[dict[str, Any]]
    state: NotRequired[Any]
    error: NotRequired[str | None]
    result: NotRequired[Any]


class CheckpointPayload(TypedDict, Generic[StateT]):
    """A checkpoint event of the `checkpoints` stream."""

    config: dict[str, Any] | None
    metadata: dict[str, Any]
    values: StateT
    next: list[str]
    parent_config: dict[str, Any] | None
    tasks: list[CheckpointTask]


DebugPayload: TypeAlias = dict[str, Any]


class ValuesStreamPart(TypedDict, Generic[StateT]):
    """`values` chunk in v2 streaming."""

    type: Literal["values"]
    ns: tuple[str, ...]
    data: StateT
    interrupts: tuple[Any, ...]


class UpdatesStreamPart(TypedDict):
    """`updates` chunk in v2 streaming."""

    type: Literal["updates"]
    ns: tuple[str, ...]
    data: dict[str, Any]


class MessagesStreamPart(TypedDict):
    """`messages` chunk in v2 streaming: (message chunk, metadata)."""

    type: Literal["messages"]
    ns: tuple[str, ...]
    data: tuple[Any, dict[str, Any]]


class CustomStreamPart(TypedDict):
    """`custom` chunk in v2 streaming."""

    type: Literal["custom"]
    ns: tuple[str, ...]
    data: Any


class CheckpointStreamPart(TypedDict, Generic[StateT]):
    """`checkpoints` chunk in v2 streaming."""

    type: Literal["checkpoints"]
    ns: tuple[str, ...]
    data: CheckpointPayload[StateT]


class TasksStreamPart(TypedDict):
    """`tasks` chunk in v2 streaming."""

    type: Literal["tasks"]
    ns: tuple[str, ...]
    data: TaskPayload | TaskResultPayload


class DebugStreamPart(TypedDict, Generic[StateT]):
    """`debug` chunk in v2 streaming."""

    type: Literal["debug"]
    ns: tuple[str, ...]
    data: dict[str, Any]


StreamPart: TypeAlias = (
    ValuesStreamPart[Any]
    | UpdatesStreamPart
    | MessagesStreamPart
    | CustomStreamPart
    | CheckpointStreamPart[Any]
    | TasksStreamPart
    | DebugStreamPart[Any]
)
