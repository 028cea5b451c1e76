"""`langgraph.graph.message`: the `add_messages` reducer, `MessagesState`, `push_message`.

`add_messages` coerces its inputs to langchain-core messages, gives every message without an
id a uuid4 id, replaces messages that share an id (keeping their position), removes those
named by `RemoveMessage`, and clears everything before a `REMOVE_ALL_MESSAGES` marker.
"""

from __future__ import annotations

import os
import uuid
import warnings
from collections.abc import Callable
from functools import partial
from operator import attrgetter
from typing import Annotated, Any, TypeAlias, cast

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    BaseMessageChunk,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
    convert_to_openai_messages,
    message_chunk_to_message,
)
from typing_extensions import TypedDict

from superstep_compat._internal.context import current_task_context
from superstep_compat.channels._message_ids import mark_message_reducer
from superstep_compat.graph.state import StateGraph
from superstep_compat.warnings import LangGraphDeprecatedSinceV10

__all__ = ("REMOVE_ALL_MESSAGES", "MessageGraph", "MessagesState", "add_messages", "push_message")

REMOVE_ALL_MESSAGES = "__remove_all__"
"""Id of a `RemoveMessage` that clears every message before it."""

Messages: TypeAlias = list[Any] | Any
"""A message-like value or a list of them (messages, dicts, (role, content) pairs, str)."""

_FORMATS = ("langchain-openai", None)


def _coerce(value: Messages) -> tuple[list[BaseMessage], bool]:
    """``value`` as a list of messages, and whether any of them already had an id (a message
    given a fresh id here cannot replace or be replaced by another)."""
    items = value if isinstance(value, list) else [value]
    messages: list[BaseMessage] = []
    had_ids = False
    for item in items:
        # Committed history is already made of plain messages: keep them as they are, so a
        # merge costs a list copy, not a conversion per message.
        if isinstance(item, BaseMessage) and not isinstance(item, BaseMessageChunk):
            message = item
        else:
            (converted,) = convert_to_messages([item])
            message = message_chunk_to_message(cast(BaseMessageChunk, converted))
        if message.id is None:
            message.id = _uuid4()
        else:
            had_ids = True
        messages.append(message)
    return messages, had_ids


_id_of = attrgetter("id")

_VARIANT = {d: "89ab"[int(d, 16) & 3] for d in "0123456789abcdef"}


_STDLIB_UUID4 = uuid.uuid4


def _uuid4() -> str:
    """``str(uuid.uuid4())`` (the same 122 random bits from ``os.urandom``, version 4, RFC
    4122 variant) without building a `uuid.UUID`: every new message gets one, and the
    object was most of the cost. LangGraph's reducer looks ``uuid.uuid4`` up on each call, so
    a patched one (tests pinning message ids, e.g. ``mocker.patch("uuid.uuid4")``) is
    called instead, once per message given an id, as there."""
    if uuid.uuid4 is not _STDLIB_UUID4:
        return str(uuid.uuid4())
    h = os.urandom(16).hex()
    # hex digit 12 is the version; digit 16's two high bits the variant (10)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:32]}"


def _merge(left: list[BaseMessage], right: list[BaseMessage], right_ids: bool) -> list[BaseMessage]:
    if not right_ids:  # only new messages with fresh ids: nothing to replace or remove
        return [*left, *right]
    if not any(isinstance(m, RemoveMessage) for m in right):
        # Ids given, but none already there (e.g. the ids a node's local read just made up,
        # merged again at the commit): appended as they come. The test runs in C, not as a
        # position map of the whole history.
        given = {m.id for m in right}
        if len(given) == len(right) and given.isdisjoint(map(_id_of, left)):
            return [*left, *right]
    cut = max(
        (
            i
            for i, m in enumerate(right)
            if isinstance(m, RemoveMessage) and m.id == REMOVE_ALL_MESSAGES
        ),
        default=None,
    )
    if cut is not None:
        return right[cut + 1 :]
    merged = list(left)
    position = {m.id: i for i, m in enumerate(merged)}
    removed: set[str | None] = set()
    for message in right:
        if isinstance(message, RemoveMessage):
            if message.id not in position:
                raise ValueError(
                    f"Attempting to delete a message with an ID that doesn't exist ('{message.id}')"
                )
            removed.add(message.id)
        elif message.id in position:
            merged[position[message.id]] = message
            removed.discard(message.id)
        else:
            position[message.id] = len(merged)
            merged.append(message)
    if not removed:
        return merged
    return [m for m in merged if m.id not in removed]


def add_messages(
    left: Messages | None = None,
    right: Messages | None = None,
    **kwargs: Any,
) -> Messages | Callable[[Messages, Messages], Messages]:
    """Merge ``right`` into ``left`` by message id (see the module docstring).

    With neither argument it returns a partial, so ``Annotated[list, add_messages(
    format="langchain-openai")]`` works; that format also converts the merged messages'
    content to OpenAI's format.
    """
    if left is None and right is None:
        return partial(add_messages, **kwargs)
    if left is None or right is None:
        given = "right" if left is None else "left"
        raise ValueError(
            f"Must specify non-null arguments for both 'left' and 'right'. Only received: "
            f"'{given}'."
        )
    if not kwargs:
        # the usual merge: the history this reducer made last, and new plain messages
        seen = _produced.get(id(left))
        if seen is not None and seen[0] is left and seen[1] == len(left):
            appended = _appended(left, seen[2], right)
            if appended is not None:
                return _remember(*appended)
    fmt = kwargs.get("format")
    if fmt not in _FORMATS:
        raise ValueError(f"Unrecognized format={fmt!r}. Expected one of 'langchain-openai', None.")
    merged = _merge(_own(left), *_coerce(right))
    if fmt == "langchain-openai":
        return convert_to_messages(convert_to_openai_messages(merged))
    return _remember(merged)


def _remember(merged: list[BaseMessage], at: dict[Any, int] | None = None) -> list[BaseMessage]:
    _produced[id(merged)] = (merged, len(merged), at)
    if len(_produced) > _PRODUCED_KEPT:  # tolerant of another thread trimming at once
        _produced.pop(next(iter(_produced), 0), None)
    return merged


_PLAIN = frozenset({AIMessage, HumanMessage, SystemMessage, ToolMessage})
"""Message classes `_coerce` keeps as they are (no chunk, no `RemoveMessage`), by exact type."""

_TWICE = -1
"""A position in `_appended`'s map for an id appended at two positions (two branches of one
history): a merge that writes it goes the general way."""


def _appended(
    left: list[BaseMessage], at: dict[Any, int] | None, right: Messages
) -> tuple[list[BaseMessage], dict[Any, int] | None] | None:
    """`_merge`'s result when it only appends, with its messages' positions by id: ``right``
    (a list, or one item) made of messages of the `_PLAIN` classes whose ids, where given,
    are distinct and none in ``left``; a message without an id gets a fresh one, as
    `_coerce` gives it. None for the general merge (nothing changed). A node's write of its
    new messages, every step: the positions kept with each merged history spare a scan of
    the whole history per merge.

    ``at`` (worked out here when not known) is shared by a history and every list quickly
    merged from it, and grows in place (a copy per merge was O(history)): each id with the
    one position it was ever appended at, `_TWICE` if two. So an id is in ``left`` exactly
    when its position is below ``len(left)`` and ``left``'s message there has it (a second
    branch from an older list has another message there, or is shorter); an id not in
    ``at`` is in none of these lists."""
    items = right if isinstance(right, list) else [right]
    given = 0
    for message in items:
        if type(message) not in _PLAIN:
            return None
        if message.id is not None:
            given += 1
    n = len(left)
    if given:
        if at is None:
            at = {m.id: i for i, m in enumerate(left)}
            if len(at) != n:  # ids repeated in the history: the general way
                return None
        ids = {m.id for m in items if m.id is not None}
        if len(ids) != given:
            return None
        for key in ids:
            i = at.get(key)
            if i is not None and (i == _TWICE or (i < n and left[i].id == key)):
                return None
    if given != len(items):
        for message in items:
            if message.id is None:
                message.id = _uuid4()
    merged = [*left, *items]
    if at is not None:
        for i, message in enumerate(items, n):
            if at.setdefault(message.id, i) != i:
                at[message.id] = _TWICE
    return merged, at


# The last lists `add_messages` returned, by identity, with their length then and, when
# known, their messages' positions by id (`_appended`). A channel's committed value is
# usually the previous merge's result: recognising it spares re-coercing the whole history
# on every step (LangGraph pays that O(len) per merge). The length guards against a node
# appending to the state's list in place; any other list is coerced in full. (A message of
# the state whose id a node reassigns in place is not seen anew.)
_produced: dict[int, tuple[list[BaseMessage], int, dict[Any, int] | None]] = {}
_PRODUCED_KEPT = 32


def _own(left: Messages) -> list[BaseMessage]:
    seen = _produced.get(id(left))
    if seen is not None and seen[0] is left and seen[1] == len(left):
        return left  # type: ignore[no-any-return]
    return _coerce(left)[0]


@mark_message_reducer
def _messages_delta_reducer(state: list[AnyMessage], writes: list[Any]) -> list[AnyMessage]:
    """LangGraph's experimental batch reducer for a `DeltaChannel` of messages: folds a whole
    step's writes (each a message-like or a list of them) into ``state`` in one pass. A
    `RemoveMessage` with id `REMOVE_ALL_MESSAGES` drops the state and the writes before the
    last such marker; a message whose id is already there replaces it in place, a
    `RemoveMessage` drops the message it names (an unknown id is ignored), a message without
    id is appended as is (the channel gives written messages ids before this runs). Folding
    ``xs`` then ``ys`` equals folding ``xs + ys``, as `DeltaChannel` requires. Unlike
    `add_messages`: no chunk conversion."""
    items: list[Any] = []
    for write in writes:
        items.extend(write if isinstance(write, list) else [write])
    # the committed state is already typed after the first fold: convert only raw input
    current = state if state and isinstance(state[0], BaseMessage) else convert_to_messages(state)
    written = cast(list[AnyMessage], convert_to_messages(items))
    for i in range(len(written) - 1, -1, -1):
        if isinstance(written[i], RemoveMessage) and written[i].id == REMOVE_ALL_MESSAGES:
            current, written = [], written[i + 1 :]
            break
    kept: list[AnyMessage | None] = list(cast(list[AnyMessage], current))
    at = {m.id: i for i, m in enumerate(kept) if m is not None and m.id is not None}
    for message in written:
        key = message.id
        if key is None:
            kept.append(message)
        elif isinstance(message, RemoveMessage):
            if key in at:
                kept[at.pop(key)] = None
        elif key in at:
            kept[at[key]] = message
        else:
            at[key] = len(kept)
            kept.append(message)
    return [m for m in kept if m is not None]


# A state with one key, ``messages``, reduced with `add_messages`. A `typing_extensions`
# TypedDict, as LangGraph's: pydantic (< Python 3.12) models only those, and a graph's
# ``input_schema`` (LangServe, ``as_tool``) is a model of its state. No docstring, as
# LangGraph's has none: pydantic would make it the JSON schema's "description".
class MessagesState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def push_message(message: Any, *, state_key: str | None = "messages") -> AnyMessage:
    """Emit ``message`` on the `messages` stream from inside a node (and write it to
    ``state_key`` unless None). Outside a run it raises RuntimeError."""
    ctx = current_task_context()
    (coerced,) = convert_to_messages([message])
    if coerced.id is None:
        raise ValueError("Message ID is required")
    ctx.push_message(coerced, state_key)
    return cast(AnyMessage, coerced)


class MessageGraph(StateGraph[Any, Any, Any, Any]):
    """Deprecated: a graph whose whole state is one list of messages."""

    def __init__(self) -> None:
        warnings.warn(
            "MessageGraph is deprecated in LangGraph v1.0.0, to be removed in v2.0.0. "
            "Please use StateGraph with a `messages` key instead.",
            LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        super().__init__(Annotated[list[AnyMessage], add_messages])  # type: ignore[arg-type]
