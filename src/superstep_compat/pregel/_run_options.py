"""What a run of a compiled façade graph takes from its config and from the task it runs in:
the configurable keys of its clock, random source and effect ledger, its durability, its
concurrency and recursion limits (`RunOptions`, `run_options`), and the context, store and
control a graph run inside a task inherits (`Inherited`, `inherited`).

Never imports the run or the host.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from superstep_compat._internal._config import DefaultRecursionLimit
from superstep_compat._internal._constants import CONFIG_KEY_RUNTIME
from superstep_compat.pregel._run_scope import coerce_context
from superstep_compat.runtime import RunControl
from superstep_core.host import Clock, EffectLedger, RandomSource, WallClock

if TYPE_CHECKING:
    from superstep_compat.pregel._compile import Pregel

__all__ = [
    "CLOCK_KEY",
    "DEFAULT_RECURSION_LIMIT",
    "DURABILITY_KEY",
    "LEDGER_KEY",
    "RANDOM_KEY",
    "Inherited",
    "RunOptions",
    "inherited",
    "run_options",
]

CLOCK_KEY = "__superstep_clock"
"""Configurable key of the run's clock (a `superstep_core.host.Clock` reading seconds since the
epoch; `WallClock` by default): retry backoff, timeouts and timestamps all read it, so a test
gives a `VirtualClock` and never waits. Subgraphs inherit it with the config."""
RANDOM_KEY = "__superstep_random"
"""Configurable key of the run's random source (retry jitter; a `random.Random`, seeded in
tests). Runs not given one draw from the `random` module, as LangGraph's jitter does."""
LEDGER_KEY = "__superstep_ledger"
"""Configurable key of an `EffectLedger` for the run's host: every task performed as an
effect is recorded in it, and a task whose effect id it already holds is not run again (its
recorded outcome stands in). Effect ids derive from the thread and the activation, so a run
repeated on the same input replays from the ledger."""
DEFAULT_RECURSION_LIMIT = DefaultRecursionLimit(
    int(os.environ.get("LANGGRAPH_DEFAULT_RECURSION_LIMIT", "10007"))
)
DURABILITY_KEY = "__pregel_durability"


@dataclass(frozen=True, slots=True)
class Inherited:
    """The ``context``, ``store`` and ``control`` of a run (see `inherited`)."""

    context: Any
    store: Any
    control: RunControl


def inherited(
    graph: Pregel[Any, Any, Any, Any],
    configurable: Mapping[str, Any],
    context: Any,
    control: RunControl | None,
) -> Inherited:
    """What the run of ``graph`` is given (``context``, ``control``), else takes from the
    task it runs in (the runtime in its ``configurable``): as LangGraph's Runtime.merge, a
    graph run inside a task (a tool calling an agent) takes the task's context and store
    unless it is given its own; a run given no control shares its parent task's (a subgraph
    drains with its parent), else has one of its own, as LangGraph (nodes always see one).
    Raises what coercing ``context`` to the graph's context schema raises."""
    parent = configurable.get(CONFIG_KEY_RUNTIME)
    own = coerce_context(graph.spec.context_schema, context)
    held = getattr(parent, "control", None)
    return Inherited(
        own or (parent.context if parent is not None else None),
        graph.store or (parent.store if parent is not None else None),
        control or (held if isinstance(held, RunControl) else RunControl()),
    )


@dataclass(frozen=True, slots=True)
class RunOptions:
    """A run's options (see `run_options`)."""

    durability: str | None
    """As chosen (the call's, else the config's): how `CheckpointWriter.write_behind`
    writes; None: not chosen."""
    durable: bool
    """Whether it saves as it goes (any durability but ``"exit"``)."""
    clock: Clock
    rng: RandomSource
    ledger: EffectLedger | None
    max_concurrency: int | None
    """LangGraph's bound on the tasks of a superstep run at once (None: the host's)."""
    limit: int
    """The recursion limit: the steps a run may take."""


def run_options(config: dict[str, Any], durability: str | None) -> RunOptions:
    """The options a run takes from ``config`` (the run's own copy; ``durability``: the
    call's, which comes first). A chosen durability is written into ``config``'s
    configurable, as LangGraph's subgraphs inherit it through the config. Raises
    ValueError for a recursion limit below 1."""
    configurable = config.get("configurable") or {}
    chosen = durability or configurable.get(DURABILITY_KEY)
    if chosen is not None:
        config["configurable"] = {**config["configurable"], DURABILITY_KEY: chosen}
    limit = config.get("recursion_limit", DEFAULT_RECURSION_LIMIT)
    if limit < 1:
        raise ValueError("recursion_limit must be at least 1")
    return RunOptions(
        chosen,
        chosen != "exit",
        configurable.get(CLOCK_KEY) or WallClock(),
        configurable.get(RANDOM_KEY) or random,
        configurable.get(LEDGER_KEY),
        config.get("max_concurrency") or None,
        limit,
    )
