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

PRIVATE: Final[dict[str, str]] = {
    "CACHE_NS_WRITES": "__pregel_ns_writes",
    "CONFIG_KEY_CACHE": "__pregel_cache",
    "CONFIG_KEY_CALL": "__pregel_call",
    "CONFIG_KEY_CHECKPOINT_ID": "checkpoint_id",
    "CONFIG_KEY_CHECKPOINT_MAP": "checkpoint_map",
    "CONFIG_KEY_CHECKPOINT_NS": "checkpoint_ns",
    "CONFIG_KEY_DURABILITY": "__pregel_durability",
    "CONFIG_KEY_NODE_ERROR": "__pregel_node_error",
    "CONFIG_KEY_NODE_FINISHED": "__pregel_node_finished",
    "CONFIG_KEY_READ": "__pregel_read",
    "CONFIG_KEY_READ_STATE": "__pregel_read_state",
    "CONFIG_KEY_REPLAY_STATE": "__pregel_replay_state",
    "CONFIG_KEY_RESUME_MAP": "__pregel_resume_map",
    "CONFIG_KEY_RESUMING": "__pregel_resuming",
    "CONFIG_KEY_RUNNER_SUBMIT": "__pregel_runner_submit",
    "CONFIG_KEY_RUNTIME": "__pregel_runtime",
    "CONFIG_KEY_SCRATCHPAD": "__pregel_scratchpad",
    "CONFIG_KEY_SEND": "__pregel_send",
    "CONFIG_KEY_STREAM": "__pregel_stream",
    "CONFIG_KEY_STREAM_MESSAGES_V2": "__pregel_stream_messages_v2",
    "CONFIG_KEY_STRICT_RESUME": "__pregel_strict_resume",
    "CONFIG_KEY_TASK_ID": "__pregel_task_id",
    "CONFIG_KEY_THREAD_ID": "thread_id",
    "CONFIG_KEY_TIMED_ATTEMPT_OBSERVER": "__pregel_timed_attempt_observer",
    "ERROR": "__error__",
    "ERROR_SOURCE_NODE": "__error_source_node__",
    "INPUT": "__input__",
    "INTERRUPT": "__interrupt__",
    "NO_WRITES": "__no_writes__",
    "NS_END": ":",
    "NS_SEP": "|",
    "NULL_TASK_ID": "00000000-0000-0000-0000-000000000000",
    "OVERWRITE": "__overwrite__",
    "PREVIOUS": "__previous__",
    "PULL": "__pregel_pull",
    "PUSH": "__pregel_push",
    "RESUME": "__resume__",
    "RETURN": "__return__",
    "SNAPSHOT_BUMPS": "__snapshot_bumps__",
}

INTERRUPT: Final = "__interrupt__"
OVERWRITE: Final = "__overwrite__"
NS_SEP: Final = "|"
NS_END: Final = ":"
PULL: Final = "__pregel_pull"
PUSH: Final = "__pregel_push"
ROOT_KEY: Final = "__root__"
RESERVED_NODE_CHARS: Final = (NS_END, NS_SEP)

PENDING_INTERRUPTS = "__interrupts_pending__"
"""Task memo key: how many interrupts the last run of a task raised (answered ones do not
raise), surfaced or not. A plain `Command(resume=...)` is ambiguous when it is more than one
(LangGraph raises and asks for interrupt ids)."""
