"""Document runs on the engine: parallel branches and joins, conditions, loops with
iterations, reducers, events, statuses (ok, error, waiting, expired, paused, cancelled,
timeout), step mode, and runs that continue on the version they started on."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from superstep_core.checkpoint import InMemorySaver
from superstep_core.document import (
    EVENT_TYPES,
    DocumentRunner,
    InputError,
    MemoryVersionStore,
    RunEvent,
    document_json,
    load_document,
)
from superstep_core.host import RetryableEffectError
from superstep_core.host.durable import DurableRunner

from .conftest import EXAMPLES, Clocks, document, edge, llm, load


def _tool(node_id: str, function: str, output: str, **args: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"function": function, "output_field": output}
    if args:
        data["args"] = args
    return {"id": node_id, "type": "tool", "data": data}


def _runner(clocks: Clocks, events: list[RunEvent] | None = None, **kw: Any) -> DocumentRunner:
    return DocumentRunner(
        kw.pop("store", None) or InMemorySaver(),
        kw.pop("versions", None) or MemoryVersionStore(),
        clock=clocks.clock,
        wall_clock=clocks.wall,
        on_event=None if events is None else events.append,
        **kw,
    )


def test_the_support_triage_example_runs_offline(clocks: Clocks, events: list[RunEvent]) -> None:
    doc = load_document(EXAMPLES / "support_triage.json")
    result = _runner(clocks, events).start(doc, {"message": "I was charged twice"})
    assert result.status == "ok"
    assert result.values["triage"] == {"category": "billing", "urgent": True}
    assert len(result.values["answers"]) == 1
    started = [e.node_id for e in events if e.type == "node_started"]
    assert started == ["classify", "summarise", "route", "billing_reply"]  # route once: a join


def test_events_come_in_order_with_run_id_node_iteration_and_host_timestamps(
    clocks: Clocks, events: list[RunEvent]
) -> None:
    raw = document([llm("a", "hi {{state.text}}", "out")], [edge("start", "a"), edge("a", "end")])
    _runner(clocks, events).start(load(raw), {"text": "you"}, run_id="r")
    kinds = [e.type for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert kinds[1] == "node_started" and kinds[-2] == "node_finished"
    assert set(kinds) <= set(EVENT_TYPES) and "node_token" in kinds
    assert "".join(e.payload["text"] for e in events if e.type == "node_token") == (
        "mock reply to: hi you"
    )
    assert {e.run_id for e in events} == {"r"}
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[1].node_id == "a" and events[1].iteration == 1
    assert events[0].timestamp == clocks.wall().isoformat()


def test_a_loop_through_a_condition_counts_iterations(
    clocks: Clocks, events: list[RunEvent]
) -> None:
    raw = document(
        [
            _tool("inc", "one", "count"),
            {
                "id": "more",
                "type": "condition",
                "data": {
                    "rules": [{"label": "again", "when": "state.count < 3"}],
                    "default": "done",
                },
            },
        ],
        [
            edge("start", "inc"),
            edge("inc", "more"),
            edge("more", "inc", "again"),
            edge("more", "end", "done"),
        ],
        [{"name": "count", "type": "integer", "reducer": "add"}],
    )
    result = _runner(clocks, events, tools={"one": lambda: 1}).start(load(raw))
    assert result.status == "ok" and result.values["count"] == 3
    passes = [e.iteration for e in events if e.type == "node_started" and e.node_id == "inc"]
    assert passes == [1, 2, 3]


def test_parallel_branches_merge_objects_and_the_join_runs_once(clocks: Clocks) -> None:
    raw = document(
        [
            _tool("a", "part", "profile", key="a"),
            _tool("b", "part", "profile", key="b"),
            _tool("j", "joined", "seen", profile="{{state.profile}}"),
        ],
        [edge("start", "a"), edge("start", "b"), edge("a", "j"), edge("b", "j")],
        [
            {"name": "profile", "type": "object", "reducer": "merge"},
            {"name": "seen", "type": "list", "reducer": "append"},
        ],
    )
    tools = {"part": lambda key: {key: True}, "joined": lambda profile: sorted(profile)}
    result = _runner(clocks, tools=tools).start(load(raw))
    assert result.values == {"profile": {"a": True, "b": True}, "seen": [["a", "b"]]}


def test_input_that_is_not_a_state_field_or_of_the_wrong_type_is_refused(clocks: Clocks) -> None:
    raw = document([llm("a", "x", "out")], [edge("start", "a")])
    store = InMemorySaver()
    with pytest.raises(InputError) as caught:
        _runner(clocks, store=store).start(load(raw), {"txt": "a", "out": 3})
    assert [str(p) for p in caught.value.problems] == [
        "input key 'txt': is not a state field of the document (text, out)",
        "input key 'out': must be of type 'string', got integer",
    ]
    assert list(store.list(None)) == []  # nothing stored for a refused run


def _approval() -> Any:
    return load_document(EXAMPLES / "approval.json")


def test_a_human_node_waits_then_takes_a_checked_answer(clocks: Clocks) -> None:
    runner = _runner(clocks)
    waiting = runner.start(_approval(), {"request": "laptop", "amount": 1500.0}, run_id="x")
    assert waiting.status == "waiting"
    (ask,) = waiting.waiting
    assert (ask.node, ask.prompt) == ("approve", "Approve 'laptop' for 1500.0?")
    with pytest.raises(InputError, match="key 'approved': must be of type 'boolean'"):
        runner.resume("x", answer={"approved": "yes"})
    done = runner.resume("x", answer={"approved": False, "note": "too much"})
    assert done.status == "ok"
    assert done.values["decision"] == {"approved": False, "note": "too much"}
    assert done.values["outcome"].startswith("mock reply to: Decline")


def test_a_waiting_run_expires_when_its_timeout_passes_even_across_a_restart(
    clocks: Clocks,
) -> None:
    store, versions = InMemorySaver(), MemoryVersionStore()
    _runner(clocks, store=store, versions=versions).start(
        _approval(), {"request": "car", "amount": 9000.0}, run_id="x"
    )
    clocks.clock.advance(86_400 + 1)  # a day later, another process answers
    later = _runner(clocks, store=store, versions=versions)
    result = later.resume("x", answer={"approved": True})
    assert result.status == "expired"
    assert result.error is not None and result.error.node == "approve"
    assert result.values["request"] == "car"  # the state is kept


def test_a_failed_node_keeps_the_last_checkpoint_and_a_retry_calls_it_again(
    clocks: Clocks,
) -> None:
    broken = {"on": True}

    def flaky() -> str:
        if broken["on"]:
            raise ValueError("service said no")
        return "fine"

    raw = document(
        [llm("a", "x", "text"), _tool("b", "flaky", "out")],
        [edge("start", "a"), edge("a", "b"), edge("b", "end")],
    )
    runner = _runner(clocks, tools={"flaky": flaky})
    failed = runner.start(load(raw), run_id="f")
    assert failed.status == "error"
    assert failed.error is not None and failed.error.node == "b"
    assert "service said no" in failed.error.message
    assert failed.values["text"] == "mock reply to: x"  # a's work survived
    again = runner.resume("f")
    assert (again.status, again.values, again.error) == ("error", failed.values, failed.error)
    broken["on"] = False  # the cause is fixed
    retried = runner.resume("f", retry=True, actor="ops")
    assert (retried.status, retried.values["out"]) == ("ok", "fine")
    (edit,) = [h for h in DurableRunner(runner.saver).history("f") if h.source == "edit"]
    assert edit.actor == "ops"


def test_only_a_failed_call_can_be_retried(clocks: Clocks) -> None:
    raw = document([llm("a", "x", "out")], [edge("start", "a")])
    runner = _runner(clocks)
    runner.start(load(raw), run_id="ok")
    with pytest.raises(InputError, match="is completed: only a failed run can be retried"):
        runner.resume("ok", retry=True)


def test_a_retryable_tool_failure_is_retried_after_the_backoff(
    clocks: Clocks, events: list[RunEvent]
) -> None:
    calls: list[int] = []

    def once_busy() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise RetryableEffectError("busy")
        return "ok"

    raw = document([_tool("t", "busy", "out")], [edge("start", "t")])
    result = _runner(clocks, events, tools={"busy": once_busy}).start(load(raw))
    assert result.status == "ok" and len(calls) == 2
    assert clocks.clock.slept == [0.5]
    retrying = [e for e in events if e.type == "error"]
    assert [(e.node_id, e.payload["retrying"]) for e in retrying] == [("t", True)]


def test_step_mode_runs_one_superstep_per_call(clocks: Clocks, events: list[RunEvent]) -> None:
    doc = load_document(EXAMPLES / "support_triage.json")
    runner = _runner(clocks, events)
    result = runner.start(doc, {"message": "hi"}, run_id="s", step=True)
    steps = [result.step]
    while result.status == "paused":
        result = runner.resume("s", step=True)
        steps.append(result.step)
    assert result.status == "ok"
    assert steps == list(range(1, len(steps) + 1))
    assert sum(e.type == "run_paused" for e in events) == len(steps) - 1


def test_a_cancelled_run_stops_between_supersteps_and_resumes(clocks: Clocks) -> None:
    cancel = threading.Event()

    def first() -> str:
        cancel.set()
        return "one"

    raw = document(
        [_tool("a", "first", "text"), llm("b", "{{state.text}}", "out")],
        [edge("start", "a"), edge("a", "b")],
    )
    runner = _runner(clocks, tools={"first": first})
    stopped = runner.start(load(raw), run_id="c", cancel=cancel)
    assert stopped.status == "cancelled" and "out" not in stopped.values
    assert runner.resume("c").values["out"] == "mock reply to: one"


def test_a_run_past_its_deadline_stops_with_timeout(clocks: Clocks) -> None:
    def slow() -> str:
        clocks.clock.advance(10)
        return "late"

    raw = document(
        [_tool("a", "slow", "text"), llm("b", "{{state.text}}", "out")],
        [edge("start", "a"), edge("a", "b")],
    )
    runner = _runner(clocks, tools={"slow": slow})
    assert runner.start(load(raw), run_id="d", deadline=5).status == "timeout"
    assert runner.resume("d").status == "ok"


def test_a_waiting_run_continues_on_its_version_after_a_newer_one_is_saved(clocks: Clocks) -> None:
    store, versions = InMemorySaver(), MemoryVersionStore()
    runner = _runner(clocks, store=store, versions=versions)
    doc = _approval()
    runner.start(doc, {"request": "desk", "amount": 500.0}, run_id="v")
    raw = json.loads(document_json(doc))
    raw["nodes"][3]["data"]["prompt"] = "NEW VERSION {{state.request}}"
    newer, created = versions.save(load(raw))
    assert created and newer.seq == 2
    result = runner.resume("v", answer={"approved": True, "note": "fine"})
    assert result.version.seq == 1
    assert not result.values["outcome"].startswith("mock reply to: NEW VERSION")
