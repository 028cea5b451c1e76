"""A `Command` as the first input of an `@entrypoint` thread: LangGraph has nothing to
resume, so the Command itself is the function's input (its update and goto name no
channel of the entrypoint and are dropped): the call returns, the thread's history has
the input checkpoint (step -1) and the loop's (step 0), and ``stream`` shows the usual
chunks. A resume on a new thread is no error then; without a checkpointer a resume still
is (LangGraph's `RuntimeError`), an update is not. The thread goes on as any other: a
later call that interrupts is answered by a later resume."""

import asyncio
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint
from langgraph.types import Command, interrupt


def _guard(call: Any) -> Any:
    try:
        return call()
    except Exception as e:
        return ["raised", type(e).__name__]


def run() -> dict:
    out: dict[str, Any] = {}
    saver = InMemorySaver()

    @entrypoint(checkpointer=saver)
    def echo(x: Any) -> Any:
        if x == "ask":
            return {"answer": interrupt("question")}
        return {"got": repr(x)}

    commands = {
        "resume": Command(resume=1),
        "update": Command(update={"a": 1}),
        "goto": Command(goto="x"),
        "resume_update": Command(resume=2, update={"a": 1}),
    }
    for label, command in commands.items():
        cfg = {"configurable": {"thread_id": label}}
        out[label] = _guard(lambda c=command, k=cfg: echo.invoke(c, k))
        out[label + "_history"] = [
            (s.metadata["step"], s.metadata["source"], s.values, s.next)
            for s in echo.get_state_history(cfg)
        ]
        streamed = {"configurable": {"thread_id": label + "_stream"}}
        out[label + "_stream"] = _guard(
            lambda c=command, k=streamed: list(echo.stream(c, k, stream_mode=["updates", "values"]))
        )

    async def in_async() -> Any:
        return await echo.ainvoke(Command(resume=3), {"configurable": {"thread_id": "async"}})

    out["async"] = asyncio.run(in_async())
    cfg = {"configurable": {"thread_id": "resume"}}  # a thread a Command began
    out["then_ask"] = echo.invoke("ask", cfg)
    out["then_answer"] = echo.invoke(Command(resume="yes"), cfg)

    @entrypoint()
    def plain(x: Any) -> Any:
        return {"got": repr(x)}

    out["no_saver_resume"] = _guard(lambda: plain.invoke(Command(resume=5)))
    out["no_saver_update"] = _guard(lambda: plain.invoke(Command(update={"a": 1})))
    return out
