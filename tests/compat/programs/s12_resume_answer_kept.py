"""An answer to an interrupt is saved before the answered task runs: when that run fails
(or its process dies), continuing the thread with None uses the answer instead of asking
again. A node with two interrupts, an entrypoint and a task inside one."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    ans: str


def graph_case() -> dict:
    broken = {"now": True}

    def ask(state: State) -> dict:
        first = interrupt("first?")
        second = interrupt("second?")
        if broken["now"]:
            raise RuntimeError("failed after the answers")
        return {"ans": f"{first}+{second}"}

    b = StateGraph(State)
    b.add_node("ask", ask)
    b.add_edge(START, "ask")
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "g"}}
    out = [graph.invoke({"ans": ""}, cfg)["__interrupt__"][0].value]
    out.append(graph.invoke(Command(resume="one"), cfg)["__interrupt__"][0].value)
    try:
        graph.invoke(Command(resume="two"), cfg)
    except RuntimeError as e:
        out.append(str(e))
    broken["now"] = False
    out.append(graph.invoke(None, cfg))
    return {"steps": out}


def functional_case() -> dict:
    broken = {"now": True}

    @task
    def ask(q: str) -> str:
        return str(interrupt(q))

    @entrypoint(checkpointer=InMemorySaver())
    def wf(x: str) -> str:
        answer = ask("sure?").result()
        if broken["now"]:
            raise RuntimeError("failed after the answer")
        return f"{x}:{answer}"

    cfg = {"configurable": {"thread_id": "f"}}
    out = [wf.invoke("go", cfg)["__interrupt__"][0].value]
    try:
        wf.invoke(Command(resume="yes"), cfg)
    except RuntimeError as e:
        out.append(str(e))
    broken["now"] = False
    out.append(wf.invoke(None, cfg))
    return {"steps": out}


def run() -> dict:
    return {"graph": graph_case(), "functional": functional_case()}
