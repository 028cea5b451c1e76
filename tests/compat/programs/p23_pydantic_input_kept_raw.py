"""Pydantic state whose validator rewrites a field: LangGraph validates the graph input but
stores the values as given, so nodes see the validated value and the output the raw one."""

from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, field_validator


class State(BaseModel):
    name: str
    seen: str = ""

    @field_validator("name")
    @classmethod
    def strip_name(cls, v: str) -> str:
        return v.strip()


def look(state: State) -> dict:
    return {"seen": f"[{state.name}]"}


def run() -> dict:
    b = StateGraph(State)
    b.add_node("look", look)
    b.add_edge(START, "look")
    b.add_edge("look", END)
    graph = b.compile()
    return {
        "invoke": graph.invoke({"name": "  Ada "}),
        "model_input": graph.invoke(State(name=" Bo")),
    }
