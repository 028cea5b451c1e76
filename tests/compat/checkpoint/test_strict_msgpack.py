"""``LANGGRAPH_STRICT_MSGPACK=true``: a compiled graph gives its checkpointer the classes of
its schemas (LangGraph 1.2's compile-time allowlist), and Superstep's own records never reach
the saver's serializer, so a paused thread continues with the same values as on LangGraph.

Strict mode is read when ``langgraph.checkpoint`` is imported, so the program runs in driver
subprocesses (real LangGraph and the façade side by side) started with the variable set.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Annotated, TypedDict

import pytest
from pydantic import BaseModel

from compat.langgraph_venv import MISSING_REASON, langgraph_python, run_both
from superstep_compat._internal._serde import collect_allowlist_from_schemas

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "strict_msgpack.py"


@pytest.fixture(scope="module")
def strict_results() -> dict[str, object]:
    python = langgraph_python()
    if python is None:
        pytest.skip(MISSING_REASON)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LANGGRAPH_STRICT_MSGPACK", "true")
        both = run_both([PROGRAM], python)
    return {impl: found[PROGRAM.stem] for impl, found in both.items()}


def test_schema_classes_come_back_as_themselves(strict_results: dict[str, object]) -> None:
    facade = strict_results["superstep"]
    assert isinstance(facade, dict), facade
    graph = facade["graph"]
    assert graph["item"] == ["Item", "Item(name='x')"]
    assert graph["models"] == ["list", "[Model(n=1)]"]
    assert graph["color"] == ["Color", "<Color.RED: 'red'>"]
    assert graph["value"] == ["list", "['a', 'human:r']"]
    assert facade["entrypoint"] == "Item(name='zz!')"
    # a class no schema names is still refused: strict mode keeps its meaning
    assert graph["loose"] == ["dict", "{'v': 3}"]


def test_strict_thread_matches_langgraph(strict_results: dict[str, object]) -> None:
    assert strict_results["superstep"] == strict_results["langgraph"]


class Shade(Enum):
    DARK = 1


class Inner(BaseModel):
    shade: Shade


@dataclass
class Outer:
    inner: list[Inner]
    maybe: Outer | None = None  # refers to itself: visited once


class Payload(TypedDict):
    outer: Annotated[Outer | None, "meta"]


def test_allowlist_walks_fields_unions_and_containers() -> None:
    # module level: the annotations are strings resolved in this module's namespace
    found = collect_allowlist_from_schemas(schemas=[Payload, int, None])
    here = __name__
    assert found == {(here, "Outer"), (here, "Inner"), (here, "Shade")}
