"""with_config: a bound recursion_limit, configurable values read by nodes (through the
config parameter and get_config), tags/metadata merged with per-call config."""

from typing import TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config
from langgraph.errors import GraphRecursionError
from langgraph.graph import START, StateGraph


class State(TypedDict):
    n: int
    who: str


def step(state: State, config: RunnableConfig) -> dict:
    conf = config["configurable"]
    return {"n": state["n"] + conf.get("inc", 1), "who": f"{conf.get('user')}"}


def tagger(state: State) -> dict:
    config = get_config()
    return {"who": state["who"] + f"|{sorted(config.get('tags', []))}"}


def run() -> dict:
    b = StateGraph(State)
    b.add_node("step", step)
    b.add_node("tagger", tagger)
    b.add_edge(START, "step")
    b.add_conditional_edges("step", lambda s: "step" if s["n"] < 6 else "tagger")
    graph = b.compile()
    bound = graph.with_config(configurable={"user": "ann", "inc": 2}, tags=["bound"])
    out = {
        "bound": bound.invoke({"n": 0, "who": ""}),
        "override": bound.invoke({"n": 0, "who": ""}, {"configurable": {"inc": 3}, "tags": ["x"]}),
        "default": graph.invoke({"n": 0, "who": ""}),
    }
    limited = graph.with_config(recursion_limit=2)
    try:
        out["limited"] = limited.invoke({"n": 0, "who": ""})
    except GraphRecursionError:
        out["limited"] = "GraphRecursionError"
    out["limited_override"] = limited.invoke({"n": 0, "who": ""}, {"recursion_limit": 10})
    return out
