"""`HostCore.run`/`iterate` take their options (`RunOptions`) once for both hosts."""

from __future__ import annotations

import asyncio

import pytest

from superstep_core.graph import Graph
from superstep_core.host import AsyncHost, Host
from superstep_core.node import Reaction


def _graph() -> object:
    g = Graph("one")
    g.add_node("a", lambda ctx, event: Reaction())
    g.route("go", None, "a")
    return g.compile()


def test_an_unknown_run_option_is_refused_by_name() -> None:
    host = Host()
    ex = host.start(_graph())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="untill"):
        host.run(ex, untill=1.0)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="untill"):
        asyncio.run(AsyncHost().run(ex, untill=1.0))  # type: ignore[call-arg]
