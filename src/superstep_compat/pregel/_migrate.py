"""Old LangGraph checkpoint layouts brought to the current one (LangGraph's
``_migrate_checkpoint``), in place, on the checkpoint dict a saver returns.

Before format 4 a checkpoint kept the `Send` packets of its next step in
``pending_sends``; now they are the value of the ``__pregel_tasks`` channel. Before format
3 a `StateGraph` node was triggered by one of three channels: ``start:N`` (an edge from
START), ``branch:SOURCE:CONDITION:N`` (a conditional edge) or the plain channel of a node
with a static edge to N; now all of them are ``branch:to:N``. Each old channel is folded
into its new one: the newer version wins, as in each node's (and the interrupt marker's)
``versions_seen``; the value moves unless the new channel has one. Channels of nodes the
graph no longer has are left alone. Plain data only: never imports the runtime.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from superstep_compat._internal._constants import END, INTERRUPT, START, TASKS

__all__ = ["lowlevel_own_triggers", "migrate_pending_sends", "migrate_trigger_channels"]

_ABSENT: Any = object()


def migrate_pending_sends(checkpoint: dict[str, Any]) -> None:
    """Format < 4: move ``pending_sends`` into the tasks channel, at the newest version."""
    if checkpoint["v"] < 4 and checkpoint.get("pending_sends"):
        sends = checkpoint.pop("pending_sends")
        versions = checkpoint["channel_versions"]
        checkpoint["channel_values"][TASKS] = sends
        versions[TASKS] = max(versions.values())


def _fold(
    checkpoint: dict[str, Any], old: str, new: str, readers: Iterable[str], value: Any
) -> None:
    """Fold channel ``old`` (its version already taken out) into ``new`` for ``readers``."""
    seen = checkpoint["versions_seen"]
    for reader in (*readers, INTERRUPT):
        marks = seen.get(reader)
        if marks is not None and old in marks:
            mark = marks.pop(old)
            marks[new] = max(mark, marks[new]) if new in marks else mark
    values = checkpoint["channel_values"]
    if new not in values and value is not _ABSENT:
        values[new] = value


def _renamed(checkpoint: dict[str, Any], old: str, target: str) -> None:
    versions = checkpoint["channel_versions"]
    values = checkpoint["channel_values"]
    new = f"branch:to:{target}"
    version = versions.pop(old)
    _fold(
        checkpoint, old, new, (target,), values.pop(old, _ABSENT) if new not in values else _ABSENT
    )
    versions[new] = max(versions[new], version) if new in versions else version


def migrate_trigger_channels(
    checkpoint: dict[str, Any],
    nodes: Mapping[str, Any] | Iterable[str],
    edges: Iterable[tuple[str, str]],
) -> None:
    """Format < 3 (with channel versions): rename a `StateGraph`'s trigger channels to
    ``branch:to:N`` (see the module docstring). ``nodes``: the graph's node names;
    ``edges``: its static ``(source, target)`` edges."""
    versions = checkpoint["channel_versions"]
    if not versions or checkpoint["v"] >= 3:
        return
    names = set(nodes)
    for key in list(versions):
        if key.startswith("start:") and key.split(":")[1] in names:
            _renamed(checkpoint, key, key.split(":")[1])
    for key in list(versions):
        if key.startswith("branch:") and key.count(":") == 3 and key.split(":")[-1] in names:
            _renamed(checkpoint, key, key.split(":")[-1])
    if names.isdisjoint(versions):
        return
    targets: dict[str, list[str]] = {}
    for source, target in edges:
        if source != START and target != END:
            targets.setdefault(source, []).append(target)
    values = checkpoint["channel_values"]
    for key in list(versions):
        if key == START or key not in names:
            continue
        version = versions.pop(key)
        value = values.pop(key, _ABSENT)
        for target in targets.get(key, ()):
            new = f"branch:to:{target}"
            _fold(checkpoint, key, new, (target,), value)
            versions[new] = max(versions[new], version) if new in versions else version
        interrupt_seen = checkpoint["versions_seen"].get(INTERRUPT)
        if interrupt_seen is not None:
            interrupt_seen.pop(key, None)


def lowlevel_own_triggers(
    checkpoint: Mapping[str, Any], subscriptions: Mapping[str, tuple[str, ...]]
) -> tuple[dict[str, Any], frozenset[str]]:
    """A low-level `Pregel`'s ``checkpoint`` whose nodes had ``branch:to:N`` trigger
    channels of their own (an earlier Superstep's layout; ``subscriptions``: each node's
    subscribed channels), as a copy in LangGraph's layout: without those channels; a node
    that was due (its channel newer than its ``versions_seen``) has seen none of its
    subscribed channels, so it is due again; every other node written in the old layout
    has seen their current versions. Returns the copy and the nodes that were due (their
    tasks keep the ids they had, hashed with their old trigger, under which their pending
    writes were saved). A checkpoint without such channels comes back as it is."""
    versions = checkpoint["channel_versions"]
    if not any(k.startswith(_OWN_TRIGGER) for k in versions):
        return dict(checkpoint), frozenset()
    values = checkpoint["channel_values"]
    seen = {k: dict(v) for k, v in checkpoint["versions_seen"].items()}
    due: set[str] = set()
    for node, channels in subscriptions.items():
        own = _OWN_TRIGGER + node
        noted = seen.get(node, {})
        if any(not k.startswith(_OWN_TRIGGER) for k in noted):
            continue  # written in the new layout since
        if own in values and own in versions and _newer(versions[own], noted.get(own)):
            due.add(node)
            seen[node] = {}
        else:
            seen[node] = {ch: versions[ch] for ch in channels if ch in versions}
    for entry in seen.values():
        for k in [k for k in entry if k.startswith(_OWN_TRIGGER)]:
            del entry[k]
    migrated = {
        **checkpoint,
        "channel_values": {k: v for k, v in values.items() if not k.startswith(_OWN_TRIGGER)},
        "channel_versions": {k: v for k, v in versions.items() if not k.startswith(_OWN_TRIGGER)},
        "versions_seen": seen,
    }
    return migrated, frozenset(due)


_OWN_TRIGGER = "branch:to:"


def _newer(version: Any, seen: Any) -> bool:
    if seen is None:
        return True
    try:
        return bool(version > seen)
    except TypeError:  # versions of two savers' kinds: compared as strings
        return str(version) > str(seen)
