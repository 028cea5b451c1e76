"""`langgraph.pregel._checkpoint`: the checkpoint-dict helpers test suites import.

Only the pure helpers on LangGraph's `Checkpoint` dict shape (``v``, ``id``, ``ts``,
``channel_values``, ``channel_versions``, ``versions_seen``, ``updated_channels``); how the
façade itself builds and stores checkpoints lives in `superstep_compat.checkpoint`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["copy_checkpoint"]


def copy_checkpoint(checkpoint: Any) -> Any:
    """A copy of a LangGraph checkpoint dict whose mutable parts are copied one level deep
    (``channel_values``, ``channel_versions``, each ``versions_seen`` entry), as LangGraph's
    ``copy_checkpoint``: mutating the copy's maps never changes the original."""
    return {
        "v": checkpoint["v"],
        "ts": checkpoint["ts"],
        "id": checkpoint["id"],
        "channel_values": checkpoint["channel_values"].copy(),
        "channel_versions": checkpoint["channel_versions"].copy(),
        "versions_seen": {k: v.copy() for k, v in checkpoint["versions_seen"].items()},
        "updated_channels": checkpoint.get("updated_channels", None),
    }
