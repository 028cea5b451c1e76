"""What `RemoteGraph` sends: the keyword arguments of each ``langgraph-sdk`` client call, built
from a call's merged config and arguments as plain data, the same for the sync and the async
client (so each pair of `RemoteGraph` methods differs only in the client it awaits or not).

Tracing headers are merged by `remote` (`remote._merge_tracing_headers`, which tests patch)
before they reach these functions; this module calls no client and reads no run tree.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from langchain_core.runnables import RunnableConfig

from superstep_compat.pregel._remote_chunks import StreamPlan
from superstep_compat.pregel._remote_state import checkpoint_of, sanitize_config
from superstep_compat.types import Command

V3_SUPPORTED_KWARGS = frozenset({"metadata", "headers"})
"""The extra keyword arguments ``stream_events(version="v3")`` accepts."""

HISTORY_LIMIT = 10
"""States `get_state_history` asks for when no ``limit`` is given (LangGraph's default)."""


def command_payload(input: Any) -> tuple[Any, dict[str, Any] | None]:
    """(input, command) as the server's run API takes them: a `Command` goes as
    ``command`` (its fields as a dict) with no input."""
    if isinstance(input, Command):
        return None, asdict(input)
    return input, None


def state_request(
    merged: RunnableConfig, subgraphs: bool, headers: dict[str, str] | None, params: Any
) -> dict[str, Any]:
    """``threads.get_state``'s arguments: the thread's state at the checkpoint ``merged``
    names (KeyError without a ``thread_id``)."""
    return {
        "thread_id": merged["configurable"]["thread_id"],
        "checkpoint": checkpoint_of(merged),
        "subgraphs": subgraphs,
        "headers": headers,
        "params": params,
    }


def history_request(
    merged: RunnableConfig,
    filter: dict[str, Any] | None,
    before: RunnableConfig | None,
    limit: int | None,
    headers: dict[str, str] | None,
    params: Any,
) -> dict[str, Any]:
    """``threads.get_history``'s arguments (at most ``limit`` states, default 10)."""
    return {
        "thread_id": merged["configurable"]["thread_id"],
        "limit": limit or HISTORY_LIMIT,
        "before": checkpoint_of(before),
        "metadata": filter,
        "checkpoint": checkpoint_of(merged),
        "headers": headers,
        "params": params,
    }


def update_request(
    merged: RunnableConfig,
    values: Any,
    as_node: str | None,
    headers: dict[str, str] | None,
    params: Any,
) -> dict[str, Any]:
    """``threads.update_state``'s arguments: ``values`` written as if ``as_node`` returned
    them, onto the checkpoint ``merged`` names."""
    return {
        "thread_id": merged["configurable"]["thread_id"],
        "values": values,
        "as_node": as_node,
        "checkpoint": checkpoint_of(merged),
        "headers": headers,
        "params": params,
    }


def run_request(
    assistant_id: str,
    merged: RunnableConfig,
    input: Any,
    plan: StreamPlan,
    subgraphs: bool,
    headers: dict[str, str] | None,
    extra: dict[str, Any],
) -> dict[str, Any]:
    """``runs.stream``'s arguments for one call: the config sanitised, its thread id taken
    out (none: a thread-less run), a `Command` input sent as the run's command."""
    sanitized = sanitize_config(merged)
    thread_id = sanitized.get("configurable", {}).pop("thread_id", None)
    run_input, command = command_payload(input)
    return {
        "thread_id": thread_id,
        "assistant_id": assistant_id,
        "input": run_input,
        "command": command,
        "config": sanitized,
        "stream_mode": plan.sent,
        # the calling graph streams subgraphs: it gets the remote graph's too
        "stream_subgraphs": subgraphs or plan.parent is not None,
        "if_not_exists": "create",
        "headers": headers,
        **extra,
    }


def run_options(
    context: Any, interrupt_before: Any, interrupt_after: Any, params: Any, kwargs: dict[str, Any]
) -> dict[str, Any]:
    """The further ``runs.stream`` arguments of `RemoteGraph.stream` (``kwargs`` last)."""
    return {
        "context": context,
        "interrupt_before": interrupt_before,
        "interrupt_after": interrupt_after,
        "params": params,
        **kwargs,
    }


def reject_v3_unsupported(
    *,
    control: Any,
    transformers: Any,
    interrupt_before: Any,
    interrupt_after: Any,
    extra_kwargs: dict[str, Any],
) -> None:
    """NotImplementedError naming the first argument the v3 wire protocol cannot carry
    (``control``, ``transformers``, breakpoints, keywords beyond metadata/headers)."""
    for name, value in (
        ("control", control),
        ("transformers", transformers),
        ("interrupt_before", interrupt_before),
        ("interrupt_after", interrupt_after),
    ):
        if value:
            raise NotImplementedError(
                f"RemoteGraph.stream_events(version='v3') does not support `{name}=`."
            )
    unknown = sorted(set(extra_kwargs) - V3_SUPPORTED_KWARGS)
    if unknown:
        raise NotImplementedError(
            f"RemoteGraph.stream_events(version='v3') does not support the keyword "
            f"arguments {unknown!r}; it supports {sorted(V3_SUPPORTED_KWARGS)!r}."
        )


def v3_request(
    assistant_id: str, merged: RunnableConfig, headers: dict[str, str] | None
) -> tuple[RunnableConfig, dict[str, Any]]:
    """(the sanitised config without its thread id, ``threads.stream``'s arguments)."""
    sanitized = sanitize_config(merged)
    thread_id = sanitized.get("configurable", {}).pop("thread_id", None)
    request = {"thread_id": thread_id, "assistant_id": assistant_id, "headers": headers}
    return sanitized, request


def v3_only(method: str, version: str, instead: str) -> None:
    """NotImplementedError unless ``version`` is ``"v3"``: `RemoteGraph` has no other
    ``stream_events`` (LangGraph fails there too, for want of a base implementation)."""
    if version != "v3":
        raise NotImplementedError(
            f"RemoteGraph.{method}(version={version!r}) is not implemented; use "
            f"{instead}() for v1/v2 streaming or version='v3'."
        )
