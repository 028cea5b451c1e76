"""Run requests: the checks a run body passes (the same for ``/runs``, ``/stream``,
``/wait``, ``/batch`` and crons) and queueing the run it asks for. Bad bodies are refused
with 422 naming the field (404 for an unknown assistant); options this server does not
offer yet are refused by name, never ignored."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from superstep_server.bodies import RunCreate, check, check_command
from superstep_server.context_config import refuse_both, requested_context
from superstep_server.errors import ApiError
from superstep_server.executor import SUPPORTED_MODES
from superstep_server.ids import is_uuid

__all__ = ["KNOWN_MODES", "check_run_body", "create_run_from_body"]

KNOWN_MODES = SUPPORTED_MODES
STRATEGIES = ("reject", "interrupt", "rollback", "enqueue")


def _choice(body: dict[str, Any], key: str, allowed: tuple[str, ...], default: str) -> str:
    value = body.get(key)
    if value is None:
        return default
    if value not in allowed:
        raise ApiError(422, f"{key}: {value!r} is not one of {', '.join(allowed)}")
    return str(value)


def _object(body: dict[str, Any], key: str) -> Any:
    value = body.get(key)
    if value is not None and not isinstance(value, dict):
        raise ApiError(422, f"{key}: must be a JSON object, not {type(value).__name__}")
    return value


def _modes(body: dict[str, Any]) -> list[str]:
    raw = body.get("stream_mode")
    modes = [raw] if isinstance(raw, str) else list(raw or ["values"])
    for mode in modes:
        if mode not in KNOWN_MODES:
            raise ApiError(
                422, f"stream_mode: {mode!r} is not a stream mode ({', '.join(KNOWN_MODES)})"
            )
    return modes


def _breakpoints(body: dict[str, Any], key: str, server: Any, graph_id: str) -> Any:
    value = body.get(key)
    if value is None or value == "*":
        return value
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise ApiError(422, f"{key}: must be '*' or a list of node names")
    with server.graphs.open(graph_id, "assistants.read", body.get("config") or {}) as graph:
        nodes = getattr(graph, "nodes", None)
    if isinstance(nodes, dict):
        for name in value:
            if name not in nodes:
                known = ", ".join(repr(n) for n in nodes if n != "__start__")
                raise ApiError(422, f"{key}: {name!r} is not a node of the graph ({known})")
    return value


def check_run_body(server: Any, body: dict[str, Any], *, stateless: bool) -> dict[str, Any]:
    """The run's checked settings; raises `ApiError` 422 (or 404 for the assistant; 400 for a
    resume on a stateless run, as the reference)."""
    check(RunCreate, body)
    check_command(body.get("command"))
    assistant_id = body.get("assistant_id")
    if not isinstance(assistant_id, str) or not assistant_id:
        raise ApiError(422, "assistant_id: field required (an assistant id or a graph id)")
    for key in ("config", "context", "metadata", "command", "checkpoint"):
        _object(body, key)
    refuse_both(body.get("config"), body.get("context"))
    if body.get("input") is not None and body.get("command") is not None:
        raise ApiError(422, "input and command: give one of them, not both")
    command = body.get("command") or {}
    assistant = server.assistants.get(assistant_id)
    graph_id = assistant["graph_id"]
    after_seconds = body.get("after_seconds")
    if after_seconds is not None and (
        isinstance(after_seconds, bool)
        or not isinstance(after_seconds, int | float)
        or after_seconds < 0
    ):
        raise ApiError(422, f"after_seconds: {after_seconds!r} must be a number of seconds >= 0")
    webhook = body.get("webhook")
    if webhook is not None and (
        not isinstance(webhook, str) or not webhook.startswith(("http://", "https://"))
    ):
        raise ApiError(422, f"webhook: {webhook!r} must be an http:// or https:// URL")
    checkpoint_id = body.get("checkpoint_id")
    if checkpoint_id is not None and not isinstance(checkpoint_id, str):
        raise ApiError(422, "checkpoint_id: must be a string")
    if checkpoint_id and not is_uuid(checkpoint_id):
        raise ApiError(422, "Invalid checkpoint ID")  # the reference's words
    if stateless and (checkpoint_id or body.get("checkpoint")):
        raise ApiError(422, "checkpoint_id: a stateless run has no thread to fork")
    if stateless and command.get("resume"):
        # the reference's check and words (a falsy resume passes there too): a stateless
        # run's thread is new, there is no interrupt on it to answer
        raise ApiError(400, "You must provide a thread_id when resuming.")
    kwargs = {
        "input": body.get("input"),
        "command": command or None,
        "config": body.get("config") or {},
        # as the reference: the request's context, else its config.configurable
        "context": requested_context(body.get("config"), body.get("context")),
        "stream_mode": _modes(body),
        "subgraphs": bool(body.get("stream_subgraphs")),
        "resumable": bool(body.get("stream_resumable")),
        "interrupt_before": _breakpoints(body, "interrupt_before", server, graph_id),
        "interrupt_after": _breakpoints(body, "interrupt_after", server, graph_id),
        "checkpoint_id": checkpoint_id,
        "checkpoint": body.get("checkpoint"),
        "durability": _choice(body, "durability", ("sync", "async", "exit"), "async"),
    }
    return {
        "assistant": assistant,
        "kwargs": kwargs,
        "metadata": body.get("metadata") or {},
        # the reference's default (langgraph-api's assign_defaults): a run asked for while
        # the thread is busy waits its turn
        "multitask_strategy": _choice(body, "multitask_strategy", STRATEGIES, "enqueue"),
        "if_not_exists": _choice(body, "if_not_exists", ("create", "reject"), "reject"),
        "on_completion": _choice(body, "on_completion", ("delete", "keep"), "delete"),
        "on_disconnect": _choice(body, "on_disconnect", ("cancel", "continue"), "continue"),
        "after_seconds": after_seconds,
        "webhook": webhook,
    }


def create_run_from_body(
    server: Any,
    thread_id: str | None,
    body: dict[str, Any],
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Check ``body`` and queue its run (on ``thread_id``, or stateless when ``None``);
    returns ``{"run", "cancelled", "on_disconnect"}``. ``extra``: more of the run's kwargs,
    set by the server itself (``stream_protocol``, `superstep_server.api_protocol`)."""
    checked = check_run_body(server, body, stateless=thread_id is None)
    if thread_id is not None:
        kwargs = checked["kwargs"]
        # as the reference builds the run's configurable: the config's, then checkpoint_id,
        # then checkpoint over them
        configurable = (kwargs.get("config") or {}).get("configurable") or {}
        at = {"checkpoint_id": configurable.get("checkpoint_id")}
        if kwargs["checkpoint_id"]:
            at["checkpoint_id"] = kwargs["checkpoint_id"]
        at.update(kwargs["checkpoint"] or {})
        server.state.require_checkpoint(thread_id, at, checked["assistant"]["graph_id"])
    if extra:
        checked["kwargs"].update(extra)
    stateless = thread_id is None
    run, cancelled = server.runs.create(
        thread_id=thread_id or str(uuid.uuid4()),
        assistant=checked["assistant"],
        kwargs=checked["kwargs"],
        metadata=checked["metadata"],
        multitask_strategy=checked["multitask_strategy"],
        if_not_exists="create" if stateless else checked["if_not_exists"],
        temporary=stateless and checked["on_completion"] == "delete",
        insert_thread=server.threads.insert,
        origin=server.workers.name,
        after_seconds=checked["after_seconds"],
        webhook=checked["webhook"],
    )
    return {"run": run, "cancelled": cancelled, "on_disconnect": checked["on_disconnect"]}
