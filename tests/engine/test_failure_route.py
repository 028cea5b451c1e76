"""A node's failure route (``on_failure``): an activation that fails for good goes on as an
activation of the route node, with a `NodeFailed` payload, instead of failing the execution;
with ``retry_holds_step`` inside the same superstep, its siblings committing with it."""

from __future__ import annotations

from superstep_core import (
    Activated,
    Append,
    CompleteActivation,
    Event,
    FailActivation,
    Failure,
    FailureClass,
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    RetryPolicy,
    Status,
)
from superstep_core.errors import GraphValidationError
from superstep_core.node import NodeFailed
from superstep_core.runtime import Execution

from .support import drain


def _failing(attempts: list[int]) -> object:
    def react(ctx: NodeContext, event: Event) -> Reaction:
        attempts.append(ctx.attempt)
        return Reaction(disposition=FailActivation.retryable(f"boom {ctx.attempt}"))

    return react


def _handler(seen: list[NodeFailed]) -> object:
    def react(ctx: NodeContext, event: Event) -> Reaction:
        assert isinstance(event, Activated) and isinstance(event.payload, NodeFailed)
        seen.append(event.payload)
        return Reaction(
            updates={"log": f"handled {event.payload.node}", "step": ctx.step},
            disposition=CompleteActivation(),
        )

    return react


def _ok(ctx: NodeContext, event: Event) -> Reaction:
    return Reaction(updates={"log": "ok"}, disposition=CompleteActivation())


def _after(ctx: NodeContext, event: Event) -> Reaction:
    return Reaction(updates={"log": "after"}, disposition=CompleteActivation())


def _graph(attempts: list[int], seen: list[NodeFailed], *, holds: bool) -> Graph:
    def start(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(disposition=CompleteActivation())

    return (
        Graph("g")
        .with_channels(log=Append(), step=LastValue())
        .add_node("start", start)
        .add_node(
            "fail",
            _failing(attempts),  # type: ignore[arg-type]
            retry=RetryPolicy(max_attempts=2, initial_interval=0),
            retry_holds_step=holds,
            on_failure="handler",
        )
        .add_node("handler", _handler(seen))  # type: ignore[arg-type]
        .add_node("ok", _ok)
        .add_node("after", _after)
        .connect("start", "fail")
        .connect("start", "ok")
        .connect("fail", "after")  # never followed: the activation did not complete as "fail"
        .connect("handler", "after")
        .start_at("start")
    )


def test_a_failure_for_good_is_handed_to_the_route_after_the_retries() -> None:
    attempts: list[int] = []
    seen: list[NodeFailed] = []
    ex = drain(Execution.start(_graph(attempts, seen, holds=False).compile(), "x"))
    assert ex.status is Status.COMPLETED
    assert attempts == [1, 2]
    assert len(seen) == 1
    failed = seen[0]
    assert (failed.node, failed.error_type, failed.message) == ("fail", "Error", "boom 2")
    # the activation goes on as the handler's: the handler's edges are followed
    assert sorted(ex.values["log"]) == ["after", "handled fail", "ok"]


def test_with_retry_holds_step_the_route_commits_in_the_failed_superstep() -> None:
    attempts: list[int] = []
    seen: list[NodeFailed] = []
    graph = _graph(attempts, seen, holds=True).compile()
    ex = Execution.start(graph, "x")
    commits: list[tuple[int, tuple[str, ...]]] = []
    while ex.queue and ex.failure is None:
        outcome = ex.run_superstep()
        if outcome.committed:
            commits.append((outcome.step, tuple(outcome.written)))
    assert ex.status is Status.COMPLETED
    assert attempts == [1, 2]
    # "ok" and the handler commit together in superstep 2, then "after" in superstep 3
    assert ex.values["step"] == 2
    assert [step for step, _ in commits] == [1, 2, 3]
    assert list(ex.values["log"]) == ["handled fail", "ok", "after"]


def test_a_failing_route_fails_the_execution() -> None:
    def broken(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(disposition=FailActivation.permanent("handler boom"))

    graph = (
        Graph("g")
        .with_channels(log=Append())
        .add_node("fail", _failing([]), on_failure="handler")  # type: ignore[arg-type]
        .add_node("handler", broken)
        .start_at("fail")
    )
    ex = drain(Execution.start(graph.compile(), "x"))
    assert ex.status is Status.FAILED
    assert ex.failure is not None and ex.failure.message == "handler boom"


def test_an_unknown_route_is_refused() -> None:
    graph = Graph("g").add_node("fail", _ok, on_failure="nowhere").start_at("fail")
    try:
        graph.compile()
    except GraphValidationError as e:
        assert "nowhere" in str(e)
    else:  # pragma: no cover
        raise AssertionError("compile accepted an unknown failure route")


def test_the_route_is_a_fresh_activation_carrying_the_failure_and_its_cause() -> None:
    cause = ValueError("the node's own error")
    seen: list[tuple[str, NodeFailed]] = []

    def fail(ctx: NodeContext, event: Event) -> Reaction:
        failure = Failure(FailureClass.PERMANENT, str(cause), "ValueError", cause=cause)
        return Reaction(disposition=FailActivation(failure))

    def handler(ctx: NodeContext, event: Event) -> Reaction:
        assert isinstance(event, Activated) and isinstance(event.payload, NodeFailed)
        seen.append((ctx.activation_id, event.payload))
        return Reaction(disposition=CompleteActivation())

    graph = (
        Graph("g")
        .add_node("fail", fail, on_failure="handler", retry_holds_step=True)
        .add_node("handler", handler)
        .start_at("fail")
    )
    ex = drain(Execution.start(graph.compile(), "x", payload={"input": 1}))
    assert ex.status is Status.COMPLETED
    [(aid, failed)] = seen
    assert aid.startswith("handler:") and failed.activation_id.startswith("fail:")
    assert failed.cause is cause
    assert (failed.error_type, failed.payload) == ("ValueError", {"input": 1})
