"""A subgraph paused by its own ``interrupt_before`` stops its parent's task with no
interrupt value, and LangGraph's runner then saves no ``__interrupt__`` write for that task
(it saves one only for a non-empty list of interrupts). The façade handed the saver
``("__interrupt__", [])`` for it; a saver that cannot store some value (aiomysql's on
langgraph-checkpoint-mysql writes bytes through a broken escape) then failed the run
(langgraph-checkpoint-mysql's langgraph-tests, test_nested_graph_state with aiomysql and
durability "exit"). An ``interrupt()`` inside the subgraph still saves its interrupt, on
both sides."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import StateGraph
from langgraph.types import interrupt


class Spy(InMemorySaver):
    """Notes the channels of every write saved to the root graph's checkpoints."""

    def __init__(self) -> None:
        super().__init__()
        self.root_writes: list[list[str]] = []

    def put_writes(self, config, writes, task_id, task_path=""):
        if not config["configurable"].get("checkpoint_ns"):
            self.root_writes.append([channel for channel, _ in writes])
        return super().put_writes(config, writes, task_id, task_path)


class Inner(TypedDict):
    my_key: str


class Outer(TypedDict):
    my_key: str


def build(saver, ask):
    def inner_1(state):
        return {"my_key": state["my_key"] + " here"}

    def inner_2(state):
        answer = interrupt("go?") if ask else "no question"
        return {"my_key": f"{state['my_key']} and there ({answer})"}

    inner = StateGraph(Inner)
    inner.add_node("inner_1", inner_1)
    inner.add_node("inner_2", inner_2)
    inner.add_edge("inner_1", "inner_2")
    inner.set_entry_point("inner_1")
    inner.set_finish_point("inner_2")
    graph = StateGraph(Outer)
    graph.add_node("outer_1", lambda s: {"my_key": "hi " + s["my_key"]})
    graph.add_node("inner", inner.compile(interrupt_before=[] if ask else ["inner_2"]))
    graph.add_node("outer_2", lambda s: {"my_key": s["my_key"] + " and back again"})
    graph.set_entry_point("outer_1")
    graph.add_edge("outer_1", "inner")
    graph.add_edge("inner", "outer_2")
    graph.set_finish_point("outer_2")
    return graph.compile(checkpointer=saver)


def case(durability, ask):
    from langgraph.types import Command

    saver = Spy()
    app = build(saver, ask)
    config = {"configurable": {"thread_id": "1"}}
    first = app.invoke({"my_key": "my value"}, config, durability=durability)
    paused = app.get_state(config)
    resume = Command(resume="yes") if ask else None
    last = app.invoke(resume, config, durability=durability)
    return {
        "first": first,
        "paused_next": list(paused.next),
        "paused_interrupts": [i.value for i in paused.interrupts],
        "last": last,
        "interrupt_writes": [w for w in saver.root_writes if "__interrupt__" in w],
    }


def run():
    return {
        f"{durability}-{'interrupt' if ask else 'interrupt_before'}": case(durability, ask)
        for durability in ("sync", "exit")
        for ask in (False, True)
    }
