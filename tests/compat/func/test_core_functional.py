"""`superstep_core.functional`: the engine's own decorator form of a function workflow."""

from typing import Any

import pytest

from superstep_core.errors import GraphValidationError
from superstep_core.functional import (
    Emit,
    FuncTask,
    TaskResult,
    build_function_graph,
    entrypoint,
    functask,
)
from superstep_core.graph import Graph
from superstep_core.host import Host
from superstep_core.testing import VirtualClock


@functask(emits=("doc.parsed",), writes=("text",))
def parse(path: str) -> TaskResult:
    return TaskResult(updates={"text": path.upper()}, emit=[Emit("doc.parsed", path)])


@functask(on=("doc.parsed",), writes=("summary",))
def summarise(path: str, state: Any) -> dict[str, str]:
    return {"summary": f"{path}: {state['text']}"}


def run(graph: Graph, payload: Any) -> Any:
    return Host(clock=VirtualClock()).run_graph(graph.compile(), payload=payload)


def test_a_decorated_function_stays_callable() -> None:
    assert isinstance(parse, FuncTask)
    assert parse("a.txt").updates == {"text": "A.TXT"}


def test_a_workflow_runs_start_task_then_the_task_listening_to_its_event() -> None:
    ex = run(build_function_graph(entrypoint("docs", [parse, summarise])), "a.txt")
    assert ex.values["summary"] == "a.txt: A.TXT"


def test_build_function_graph_returns_an_engine_graph_builder() -> None:
    graph = build_function_graph(entrypoint("docs", [parse, summarise]))
    assert isinstance(graph, Graph)
    assert set(graph.compile().nodes) == {"parse", "summarise"}


def test_routes_deliver_external_events_to_named_tasks() -> None:
    @functask(id="count", writes=("n",))
    def count(n: int) -> dict[str, int]:
        return {"n": n}

    plan = entrypoint("counter", [count], routes={"tick": "count"})
    assert plan.routes == {"tick": ("count",)}
    assert plan.start == ()


def test_duplicate_task_ids_are_rejected() -> None:
    with pytest.raises(GraphValidationError, match="task id 'parse' is used twice"):
        entrypoint("dup", [parse, parse])


def test_a_route_to_an_unknown_task_is_rejected() -> None:
    with pytest.raises(GraphValidationError, match="route 'go' -> 'nowhere' names an unknown"):
        entrypoint("bad", [parse, summarise], routes={"go": "nowhere"})


def test_an_emitted_event_nobody_listens_to_is_rejected() -> None:
    with pytest.raises(GraphValidationError, match=r"emits .doc\.parsed., but no task listens"):
        entrypoint("lonely", [parse])


def test_emitting_an_undeclared_event_fails_the_activation() -> None:
    @functask(id="rogue")
    def rogue(x: Any) -> Emit:
        return Emit("surprise")

    ex = run(build_function_graph(entrypoint("rogue", [rogue])), None)
    assert ex.failure is not None
    assert "emitted 'surprise', which it does not declare" in ex.failure.message


def test_a_non_mapping_result_fails_with_an_actionable_message() -> None:
    @functask(id="wrong")
    def wrong(x: Any) -> int:
        return 3

    ex = run(build_function_graph(entrypoint("wrong", [wrong])), None)
    assert ex.failure is not None
    assert "returned int; return a mapping of channel updates" in ex.failure.message
