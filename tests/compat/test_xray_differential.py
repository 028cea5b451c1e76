"""``get_graph(xray=...)`` and ``get_subgraphs`` under real langgraph and the façade: a
subgraph node, a subgraph two levels down, and a subgraph a function node calls; each drawn
in place of its node (``node:child``) to the depth asked, the same JSON (ids, metadata,
edges) and Mermaid. Skipped when no real langgraph is found (see langgraph_venv.py)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from compat.langgraph_venv import MISSING_REASON, langgraph_python

_FOUND = langgraph_python()
SRC = Path(__file__).resolve().parents[2] / "src"

pytestmark = pytest.mark.skipif(_FOUND is None, reason=MISSING_REASON)

PROGRAM = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
from typing import TypedDict
if sys.argv[1] == "superstep":
    from superstep_compat.shim import install
    install()
from langgraph.graph import START, StateGraph

class S(TypedDict, total=False):
    x: int

def inc(s): return {"x": s.get("x", 0) + 1}

def inner():
    b = StateGraph(S)
    b.add_node("deep_a", inc); b.add_node("deep_b", inc)
    b.add_edge(START, "deep_a"); b.add_edge("deep_a", "deep_b")
    return b.compile()

def middle():
    b = StateGraph(S)
    b.add_node("m1", inc); b.add_node("inner", inner()); b.add_node("m2", inc)
    b.add_edge(START, "m1")
    b.add_conditional_edges("m1", lambda s: "inner" if s["x"] else "m2", ["inner", "m2"])
    b.add_edge("inner", "m2")
    return b.compile()

called = inner()

def calls_subgraph(s):
    return called.invoke(s)

b = StateGraph(S)
b.add_node("first", inc); b.add_node("mid", middle())
b.add_node("fn", calls_subgraph); b.add_node("last", inc)
b.add_edge(START, "first"); b.add_edge("first", "mid"); b.add_edge("mid", "fn")
b.add_edge("fn", "last")
g = b.compile(interrupt_before=["mid"])

def shape(drawing):
    j = drawing.to_json()
    nodes = [(n["id"], n.get("metadata")) for n in j["nodes"]]
    return {"nodes": nodes, "edges": j["edges"], "mermaid": drawing.draw_mermaid()}

out = {repr(x): shape(g.get_graph(xray=x)) for x in (False, True, 0, 1, 2)}
out["subgraphs"] = {
    repr(args): [name for name, _ in g.get_subgraphs(**args)]
    for args in (
        {}, {"recurse": True}, {"namespace": "mid"}, {"namespace": "fn"},
        {"namespace": "mid|inner"}, {"namespace": "mid|inner", "recurse": True},
        {"namespace": "nope"},
    )
}
print(json.dumps(out))
"""


def run(python: str, impl: str) -> dict[str, object]:
    env = {"PYTHONPATH": str(SRC), "PATH": ""}
    out = subprocess.run(
        [python, "-c", PROGRAM, impl], capture_output=True, text=True, env=env, check=True
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


def test_xray_drawings_and_subgraph_lists_match_langgraph() -> None:
    real = run(str(_FOUND), "langgraph")
    ours = run(sys.executable, "superstep")
    assert real["True"] != real["False"]  # the program does draw subgraphs
    for key in real:
        assert ours[key] == real[key], key
