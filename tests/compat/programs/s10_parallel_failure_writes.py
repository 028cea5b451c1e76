"""p19's mechanism, with the pending writes themselves: when a task of a parallel step fails,
the task that finished keeps its writes as pending writes of the step's checkpoint (under
the task id get_state shows), the live state shows them and the state as the step started
does not, and continuing runs only the failed task, then the finished task's conditional
edge. The failing node waits for its sibling's write to be saved, as in p19 (LangGraph saves
it from a background thread and a failure that overtakes it loses it). The façade's async
and Send variants are in test_state_and_resume_cases.py."""

import operator
import threading
import time
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

CFG = {"configurable": {"thread_id": "t"}}


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def run() -> dict:
    saver = InMemorySaver()
    broken, calls, good_done = {"on": True}, [], threading.Event()

    def wait_for_sibling() -> None:
        good_done.wait(10)
        if type(saver).__module__.startswith("superstep_compat"):
            return
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            found = saver.get_tuple(CFG)
            if found and any(ch == "log" for _, ch, _ in found.pending_writes or ()):
                return
            time.sleep(0.001)

    def good(s: State) -> dict:
        calls.append("good")
        good_done.set()
        return {"log": ["good"]}

    def bad(s: State) -> dict:
        calls.append("bad")
        if broken["on"]:
            wait_for_sibling()
            raise RuntimeError("boom")
        return {"log": ["bad"]}

    b = StateGraph(State)
    b.add_node("good", good)
    b.add_node("bad", bad)
    b.add_node("next", lambda s: {"log": ["next"]})
    b.add_edge(START, "good")
    b.add_edge(START, "bad")
    b.add_conditional_edges("good", lambda s: "next")
    graph = b.compile(checkpointer=saver)
    try:
        graph.invoke({"log": []}, CFG)
    except RuntimeError as e:
        error = str(e)
    live = graph.get_state(CFG)
    names = {t.id: t.name for t in live.tasks}
    writes = saver.get_tuple(CFG).pending_writes
    kept = sorted(
        [names.get(tid, "?"), ch, v] for tid, ch, v in writes if ch in ("log", "__error__")
    )
    failed = {"live": live, "record": graph.get_state(live.config), "writes": kept}
    ran = len(calls)
    broken["on"] = False
    result = graph.invoke(None, CFG)
    return {
        "error": error,
        "failed": failed,
        "first_calls": sorted(calls[:ran]),
        "rerun": calls[ran:],
        "result": result,
        "steps": [h.metadata["step"] for h in graph.get_state_history(CFG)],
    }
