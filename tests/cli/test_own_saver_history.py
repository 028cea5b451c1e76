"""`superstep history --target` reads a LangGraph-style graph's threads from the saver the
graph was compiled with, and `history` without it names the two ways to find them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

GRAPH = """
import sqlite3
from typing import TypedDict

from superstep_compat.checkpoint.sqlite import SqliteSaver
from superstep_compat.graph import START, StateGraph
from superstep_compat.types import interrupt


class S(TypedDict):
    x: int


def ask(s):
    return {"x": interrupt("ok?")}


g = StateGraph(S)
g.add_node(ask)
g.add_edge(START, "ask")
graph = g.compile(checkpointer=SqliteSaver(sqlite3.connect("own.sqlite", check_same_thread=False)))


def default_input():
    return {"x": 0}
"""


def _cli(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "superstep_core.cli", *args],
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_history_of_a_thread_in_the_graphs_own_saver(tmp_path: Path) -> None:
    (tmp_path / "own_graph.py").write_text(GRAPH)
    assert _cli(tmp_path, "run", "own_graph.py:graph", "--thread", "U").returncode == 0
    found = _cli(tmp_path, "history", "--thread", "U", "--target", "own_graph.py:graph")
    assert found.returncode == 0, found.stderr
    assert "next ask" in found.stdout + found.stderr
    missing = _cli(tmp_path, "history", "--thread", "U")
    assert missing.returncode == 2
    assert "--target" in missing.stderr and "--db" in missing.stderr
