"""The same builder programs under real langgraph and the façade give the same drawing and
validation errors. Skipped when no real langgraph is found (see langgraph_venv.py)."""

import json
import subprocess
from pathlib import Path

import pytest

from compat.langgraph_venv import MISSING_REASON, langgraph_python

_FOUND = langgraph_python()
LANGGRAPH_PY = _FOUND if _FOUND is not None else Path("python-with-langgraph")
SRC = Path(__file__).resolve().parents[2] / "src"

pytestmark = pytest.mark.skipif(_FOUND is None, reason=MISSING_REASON)

PROGRAM = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
from typing import Literal, TypedDict
if sys.argv[1] == "superstep":
    from superstep_compat.shim import install
    install()
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

class S(TypedDict):
    x: int

def noop(s): return {}
def route(s) -> Literal["b", "__end__"]: return "b"
def cmd(s) -> Command[Literal["b"]]: return Command(goto="b")

def G(*names, **opts):
    b = StateGraph(S)
    for n in names: b.add_node(n, opts.get(n, noop))
    return b

def shapes():
    b = G("a", "b"); b.add_edge(START, "a")
    yield "literal", b.add_conditional_edges("a", route)
    b = G("a", "b"); b.add_edge(START, "a")
    yield "labels", b.add_conditional_edges("a", noop, {"go": "b", "stop": END})
    b = G("a", "b", "c"); b.add_edge(START, "a"); b.add_edge(START, "b")
    yield "join", b.add_edge(["a", "b"], "c")
    yield "command", G("a", "b", a=cmd).add_edge(START, "a")
    b = G("c", "b", "a"); b.add_edge(START, "c"); b.add_edge("c", "b")
    yield "order", b.add_edge("c", "a")

def draw(b):
    if sys.argv[1] == "superstep":
        from superstep_compat.graph._draw import draw_graph
        b.validate()
        return draw_graph(b.nodes, b.edges, b.waiting_edges, b.branches)
    return b.compile().get_graph()

def errors():
    cases = {
        "dup": lambda: G("a", "a"),
        "no_entry": lambda: G("a").validate(),
        "unknown_target": lambda: G("a").add_edge(START, "a").add_edge("a", "zz").validate(),
        "unknown_source": lambda: G("a").add_edge(START, "a").add_edge("zz", "a").validate(),
        "colon": lambda: G("a:b"),
    }
    out = {}
    for name, fn in cases.items():
        try:
            fn(); out[name] = "ok"
        except Exception as e:
            out[name] = f"{type(e).__name__}: {e}"
    return out

print(json.dumps({"draw": {k: draw(b).draw_mermaid() for k, b in shapes()}, "errors": errors()}))
"""


def run(python: str, impl: str) -> dict[str, object]:
    env = {"PYTHONPATH": str(SRC), "PATH": ""}
    out = subprocess.run(
        [python, "-c", PROGRAM, impl], capture_output=True, text=True, env=env, check=True
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


@pytest.fixture(scope="module")
def results() -> tuple[dict[str, object], dict[str, object]]:
    import sys

    return run(str(LANGGRAPH_PY), "langgraph"), run(sys.executable, "superstep")


def test_drawings_match_langgraph(results: tuple[dict[str, object], dict[str, object]]) -> None:
    assert results[1]["draw"] == results[0]["draw"]


def test_validation_errors_match_langgraph(
    results: tuple[dict[str, object], dict[str, object]],
) -> None:
    assert results[1]["errors"] == results[0]["errors"]
