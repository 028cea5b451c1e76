"""RemainingSteps and IsLastStep decide when a loop stops, for several recursion limits."""

import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.managed import IsLastStep, RemainingSteps


class State(TypedDict):
    log: Annotated[list[str], operator.add]
    remaining_steps: RemainingSteps
    is_last_step: IsLastStep


def work(state: State) -> dict:
    return {"log": [f"{state['remaining_steps']}:{state['is_last_step']}"]}


def route(state: State) -> str:
    return END if state["remaining_steps"] <= 2 else "work"


def run() -> dict:
    b = StateGraph(State)
    b.add_node("work", work)
    b.add_edge(START, "work")
    b.add_conditional_edges("work", route)
    graph = b.compile()
    out = {limit: graph.invoke({"log": []}, {"recursion_limit": limit}) for limit in (3, 4, 7)}
    streamed = list(graph.stream({"log": []}, {"recursion_limit": 5}, stream_mode="values"))
    return {"by_limit": out, "streamed": streamed}
