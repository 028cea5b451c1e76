"""A scripted chat model for `create_agent` programs: it answers with the next message of
its script (tool calls included), records what it was asked, binds tools by ignoring them,
and never touches the network."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class ScriptedModel(BaseChatModel):
    script: list[AIMessage]
    asked: list[list[str]] = []
    turn: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedModel:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.asked.append([f"{m.type}:{m.content}" for m in messages])
        reply = self.script[min(self.turn, len(self.script) - 1)]
        self.turn += 1
        message = reply.model_copy(update={"id": f"ai-{self.turn}"})
        return ChatResult(generations=[ChatGeneration(message=message)])


def call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def transcript(messages: Sequence[BaseMessage]) -> list[list[Any]]:
    """Messages as plain data: type, content, tool calls (name, args), tool call id."""
    return [
        [
            m.type,
            m.content,
            [[c["name"], c["args"]] for c in getattr(m, "tool_calls", [])],
            getattr(m, "tool_call_id", None),
        ]
        for m in messages
    ]
