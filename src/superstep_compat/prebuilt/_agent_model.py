"""The model side of `create_react_agent`: prompt, tool binding, chat-history checks.

Owns: turning ``prompt`` (None, str, `SystemMessage`, callable, `Runnable`) into the
runnable placed before the model, resolving a ``"provider:model"`` string, deciding whether
the tools still need binding, finding the chat model under a binding (for structured
output), and the check that every tool call in the history has its `ToolMessage`.

Must never import: the engine (`superstep_core`) or the compiler.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableBinding, RunnableLambda, RunnableSequence
from langchain_core.tools import BaseTool

from superstep_compat._internal._runnable import RunnableCallable
from superstep_compat.errors import ErrorCode, create_error_message

__all__ = [
    "PROMPT_RUNNABLE_NAME",
    "chat_model_of",
    "prompt_runnable",
    "resolve_model_string",
    "should_bind_tools",
    "state_value",
    "validate_chat_history",
]

PROMPT_RUNNABLE_NAME = "Prompt"


def state_value(state: Any, key: str, default: Any = None) -> Any:
    """``state[key]`` for a dict state, ``state.key`` for a model or dataclass."""
    if isinstance(state, dict):
        return state.get(key, default)
    return getattr(state, key, default)


def prompt_runnable(prompt: Any) -> Runnable[Any, Any]:
    """The runnable that turns the agent state into the model input."""
    if prompt is None:
        return RunnableLambda(lambda state: state_value(state, "messages"), name="Prompt")
    if isinstance(prompt, str):
        system = SystemMessage(content=prompt)
        return RunnableLambda(
            lambda state: [system, *state_value(state, "messages")], name=PROMPT_RUNNABLE_NAME
        )
    if isinstance(prompt, SystemMessage):
        return RunnableLambda(
            lambda state: [prompt, *state_value(state, "messages")], name=PROMPT_RUNNABLE_NAME
        )
    if isinstance(prompt, Runnable):
        return prompt
    # LangGraph's callable: config, store and runtime injected when the prompt declares them
    if inspect.iscoroutinefunction(prompt):
        return RunnableCallable(None, prompt, name=PROMPT_RUNNABLE_NAME)
    if callable(prompt):
        return RunnableCallable(prompt, name=PROMPT_RUNNABLE_NAME)
    raise ValueError(f"Got unexpected type for `prompt`: {type(prompt)}")


def resolve_model_string(model: str) -> BaseChatModel:
    """A chat model for ``"provider:model"``, through ``init_chat_model``."""
    for module_name in ("langchain.chat_models", "superstep_compat.chat_models"):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        init = getattr(module, "init_chat_model", None)
        if init is not None:
            chat_model: BaseChatModel = init(model)
            return chat_model
    raise ImportError(
        "Please install langchain (`pip install langchain`) to use '<provider>:<model>' "
        "string syntax for `model` parameter."
    )


def _first_model_step(model: Any) -> Any:
    if isinstance(model, RunnableSequence):
        return next(
            (s for s in model.steps if isinstance(s, RunnableBinding | BaseChatModel)), model
        )
    return model


def should_bind_tools(model: Any, tools: Sequence[BaseTool], num_builtin: int = 0) -> bool:
    """Whether ``model`` still needs ``bind_tools``; if it already has tools bound, they
    must be exactly ``tools`` (plus ``num_builtin`` provider tools)."""
    model = _first_model_step(model)
    if not isinstance(model, RunnableBinding) or "tools" not in model.kwargs:
        return True
    bound = model.kwargs["tools"]
    if len(tools) != len(bound) - num_builtin:
        raise ValueError(
            "Number of tools in the model.bind_tools() and tools passed to "
            f"create_react_agent must match Got {len(tools)} tools, expected "
            f"{len(bound) - num_builtin}"
        )
    bound_names = set()
    for spec in bound:
        if spec.get("type") == "function":
            bound_names.add(spec["function"]["name"])
        elif spec.get("name"):
            bound_names.add(spec["name"])
    missing = {t.name for t in tools} - bound_names
    if missing:
        raise ValueError(f"Missing tools '{missing}' in the model.bind_tools()")
    return False


def chat_model_of(model: Any) -> BaseChatModel:
    """The chat model itself, under a binding or inside a sequence."""
    model = _first_model_step(model)
    if isinstance(model, RunnableBinding):
        model = model.bound
    if not isinstance(model, BaseChatModel):
        raise TypeError(
            "Expected `model` to be a ChatModel or RunnableBinding (e.g. "
            f"model.bind_tools(...)), got {type(model)}"
        )
    return model


def validate_chat_history(messages: Sequence[BaseMessage]) -> None:
    """Raise ValueError when an `AIMessage` tool call has no answering `ToolMessage`."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    unanswered = [
        call
        for m in messages
        if isinstance(m, AIMessage)
        for call in m.tool_calls
        if call["id"] not in answered
    ]
    if not unanswered:
        return
    raise ValueError(
        create_error_message(
            message="Found AIMessages with tool_calls that do not have a corresponding "
            f"ToolMessage. Here are the first few of those tool calls: {unanswered[:3]}.\n\n"
            "Every tool call (LLM requesting to call a tool) in the message history MUST "
            "have a corresponding ToolMessage (result of a tool invocation to return to the "
            "LLM) - this is required by most LLM providers.",
            error_code=ErrorCode.INVALID_CHAT_HISTORY,
        )
    )
