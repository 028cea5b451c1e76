"""A StateGraph's ``output_schema`` / ``get_output_schema()`` and ``OutputType`` (what
LangServe and ``with_types`` read): LangGraph's Pregel builds a model of the output channels,
each optional (default None), whatever the state's kind (TypedDict, pydantic, MessagesState,
a separate output schema, create_react_agent's); ``OutputType`` is None then. A root state
(one value, no keys) keeps the value's type; input schemas for comparison."""

import operator
from typing import Annotated, Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.managed import RemainingSteps
from langgraph.prebuilt import create_react_agent
from pydantic import BaseModel
from typing_extensions import TypedDict


class Chat(MessagesState):
    summary: str


class TD(TypedDict):
    q: str
    items: Annotated[list[int], operator.add]
    steps_left: RemainingSteps


class PM(BaseModel):
    q: str
    n: int | None = None
    items: Annotated[list[int], operator.add] = []


class In(TypedDict):
    q: str


class Out(TypedDict):
    items: list[int]


def _graph(schema: Any, **kw: Any) -> Any:
    b = StateGraph(schema, **kw)
    b.add_node("a", lambda s: {})
    b.add_edge(START, "a")
    return b.compile(name="g")


def _schemas(graph: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for attr in ("input_schema", "output_schema"):
        try:
            model = getattr(graph, attr)
            schema = model.model_json_schema()
            out[attr] = {
                "name": model.__name__,
                "title": schema.get("title"),
                "ref": schema.get("$ref"),
                "properties": schema.get("properties"),
                "required": schema.get("required"),
                "defs": sorted(schema.get("$defs", {})),
            }
        except Exception as exc:  # what the schema's consumer would see
            out[attr] = {"raised": type(exc).__name__}
    out["output_type"] = repr(graph.OutputType)
    return out


class _Model(GenericFakeChatModel):
    """Just enough of a chat model for create_react_agent to build its graph."""

    def bind_tools(self, tools: Any, **kw: Any) -> Any:
        return self


def run() -> dict[str, Any]:
    graphs = {
        "messages": _graph(MessagesState),
        "chat_subclass": _graph(Chat),
        "typeddict": _graph(TD),
        "pydantic": _graph(PM),
        "input_output": _graph(TD, input_schema=In, output_schema=Out),
        "react_agent": create_react_agent(_Model(messages=iter([AIMessage("done")])), []),
    }
    result = {name: _schemas(g) for name, g in graphs.items()}
    result["config_output"] = _graph(TD).get_output_schema({"configurable": {}}).__name__
    root = StateGraph(int)
    root.add_node("double", lambda n: n * 2)
    root.add_edge(START, "double")
    result["root"] = _schemas(root.compile(name="r"))
    return result
