"""Replay: rebuild an execution from its input log, calling nothing external.

An execution's inputs (its start, effect results, timer firings, external events, resumes,
edits, retries) and the points where a superstep ran are all in `Execution.input_log`; the
runtime is deterministic, so applying the same entries to a fresh execution rebuilds the same
states, trace and ids. Effects requested during a replay are not performed: their results are
already in the log. Nor is a superstep that failed run again: the log holds its failure (it
may have come from outside, and a retry that later succeeded shows it did).

Pure: must never import the host, superstep_core.checkpoint, the llm layer or compat.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from superstep_core.graph import CompiledGraph
from superstep_core.node import EffectCompleted
from superstep_core.runtime import Execution, ExecutionState, StepOutcome

__all__ = ["ReplayError", "StepHook", "apply_input", "replay"]

StepHook = Callable[[Execution, str, StepOutcome | None], None]
"""``hook(ex, kind, outcome)``: called once the execution exists (kind ``"start"``, or
``"restore"`` when replaying from a state), after every superstep (``"superstep"``, with its
outcome: ``outcome.committed`` is false for one that failed) and after every edit
(``"edit"``)."""


def _within_step(ex: Execution, logged: Iterable[EffectCompleted]) -> StepOutcome:
    """Run a superstep whose within-step effects were performed when it was recorded: each
    request is answered with its logged result. Raises `ValueError` naming a request the log
    has no result for (the log belongs to another graph or was cut)."""
    # every attempt's result, in attempt order, by effect id (a retried effect keeps its id)
    results: dict[str, deque[EffectCompleted]] = {}
    for r in logged:
        results.setdefault(r.effect_id, deque()).append(r)
    step = ex.begin_superstep()
    while step.effects:
        missing = [r.effect_id for r in step.effects if not results.get(r.effect_id)]
        if missing:
            raise ValueError(f"no logged result for within-step effect(s) {', '.join(missing)}")
        supplied = []
        for request in step.effects:
            result = results[request.effect_id].popleft()
            # what was retried (or handed over) within the superstep, decided again as when
            # it was recorded: the next attempt's result is the next one logged for its id
            while (again := step.retry_within(request, result)) is not None:
                request = again.request
                attempts = results.get(request.effect_id)
                if not attempts:
                    raise ValueError(
                        f"no logged result for within-step effect {request.effect_id} "
                        "(retried within its superstep)"
                    )
                result = attempts.popleft()
            supplied.append(result)
        step.supply(supplied)
    return ex.end_superstep(step)


class ReplayError(ValueError):
    """An input-log entry could not be applied: the log is malformed or belongs to another
    graph or starting point. ``index`` is the entry's position in the replayed sequence."""

    def __init__(self, index: int, entry: tuple[Any, ...], why: str) -> None:
        self.index = index
        self.entry = entry
        super().__init__(f"input {index} ({entry[0] if entry else '?'}): {why}")


def apply_input(ex: Execution, entry: tuple[Any, ...]) -> StepOutcome | None:
    """Apply one `Execution.input_log` entry to ``ex`` exactly as the original call did;
    returns the superstep's outcome for a ``("superstep", ...)`` entry. Raises `ValueError` for an
    unknown entry and whatever the original call raises when the entry does not fit."""
    kind = entry[0]
    if kind == "superstep":
        if len(entry) == 1:
            return ex.run_superstep()
        if len(entry) == 2:  # within-step effects performed: their logged results answer
            return _within_step(ex, entry[1])
        _, failure, record = entry  # a superstep that failed: its failure, not a re-run
        return ex.replay_failed_superstep(failure, record)
    if kind == "effect":
        ex.deliver(entry[1])
    elif kind == "timer":
        _, activation_id, timer_id, generation, payload = entry
        ex.fire_timer(activation_id, timer_id, generation, payload)
    elif kind == "external":
        ex.send(entry[1])
    elif kind == "resume":
        ex.resume(entry[2], entry[1])
    elif kind == "edit":
        _, pairs, writer, as_node, targets, cancel_pending, *rest = entry
        ex.edit(
            list(pairs),
            writer=writer,
            as_node=as_node,
            activate=targets,
            cancel_pending=cancel_pending,
            spawn=rest[0] if rest else (),
            fire=rest[1] if len(rest) > 1 else (),
            defer=rest[2] if len(rest) > 2 else (),
        )
    elif kind == "retry_failed":
        ex.retry_failed()
    elif kind == "abandon":
        ex.abandon_pending()
    elif kind == "audit":
        pass  # who made the edit that follows, and when: a note for history, not an input
    else:
        raise ValueError(f"unknown input-log entry {kind!r}")
    return None


def replay(
    graph: CompiledGraph,
    inputs: Iterable[tuple[Any, ...]],
    execution_id: str,
    *,
    state: ExecutionState | None = None,
    on_step: StepHook | None = None,
) -> Execution:
    """The execution ``inputs`` describe. Without ``state`` the first entry must be the
    ``("start", payload, updates)`` entry; with ``state`` (a checkpoint, a fork point) the
    entries continue from it. Raises `ReplayError` naming the entry that does not apply."""
    ex: Execution | None = None
    if state is not None:
        ex = Execution.restore(graph, state, execution_id=execution_id)
        if on_step is not None:
            on_step(ex, "restore", None)
    for index, entry in enumerate(inputs):
        if not isinstance(entry, tuple) or not entry:
            raise ReplayError(index, (), "not an input-log entry")
        if entry[0] == "start":
            if ex is not None:
                raise ReplayError(index, entry, "a start entry after the execution started")
            _, payload, updates = entry
            ex = Execution.start(graph, execution_id, payload=payload, updates=updates)
            if on_step is not None:
                on_step(ex, "start", None)
            continue
        if ex is None:
            raise ReplayError(index, entry, "the log does not begin with a start entry")
        try:
            outcome = apply_input(ex, entry)
        except Exception as e:
            raise ReplayError(index, entry, f"{type(e).__name__}: {e}") from e
        held = ex.failure is None  # a superstep held for a retry commits nothing either
        if (
            entry[0] == "superstep"
            and len(entry) < 3
            and outcome is not None
            and not outcome.committed
            and not held
        ):
            f = ex.failure
            assert f is not None
            raise ReplayError(
                index,
                entry,
                f"superstep {outcome.step} committed when it was recorded but failed in the "
                f"replay (node {f.node!r}: {f.error_type}: {f.message}); a node whose result "
                f"depends on something besides its state and events cannot be replayed",
            )
        if on_step is not None and entry[0] in ("superstep", "edit"):
            on_step(ex, entry[0], outcome)
    if ex is None:
        raise ReplayError(0, (), "the log is empty")
    return ex
