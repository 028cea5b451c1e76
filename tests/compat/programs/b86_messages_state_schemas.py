"""MessagesState and the prebuilt AgentState are TypedDicts pydantic can model (LangGraph's
come from typing_extensions): the ``input_schema`` that LangServe, ``as_tool`` and
``with_types`` read, of a MessagesState graph, a state subclassing it and
create_react_agent's graph; a graph used as a tool; a TypeAdapter of the state itself."""

from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import create_react_agent
from pydantic import TypeAdapter


class Chat(MessagesState):
    summary: str


def _graph(schema: Any, **kw: Any) -> Any:
    b = StateGraph(schema, **kw)
    b.add_node("a", lambda s: {"summary": "done"})
    b.add_edge(START, "a")
    return b.compile(name="g")


def _schemas(graph: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for attr in ("input_schema",):
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
    return out


class _Model(GenericFakeChatModel):
    """Just enough of a chat model for create_react_agent to build its graph."""

    def bind_tools(self, tools: Any, **kw: Any) -> Any:
        return self


def run() -> dict[str, Any]:
    graphs = {
        "messages": _graph(MessagesState),
        "chat_subclass": _graph(Chat),
        "react_agent": create_react_agent(_Model(messages=iter([AIMessage("done")])), []),
    }
    result = {name: _schemas(g) for name, g in graphs.items()}
    tool = _graph(Chat).as_tool(name="chat_tool", description="chats")
    result["tool_args"] = sorted(tool.args)
    # the states' own JSON schemas, descriptions (their docstrings) included, as a client of
    # the graph's schemas (the server's assistants) reads them
    result["state_defs"] = {
        name: g.get_input_jsonschema() for name, g in graphs.items() if name != "messages"
    }
    result["messages_def"] = graphs["messages"].input_schema.model_json_schema()["$defs"][
        "MessagesState"
    ]
    adapter = TypeAdapter(Chat)
    result["validated"] = adapter.validate_python({"messages": [], "summary": "x"})
    result["adapter_title"] = adapter.json_schema()["title"]
    return result
