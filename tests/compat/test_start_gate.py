"""`StartGate`: a live step's finished tasks stream only once every sibling announced its
start, then in the order they ended."""

from __future__ import annotations

from superstep_compat.pregel._start_gate import StartGate


def test_results_wait_for_every_start_then_keep_their_end_order() -> None:
    out: list[str] = []
    gate = StartGate()
    gate.expect(["a", "b", "c"])
    gate.started("a")
    gate.ended("a", lambda: out.append("a"))
    gate.started("b")
    assert out == []  # c has not announced its start
    gate.started("c")
    assert out == ["a"]
    gate.ended("c", lambda: out.append("c"))
    gate.ended("b", lambda: out.append("b"))
    assert out == ["a", "c", "b"]


def test_a_task_ending_without_announcing_counts_as_started() -> None:
    out: list[str] = []
    gate = StartGate()
    gate.expect(["a", "b"])
    gate.ended("a", lambda: out.append("a"))
    gate.ended("b", lambda: out.append("b"))  # a cached task, say: never announced
    assert out == ["a", "b"]


def test_a_new_step_drops_what_the_last_one_held() -> None:
    out: list[str] = []
    gate = StartGate()
    gate.expect(["a", "b"])
    gate.ended("a", lambda: out.append("a"))  # b was never started (its step failed)
    gate.expect(["c"])
    gate.ended("c", lambda: out.append("c"))
    assert out == ["c"]


def test_without_expected_tasks_results_stream_at_once() -> None:
    out: list[str] = []
    gate = StartGate()
    gate.ended("a", lambda: out.append("a"))
    assert out == ["a"]


def test_starts_go_out_in_the_steps_task_order() -> None:
    out: list[str] = []
    gate = StartGate()
    gate.expect(["a", "b", "c"])
    gate.started("b", lambda: out.append("start b"))  # b's thread got there first
    gate.ended("b", lambda: out.append("end b"))
    assert out == []
    gate.started("a", lambda: out.append("start a"))
    assert out == ["start a", "start b"]
    gate.ended("c", lambda: out.append("end c"))  # c never announced (a cache hit, say)
    assert out == ["start a", "start b", "end b", "end c"]
    gate.started("x", lambda: out.append("start x"))  # not one of the step's: at once
    assert out[-1] == "start x"
