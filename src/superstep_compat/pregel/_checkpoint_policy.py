"""`CheckpointPolicy`: what differs between the checkpoints of a graph's run and those of an
`@entrypoint`'s (see `func._entrypoint_policy`), as one strategy the run's
`CheckpointRecorder` consults: which channels trigger a task, what an input checkpoint
holds, whether the engine's state may be left out of a saved checkpoint, and what else is
noted as a checkpoint is written or a step stops.

This one is a graph's: LangGraph's triggers of each node, and nothing noted besides.
Never imports the run, the host or the engine's persistence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from superstep_compat._internal._constants import PULL
from superstep_compat.channels.any_value import AnyValue
from superstep_compat.channels.binop import BinaryOperatorAggregate
from superstep_compat.channels.delta import DeltaChannel
from superstep_compat.channels.ephemeral_value import EphemeralValue
from superstep_compat.channels.last_value import LastValue, LastValueAfterFinish
from superstep_compat.channels.topic import Topic
from superstep_compat.pregel._checkpoint_tasks import _MISSING, node_triggers, trigger_channels
from superstep_compat.pregel._record import CheckpointRecord
from superstep_compat.pregel._restorable import paused_restorable, quiet_restorable, restorable
from superstep_core.runtime import Execution, QuietSnapshot

__all__ = ["CheckpointPolicy", "always_updated", "topic_keys"]

# LangGraph's channels whose ``update`` returns True for any write
_ALWAYS_UPDATED = (
    LastValue,
    LastValueAfterFinish,
    BinaryOperatorAggregate,
    AnyValue,
    EphemeralValue,
    DeltaChannel,
)


class CheckpointPolicy:
    """The checkpoints of a graph whose `GraphSpec` is ``spec``, as LangGraph writes them."""

    lean = True
    """Whether a checkpoint the engine's state can be rebuilt from is saved without its blob
    (see `write_checkpoint`)."""

    def __init__(
        self,
        spec: Any,
        triggers: Callable[[str], tuple[str, ...]] | None = None,
        pull_parts: Callable[[str], tuple[str, ...]] | None = None,
    ) -> None:
        """``triggers``: the compiled graph's `TaskRouting.triggers` of ``spec`` (known once
        per graph, so a run does not find each node's again); None: found per policy;
        ``pull_parts``: its `TaskRouting.pull_parts`, with ``triggers``."""
        self.spec = spec
        # by node: asked for every task of every checkpoint, and a graph's edges are fixed
        self._triggers: dict[str, tuple[str, ...]] = {}
        self._known = triggers
        self._always: frozenset[str] | None = None
        self._topics: frozenset[str] | None = None
        self._parts: dict[str, tuple[str, ...]] = {}
        self.parts_of: Callable[[str], tuple[str, ...]] = pull_parts or self._own_parts
        """What a pull task of a node adds to its LangGraph task id's bytes: ``__pregel_pull``
        and its triggers (`triggers_of`) sorted (see `task_records`)."""

    def _own_parts(self, name: str) -> tuple[str, ...]:
        found = self._parts.get(name)
        if found is None:
            found = self._parts[name] = (PULL, *sorted(self.triggers_of(name)))
        return found

    def always_updated(self) -> frozenset[str]:
        """The state keys whose LangGraph channel is updated by any write, one equal to its
        value (the same object) too (its ``update`` returns True for any value), so each
        write moves its version on. The others (a `Topic`, a barrier, a channel class of
        the program's own) are updated when their value changes: their engine strategy
        keeps the object when not (see `SpecStrategy`)."""
        found = self._always
        if found is None:
            found = self._always = always_updated(getattr(self.spec, "channels", None) or {})
        return found

    def topics(self) -> frozenset[str]:
        """The state keys whose channel is a `Topic` (`topic_keys`)."""
        found = self._topics
        if found is None:
            found = self._topics = topic_keys(getattr(self.spec, "channels", None) or {})
        return found

    def triggers_of(self, name: str) -> tuple[str, ...]:
        """The channels whose new versions trigger node ``name`` (LangGraph's triggers)."""
        if self._known is not None:
            return self._known(name)
        found = self._triggers.get(name)
        if found is None:
            found = self._triggers[name] = node_triggers(self.spec, name)
        return found

    def pending_triggers(
        self, ex: Execution, pending: Sequence[tuple[str, str]], start: Any = _MISSING
    ) -> dict[str, Any]:
        """The trigger channels of a checkpoint's pending (node, key) tasks, ``start`` the
        input an input checkpoint holds (see `trigger_channels`)."""
        return trigger_channels(
            ex, pending, start, pulls=getattr(self.spec, "subscriptions", None) is None
        )

    def input_checkpoint(
        self, next_: tuple[str, ...], values: dict[str, Any], start: Any
    ) -> tuple[tuple[str, ...], dict[str, Any]]:
        """The tasks and values of the input checkpoint of a run given ``start``."""
        return next_, values

    def checkpointed(self, record: CheckpointRecord | None) -> None:
        """Called after each checkpoint the run writes (``record``: the run's latest)."""

    # --- whether a checkpoint goes without the engine's blob (``lean`` policies) ----------

    def restorable(self, record: CheckpointRecord, *, outcomes_saved: bool = False) -> bool:
        """Whether rebuilding ``record``'s engine state from LangGraph's fields gives the same
        run (`_restorable.restorable`: a graph's rebuild, `_lgrestore.rebuild`)."""
        return restorable(record, outcomes_saved=outcomes_saved)

    def paused_restorable(self, record: CheckpointRecord) -> bool:
        """`restorable` of a step paused on interrupts beside finished tasks
        (`_restorable.paused_restorable`)."""
        return paused_restorable(record)

    def quiet_restorable(self, record: CheckpointRecord, quiet: QuietSnapshot) -> bool:
        """`restorable` of a step's checkpoint whose engine state is ``quiet`` (not taken
        yet: `_restorable.quiet_restorable`)."""
        return quiet_restorable(record, quiet)

    def stopped(self, record: CheckpointRecord | None, channel: str, value: Any) -> None:
        """Called as a step stops (``channel``: ``__interrupt__`` with the run's interrupts,
        or ``__error__`` with the error's repr), before ``record`` notes it."""


def always_updated(channels: Mapping[str, Any]) -> frozenset[str]:
    """Of a graph's state ``channels`` (key to channel spec), the keys whose channel any write
    updates (see `CheckpointPolicy.always_updated`)."""
    return frozenset(k for k, ch in channels.items() if isinstance(ch, _ALWAYS_UPDATED))


def topic_keys(channels: Mapping[str, Any]) -> frozenset[str]:
    """Of a graph's state ``channels`` (key to channel spec), the keys whose channel is a
    `Topic`: LangGraph saves an emptied one as ``[]`` (`build_checkpoint`'s ``topics``)."""
    return frozenset(k for k, ch in channels.items() if isinstance(ch, Topic))
