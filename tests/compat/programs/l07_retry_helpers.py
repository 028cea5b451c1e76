"""``langgraph.pregel._retry``'s helpers: `_checkpoint_ns_for_parent_command` (the parent's
namespace, numeric segments dropped with their frame) and `_ensure_execution_info` (a
runtime without execution info gets one from the task's config; one that has it is kept)."""

from types import SimpleNamespace

from langgraph.pregel._retry import _checkpoint_ns_for_parent_command, _ensure_execution_info
from langgraph.runtime import DEFAULT_RUNTIME, ExecutionInfo


def _info(runtime: object) -> object:
    info = runtime.execution_info  # type: ignore[attr-defined]
    fields = ("checkpoint_id", "checkpoint_ns", "task_id", "thread_id", "run_id", "node_attempt")
    return {f: getattr(info, f) for f in fields}


def run() -> dict:
    namespaces = ["", "node:1", "a:1|b:2", "a:1|1|b:2", "a:1|1|b:2|1", "p:1|1|c:1|1|n:1|1", "7"]
    task = SimpleNamespace(id="fallback")
    kept = DEFAULT_RUNTIME.override(execution_info=ExecutionInfo("cp", "ns", "t"))
    bare = DEFAULT_RUNTIME.override(execution_info=None)
    full = {
        "run_id": 42,
        "configurable": {
            "checkpoint_id": "cp-1",
            "checkpoint_ns": "n:1",
            "__pregel_task_id": "t-1",
            "thread_id": "th",
        },
    }
    return {
        "parent_ns": {ns: _checkpoint_ns_for_parent_command(ns) for ns in namespaces},
        "kept": _ensure_execution_info(kept, {"configurable": {}}, task) is kept,
        "from_config": _info(_ensure_execution_info(bare, full, task)),
        "fallback": _info(_ensure_execution_info(bare, {"configurable": {}}, task)),
        "no_configurable": _info(_ensure_execution_info(bare, {}, task)),
    }
