"""`create_agent` with middleware written by the user: a custom state field counted in
before_model, an after_model that jumps to the end on a banned word, a wrap_model_call that
rewrites the request's system prompt, a wrap_tool_call that retries once then turns an error
into a tool message, a dynamic prompt reading the context, before/after_agent hooks, and
ModelCallLimitMiddleware; streamed in updates and messages modes, with a checkpointer."""

from dataclasses import dataclass
from typing import Any, NotRequired

from _agent_model import ScriptedModel, call, transcript
from langchain.agents import create_agent
from langchain.agents.middleware import (
    AgentState,
    ModelCallLimitMiddleware,
    after_agent,
    after_model,
    before_agent,
    before_model,
    dynamic_prompt,
    wrap_model_call,
    wrap_tool_call,
)
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

CALLS: list[str] = []


@dataclass
class Ctx:
    tone: str


class Counted(AgentState):
    model_turns: NotRequired[int]
    notes: NotRequired[list[str]]


@before_agent(state_schema=Counted)
def start(state: Counted, runtime: Any) -> dict[str, Any]:
    return {"notes": ["start"], "model_turns": 0}


@before_model(state_schema=Counted)
def count(state: Counted, runtime: Any) -> dict[str, Any]:
    return {"model_turns": state.get("model_turns", 0) + 1}


@after_model(can_jump_to=["end"])
def banned(state: AgentState, runtime: Any) -> dict[str, Any] | None:
    last = state["messages"][-1]
    if "forbidden" in str(last.content):
        return {"jump_to": "end", "messages": [AIMessage("[redacted]", id=last.id)]}
    return None


@after_agent(state_schema=Counted)
def finish(state: Counted, runtime: Any) -> dict[str, Any]:
    return {"notes": [*state.get("notes", []), f"finish:{state.get('model_turns')}"]}


@dynamic_prompt
def prompt(request: Any) -> str:
    tone = request.runtime.context.tone if request.runtime.context else "plain"
    return f"be {tone}"


@wrap_model_call
def tag_prompt(request: Any, handler: Any) -> Any:
    CALLS.append(f"model:{request.system_prompt}:{len(request.messages)}")
    return handler(request.override(system_prompt=f"{request.system_prompt}!"))


@wrap_tool_call
def retry_once(request: Any, handler: Any) -> Any:
    name = request.tool_call["name"]
    for attempt in (1, 2):
        try:
            CALLS.append(f"tool:{name}:{attempt}")
            return handler(request)
        except ValueError as e:
            last = e
    return ToolMessage(content=f"failed: {last}", tool_call_id=request.tool_call["id"])


FLAKY = {"n": 0}


@tool
def flaky(x: int) -> str:
    """Fails on its first call."""
    FLAKY["n"] += 1
    if FLAKY["n"] == 1:
        raise ValueError("first")
    return f"flaky {x}"


@tool
def broken(x: int) -> str:
    """Always fails."""
    raise ValueError("always")


def _agent(script: list[AIMessage], limit: int | None = None) -> Any:
    middleware: list[Any] = [start, count, banned, finish, prompt, tag_prompt, retry_once]
    if limit is not None:
        middleware.append(ModelCallLimitMiddleware(run_limit=limit, exit_behavior="end"))
    return create_agent(
        ScriptedModel(script=script),
        [flaky, broken],
        middleware=middleware,
        context_schema=Ctx,
        checkpointer=InMemorySaver(),
    )


def _stream(agent: Any, text: str, thread: str, ctx: Ctx | None) -> list[Any]:
    out: list[Any] = []
    config = {"configurable": {"thread_id": thread}}
    for mode, data in agent.stream(
        {"messages": [("user", text)]}, config, context=ctx, stream_mode=["updates", "messages"]
    ):
        if mode == "messages":
            msg, meta = data
            out.append([mode, msg.type, msg.content, meta["langgraph_node"]])
        else:
            out.append([mode, sorted(data)])
    state = agent.get_state(config)
    values = state.values
    out.append(
        {
            "messages": transcript(values["messages"]),
            "turns": values.get("model_turns"),
            "notes": values.get("notes"),
            "next": list(state.next),
        }
    )
    return out


def run() -> dict[str, Any]:
    tools_then_answer = [
        AIMessage("", tool_calls=[call("flaky", {"x": 1}, "c1")]),  # one at a time: the
        AIMessage("", tool_calls=[call("broken", {"x": 2}, "c2")]),  # tools' threads race
        AIMessage("all done"),
    ]
    out: dict[str, Any] = {}
    out["tools"] = _stream(_agent(tools_then_answer), "go", "t", Ctx(tone="kind"))
    out["calls"] = sorted(CALLS)
    CALLS.clear()
    out["banned"] = _stream(_agent([AIMessage("a forbidden word")]), "hi", "b", None)
    CALLS.clear()
    looping = [AIMessage("", tool_calls=[call("flaky", {"x": 3}, "c3")])]
    out["limited"] = _stream(_agent(looping, limit=2), "loop", "l", Ctx(tone="brief"))
    out["limited_calls"] = sorted(CALLS)
    return out
