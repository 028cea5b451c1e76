"""The names of LangGraph's checkpoint layout the façade reads and writes: its reserved
channels, pending-write channels and task kinds (LangGraph's `langgraph._internal._constants`),
and the façade's own private channel. One module so that the writer (`_lgcheckpoint`) and the
checks of what can be saved without the private channel (`_restorable`) share them."""

from __future__ import annotations

__all__ = [
    "BRANCH_PREFIX",
    "CURRENT_FORMAT",
    "ENGINE_CHANNEL",
    "ENGINE_CHANNEL_BEFORE",
    "ERROR",
    "INTERRUPT",
    "JOIN_PREFIX",
    "NO_WRITES",
    "PRIVATE_CHANNELS",
    "PULL",
    "PUSH",
    "RESERVED_CHANNELS",
    "RESUME",
    "START_CHANNEL",
    "TASKS",
]

CURRENT_FORMAT = 4
"""The checkpoint layout (``v``) LangGraph 1.2 writes; older ones are migrated on read."""
ENGINE_CHANNEL = "__superstep_facade__"
# the channel's name before it was told apart from the engine's own ``__superstep__``
# (`superstep_core.host.thread_checkpoints.STEP`), which an engine thread holds
ENGINE_CHANNEL_BEFORE = "__superstep__"
START_CHANNEL = "__start__"
TASKS = "__pregel_tasks"
BRANCH_PREFIX = "branch:to:"
JOIN_PREFIX = "join:"
ERROR = "__error__"
INTERRUPT = "__interrupt__"
RESUME = "__resume__"
NO_WRITES = "__no_writes__"
# the façade's own channels, never part of a graph's state
PRIVATE_CHANNELS = (ENGINE_CHANNEL, ENGINE_CHANNEL_BEFORE)
# channels LangGraph reserves beside the state keys
RESERVED_CHANNELS = frozenset(
    {START_CHANNEL, TASKS, ENGINE_CHANNEL, ENGINE_CHANNEL_BEFORE, "__previous__", "__end__"}
)


PULL = "__pregel_pull"
PUSH = "__pregel_push"
