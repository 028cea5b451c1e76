"""The graph programs of ``scenarios.py`` on two community savers (issue 13: any
``BaseCheckpointSaver`` works as ``checkpointer=``), under real LangGraph 1.2 and under
Superstep: a thread paused at one interrupt, at parallel interrupts, part-way through a
`Send` fan-out, failed in a parallel step, paused inside a subgraph, each continued and then
forked from its first loop checkpoint (time travel). Superstep doing both halves, or either
half with LangGraph doing the other, returns, shows (state, history) and forks what LangGraph
shows when it does both halves on the same saver.

The savers: ``langgraph-checkpoint-plainredis`` (plain Redis; skipped without
``SUPERSTEP_REDIS_URL``) and ``langgraph-checkpoint-objectstorage`` (a local directory)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from checkpoint.community import COMMUNITY, redis_prefix

from .test_threads_move import LANGGRAPH, _move

SCENARIOS = [
    "one_interrupt",
    "parallel_interrupts",
    "send_paused",
    "failed_parallel",
    "subgraph_interrupt",
]
"""The graph-API scenarios that pause or fail; the functional-API ones do not move yet on any
saver (the gaps of ``test_threads_move.py``)."""
_REFERENCE: dict[tuple[str, str], dict[str, Any]] = {}
"""LangGraph doing both halves, run once per (saver, scenario) for the three moves compared
with it (a file's tests share one worker)."""

pytestmark = pytest.mark.skipif(LANGGRAPH is None, reason="real langgraph not found")


@pytest.fixture(params=COMMUNITY)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """``(backend, make_target)``: an empty store for each thread moved."""
    if request.param == "objectstorage":
        yield "objectstorage", lambda tag: str(tmp_path / f"{tag}-objects")
        return
    with ExitStack() as stack:

        def make(tag: str) -> str:
            url, prefix = stack.enter_context(redis_prefix())
            return f"{url}#{prefix}"

        yield "plainredis", make


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize(
    ("writer", "continuer"),
    [("superstep", "superstep"), ("langgraph", "superstep"), ("superstep", "langgraph")],
)
def test_a_thread_on_a_community_saver_ends_as_langgraph_ends_it(
    scenario: str, writer: str, continuer: str, backend: Any, tmp_path: Path
) -> None:
    kind, make = backend
    if (kind, scenario) not in _REFERENCE:
        reference = _move("langgraph", "langgraph", scenario, kind, make("reference"), tmp_path)
        _REFERENCE[kind, scenario] = reference
    expected = _REFERENCE[kind, scenario]
    got = _move(writer, continuer, scenario, kind, make("moved"), tmp_path)
    assert got["start"]["result"] == expected["start"]["result"]
    assert got["proceed"] == expected["proceed"]
