"""Every reserved string of LangGraph's wire format: channel names, config keys, task paths.

Public ones are re-exported from `superstep_compat.constants`; the rest are importable from
there with a deprecation warning, as in LangGraph.
"""

from __future__ import annotations

from typing import Final

START: Final = "__start__"
END: Final = "__end__"
TAG_NOSTREAM: Final = "nostream"
TAG_HIDDEN: Final = "langsmith:hidden"
CONF: Final = "configurable"
TASKS: Final = "__pregel_tasks"
CONFIG_KEY_CHECKPOINTER: Final = "__pregel_checkpointer"
_PUBLIC = frozenset(globals())  # the names above are public (`langgraph.constants`)

# Config keys, reserved channels and task-path markers (LangGraph's private constants,
# imported by name by libraries such as deepagents and the LangGraph server).
CACHE_NS_WRITES: Final = "__pregel_ns_writes"
CONFIG_KEY_CACHE: Final = "__pregel_cache"
CONFIG_KEY_CALL: Final = "__pregel_call"
CONFIG_KEY_CHECKPOINT_ID: Final = "checkpoint_id"
CONFIG_KEY_CHECKPOINT_MAP: Final = "checkpoint_map"
CONFIG_KEY_CHECKPOINT_NS: Final = "checkpoint_ns"
CONFIG_KEY_DURABILITY: Final = "__pregel_durability"
CONFIG_KEY_NODE_ERROR: Final = "__pregel_node_error"
CONFIG_KEY_NODE_FINISHED: Final = "__pregel_node_finished"
CONFIG_KEY_READ: Final = "__pregel_read"
CONFIG_KEY_READ_STATE: Final = "__pregel_read_state"
CONFIG_KEY_REPLAY_STATE: Final = "__pregel_replay_state"
CONFIG_KEY_RESUME_MAP: Final = "__pregel_resume_map"
CONFIG_KEY_RESUMING: Final = "__pregel_resuming"
CONFIG_KEY_RUNNER_SUBMIT: Final = "__pregel_runner_submit"
CONFIG_KEY_RUNTIME: Final = "__pregel_runtime"
CONFIG_KEY_SCRATCHPAD: Final = "__pregel_scratchpad"
CONFIG_KEY_SEND: Final = "__pregel_send"
CONFIG_KEY_STREAM: Final = "__pregel_stream"
CONFIG_KEY_STREAM_MESSAGES_V2: Final = "__pregel_stream_messages_v2"
CONFIG_KEY_STRICT_RESUME: Final = "__pregel_strict_resume"
CONFIG_KEY_TASK_ID: Final = "__pregel_task_id"
CONFIG_KEY_THREAD_ID: Final = "thread_id"
CONFIG_KEY_TIMED_ATTEMPT_OBSERVER: Final = "__pregel_timed_attempt_observer"
# Superstep's own (not LangGraph's): told of every attempt of a graph node's task, retried
# ones included (`superstep_compat.pregel._task_support.report_attempt`); the server sets it.
CONFIG_KEY_ATTEMPT_OBSERVER: Final = "__superstep_attempt_observer"
ERROR: Final = "__error__"
ERROR_SOURCE_NODE: Final = "__error_source_node__"
INPUT: Final = "__input__"
NO_WRITES: Final = "__no_writes__"
NULL_TASK_ID: Final = "00000000-0000-0000-0000-000000000000"
PREVIOUS: Final = "__previous__"
RESUME: Final = "__resume__"
RETURN: Final = "__return__"
SNAPSHOT_BUMPS: Final = "__snapshot_bumps__"

INTERRUPT: Final = "__interrupt__"
OVERWRITE: Final = "__overwrite__"
NS_SEP: Final = "|"
NS_END: Final = ":"
PULL: Final = "__pregel_pull"
PUSH: Final = "__pregel_push"

PRIVATE: Final[dict[str, str]] = {
    name: value
    for name, value in globals().items()
    if name.isupper() and isinstance(value, str) and name not in _PUBLIC
}
"""The private constants by name (`langgraph.constants` serves them with a deprecation
warning, as LangGraph does)."""

# Superstep's own (not LangGraph names).
ROOT_KEY: Final = "__root__"
RESERVED_NODE_CHARS: Final = (NS_END, NS_SEP)

PENDING_INTERRUPTS = "__interrupts_pending__"
"""Task memo key: how many interrupts the last run of a task raised (answered ones do not
raise), surfaced or not. A plain `Command(resume=...)` is ambiguous when it is more than one
(LangGraph raises and asks for interrupt ids)."""
