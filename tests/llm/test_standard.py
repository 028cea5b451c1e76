"""langchain-tests' standard ``ChatModelUnitTests``, once per wire format."""

from __future__ import annotations

from typing import Any

import pytest

standard = pytest.importorskip("langchain_tests.unit_tests")

from superstep_core.llm import ChatModel  # noqa: E402

PARAMS: dict[str, dict[str, Any]] = {
    "openai_chat": {"provider": "openai", "model": "gpt-4o-mini"},
    "openai_responses": {"provider": "langsmith", "model": "openai/gpt-4o-mini"},
    "anthropic_messages": {"provider": "anthropic", "model": "claude-haiku-4-5"},
    "gemini": {"provider": "google_genai", "model": "gemini-2.5-flash"},
    "bedrock_converse": {
        "provider": "bedrock_converse", "model": "amazon.nova-pro-v1:0", "region": "us-east-1",
    },
    "cohere_v2": {"provider": "cohere", "model": "command-a-03-2025"},
    "watsonx_chat": {
        "provider": "ibm", "model": "ibm/granite-3-3-8b-instruct",
        "base_url": "https://us-south.ml.cloud.ibm.com", "project_id": "p",
    },
}  # fmt: skip


class _Base(standard.ChatModelUnitTests):  # type: ignore[misc,name-defined]
    wire = "openai_chat"

    @property
    def chat_model_class(self) -> type[ChatModel]:
        return ChatModel

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {**PARAMS[self.wire], "api_key": "test-key"}


class TestOpenAIChatStandard(_Base):
    wire = "openai_chat"

    @property
    def init_from_env_params(self) -> tuple[dict[str, str], dict[str, Any], dict[str, Any]]:
        return {"OPENAI_API_KEY": "env-key"}, PARAMS["openai_chat"], {"model": "gpt-4o-mini"}


class TestOpenAIResponsesStandard(_Base):
    wire = "openai_responses"


class TestAnthropicStandard(_Base):
    wire = "anthropic_messages"

    @property
    def init_from_env_params(self) -> tuple[dict[str, str], dict[str, Any], dict[str, Any]]:
        return (
            {"ANTHROPIC_API_KEY": "env-key"},
            PARAMS["anthropic_messages"],
            {"provider": "anthropic"},
        )


class TestGeminiStandard(_Base):
    wire = "gemini"


class TestBedrockConverseStandard(_Base):
    wire = "bedrock_converse"


class TestCohereStandard(_Base):
    wire = "cohere_v2"


class TestWatsonxStandard(_Base):
    wire = "watsonx_chat"
