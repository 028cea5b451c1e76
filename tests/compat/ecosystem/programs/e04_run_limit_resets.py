"""`ToolCallLimitMiddleware`'s run limit counts one run: a second run on the same thread
starts from zero (LangGraph does not carry the run counter's channel across runs)."""

from typing import Any

from e03_tool_call_limit import _limited


def run() -> dict[str, Any]:
    return {
        "end": _limited(2, run_limit=1, exit_behavior="end"),
        "error": _limited(2, run_limit=1, exit_behavior="error"),
    }
