"""The engine package never names the LangGraph façade, the agent server (superstep_server) or
LangGraph as a module to import: no
import statement, no ``importlib.import_module``/``__import__`` call and no string constant
outside docstrings that is such a module name (the CLI reaches the façade only through the
``superstep.plugins`` entry point). The one exception is LangGraph's checkpoint protocol,
``langgraph.checkpoint`` of the ``langgraph-checkpoint`` package, through which the engine
stores its threads."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import superstep_core

ROOT = Path(superstep_core.__file__).parent
FACADE = re.compile(r"^(superstep_compat|superstep_server|langgraph)(\.[A-Za-z_][A-Za-z0-9_]*)*$")
PROTOCOL = re.compile(r"^langgraph\.checkpoint(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def _facade(name: str) -> bool:
    return bool(FACADE.match(name)) and not PROTOCOL.match(name)


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _offences(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    docstrings = _docstrings(tree)
    where = f"{path.relative_to(root.parent)}"
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [f"{where}:{node.lineno} import {a.name}" for a in node.names if _facade(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.module and _facade(node.module):
            out.append(f"{where}:{node.lineno} from {node.module} import ...")
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and _facade(node.value.strip())
            and not node.value.endswith(".json")
        ):
            out.append(f"{where}:{node.lineno} names {node.value!r}")
    return out


def test_no_module_of_the_engine_names_the_facade_or_langgraph() -> None:
    offences = [o for path in sorted(ROOT.rglob("*.py")) for o in _offences(path)]
    assert offences == []


def test_the_check_catches_a_module_name_in_a_string(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""Names langgraph in a docstring: fine."""\nPACKAGES = ("langgraph",)\n'
        "from langgraph.graph import StateGraph\nfrom langgraph.checkpoint.base import X\n"
    )
    assert sorted(o.split(" ", 1)[1] for o in _offences(sample, tmp_path)) == [
        "from langgraph.graph import ...",
        "names 'langgraph'",
    ]
