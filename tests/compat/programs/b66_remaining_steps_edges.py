"""RemainingSteps and recursion_limit at their edges: a loop that stops itself when few steps
remain (limits 1..6), the same loop inside a subgraph (the subgraph's own count), a limit hit
inside a subgraph, a limit hit after an interrupt is answered, and IsLastStep."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, StateGraph
from langgraph.managed import IsLastStep, RemainingSteps
from langgraph.types import Command, interrupt


class S(TypedDict):
    log: Annotated[list[str], operator.add]
    remaining: RemainingSteps
    last: IsLastStep


def work(s):
    return {"log": [f"w{s['remaining']}{'L' if s['last'] else ''}"]}


def decide(s):
    return END if s["remaining"] <= 2 else "work"


def loop_forever(s):
    return "work"


def build(router, interrupting=False):
    g = StateGraph(S)
    if interrupting:

        def gate(s):
            return {"log": [f"gate:{interrupt('go?')}:{s['remaining']}"]}

        g.add_node("gate", gate)
        g.add_edge(START, "gate")
        g.add_edge("gate", "work")
    else:
        g.add_edge(START, "work")
    g.add_node("work", work)
    g.add_conditional_edges("work", router, ["work", END])
    return g


def attempt(fn):
    try:
        return fn()
    except GraphRecursionError as e:
        return ["GraphRecursionError", str(e).split(".")[0]]
    except Exception as e:
        return [type(e).__name__]


def run():
    out = {}
    app = build(decide).compile()
    for limit in range(1, 7):
        out[f"self_stop_{limit}"] = attempt(
            lambda limit=limit: app.invoke({"log": []}, {"recursion_limit": limit})
        )
    out["forever"] = attempt(
        lambda: build(loop_forever).compile().invoke({"log": []}, {"recursion_limit": 4})
    )

    # the loop in a subgraph
    parent = StateGraph(S)
    parent.add_node("pre", lambda s: {"log": [f"pre{s['remaining']}"]})
    parent.add_node("sub", build(decide).compile())
    parent.add_edge(START, "pre")
    parent.add_edge("pre", "sub")
    papp = parent.compile()
    out["in_sub"] = attempt(lambda: papp.invoke({"log": []}, {"recursion_limit": 8}))
    parent2 = StateGraph(S)
    parent2.add_node("sub", build(loop_forever).compile())
    parent2.add_edge(START, "sub")
    out["sub_forever"] = attempt(
        lambda: parent2.compile().invoke({"log": []}, {"recursion_limit": 5})
    )

    # a limit after an answered interrupt: the step count goes on from the checkpoint
    iapp = build(decide, interrupting=True).compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "i"}, "recursion_limit": 6}
    out["i_first"] = attempt(lambda: iapp.invoke({"log": []}, cfg))
    out["i_resumed"] = attempt(lambda: iapp.invoke(Command(resume="yes"), cfg))
    fapp = build(loop_forever, interrupting=True).compile(checkpointer=InMemorySaver())
    cfg2 = {"configurable": {"thread_id": "f"}, "recursion_limit": 5}
    out["f_first"] = attempt(lambda: fapp.invoke({"log": []}, cfg2))
    out["f_resumed"] = attempt(lambda: fapp.invoke(Command(resume="go"), cfg2))
    st = fapp.get_state(cfg2)
    out["f_state"] = [st.values["log"], list(st.next), st.metadata["step"]]
    return out
