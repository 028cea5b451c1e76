"""Fixtures of the document tests: a document builder, the local order service, a virtual
clock shared by host and timestamps, and the PostgreSQL URL (skipped with the reason shown
when ``SUPERSTEP_POSTGRES_URL`` is unset)."""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from superstep_core.document import Document, RunEvent, load_document
from superstep_core.testing import VirtualClock

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "workflows"
sys.path.insert(0, str(EXAMPLES))

from order_service import OrderService  # noqa: E402


def llm(node_id: str, prompt: str, output: str, **data: Any) -> dict[str, Any]:
    """An llm node on the offline mock provider."""
    return {
        "id": node_id,
        "type": "llm",
        "data": {"model": "mock:m", "prompt": prompt, "output_field": output, **data},
    }


def edge(source: str, target: str, label: str | None = None) -> dict[str, Any]:
    out = {"id": f"{source}-{target}-{label or ''}", "source": source, "target": target}
    if label is not None:
        out["label"] = label
    return out


def document(
    nodes: list[dict[str, Any]],
    edges: list[dict[str, Any]],
    state: list[dict[str, Any]] | None = None,
    name: str = "test",
) -> dict[str, Any]:
    """A document as JSON (default state: ``text`` and ``out`` strings)."""
    return {
        "name": name,
        "state": copy.deepcopy(
            state
            if state is not None
            else [{"name": "text", "type": "string"}, {"name": "out", "type": "string"}]
        ),
        "nodes": copy.deepcopy(nodes),
        "edges": copy.deepcopy(edges),
    }


def load(raw: dict[str, Any]) -> Document:
    return load_document(raw)


class Clocks:
    """One virtual time for the host's timers and the events' timestamps."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.clock = VirtualClock(start)

    def wall(self) -> datetime:
        return datetime.fromtimestamp(self.clock.now(), UTC)


@pytest.fixture
def clocks() -> Clocks:
    return Clocks()


@pytest.fixture
def events() -> list[RunEvent]:
    return []


@pytest.fixture
def orders() -> Iterator[OrderService]:
    service = OrderService().start()
    yield service
    service.stop()


@pytest.fixture
def postgres_url() -> str:
    url = os.environ.get("SUPERSTEP_POSTGRES_URL")
    if not url:
        pytest.skip("SUPERSTEP_POSTGRES_URL is not set (e.g. postgresql://postgres@127.0.0.1/test)")
    return url
