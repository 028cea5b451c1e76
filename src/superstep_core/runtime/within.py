"""Effects performed within their superstep: a superstep as begin, perform, end.

An `Effect` declared ``within_step=True`` is not left for after the commit: the superstep
that requested it stays open until the host has performed it and handed its result back,
the result is delivered (as `EffectCompleted`) to the activation that asked for it in the
same superstep, reading the same committed state, and only then does the superstep commit,
atomically, with everything its reactions and those results produced. A host drives it as

    step = ex.begin_superstep()
    while step.effects:                       # one round: perform them, possibly at once
        step.supply(perform(step.effects))    # an EffectCompleted per request, any order
    outcome = ex.end_superstep(step)

A reaction to a within-step result may ask for more within-step effects (a further round).
The results are recorded in the superstep's input-log entry, ``("superstep", results)``, so a
replay delivers them again instead of performing anything. A superstep that commits nothing
because some of its activations retry or wait on interrupts (``retry_holds_step``,
``suspend_holds_step``) keeps the results of its other activations: when their events are
delivered again the same effect ids are requested (ids are derived), and the kept results
answer them, so no effect is performed twice. Until `end_superstep` the execution is
unchanged: a host that dies mid-step leaves it (and its last checkpoint) as it was.

A node declared as a `superstep_core.node.OneShotEffect` (one effect per activation, then
settle on its result: the LangGraph façade's nodes) takes a shorter way through the same
rounds: its effect is asked for directly and its settled reaction staged directly, with the
same effect ids, log entries and kept results as its reducer form would give.

A failed within-step effect is retried inside its superstep, in the runner that performed
it, while its siblings still run: a host hands each result, as soon as it has it, to
`OpenSuperstep.retry_within` before supplying it. When the activation's settled reaction to
that result is a retryable failure with an attempt left (a `OneShotEffect` node whose
retries hold its superstep, ``retry_holds_step``), the answer is a `WithinRetry`: the next
attempt's request (the same effect id: an attempt keeps the first one's idempotency key)
and the backoff to wait first, on the host's clock, plus up to ``jitter`` seconds the host
draws. The host performs it and asks again with its result; only the last result is
supplied. Every attempt's result goes into the superstep's log entry (in attempt order), and
a replay asks `retry_within` in the same order, so it rebuilds the same attempts without
waiting. A result `retry_within` was asked about is settled there once (the superstep reuses
that reaction); a host that never asks gets the held retry of ``retry_holds_step`` instead.

`Execution.run_superstep`, for drivers that perform nothing inside a superstep, issues
within-step effects as ordinary ones (performed after the commit, delivered in a later
superstep), so every host runs every graph.

Pure, like the rest of the runtime: must never import the host, persistence, llm, compat.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

from superstep_core.node import Effect, EffectCompleted, Reaction
from superstep_core.runtime.records import EffectRequest, StepOutcome

__all__ = ["OpenSuperstep", "Rounds", "WithinRetry", "merged", "split_within"]

Rounds = Generator[list[EffectRequest], Sequence[EffectCompleted], StepOutcome]
"""A superstep in progress: yields each round of within-step effects to perform, is sent
their results, returns the superstep's outcome."""

Then = Callable[[Sequence[EffectCompleted]], "StepOutcome | Rounds"]
"""What an `OpenSuperstep` made by `OpenSuperstep.asking` does with its first round's results:
the superstep's outcome, or the rounds that remain."""


@dataclass(frozen=True, slots=True)
class WithinRetry:
    """The next attempt of a within-step effect that failed (`OpenSuperstep.retry_within`):
    perform ``request`` after ``delay`` seconds plus a random 0..``jitter`` more."""

    request: EffectRequest
    delay: float
    jitter: float = 0.0


Again = Callable[[EffectRequest, EffectCompleted], WithinRetry | None]
"""The execution's in-superstep retry decision for one result (see `WithinRetry`)."""


class OpenSuperstep:
    """A superstep begun by `Execution.begin_superstep` and not yet ended.

    ``effects``: the within-step effects the host must perform now (empty: call
    `Execution.end_superstep`); ``results``: every result supplied so far, in supply order
    (what the input log records). Raises `RuntimeError` when supplied after it ended."""

    __slots__ = (
        "_again",
        "_outcome",
        "_rounds",
        "_stands",
        "_then",
        "effects",
        "results",
        "step",
    )

    def __init__(self, rounds: Rounds | None, step: int, again: Again | None = None) -> None:
        self.step = step
        self.results: list[EffectCompleted] = []
        self._rounds = rounds
        self._then: Then | None = None
        self._again = again
        self._stands: dict[str, str] | None = None  # made by the first stand-in
        self._outcome: StepOutcome | None = None
        self.effects: list[EffectRequest] = []
        if rounds is not None:
            self._advance(None)

    @classmethod
    def ended(cls, step: int, outcome: StepOutcome) -> OpenSuperstep:
        """Superstep ``step``, which asked for no within-step effect: ended, with
        ``outcome``."""
        opened = cls(None, step)
        opened._outcome = outcome
        return opened

    @classmethod
    def asking(
        cls, step: int, effects: list[EffectRequest], then: Then, again: Again | None = None
    ) -> OpenSuperstep:
        """Superstep ``step`` asking for ``effects`` (its first round) without a generator:
        ``then`` takes their results and gives the outcome, or the rounds that remain."""
        opened = cls.__new__(cls)  # once per superstep: `__init__`'s defaults set directly
        opened.step = step
        opened.results = []
        opened._rounds = None
        opened._then = then
        opened._outcome = None
        opened._again = again
        opened._stands = None
        opened.effects = effects
        return opened

    def retry_within(self, request: EffectRequest, result: EffectCompleted) -> WithinRetry | None:
        """Whether ``result`` (of ``request``, one of `effects`, or of a retry this returned)
        ends its activation's attempt in a failure to retry now, in this superstep: the next
        attempt to perform and its wait, else None (supply ``result``). Not thread-safe: a
        host performing effects on several threads asks under one lock."""
        again = self._again
        if again is None:
            return None
        retry = again(request, result)
        if retry is not None and retry.request.effect_id != request.effect_id:
            # another activation's request in its place (a failure route's): its result
            # is supplied for the request it stands in for
            eid = request.effect_id
            stands = self._stands
            if stands is None:
                stands = self._stands = {}
            stands[retry.request.effect_id] = stands.get(eid, eid)
        return retry

    def supply(self, results: Sequence[EffectCompleted]) -> None:
        """Hand back the results of `effects` (one per request, matched by effect id).
        Raises `ValueError` naming a request left without a result."""
        if self._outcome is not None:
            raise RuntimeError(f"superstep {self.step} has ended: nothing to supply")
        effects = self.effects
        if len(effects) == 1 and len(results) == 1 and results[0].effect_id == effects[0].effect_id:
            chosen = list(results)  # the common round: one effect, its result
            then = self._then
            if then is not None:  # `_advance`'s first step, in place
                self._then = None
                self.results.extend(chosen)
                after = then(chosen)
                if isinstance(after, StepOutcome):
                    self.effects = []
                    self._outcome = after
                    return
                self._rounds = after
                self._advance(None)
                return
            self.results.extend(chosen)
            self._advance(chosen)
            return
        stands = self._stands or {}
        wanted = {r.effect_id for r in effects}
        given = {stands.get(r.effect_id, r.effect_id) for r in results}
        missing = sorted(wanted - given)
        if missing:
            raise ValueError(
                f"superstep {self.step}: no result supplied for within-step effect(s) "
                f"{', '.join(missing)}; supply one EffectCompleted per request"
            )
        chosen = [r for r in results if stands.get(r.effect_id, r.effect_id) in wanted]
        self.results.extend(chosen)
        self._advance(chosen)

    def _advance(self, sent: Sequence[EffectCompleted] | None) -> None:
        then = self._then
        if then is not None and sent is not None:
            self._then = None
            after = then(sent)
            if isinstance(after, StepOutcome):
                self.effects = []
                self._outcome = after
                return
            self._rounds = after
            sent = None
        rounds = self._rounds
        assert rounds is not None
        try:
            self.effects = next(rounds) if sent is None else rounds.send(sent)
        except StopIteration as done:
            self.effects = []
            self._outcome = done.value

    def outcome(self) -> StepOutcome:
        """The superstep's outcome. Raises `RuntimeError` while effects are outstanding."""
        if self._outcome is None:
            pending = ", ".join(r.effect_id for r in self.effects)
            raise RuntimeError(
                f"superstep {self.step} still waits on within-step effects: {pending}"
            )
        return self._outcome


def split_within(effects: Sequence[Effect]) -> tuple[list[Effect], list[Effect]]:
    """``effects`` as (within-step ones, the others), each in request order."""
    within: list[Effect] = []
    rest: list[Effect] = []
    for effect in effects:
        (within if effect.within_step else rest).append(effect)
    return within, rest


def merged(before: Any, after: Any, rest: Sequence[Effect]) -> Any:
    """One activation's reactions in one superstep as one: ``before`` (the merged reaction so
    far, or None) then ``after`` whose effects other than within-step ones are ``rest``.
    Updates and control accumulate in order; the disposition is the last one. Something
    that is not a `Reaction` (an exception a reducer raised, a malformed return) replaces
    the whole: the activation fails as it would have alone."""
    if not isinstance(after, Reaction):
        return after
    if before is None:
        return Reaction(after.updates, rest, after.control, after.disposition)
    if not isinstance(before, Reaction):
        return before
    updates = [*_pairs(before.updates), *_pairs(after.updates)]
    return Reaction(
        updates,
        [*before.effects, *rest],
        [*before.control, *after.control],
        after.disposition,
    )


def _pairs(updates: Any) -> list[tuple[str, Any]]:
    if type(updates) is dict:  # the common case without an attribute lookup
        return list(updates.items())
    return list(updates.items()) if hasattr(updates, "items") else list(updates)
