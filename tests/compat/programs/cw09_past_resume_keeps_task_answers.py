"""The ``__resume__`` writes kept when a paused step is resumed again at its checkpoint
after the thread went past it (time travel with ``Command(resume=...)``): the task there
finished after its answers, so it runs again with them and its interrupts take those; the
new answer is kept for no task (``NULL_TASK_ID``) and never written into the task's list,
which LangGraph writes only as an interrupt takes an answer. A node asking twice and one
asking three times; every checkpoint's ``__resume__`` writes (task or no task) and the
results (interrupt and task ids differ per run: left out)."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"


class State(TypedDict):
    log: Annotated[list, operator.add]


def _asking(times: int, ran: list) -> Any:
    def node(state: State) -> dict:
        ran.append("ask")
        return {"log": [interrupt(f"q{k}?") for k in range(times)]}

    return node


def _resumes(saver: InMemorySaver, cfg: dict) -> list:
    return [
        [
            tup.metadata["step"],
            sorted(
                ("none" if task_id == NULL_TASK_ID else "task", value)
                for task_id, channel, value in tup.pending_writes or []
                if channel == "__resume__"
            ),
        ]
        for tup in saver.list(cfg)
    ]


def _case(times: int) -> dict:
    ran: list = []
    b = StateGraph(State)
    b.add_node("start", lambda s: {"log": ["start"]})
    b.add_node("ask", _asking(times, ran))
    b.add_edge(START, "start")
    b.add_edge("start", "ask")
    b.add_edge("ask", END)
    saver = InMemorySaver()
    g = b.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "t"}}
    g.invoke({"log": []}, cfg)
    paused = g.get_state(cfg).config
    out: dict = {"answers": []}
    for answer in range(5, 5 + times):
        out["answers"].append(g.invoke(Command(resume=answer), cfg)["log"])
    out["before"] = _resumes(saver, cfg)
    again = g.invoke(Command(resume="late"), paused)
    out["again"] = [again["log"], [i.value for i in again.get("__interrupt__", [])]]
    out["after"] = _resumes(saver, cfg)
    out["state"] = g.get_state(cfg).values
    out["ran"] = len(ran)
    return out


def run() -> dict[str, Any]:
    return {"twice": _case(2), "three_times": _case(3)}
