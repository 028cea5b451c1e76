"""Control edges between nodes: plain edges, branches, routes of external events, and joins.

Owns: `Connect`, `Branch`, `Route`, `Join`, the join fire policies (`All`, `Any`, `AtLeast`)
and failure policies (`FailFast`, `ContinueWithSuccesses`, `WaitForAllThenFail`,
`RouteFailuresTo`).
Must never import: the runtime, the host, persistence, llm, compat.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

__all__ = [
    "All",
    "AnyOf",
    "AtLeast",
    "Branch",
    "Connect",
    "ContinueWithSuccesses",
    "FailFast",
    "FailurePolicy",
    "FirePolicy",
    "Join",
    "Route",
    "RouteFailuresTo",
    "Router",
    "WaitForAllThenFail",
]


@dataclass(frozen=True, slots=True)
class Connect:
    """When ``source`` completes, activate ``target`` in the same lineage, with the source's
    `CompleteActivation.output` as payload."""

    source: str
    target: str


Router: TypeAlias = Callable[[Mapping[str, Any], Any], "str | Sequence[str] | None"]
"""``router(state, output) -> target | [targets] | None``: ``state`` is the committed state
after the superstep in which the source completed, ``output`` its `CompleteActivation.output`."""


@dataclass(frozen=True, slots=True)
class Branch:
    """When ``source`` completes, ``router`` chooses zero or more of ``targets`` to activate."""

    source: str
    router: Router
    targets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Route:
    """Deliver `External` events named ``name`` whose payload satisfies ``predicate`` to
    ``node``: to its live instances if it has any, else to a new activation of it."""

    name: str
    predicate: Callable[[Any], bool]
    node: str


# --- join policies -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class All:
    """Fire when every source completed."""

    def needed(self, sources: int) -> int:
        return sources


@dataclass(frozen=True, slots=True)
class AnyOf:
    """Fire on the first source that completes."""

    def needed(self, sources: int) -> int:
        return 1


@dataclass(frozen=True, slots=True)
class AtLeast:
    """Fire once ``n`` sources completed."""

    n: int

    def needed(self, sources: int) -> int:
        return self.n


FirePolicy: TypeAlias = All | AnyOf | AtLeast


@dataclass(frozen=True, slots=True)
class FailFast:
    """A failed source fails the execution at once."""


@dataclass(frozen=True, slots=True)
class ContinueWithSuccesses:
    """A failed source counts as resolved: the join fires with the successful outputs once
    the fire policy is met by the sources that did not fail (``join_all`` waits for every
    source to succeed or fail; it does not fire when none succeeded)."""


@dataclass(frozen=True, slots=True)
class WaitForAllThenFail:
    """Wait until every source resolved, then fail the execution if any failed."""


@dataclass(frozen=True, slots=True)
class RouteFailuresTo:
    """Activate ``node`` with the failure (a `JoinFailure` payload) instead: the failure path
    replaces the success path, so the join fires only if its policy is still met by
    successes alone (a ``join_all`` with a failed source does not fire)."""

    node: str


FailurePolicy: TypeAlias = FailFast | ContinueWithSuccesses | WaitForAllThenFail | RouteFailuresTo


@dataclass(frozen=True, slots=True)
class JoinFailure:
    """The payload a `RouteFailuresTo` handler is activated with; ``payload`` is the failed
    activation's own payload."""

    join: str
    source: str
    activation_id: str
    error_type: str
    message: str
    payload: Any = None


@dataclass(frozen=True, slots=True)
class Join:
    """A barrier keyed by (join name, lineage): credited by completed activations of
    ``sources``; fires ``target`` per ``fire`` with payload ``{source: output}`` of the sources
    completed so far; failed sources are handled per ``on_failure``.

    ``on_incomplete``: what to do when the execution goes quiet with this barrier partly
    credited: ``"fail"`` (an unsatisfiable barrier fails loudly) or ``"keep"`` (it stays open,
    e.g. LangGraph's waiting edges, whose sources may run in a later run).
    """

    name: str
    sources: tuple[str, ...]
    target: str
    fire: FirePolicy = All()
    on_failure: FailurePolicy = FailFast()
    on_incomplete: str = "fail"
