"""`langgraph.prebuilt.interrupt`: the Agent Inbox interrupt payload types (deprecated;
they moved to ``langchain.agents.interrupt``).

Must never import: the engine (`superstep_core`) or the compiler.
"""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import TypedDict, deprecated

from superstep_compat.warnings import LangGraphDeprecatedSinceV10

__all__ = ["ActionRequest", "HumanInterrupt", "HumanInterruptConfig", "HumanResponse"]


def _moved(name: str) -> str:
    return (
        f"{name} has been moved to `langchain.agents.interrupt`. Please update your import to "
        f"`from langchain.agents.interrupt import {name}`."
    )


@deprecated(_moved("HumanInterruptConfig"), category=LangGraphDeprecatedSinceV10)
class HumanInterruptConfig(TypedDict):
    """Which answers a human may give to an interrupt."""

    allow_ignore: bool
    allow_respond: bool
    allow_edit: bool
    allow_accept: bool


@deprecated(_moved("ActionRequest"), category=LangGraphDeprecatedSinceV10)
class ActionRequest(TypedDict):
    """The action (a tool name) and arguments a human is asked to review."""

    action: str
    args: dict[str, Any]


@deprecated(_moved("HumanInterrupt"), category=LangGraphDeprecatedSinceV10)
class HumanInterrupt(TypedDict):
    """The value passed to ``interrupt()`` for an Agent Inbox review."""

    action_request: ActionRequest
    config: HumanInterruptConfig
    description: str | None


@deprecated(_moved("HumanResponse"), category=LangGraphDeprecatedSinceV10)
class HumanResponse(TypedDict):
    """The human's answer, passed back with ``Command(resume=...)``."""

    type: Literal["accept", "ignore", "response", "edit"]
    args: str | ActionRequest | None
