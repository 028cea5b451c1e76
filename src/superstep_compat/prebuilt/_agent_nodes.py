"""The nodes and routers of the graph `create_react_agent` builds.

Owns: the ``agent`` node (prompt + model call, the step-budget guard), the
``generate_structured_response`` node, and the three routers: after the model, after the
post-model hook, and after the tools (for ``return_direct`` tools).

Must never import: the engine (`superstep_core`) or the compiler.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import BaseModel

from superstep_compat.graph import END
from superstep_compat.prebuilt._agent_model import (
    chat_model_of,
    prompt_runnable,
    state_value,
    validate_chat_history,
)
from superstep_compat.prebuilt._node import PrebuiltNode, RunRuntime
from superstep_compat.types import Send

__all__ = ["AgentModel", "CallModel", "GenerateStructuredResponse", "Routers"]

_SYNC_CALL_OF_ASYNC_MODEL = (
    "Async model callable provided but agent invoked synchronously. Use agent.ainvoke() or "
    "agent.astream(), or provide a sync model callable."
)


@dataclass(frozen=True)
class AgentModel:
    """The model of an agent: a fixed runnable (prompt | model), or a function of
    ``(state, runtime)`` returning the model to use for this call (a dynamic model)."""

    static: Runnable[Any, Any] | None
    dynamic: Callable[..., Any] | None
    prompt: Any

    @property
    def is_async_dynamic(self) -> bool:
        return self.dynamic is not None and inspect.iscoroutinefunction(self.dynamic)

    def resolve(self, state: Any, runtime: RunRuntime) -> Runnable[Any, Any]:
        if self.dynamic is None:
            return cast(Runnable[Any, Any], self.static)
        if self.is_async_dynamic:
            raise RuntimeError(_SYNC_CALL_OF_ASYNC_MODEL)
        chosen: Runnable[Any, Any] = prompt_runnable(self.prompt) | self.dynamic(state, runtime.raw)
        return chosen

    async def aresolve(self, state: Any, runtime: RunRuntime) -> Runnable[Any, Any]:
        if self.dynamic is None:
            return cast(Runnable[Any, Any], self.static)
        chosen = self.dynamic(state, runtime.raw)
        if inspect.isawaitable(chosen):
            chosen = await chosen
        resolved: Runnable[Any, Any] = prompt_runnable(self.prompt) | chosen
        return resolved


class CallModel(PrebuiltNode):
    """The ``agent`` node: call the model on the prompt and the messages, append its reply.

    When the step budget (``remaining_steps``) cannot fit another tool round, the reply is
    replaced by "Sorry, need more steps to process this request."
    """

    def __init__(
        self,
        model: AgentModel,
        *,
        agent_name: str | None,
        uses_pre_model_hook: bool,
        return_direct: frozenset[str],
    ) -> None:
        super().__init__("call_model", trace=True)
        self._model = model
        self._agent_name = agent_name
        self._pre_hook = uses_pre_model_hook
        self._return_direct = return_direct

    def _model_input(self, state: Any) -> Any:
        messages = None
        if self._pre_hook:
            messages = state_value(state, "llm_input_messages")
            expected = "'llm_input_messages' or 'messages' key"
        else:
            expected = "'messages' key"
        messages = messages or state_value(state, "messages")
        if messages is None:
            raise ValueError(f"Expected input to call_model to have {expected}, but got {state}")
        validate_chat_history(messages)
        if isinstance(state, BaseModel):
            return state.model_copy(update={"messages": messages})
        return {**state, "messages": messages}

    def _finish(self, state: Any, response: BaseMessage) -> dict[str, Any]:
        response.name = self._agent_name
        if self._needs_more_steps(state, response):
            sorry = AIMessage(
                id=response.id, content="Sorry, need more steps to process this request."
            )
            return {"messages": [sorry]}
        return {"messages": [response]}

    def _needs_more_steps(self, state: Any, response: BaseMessage) -> bool:
        if not isinstance(response, AIMessage):
            return False
        remaining = state_value(state, "remaining_steps")
        if remaining is None:
            return False
        all_direct = all(c["name"] in self._return_direct for c in response.tool_calls)
        if remaining < 1 and all_direct:
            return True
        return remaining < 2 and bool(response.tool_calls)

    def _call(self, input: Any, config: RunnableConfig, runtime: RunRuntime) -> Any:
        if self._model.is_async_dynamic:
            raise RuntimeError(_SYNC_CALL_OF_ASYNC_MODEL)
        model_input = self._model_input(input)
        response = self._model.resolve(input, runtime).invoke(model_input, config)
        return self._finish(input, response)

    async def _acall(self, input: Any, config: RunnableConfig, runtime: RunRuntime) -> Any:
        model_input = self._model_input(input)
        model = await self._model.aresolve(input, runtime)
        response = await model.ainvoke(model_input, config)
        return self._finish(input, response)


class GenerateStructuredResponse(PrebuiltNode):
    """The ``generate_structured_response`` node: ask the model for ``response_format``
    given the conversation (with an extra system prompt when it is a ``(prompt, schema)``
    pair) and store it under ``structured_response``."""

    def __init__(self, model: AgentModel, response_format: Any) -> None:
        super().__init__("generate_structured_response", trace=True)
        self._model = model
        self._format = response_format

    def _request(self, state: Any) -> tuple[list[Any], Any]:
        messages = list(state_value(state, "messages"))
        schema = self._format
        if isinstance(schema, tuple):
            system_prompt, schema = schema
            messages = [SystemMessage(content=system_prompt), *messages]
        return messages, schema

    def _call(self, input: Any, config: RunnableConfig, runtime: RunRuntime) -> Any:
        if self._model.is_async_dynamic:
            raise RuntimeError(_SYNC_CALL_OF_ASYNC_MODEL)
        messages, schema = self._request(input)
        structured = chat_model_of(self._model.resolve(input, runtime)).with_structured_output(
            schema
        )
        return {"structured_response": structured.invoke(messages, config)}

    async def _acall(self, input: Any, config: RunnableConfig, runtime: RunRuntime) -> Any:
        messages, schema = self._request(input)
        model = await self._model.aresolve(input, runtime)
        structured = chat_model_of(model).with_structured_output(schema)
        return {"structured_response": await structured.ainvoke(messages, config)}


def _sends(calls: list[Any], state: Any) -> list[Send]:
    # Each tool call runs as its own task, carrying the state it was decided in (for
    # InjectedState), so an interrupt in one tool does not re-run the others.
    return [
        Send("tools", {"__type": "tool_call_with_context", "tool_call": call, "state": state})
        for call in calls
    ]


@dataclass(frozen=True)
class Routers:
    """The conditional edges of the agent graph."""

    version: str
    entrypoint: str
    has_post_hook: bool
    has_response_format: bool
    return_direct: frozenset[str]

    def should_continue(self, state: Any) -> str | list[Send]:
        """After the model: to the tools while it asks for them, else finish."""
        last = state_value(state, "messages")[-1]
        if not isinstance(last, AIMessage) or not last.tool_calls:
            if self.has_post_hook:
                return "post_model_hook"
            if self.has_response_format:
                return "generate_structured_response"
            return END
        if self.version == "v1":
            return "tools"
        if self.has_post_hook:
            return "post_model_hook"
        return _sends(list(last.tool_calls), state)

    def post_model_hook_router(self, state: Any) -> str | list[Send]:
        """After the post-model hook: run tool calls that have no answer yet, else go back
        to the model after tool results, else finish."""
        messages = state_value(state, "messages")
        answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        last_ai = next(m for m in reversed(messages) if isinstance(m, AIMessage))
        pending = [c for c in last_ai.tool_calls if c["id"] not in answered]
        if pending:
            return _sends(pending, state)
        if isinstance(messages[-1], ToolMessage):
            return self.entrypoint
        if self.has_response_format:
            return "generate_structured_response"
        return END

    def route_tool_responses(self, state: Any) -> str:
        """After the tools: finish when a ``return_direct`` tool answered."""
        message: Any = None
        for message in reversed(state_value(state, "messages")):
            if not isinstance(message, ToolMessage):
                break
            if message.name in self.return_direct:
                return END
        if isinstance(message, AIMessage) and any(
            c["name"] in self.return_direct for c in message.tool_calls
        ):
            return END
        return self.entrypoint
