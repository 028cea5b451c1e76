"""`create_react_agent`: a model that calls tools in a loop, as a `StateGraph`.

Owns: the agent state schemas (`AgentState`, `AgentStatePydantic` and their
structured-response variants), argument checking, and the wiring of the graph: ``agent``
and ``tools`` nodes plus the optional ``pre_model_hook``, ``post_model_hook`` and
``generate_structured_response`` nodes. Deprecated in LangGraph 1.0 (it moved to
``langchain.agents.create_agent``) and it warns as LangGraph does.

Must never import: the engine (`superstep_core`) or the compiler.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, NotRequired, TypeVar, get_type_hints

from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AnyMessage, BaseMessage, SystemMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import BaseModel, create_model
from typing_extensions import TypedDict, deprecated

from superstep_compat.graph import END, StateGraph, add_messages
from superstep_compat.managed import RemainingSteps
from superstep_compat.prebuilt._agent_model import (
    chat_model_of,
    prompt_runnable,
    resolve_model_string,
    should_bind_tools,
    validate_chat_history,
)
from superstep_compat.prebuilt._agent_nodes import (
    AgentModel,
    CallModel,
    GenerateStructuredResponse,
    Routers,
)
from superstep_compat.prebuilt.tool_node import ToolNode
from superstep_compat.warnings import LangGraphDeprecatedSinceV10

__all__ = [
    "AgentState",
    "AgentStatePydantic",
    "AgentStateWithStructuredResponse",
    "AgentStateWithStructuredResponsePydantic",
    "Prompt",
    "StateSchema",
    "StateSchemaType",
    "StructuredResponseSchema",
    "create_react_agent",
    "create_tool_calling_executor",
]

StructuredResponse = dict[str, Any] | BaseModel
StructuredResponseSchema = dict[str, Any] | type[BaseModel]


@deprecated(
    "AgentState has been moved to `langchain.agents`. Please update your import to "
    "`from langchain.agents import AgentState`.",
    category=LangGraphDeprecatedSinceV10,
)
# The four agent states' docstrings are LangGraph's own words: pydantic makes a docstring the
# JSON schema's "description", which clients of a graph's schemas (the server) show.
class AgentState(TypedDict):
    """The state of the agent."""

    messages: Annotated[Sequence[BaseMessage], add_messages]
    remaining_steps: NotRequired[RemainingSteps]


@deprecated(
    "AgentStatePydantic has been deprecated in favor of AgentState in `langchain.agents`.",
    category=LangGraphDeprecatedSinceV10,
)
class AgentStatePydantic(BaseModel):
    """The state of the agent."""

    messages: Annotated[Sequence[BaseMessage], add_messages]
    remaining_steps: RemainingSteps = 25


with warnings.catch_warnings():
    warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)

    @deprecated(
        "AgentStateWithStructuredResponse has been deprecated in favor of AgentState in "
        "`langchain.agents`.",
        category=LangGraphDeprecatedSinceV10,
    )
    class AgentStateWithStructuredResponse(AgentState):
        """The state of the agent with a structured response."""

        structured_response: StructuredResponse

    @deprecated(
        "AgentStateWithStructuredResponsePydantic has been deprecated in favor of AgentState "
        "in `langchain.agents`.",
        category=LangGraphDeprecatedSinceV10,
    )
    class AgentStateWithStructuredResponsePydantic(AgentStatePydantic):
        """The state of the agent with a structured response."""

        structured_response: StructuredResponse


with warnings.catch_warnings():
    warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
    StateSchema = TypeVar("StateSchema", bound=AgentState | AgentStatePydantic)
    """A state schema of `create_react_agent`: `AgentState` or `AgentStatePydantic` (or a
    subclass)."""
    StateSchemaType = type[StateSchema]  # type: ignore[misc]

Prompt = (
    SystemMessage
    | str
    | Callable[[StateSchema], LanguageModelInput]
    | Runnable[StateSchema, LanguageModelInput]
)
"""What ``prompt=`` accepts: a system message, a string (a system message's text), or a
function or runnable mapping the state to the model's input."""

_should_bind_tools = should_bind_tools  # LangGraph's private name (langgraph-supervisor)


def _check_state_schema(state_schema: Any, response_format: Any) -> None:
    required = {"messages", "remaining_steps"}
    if response_format is not None:
        required.add("structured_response")
    missing = required - set(get_type_hints(state_schema))
    if missing:
        raise ValueError(f"Missing required key(s) {missing} in state_schema")


def _model_input_schema(state_schema: Any) -> Any:
    """The ``agent`` node's input when a pre-model hook may set ``llm_input_messages``."""
    if isinstance(state_schema, type) and issubclass(state_schema, BaseModel):
        return create_model(
            "CallModelInputSchema",
            llm_input_messages=(list[AnyMessage], ...),
            __base__=state_schema,
        )

    class CallModelInputSchema(state_schema):  # type: ignore[misc,valid-type]
        llm_input_messages: list[AnyMessage]

    return CallModelInputSchema


def _agent_model(model: Any, tools: list[BaseTool], builtin: list[Any], prompt: Any) -> AgentModel:
    if not isinstance(model, str | Runnable) and callable(model):
        return AgentModel(static=None, dynamic=model, prompt=prompt)
    if isinstance(model, str):
        model = resolve_model_string(model)
    if should_bind_tools(model, tools, num_builtin=len(builtin)) and (tools or builtin):
        model = model.bind_tools([*tools, *builtin])
    return AgentModel(static=prompt_runnable(prompt) | model, dynamic=None, prompt=prompt)


@deprecated(
    "create_react_agent has been moved to `langchain.agents`. Please update your import to "
    "`from langchain.agents import create_agent`.",
    category=LangGraphDeprecatedSinceV10,
)
def create_react_agent(
    model: str | Runnable[Any, Any] | Callable[..., Any],
    tools: Sequence[BaseTool | Callable[..., Any] | dict[str, Any]] | ToolNode,
    *,
    prompt: Any = None,
    response_format: StructuredResponseSchema | tuple[str, StructuredResponseSchema] | None = None,
    pre_model_hook: Any = None,
    post_model_hook: Any = None,
    state_schema: Any = None,
    context_schema: type[Any] | None = None,
    checkpointer: Any = None,
    store: Any = None,
    interrupt_before: list[str] | None = None,
    interrupt_after: list[str] | None = None,
    debug: bool = False,
    version: Literal["v1", "v2"] = "v2",
    name: str | None = None,
    **deprecated_kwargs: Any,
) -> Any:
    """A compiled graph that calls ``model`` and runs the ``tools`` it asks for, in a loop,
    until it answers without tool calls.

    Nodes: ``agent`` and ``tools`` (plus ``pre_model_hook``, ``post_model_hook`` and
    ``generate_structured_response`` when given). With ``version="v2"`` each tool call is
    its own `Send` task; with ``"v1"`` one ``tools`` task runs them all.
    """
    if "config_schema" in deprecated_kwargs:
        warnings.warn(
            "`config_schema` is deprecated and will be removed. Please use `context_schema` "
            "instead.",
            category=LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        config_schema = deprecated_kwargs.pop("config_schema")
        context_schema = context_schema if context_schema is not None else config_schema
    if deprecated_kwargs:
        raise TypeError(
            f"create_react_agent() got unexpected keyword arguments: {deprecated_kwargs}"
        )
    if version not in ("v1", "v2"):
        raise ValueError(f"Invalid version {version}. Supported versions are 'v1' and 'v2'.")
    if state_schema is not None:
        _check_state_schema(state_schema, response_format)
    else:
        state_schema = (
            AgentStateWithStructuredResponse if response_format is not None else AgentState
        )

    builtin: list[Any] = []
    if isinstance(tools, ToolNode):
        tool_node = tools
    else:
        builtin = [t for t in tools if isinstance(t, dict)]
        tool_node = ToolNode([t for t in tools if not isinstance(t, dict)])
    tool_list = list(tool_node.tools_by_name.values())
    agent_model = _agent_model(model, tool_list, builtin, prompt)
    return_direct = frozenset(t.name for t in tool_list if t.return_direct)

    graph: StateGraph[Any, Any, Any, Any] = StateGraph(state_schema, context_schema)
    graph.add_node(
        "agent",
        CallModel(
            agent_model,
            agent_name=name,
            uses_pre_model_hook=pre_model_hook is not None,
            return_direct=return_direct,
        ),
        input_schema=(
            _model_input_schema(state_schema) if pre_model_hook is not None else state_schema
        ),
    )
    if tool_list:
        graph.add_node("tools", tool_node)
    entrypoint = "agent"
    if pre_model_hook is not None:
        graph.add_node("pre_model_hook", pre_model_hook)
        graph.add_edge("pre_model_hook", "agent")
        entrypoint = "pre_model_hook"
    graph.set_entry_point(entrypoint)
    if post_model_hook is not None:
        graph.add_node("post_model_hook", post_model_hook)
        graph.add_edge("agent", "post_model_hook")
    if response_format is not None:
        graph.add_node(
            "generate_structured_response",
            GenerateStructuredResponse(agent_model, response_format),
        )
        if not tool_list:
            graph.add_edge(
                "post_model_hook" if post_model_hook is not None else "agent",
                "generate_structured_response",
            )
    if tool_list:
        _wire_tool_loop(
            graph,
            Routers(
                version=version,
                entrypoint=entrypoint,
                has_post_hook=post_model_hook is not None,
                has_response_format=response_format is not None,
                return_direct=return_direct,
            ),
        )
    return graph.compile(
        checkpointer=checkpointer,
        store=store,
        interrupt_before=interrupt_before,
        interrupt_after=interrupt_after,
        debug=debug,
        name=name,
    )


def _wire_tool_loop(graph: StateGraph[Any, Any, Any, Any], routers: Routers) -> None:
    """The conditional edges of an agent with tools."""
    after_model: list[str] = []
    after_post_hook: list[str] = [routers.entrypoint, "tools"]
    after_model.append("post_model_hook" if routers.has_post_hook else "tools")
    finish = "generate_structured_response" if routers.has_response_format else END
    (after_post_hook if routers.has_post_hook else after_model).append(finish)
    if routers.has_post_hook:
        graph.add_conditional_edges(
            "post_model_hook", routers.post_model_hook_router, path_map=after_post_hook
        )
    graph.add_conditional_edges("agent", routers.should_continue, path_map=after_model)
    if routers.return_direct:
        graph.add_conditional_edges(
            "tools", routers.route_tool_responses, path_map=[routers.entrypoint, END]
        )
    else:
        graph.add_edge("tools", routers.entrypoint)


create_tool_calling_executor = create_react_agent
"""The old name of `create_react_agent`."""


# LangGraph's private helpers of this module, which its own tests (and some libraries) use.
_get_model = chat_model_of
"""The chat model under a `bind_tools` binding or at the head of a sequence (TypeError
when there is none)."""
_validate_chat_history = validate_chat_history
"""ValueError when an `AIMessage`'s tool call has no answering `ToolMessage`."""
