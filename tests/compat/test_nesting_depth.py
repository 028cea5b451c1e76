"""Subgraphs nested inside nodes reach LangGraph's depth.

LangGraph 1.2 runs a chain of 160 compiled graphs, each the only node of the next, under
Python's default recursion limit of 1000 (and raises `RecursionError` at 170): its
invoke/stream/tick/retry/sequence chain costs six units of the recursion budget per level.
Superstep cost thirteen (invoke, its callback wrapper, two wrapper generators, the host, the
interpreter's reducer helper, the node's dispatcher...) and stopped near 75.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, TypedDict

from superstep_compat.graph import END, START, StateGraph

SRC = Path(__file__).resolve().parents[2] / "src"


class State(TypedDict):
    x: int


def _nested(depth: int, leaf: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("n", leaf)
    builder.add_edge(START, "n")
    builder.add_edge("n", END)
    graph = builder.compile()
    for _ in range(depth - 1):
        builder = StateGraph(State)
        builder.add_node("n", graph)
        builder.add_edge(START, "n")
        builder.add_edge("n", END)
        graph = builder.compile()
    return graph


def _room(n: int = 0) -> int:
    """How many more Python calls fit under the recursion limit from here."""
    try:
        return _room(n + 1)
    except RecursionError:
        return n


def _room_at_leaf(depth: int) -> int:
    seen: list[int] = []

    def leaf(state: State) -> dict[str, int]:
        seen.append(_room())
        return {"x": state["x"] + 1}

    assert _nested(depth, leaf).invoke({"x": 0}) == {"x": 1}
    return seen[0]


def test_a_nesting_level_costs_no_more_of_the_recursion_budget_than_langgraphs() -> None:
    per_level = (_room_at_leaf(11) - _room_at_leaf(21)) / 10  # past the first levels
    assert per_level <= 6, per_level  # LangGraph 1.2.24: 6.0


SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {src!r})
    from typing import TypedDict
    from superstep_compat.graph import END, START, StateGraph

    class State(TypedDict):
        x: int

    def build(depth):
        builder = StateGraph(State)
        builder.add_node("n", lambda s: {{"x": s["x"] + 1}})
        builder.add_edge(START, "n")
        builder.add_edge("n", END)
        graph = builder.compile()
        for _ in range(depth - 1):
            builder = StateGraph(State)
            builder.add_node("n", graph)
            builder.add_edge(START, "n")
            builder.add_edge("n", END)
            graph = builder.compile()
        return graph

    print(build(160).invoke({{"x": 0}}))
    try:
        build(400).invoke({{"x": 0}})
    except RecursionError:
        print("RecursionError")
    """
)


def test_a_script_runs_160_nested_subgraphs_and_a_deeper_chain_raises_recursion_error(
    tmp_path: Path,
) -> None:
    script = tmp_path / "nested.py"
    script.write_text(SCRIPT.format(src=str(SRC)))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["{'x': 1}", "RecursionError"]
