"""The engine nodes a document's nodes compile to: event reducers, one builder per node type.

Each activation first counts itself in `VISITS` (its iteration: 1 the first time, 2 on the
next pass of a loop) and reports ``node_started`` in `EVENTS`; the host stamps those reports
with the run id and a timestamp. Model and tool calls are effects whose requests are plain
data (`LLM_EFFECT`, `HTTP_EFFECT`, `FUNCTION_EFFECT`): each carries the node id and the
iteration, from which the host derives the idempotency key ``<run>:<node>:<iteration>``. A
call that failed for good fails the activation (and the superstep), unless a person asked to
retry it (`RETRIES`, written by an audited edit): then it is asked for again. A condition
completes with the label its rules chose; a human node is an interrupt with a timer.

Must never import the host or compat.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from superstep_core.document.channels import EVENTS, INPUT, RETRIES, VISITS, Contribution
from superstep_core.document.expressions import ExpressionError, evaluate, parse
from superstep_core.document.model import Node, StateField
from superstep_core.document.templates import render, render_json, render_url
from superstep_core.document.validate import fits_type
from superstep_core.llm.nodes import ChatCall
from superstep_core.node import (
    Activated,
    CompleteActivation,
    Effect,
    EffectCompleted,
    Event,
    FailActivation,
    NodeContext,
    NodeFn,
    Reaction,
    RemainActive,
    RequestTimer,
    Resumed,
    SuspendActivation,
    TimerElapsed,
)

__all__ = [
    "EXPIRED",
    "FUNCTION_EFFECT",
    "HTTP_EFFECT",
    "LLM_EFFECT",
    "OutputTypeError",
    "build_node",
]

LLM_EFFECT = "document.llm"
"""Request: ``{"node", "iteration", "call": ChatCall.as_request()}``."""
HTTP_EFFECT = "document.http"
"""Request: ``{"node", "iteration", "method", "url", "headers", "body", "timeout"}``."""
FUNCTION_EFFECT = "document.function"
"""Request: ``{"node", "iteration", "function", "args"}``."""
EXPIRED = "Expired"
"""The error type of a human node whose timeout passed (the run's status is ``expired``)."""

_TIMEOUT_TIMER = "timeout"


class OutputTypeError(TypeError):
    """A node produced a value its output field's type and reducer do not take."""


def _inputs(ctx: NodeContext) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    raw = ctx.state.get(INPUT)
    return ctx.state, raw if isinstance(raw, Mapping) else {}


def _started(ctx: NodeContext, node: Node, **payload: Any) -> tuple[int, list[tuple[str, Any]]]:
    iteration = int(ctx.state.get(VISITS, {}).get(node.id, 0)) + 1
    ctx.memory["iteration"] = iteration
    record = {
        "type": "node_started",
        "node": node.id,
        "iteration": iteration,
        "payload": {"type": node.type, "label": node.label, **payload},
    }
    return iteration, [(VISITS, node.id), (EVENTS, record)]


def _finished(
    ctx: NodeContext, node: Node, value: Any, field: StateField | None, effect: str | None = None
) -> list[tuple[str, Any]]:
    record = {
        "type": "node_finished",
        "node": node.id,
        "iteration": ctx.memory.get("iteration", 1),
        "payload": {"output_field": node.output_field, "value": value, "effect": effect},
    }
    updates: list[tuple[str, Any]] = [(EVENTS, record)]
    if field is not None:
        updates.append((field.name, Contribution(value)))
    return updates


def _check_output(node: Node, field: StateField | None, value: Any) -> None:
    if field is None or field.how == "append":
        return
    expected = {"merge": "object", "add": "number"}.get(field.how, field.type)
    if not fits_type(value, expected):
        shown = type(value).__name__ if value is not None else "null"
        raise OutputTypeError(
            f"node {node.id!r} produced a {shown} for state field {field.name!r}, which takes "
            f"{expected} values (reducer {field.how!r}); change the node's output or the field"
        )


def _failed(node: Node, event: EffectCompleted, what: str) -> Reaction:
    assert event.error is not None
    make = FailActivation.retryable if event.error.retryable else FailActivation.permanent
    message = f"node {node.id!r}: {what} failed: {event.error.message}"
    return Reaction(disposition=make(message, event.error.type))


def _effect_node(
    node: Node, field: StateField | None, request: Callable[[NodeContext, int], Effect], what: str
) -> NodeFn:
    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            iteration, updates = _started(ctx, node)
            return Reaction(
                updates=updates, effects=[request(ctx, iteration)], disposition=RemainActive()
            )
        if isinstance(event, EffectCompleted):
            if event.error is not None:
                # A person asked to retry this node's failed call (an audited edit of
                # RETRIES, then the failed superstep again): ask for the call once more.
                asked = int(ctx.state.get(RETRIES, {}).get(node.id, 0))
                if asked > int(ctx.memory.get("retried", 0)):
                    ctx.memory["retried"] = asked
                    again = request(ctx, int(ctx.memory.get("iteration", 1)))
                    return Reaction(effects=[again], disposition=RemainActive())
                return _failed(node, event, what)
            try:
                _check_output(node, field, event.result)
            except OutputTypeError as e:
                return Reaction(disposition=FailActivation.permanent(str(e), "OutputTypeError"))
            updates = _finished(ctx, node, event.result, field, event.effect_id)
            return Reaction(updates=updates, disposition=CompleteActivation(event.result))
        return Reaction(disposition=RemainActive())

    react.__name__ = f"{node.type}_{node.id}"
    return react


def _llm_request(node: Node) -> Callable[[NodeContext, int], Effect]:
    data = node.data
    settings = {k: data[k] for k in ("temperature", "max_tokens") if k in data}
    schema = data.get("output_schema")
    if schema is not None and "title" not in schema:
        schema = {"title": "output", **schema}

    def request(ctx: NodeContext, iteration: int) -> Effect:
        state, given = _inputs(ctx)
        messages: list[BaseMessage] = []
        if "system" in data:
            messages.append(SystemMessage(render(data["system"], state, given)))
        messages.append(HumanMessage(render(data["prompt"], state, given)))
        call = ChatCall(
            _reference(str(data["model"])),
            tuple(messages),
            settings,
            schema=schema,
            stream=bool(data.get("stream", True)) and schema is None,
        )
        payload = {"node": node.id, "iteration": iteration, "call": call.as_request()}
        return Effect(LLM_EFFECT, payload)

    return request


def _reference(model: str) -> str:
    from superstep_core.llm.registry import parse_model

    name, provider = parse_model(model)
    return f"{provider}:{name}"


def _tool_request(node: Node) -> Callable[[NodeContext, int], Effect]:
    data = node.data

    def request(ctx: NodeContext, iteration: int) -> Effect:
        state, given = _inputs(ctx)
        head = {"node": node.id, "iteration": iteration}
        if "function" in data:
            args = render_json(data.get("args") or {}, state, given)
            return Effect(FUNCTION_EFFECT, {**head, "function": data["function"], "args": args})
        return Effect(
            HTTP_EFFECT,
            {
                **head,
                "method": data.get("method", "GET"),
                "url": render_url(data["url"], state, given),
                "headers": {
                    k: render(v, state, given) for k, v in (data.get("headers") or {}).items()
                },
                "body": render_json(data["body"], state, given) if "body" in data else None,
                "timeout": data.get("timeout", 30.0),
            },
        )

    return request


def _condition(node: Node, field: StateField | None) -> NodeFn:
    rules = [(r["label"], r["when"], parse(r["when"])) for r in node.data["rules"]]
    default = str(node.data["default"])

    def react(ctx: NodeContext, event: Event) -> Reaction:
        _, updates = _started(ctx, node)
        state, given = _inputs(ctx)
        label = default
        for i, (rule_label, text, tree) in enumerate(rules):
            try:
                holds = evaluate(tree, state, given)
            except ExpressionError as e:
                message = f"node {node.id!r} rule {i + 1} ({rule_label!r}: {text}): {e}"
                return Reaction(disposition=FailActivation.permanent(message, "ConditionError"))
            if holds:
                label = rule_label
                break
        updates += _finished(ctx, node, label, field)
        return Reaction(updates=updates, disposition=CompleteActivation(label))

    react.__name__ = f"condition_{node.id}"
    return react


def _human(node: Node, field: StateField | None) -> NodeFn:
    data = node.data
    timeout = data.get("timeout")
    fields = [dict(f) for f in data["fields"]]

    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            state, given = _inputs(ctx)
            prompt = render(data["prompt"], state, given)
            _, updates = _started(ctx, node, prompt=prompt, fields=fields, timeout=timeout)
            control = [] if timeout is None else [RequestTimer(_TIMEOUT_TIMER, float(timeout))]
            ask = {"node": node.id, "prompt": prompt, "fields": fields, "timeout": timeout}
            return Reaction(updates=updates, control=control, disposition=SuspendActivation(ask))
        if isinstance(event, Resumed):
            updates = _finished(ctx, node, event.value, field)
            return Reaction(updates=updates, disposition=CompleteActivation(event.value))
        if isinstance(event, TimerElapsed):
            message = (
                f"node {node.id!r} waited {timeout} s for an answer and expired; the run keeps "
                f"its state"
            )
            return Reaction(disposition=FailActivation.permanent(message, EXPIRED))
        return Reaction(disposition=RemainActive())

    react.__name__ = f"human_{node.id}"
    return react


def build_node(node: Node, field: StateField | None) -> NodeFn:
    """The engine reducer of ``node``; ``field`` is its output field (``None`` for a condition
    without one)."""
    if node.type == "llm":
        return _effect_node(node, field, _llm_request(node), "model call")
    if node.type == "tool":
        what = "tool call" if "function" in node.data else "HTTP call"
        return _effect_node(node, field, _tool_request(node), what)
    if node.type == "condition":
        return _condition(node, field)
    if node.type == "human":
        return _human(node, field)
    raise ValueError(f"node {node.id!r}: unknown node type {node.type!r}")
