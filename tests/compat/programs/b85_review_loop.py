"""A review loop as people write it: one node asks in a while-loop until the answer is
"ok" (several interrupts in one node, each resumed), a retried flaky call before the first
question, Command(resume=..., update=...) on the last answer, and the updates stream and
history; then the same loop asked through a subgraph."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, RetryPolicy, interrupt

TRIES: list[int] = []


class Flaky(Exception):
    pass


class S(TypedDict):
    drafts: Annotated[list[str], operator.add]
    reviewer: str


def review(s: S) -> dict[str, Any]:
    TRIES.append(1)
    if len(TRIES) == 1:
        raise Flaky("flaky service")  # (OSErrors are not retried by default)
    drafts = []
    answer = interrupt({"draft": 0, "reviewer": s.get("reviewer", "")})
    while answer != "ok":
        drafts.append(answer)
        answer = interrupt({"draft": len(drafts), "last": answer})
    return {"drafts": drafts}


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for nested in (False, True):
        TRIES.clear()
        inner = StateGraph(S)
        inner.add_node("review", review, retry_policy=RetryPolicy(initial_interval=0, jitter=False))
        inner.add_edge(START, "review")
        if nested:
            g = StateGraph(S)
            g.add_node("reviewing", inner.compile())
            g.add_edge(START, "reviewing")
            app = g.compile(checkpointer=InMemorySaver())
        else:
            app = inner.compile(checkpointer=InMemorySaver())
        cfg = {"configurable": {"thread_id": "t"}}
        steps = [list(app.stream({"drafts": [], "reviewer": "ann"}, cfg, stream_mode="updates"))]
        for answer in ("v1", "v2"):
            steps.append(list(app.stream(Command(resume=answer), cfg, stream_mode="updates")))
        steps.append(
            list(
                app.stream(
                    Command(resume="ok", update={"reviewer": "bob"}), cfg, stream_mode="updates"
                )
            )
        )
        key = "nested" if nested else "flat"
        out[key] = steps
        out[key + "_tries"] = len(TRIES)
        out[key + "_state"] = app.get_state(cfg).values
        out[key + "_history"] = [
            (h.metadata["step"], h.metadata["source"], list(h.next))
            for h in app.get_state_history(cfg)
        ]
    return out
