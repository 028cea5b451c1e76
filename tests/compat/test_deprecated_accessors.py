"""Deprecated LangGraph accessors keep LangGraph's behaviour and warn as LangGraph does."""

import pytest
from typing_extensions import TypedDict

from superstep_compat.graph import StateGraph
from superstep_compat.types import GraphOutput, Interrupt
from superstep_compat.warnings import LangGraphDeprecatedSinceV10, LangGraphDeprecatedSinceV11


class State(TypedDict):
    x: int


class Context(TypedDict):
    user: str


def test_graph_output_item_access_warns_and_reads_value_and_interrupts() -> None:
    out = GraphOutput({"x": 1}, (Interrupt("q", "id1"),))
    with pytest.warns(LangGraphDeprecatedSinceV11, match=r"result\[key\]"):
        assert out["x"] == 1
    with pytest.warns(LangGraphDeprecatedSinceV11):
        assert out["__interrupt__"] == (Interrupt("q", "id1"),)
    with pytest.warns(LangGraphDeprecatedSinceV11), pytest.raises(KeyError):
        out["y"]
    with pytest.warns(LangGraphDeprecatedSinceV11, match="key in result"):
        assert "x" in out and "__interrupt__" in out and "y" not in out
    with pytest.warns(LangGraphDeprecatedSinceV11):
        assert "__interrupt__" not in GraphOutput(State(x=1))


def test_config_schema_is_deprecated_and_wraps_the_context_schema() -> None:
    builder = StateGraph(State, context_schema=Context)
    builder.add_node("a", lambda s: {"x": 1})
    builder.set_entry_point("a")
    graph = builder.compile()
    with pytest.warns(LangGraphDeprecatedSinceV10, match="get_context_jsonschema"):
        model = graph.config_schema(include=["tags", "configurable"])
    assert set(model.model_fields) == {"configurable", "tags"}
    assert model.__name__ == "LangGraphConfig"
    with pytest.warns(LangGraphDeprecatedSinceV10, match="get_config_jsonschema"):
        schema = graph.get_config_jsonschema()
    assert set(schema["properties"]) == {"configurable"}
