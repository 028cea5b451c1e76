"""`create_agent` with `ToolCallLimitMiddleware`: calls beyond the run limit are answered
with an error tool message (exit_behavior="continue"), end the run ("end") or raise
("error"); the thread limit counts across runs of the same thread. (A second run on the
thread, where the run count starts over, is e04.)"""

from typing import Any

from _agent_model import ScriptedModel, call, transcript
from langchain.agents import create_agent
from langchain.agents.middleware import ToolCallLimitMiddleware
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver


@tool
def search(q: str) -> str:
    """Search."""
    return f"results for {q}"


def _script() -> list[AIMessage]:
    return [
        AIMessage("", tool_calls=[call("search", {"q": "a"}, "c1")]),
        AIMessage("", tool_calls=[call("search", {"q": "b"}, "c2")]),
        AIMessage("", tool_calls=[call("search", {"q": "c"}, "c3")]),
        AIMessage("enough"),
    ]


def _limited(runs: int = 1, **limits: Any) -> dict[str, Any]:
    agent = create_agent(
        ScriptedModel(script=_script()),
        [search],
        middleware=[ToolCallLimitMiddleware(**limits)],
        checkpointer=InMemorySaver(),
    )
    config = {"configurable": {"thread_id": "t"}}
    results = []
    for q in ("first", "second")[:runs]:
        try:
            out = agent.invoke({"messages": [("user", q)]}, config)
            results.append(
                {
                    "messages": transcript(out["messages"]),
                    "counts": [out.get("thread_tool_call_count"), out.get("run_tool_call_count")],
                }
            )
        except Exception as e:
            results.append({"raised": type(e).__name__, "message": str(e)})
    return {"runs": results}


def run() -> dict[str, Any]:
    return {
        "run_limit_continue": _limited(run_limit=2),
        "run_limit_end": _limited(run_limit=1, exit_behavior="end"),
        "thread_limit": _limited(2, thread_limit=3, tool_name="search"),
        "error": _limited(run_limit=1, exit_behavior="error"),
    }
