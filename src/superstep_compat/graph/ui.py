"""`langgraph.graph.ui`: generative-UI messages a node sends to a client.

A node calls `push_ui_message` to have the client render a named component with some props
(and `delete_ui_message` to take one away); each is streamed on the ``custom`` mode and, by
default, written to the state key ``"ui"``, whose reducer `ui_message_reducer` keeps the
list of components shown. Shapes and texts follow LangGraph's module of the same name.

Must never import: the engine (`superstep_core`).
"""

from __future__ import annotations

from typing import Any, Literal, cast
from uuid import uuid4

from langchain_core.messages import AnyMessage
from typing_extensions import TypedDict

from superstep_compat._internal._constants import CONFIG_KEY_SEND
from superstep_compat.config import get_config, get_stream_writer

__all__ = (
    "AnyUIMessage",
    "RemoveUIMessage",
    "UIMessage",
    "delete_ui_message",
    "push_ui_message",
    "ui_message_reducer",
)


class UIMessage(TypedDict):
    """A component for the client to render: ``name`` with ``props``; ``metadata`` says
    whether its props merge into those of the message with the same ``id`` (``merge``) and
    which run, tags and chat message it belongs to."""

    type: Literal["ui"]
    id: str
    name: str
    props: dict[str, Any]
    metadata: dict[str, Any]


class RemoveUIMessage(TypedDict):
    """Takes the component with this ``id`` away."""

    type: Literal["remove-ui"]
    id: str


AnyUIMessage = UIMessage | RemoveUIMessage


def _send(state_key: str, message: AnyUIMessage, config: Any) -> None:
    """Write ``message`` to ``state_key`` as one of the running task's writes (before those
    of its return value), through the task's send entry, as LangGraph's module does."""
    config["configurable"][CONFIG_KEY_SEND]([(state_key, message)])


def push_ui_message(
    name: str,
    props: dict[str, Any],
    *,
    id: str | None = None,
    metadata: dict[str, Any] | None = None,
    message: AnyMessage | None = None,
    state_key: str | None = "ui",
    merge: bool = False,
) -> UIMessage:
    """Stream a `UIMessage` for component ``name`` on the ``custom`` mode and, unless
    ``state_key`` is None, write it to that state key; returns it. ``id``: a fresh UUID when
    not given; ``message``: the chat message (or dict with an ``id``) it belongs to, whose
    id goes in ``metadata["message_id"]``; ``merge``: the client merges ``props`` into the
    component's previous ones. Called outside a running node it raises as `get_config`."""
    writer = get_stream_writer()
    config = get_config()
    message_id = None
    if message:
        if isinstance(message, dict) and "id" in message:
            message_id = message.get("id")
        elif hasattr(message, "id"):
            message_id = message.id
    event: UIMessage = {
        "type": "ui",
        "id": id or str(uuid4()),
        "name": name,
        "props": props,
        "metadata": {
            "merge": merge,
            "run_id": config.get("run_id", None),
            "tags": config.get("tags", None),
            "name": config.get("run_name", None),
            **(metadata or {}),
            **({"message_id": message_id} if message_id else {}),
        },
    }
    writer(event)
    if state_key:
        _send(state_key, event, config)
    return event


def delete_ui_message(id: str, *, state_key: str = "ui") -> RemoveUIMessage:
    """Stream a `RemoveUIMessage` for component ``id`` on the ``custom`` mode and write it
    to ``state_key``; returns it."""
    writer = get_stream_writer()
    config = get_config()
    event: RemoveUIMessage = {"type": "remove-ui", "id": id}
    writer(event)
    _send(state_key, event, config)
    return event


def ui_message_reducer(
    left: list[AnyUIMessage] | AnyUIMessage,
    right: list[AnyUIMessage] | AnyUIMessage,
) -> list[AnyUIMessage]:
    """The components shown after ``right`` (one message or a list) is applied to ``left``:
    a message with a new id is appended; one with an id already there replaces it (its props
    merged into the old ones when its ``metadata["merge"]`` is true); a ``remove-ui`` takes
    the component away, or raises ``ValueError`` when no component has its id."""
    current = list(left) if isinstance(left, list) else [left]
    incoming = right if isinstance(right, list) else [right]
    position = {m.get("id"): i for i, m in enumerate(current)}
    removed: set[Any] = set()
    for msg in incoming:
        msg_id = msg.get("id")
        index = position.get(msg_id)
        if index is None:
            if msg.get("type") == "remove-ui":
                raise ValueError(
                    f"Attempting to delete an UI message with an ID that doesn't exist ('{msg_id}')"
                )
            position[msg_id] = len(current)
            current.append(msg)
            continue
        if msg.get("type") == "remove-ui":
            removed.add(msg_id)
            continue
        removed.discard(msg_id)  # shown again after a removal in the same update
        if cast(UIMessage, msg).get("metadata", {}).get("merge", False):
            previous = cast(UIMessage, current[index])
            merged = cast(UIMessage, dict(msg))
            merged["props"] = {**previous["props"], **merged["props"]}
            msg = merged
        current[index] = msg
    return [m for m in current if m.get("id") not in removed]
