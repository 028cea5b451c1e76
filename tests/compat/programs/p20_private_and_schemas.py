"""Private channels between nodes (a node's input schema naming keys absent from the
state), input/output schemas, and a node writing a key only the output schema has."""

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class In(TypedDict):
    question: str


class Out(TypedDict):
    answer: str


class Overall(TypedDict):
    question: str
    answer: str
    notes: str


class Private(TypedDict):
    scratch: str


def think(state: In) -> Private:
    return {"scratch": f"thinking about {state['question']}"}


def note(state: Private) -> dict:
    return {"notes": state["scratch"].upper()}


def answer(state: Overall) -> dict:
    return {"answer": f"{state['question']} -> {state['notes']}"}


def run() -> dict:
    b = StateGraph(Overall, input_schema=In, output_schema=Out)
    b.add_node("think", think)
    b.add_node("note", note)
    b.add_node("answer", answer)
    b.add_edge(START, "think")
    b.add_edge("think", "note")
    b.add_edge("note", "answer")
    b.add_edge("answer", END)
    graph = b.compile()
    final = graph.invoke({"question": "why", "notes": "ignored?"})
    updates = list(graph.stream({"question": "how"}, stream_mode="updates"))
    values = list(graph.stream({"question": "what"}, stream_mode="values"))
    return {
        "final": final,
        "updates": updates,
        "values": values,
        "input_keys": sorted(graph.get_input_jsonschema()["properties"]),
        "output_keys": sorted(graph.get_output_jsonschema()["properties"]),
        "with_config_type": type(graph.with_config(tags=["t"])).__name__,
    }
