"""JSON schemas of dataclass, plain-class and root-value graphs (a model named after the
graph, defaults from the fields), and a graph bound by with_config: its copy runs, streams
and reads state under the bound config (a thread bound there is the thread get_state
reads), with tags and configurable values merged with the call's."""

import operator
from dataclasses import dataclass, field
from typing import Annotated, Optional

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


@dataclass
class D:
    a: int
    b: Annotated[list[str], operator.add] = field(default_factory=list)
    c: Optional[str] = None  # noqa: UP045 - the Optional spelling is what is being tested


class Plain:
    p: int
    q: Optional[str]  # noqa: UP045


def _schemas(schema: object, name: str) -> list[dict]:
    b = StateGraph(schema)
    b.add_node("n", lambda s: None)
    b.add_edge(START, "n")
    b.add_edge("n", END)
    g = b.compile(name=name)
    return [g.get_input_jsonschema(), g.get_output_jsonschema()]


def record(state: D, config: RunnableConfig) -> dict:
    conf = config["configurable"]
    return {"b": [f"{conf.get('who')}:{sorted(config.get('tags', []))}"]}


def run() -> dict:
    b = StateGraph(D)
    b.add_node("record", record)
    b.add_edge(START, "record")
    b.add_edge("record", END)
    graph = b.compile(checkpointer=InMemorySaver())
    bound = graph.with_config(configurable={"thread_id": "t", "who": "ann"}, tags=["bound"])
    again = bound.with_config({"tags": ["more"]}, configurable={"who": "bo"})
    return {
        "dataclass": _schemas(D, "my_graph"),
        "plain": _schemas(Plain, "Graph"),
        "root": _schemas(list[str], "rooted"),
        "types": [type(bound).__name__, type(again).__name__, bound is graph],
        "invoke": bound.invoke({"a": 1}),
        "stream": list(again.stream({"a": 2}, {"tags": ["call"]}, stream_mode="updates")),
        "state": bound.get_state({"configurable": {}}).values,
        "unbound": graph.get_state({"configurable": {"thread_id": "t"}}).values,
    }
