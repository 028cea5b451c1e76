"""The values of `DeltaChannel` keys in a checkpoint LangGraph wrote.

LangGraph stores such a channel's value only now and then (a ``_DeltaSnapshot`` blob in
``channel_values``); between snapshots the key is absent and its value is the nearest
ancestor's stored one folded with the writes saved since (the saver's
``get_delta_channel_history`` walks the parent chain and returns both). The façade writes
the same format (`_lgdelta_write`), so every checkpoint read back, LangGraph's or its own,
gets such keys' values here. The walk only happens when a checkpoint is read from the
saver (a run's start, ``get_state``, history); a run going on keeps its values in memory.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langgraph.checkpoint.serde.types import _DeltaSnapshot

from superstep_compat._internal._constants import NULL_TASK_ID
from superstep_compat.channels.base import MISSING
from superstep_compat.channels.delta import DeltaChannel
from superstep_compat.pregel._record import CheckpointRecord, config_of
from superstep_compat.pregel._saver_bridge import saver_call

__all__ = ["delta_channels", "hydrate_delta_channels"]


def delta_channels(graph: Any) -> dict[str, DeltaChannel]:
    """``graph``'s `DeltaChannel` keys (none for a graph without a state schema's channels)."""
    specs: Mapping[str, Any] = getattr(getattr(graph, "spec", None), "channels", None) or {}
    return {k: c for k, c in specs.items() if isinstance(c, DeltaChannel)}


def hydrate_delta_channels(
    graph: Any, record: CheckpointRecord, saver: Any, *, edit: bool = False
) -> None:
    """Give ``record`` (read from a saver) the values of ``graph``'s `DeltaChannel` keys: a
    snapshot blob is unwrapped; a key with a version but no stored value is replayed from
    its ancestors (one saver call for all such keys). Its values, its checkpoint's
    ``channel_values`` (a copy: the saver's dict is left alone) and its engine state's values
    (a checkpoint the façade wrote: where the engine's value is the checkpoint's) get them,
    so the step after it starts from the whole value. The checkpoint's own writes of no
    task (a `Command`'s update put onto it) are applied too, but not for an ``edit``
    (``update_state``, a copy): LangGraph's edit reads the checkpoint without them, so
    the engine's value (which has them) gives way to the stored one."""
    checkpoint = record.checkpoint
    deltas = delta_channels(graph)
    if checkpoint is None or not deltas:
        return
    stored: Mapping[str, Any] = checkpoint.get("channel_values", {})
    versions: Mapping[str, Any] = checkpoint.get("channel_versions", {})
    found = {k: stored[k].value for k in deltas if isinstance(stored.get(k), _DeltaSnapshot)}
    # a key with no version was never written: it is empty without a walk (LangGraph's rule,
    # which also spares reading every ancestor each time such a thread is loaded)
    walk = [k for k in deltas if k in versions and k not in stored]
    if walk and saver is not None and hasattr(saver, "get_delta_channel_history"):
        config = config_of(record.thread_id, record.checkpoint_ns, record.checkpoint_id)
        history = saver_call(saver, "get_delta_channel_history", config=config, channels=walk)
        for k in walk:
            entry = history.get(k) or {}
            seed = entry.get("seed", MISSING)
            if isinstance(seed, _DeltaSnapshot):
                seed = seed.value
            found[k] = deltas[k].replayed(seed, [w[2] for w in entry.get("writes", ())])
    # the checkpoint's own writes of no task (a `Command`'s update put onto it): LangGraph
    # applies them to its values (its view of it, a run from it)
    for k in () if edit else deltas:
        own = [w[2] for w in record.pending if w[0] == NULL_TASK_ID and w[1] == k]
        if own:
            found[k] = deltas[k].replayed(found.get(k, MISSING), own)
    if found:
        merged = {**record.values, **found}
        # in the state's key order, as LangGraph reads channels (a key found here was absent)
        order: Sequence[str] = getattr(graph, "state_channels", None) or ()
        ordered = {k: merged[k] for k in order if k in merged}
        record.values = {**ordered, **merged} if len(ordered) < len(merged) else ordered
        record.checkpoint = {**checkpoint, "channel_values": {**stored, **found}}
        engine = record.engine
        if engine is not None:
            held = engine.values
            engine.values = {
                **held,
                **{
                    k: v
                    for k, v in found.items()
                    if edit or k not in held or isinstance(held[k], _DeltaSnapshot)
                },
            }
