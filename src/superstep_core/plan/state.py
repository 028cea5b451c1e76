"""The caller's state of a plan run: which steps succeeded, failed, or are in flight.

The state belongs to whoever runs the plan (the engine's runner, a queue worker, a person with
a spreadsheet); this package only reads it. Its document form is ``{"succeeded": [...],
"failed": [...], "in_flight": [...]}`` (step ids; a missing list is empty). A step listed in
none of them has not started.

Pure: no I/O, no clock, no randomness, no callbacks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from superstep_core.plan.model import Workflow, quote

__all__ = ["STATE_KEYS", "PlanState", "StateError", "as_state"]

STATE_KEYS = ("succeeded", "failed", "in_flight")


class StateError(ValueError):
    """A state that does not fit its plan: an unknown key, an unknown step id, or a step in
    two lists. The message names the key or step."""


@dataclass(frozen=True, slots=True)
class PlanState:
    """Step ids by outcome. Any iterable of ids is accepted and kept as a frozenset; a step
    in two of the sets raises `StateError` naming it and both sets."""

    succeeded: frozenset[str] = frozenset()
    failed: frozenset[str] = frozenset()
    in_flight: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        for key in STATE_KEYS:
            object.__setattr__(self, key, _ids(getattr(self, key), key))
        for i, first in enumerate(STATE_KEYS):
            for second in STATE_KEYS[i + 1 :]:
                both = sorted(getattr(self, first) & getattr(self, second))
                if both:
                    raise StateError(
                        f"state: step {quote(both[0])} is in both {first!r} and {second!r}: a "
                        f"step has one outcome at a time"
                    )

    @property
    def settled(self) -> frozenset[str]:
        """Steps that finished, either way."""
        return self.succeeded | self.failed

    @property
    def started(self) -> frozenset[str]:
        """Steps that started: settled or in flight."""
        return self.succeeded | self.failed | self.in_flight

    def as_document(self) -> dict[str, list[str]]:
        """The document form, each list sorted."""
        return {key: sorted(getattr(self, key)) for key in STATE_KEYS}


def _ids(value: object, key: str) -> frozenset[str]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise StateError(f"state: {key!r} must be a list of step ids, got {value!r:.60}")
    ids = frozenset(value)
    for item in ids:
        if not isinstance(item, str):
            raise StateError(f"state: {key!r} holds {item!r}, not a step id (a string)")
    return ids


def as_state(state: PlanState | Mapping[str, Iterable[str]], plan: Workflow) -> PlanState:
    """``state`` as a `PlanState` of ``plan``. Raises `StateError` for a key other than
    succeeded / failed / in_flight, or a step id the plan does not have."""
    if not isinstance(state, PlanState):
        if not isinstance(state, Mapping):
            raise StateError(
                f'state: expected {{"succeeded": [...], "failed": [...], "in_flight": [...]}}, '
                f"got {type(state).__name__}"
            )
        extra = sorted(str(k) for k in state if k not in STATE_KEYS)
        if extra:
            raise StateError(
                f"state: unknown key {quote(extra[0])}; a state has "
                f"{', '.join(map(quote, STATE_KEYS))}"
            )
        state = PlanState(
            _ids(state.get("succeeded", ()), "succeeded"),
            _ids(state.get("failed", ()), "failed"),
            _ids(state.get("in_flight", ()), "in_flight"),
        )
    for key in STATE_KEYS:
        unknown = sorted(getattr(state, key) - plan.by_id.keys())
        if unknown:
            raise StateError(
                f"state: {key!r} names {quote(unknown[0])}, which is not a step of the plan"
            )
    return state
