"""The one-shot task model: hooks, effects, approvals, dependencies and retries, all through
the ordinary engine (`Host` with a virtual clock)."""

from __future__ import annotations

import operator
from typing import Any

import pytest

import superstep_core.task as task_pkg
from superstep_core import (
    Append,
    Effect,
    EffectContext,
    GraphValidationError,
    Host,
    LastValue,
    Reducer,
    RetryableEffectError,
    RetryPolicy,
    Status,
    VirtualClock,
)
from superstep_core.task import (
    Done,
    Fail,
    Interrupt,
    Task,
    TaskContext,
    task_graph,
)


def test_exports_are_the_documented_names() -> None:
    assert set(task_pkg.__all__) == {
        "Done",
        "Fail",
        "Interrupt",
        "Step",
        "Task",
        "TaskContext",
        "add_tasks",
        "task_graph",
        "task_node",
    }


def test_a_task_returning_updates_writes_them_and_completes() -> None:
    t = Task("greet", run=lambda ctx: {"greeting": f"hello {ctx.payload}"})
    g = task_graph("g", [t], channels={"greeting": LastValue()}).compile()
    ex = Host().run_graph(g, payload="world")
    assert ex.status is Status.COMPLETED
    assert ex.values == {"greeting": "hello world"}
    assert ex.outputs == [("greet", {"greeting": "hello world"})]


def test_an_effect_result_goes_to_on_result() -> None:
    t = Task(
        "fetch",
        run=lambda ctx: Effect("lookup", ctx.payload),
        on_result=lambda ctx, result: {"found": result},
    )
    host = Host({"lookup": lambda request, ctx: request.upper()})
    ex = host.run_graph(
        task_graph("g", [t], channels={"found": LastValue()}).compile(), payload="x"
    )
    assert ex.values == {"found": "X"}


def test_a_list_of_effects_is_performed_together_and_answered_in_order() -> None:
    t = Task(
        "fan",
        run=lambda ctx: [Effect("square", n) for n in (1, 2, 3)],
        on_result=lambda ctx, results: {"squares": results},
    )
    host = Host({"square": lambda n, ctx: n * n})
    ex = host.run_graph(task_graph("g", [t], channels={"squares": LastValue()}).compile())
    assert ex.values == {"squares": [1, 4, 9]}
    assert len(ex.trace[0].effects) == 3  # one superstep issued all three


def test_on_result_may_chain_another_effect_using_memory() -> None:
    def first(ctx: TaskContext, result: Any) -> Any:
        if "first" not in ctx.memory:
            ctx.memory["first"] = result
            return Effect("echo", "second")
        return {"both": (ctx.memory["first"], result)}

    t = Task("chain", run=lambda ctx: Effect("echo", "first"), on_result=first)
    host = Host({"echo": lambda r, ctx: r})
    ex = host.run_graph(task_graph("g", [t], channels={"both": LastValue()}).compile())
    assert ex.values == {"both": ("first", "second")}


def test_an_interrupt_suspends_until_resumed_then_on_resume_decides() -> None:
    t = Task(
        "approve",
        run=lambda ctx: Interrupt({"publish": ctx.payload}),
        on_resume=lambda ctx, answer: {"approved": answer == "yes"},
    )
    g = task_graph("g", [t], channels={"approved": LastValue()}).compile()
    host = Host()
    ex = host.run_graph(g, payload="draft")
    assert ex.status is Status.SUSPENDED
    assert [value for _, value in ex.interrupts] == [{"publish": "draft"}]
    host.resume(ex, "yes")
    assert ex.status is Status.COMPLETED
    assert ex.values == {"approved": True}


def test_a_task_with_one_dependency_gets_its_output_as_input() -> None:
    a = Task("a", run=lambda ctx: Done({"log": "a"}, output=1))
    b = Task("b", run=lambda ctx: {"log": f"b saw {ctx.inputs}"}, after=("a",))
    g = task_graph("g", [a, b], channels={"log": Append()}).compile()
    ex = Host().run_graph(g)
    assert ex.values == {"log": ("a", "b saw {'a': 1}")}


def test_a_task_after_several_waits_for_all_of_them_through_a_join() -> None:
    a = Task("a", run=lambda ctx: Done({"n": 1}, output="A"))
    b = Task("b", run=lambda ctx: Effect("slow", "B"), on_result=lambda ctx, r: Done({"n": 10}, r))
    c = Task(
        "c", run=lambda ctx: {"seen": dict(ctx.inputs), "total": ctx.state["n"]}, after=("a", "b")
    )
    channels = {"n": Reducer(operator.add, int), "seen": LastValue(), "total": LastValue()}
    g = task_graph("g", [a, b, c], channels=channels).compile()
    ex = Host({"slow": lambda r, ctx: r}).run_graph(g)
    assert ex.values["seen"] == {"a": "A", "b": "B"}
    assert ex.values["total"] == 11
    assert g.joins_by_name["c.after"].sources == ("a", "b")


def test_a_retryable_effect_failure_is_retried_by_the_engine_with_backoff() -> None:
    calls: list[str] = []

    def flaky(request: str, ctx: EffectContext) -> str:
        calls.append(ctx.idempotency_key)
        if len(calls) == 1:
            raise RetryableEffectError("503 from upstream")
        return request

    t = Task(
        "call",
        run=lambda ctx: Effect("flaky", f"attempt {ctx.attempt}"),
        on_result=lambda ctx, r: {"got": r},
        retry=RetryPolicy(max_attempts=2, initial_interval=1.5),
    )
    clock = VirtualClock()
    host = Host({"flaky": flaky}, clock=clock)
    ex = host.run_graph(task_graph("g", [t], channels={"got": LastValue()}).compile())
    assert ex.values == {"got": "attempt 2"}
    assert clock.slept == [1.5]
    assert calls[0] == calls[1]  # the same idempotency key on the retry


def test_a_permanent_effect_failure_fails_the_execution_naming_the_task() -> None:
    def broken(request: Any, ctx: EffectContext) -> Any:
        raise ValueError("bad request")

    t = Task("call", run=lambda ctx: Effect("broken"), retry=RetryPolicy(max_attempts=3))
    host = Host({"broken": broken})
    ex = host.run_graph(task_graph("g", [t]).compile())
    assert ex.status is Status.FAILED
    assert ex.failure is not None
    assert "task 'call'" in ex.failure.message and "bad request" in ex.failure.message
    assert host.performed == {"g-1/call:1/e0": 1}


def test_fail_with_retryable_retries_the_task() -> None:
    t = Task(
        "t",
        run=lambda ctx: Fail("not yet", retryable=True) if ctx.attempt == 1 else {"ok": True},
        retry=RetryPolicy(max_attempts=2, initial_interval=0),
    )
    ex = Host().run_graph(task_graph("g", [t], channels={"ok": LastValue()}).compile())
    assert ex.values == {"ok": True}


def test_a_dependency_that_is_not_a_task_is_named() -> None:
    with pytest.raises(GraphValidationError, match="'b' runs after \\['nope'\\]"):
        task_graph("g", [Task("b", run=lambda ctx: None, after=("nope",))])


def test_after_given_as_a_string_is_refused_with_the_fix() -> None:
    with pytest.raises(TypeError, match=r"after=\('a',\)"):
        Task("b", run=lambda ctx: None, after="a")  # type: ignore[arg-type]


def test_a_hook_returning_something_else_fails_the_task_naming_it() -> None:
    t = Task("t", run=lambda ctx: [1, 2])  # type: ignore[arg-type,return-value]
    ex = Host().run_graph(task_graph("g", [t]).compile())
    assert ex.failure is not None and "task 't' returned [1, 2]" in ex.failure.message


def test_the_task_layer_is_ordinary_nodes_and_edges() -> None:
    a = Task("a", run=lambda ctx: None)
    b = Task("b", run=lambda ctx: None, after=("a",))
    g = task_graph("g", [a, b]).compile()
    assert g.starts == ("a",) and g.ends == ("b",)
    assert g.successors == {"a": ("b",)}


def test_the_task_layer_imports_only_public_graph_core_modules() -> None:
    import ast
    from pathlib import Path

    allowed = {"superstep_core.node", "superstep_core.graph", "superstep_core.channel"}
    allowed |= {"superstep_core.errors", "superstep_core.task.model", "superstep_core.task.build"}
    package = Path(task_pkg.__file__).parent
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("superstep"):
                assert node.module in allowed, (path.name, node.module)
                assert all(not alias.name.startswith("_") for alias in node.names), path.name
