"""Case 17: on a continued thread the recursion budget counts from the step after its
checkpoint, so GraphRecursionError stops at the same step as LangGraph's."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from langgraph.graph import START, StateGraph
from langgraph.managed import RemainingSteps


class State(TypedDict):
    n: int
    left: list[int]
    remaining: RemainingSteps


def inc(s: State) -> dict:
    return {"n": s["n"] + 1, "left": [*s.get("left", []), s["remaining"]]}


def run() -> dict:
    g = StateGraph(State)
    g.add_node("inc", inc)
    g.add_edge(START, "inc")
    g.add_edge("inc", "inc")
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}, "recursion_limit": 3}
    seen = []
    for attempt in range(3):
        try:
            app.invoke({"n": 0, "left": []} if attempt == 0 else None, cfg)
        except GraphRecursionError:
            st = app.get_state(cfg)
            seen.append([st.values["n"], st.values["left"], st.metadata["step"]])
    return {"seen": seen}
