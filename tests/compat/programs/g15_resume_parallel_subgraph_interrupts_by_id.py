"""Two `Send` tasks each run a subgraph whose two parallel nodes interrupt; the thread is
resumed one interrupt at a time with ``Command(resume={id: value})``. As LangGraph hands the
resume map down to the subgraphs, each subgraph's node takes the answer named by its own
interrupt id, the other subgraph's interrupts stay pending, and the run asks five times.
(The order of one subgraph's interrupts in a chunk and of its writes is not compared.)"""

import operator
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt
from typing_extensions import TypedDict


class Child(TypedDict):
    prompt: str
    answers: Annotated[list, operator.add]


class Parent(TypedDict):
    prompts: list
    answers: Annotated[list, operator.add]


def _asker(tag: str):
    def ask(state: Child) -> dict:
        return {"answers": [interrupt(state["prompt"] + tag)]}

    return ask


def run() -> dict:
    child = StateGraph(Child)
    child.add_node("human", _asker("-human"))
    child.add_node("dolphin", _asker("-dolphin"))
    child.add_edge(START, "human")
    child.add_edge(START, "dolphin")
    parent = StateGraph(Parent)
    parent.add_node("child", child.compile())
    parent.add_node("done", lambda state: {"answers": [f"done:{len(state['answers'])}"]})
    parent.add_conditional_edges(
        START, lambda s: [Send("child", {"prompt": p}) for p in s["prompts"]], ["child"]
    )
    parent.add_edge("child", "done")
    graph = parent.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    rounds = []
    payload: object = {"prompts": ["a", "b"], "answers": []}
    for _ in range(8):
        pending = []
        updates = []
        for chunk in graph.stream(payload, config, stream_mode="updates"):
            if "__interrupt__" in chunk:
                pending.extend(chunk["__interrupt__"])
            else:
                updates.append(sorted(chunk))
        rounds.append({"asked": sorted(i.value for i in pending), "updates": updates})
        if not pending:
            break
        first = min(pending, key=lambda i: i.value)
        payload = Command(resume={first.id: "ans:" + first.value})
    final = graph.get_state(config)
    return {
        "rounds": rounds,
        "answers": sorted(final.values["answers"]),
        "next": list(final.next),
    }
