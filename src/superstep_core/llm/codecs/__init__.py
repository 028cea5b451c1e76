"""Wire-format codecs, one module per format; `codec_for` maps a wire-format id to its codec.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import importlib

from superstep_core.llm.codec import Codec

__all__ = ["WIRE_FORMATS", "codec_for"]

WIRE_FORMATS: dict[str, tuple[str, str]] = {
    "openai_chat": ("openai_chat", "OpenAIChatCodec"),
    "openai_responses": ("openai_responses", "OpenAIResponsesCodec"),
    "anthropic_messages": ("anthropic_messages", "AnthropicMessagesCodec"),
    "gemini": ("gemini", "GeminiCodec"),
    "bedrock_converse": ("bedrock_converse", "BedrockConverseCodec"),
    "cohere_v2": ("cohere_v2", "CohereV2Codec"),
    "watsonx_chat": ("watsonx_chat", "WatsonxChatCodec"),
}
"""Wire-format id -> (module in this package, codec class)."""

_CACHE: dict[str, Codec] = {}


def codec_for(wire_format: str) -> Codec:
    """The (stateless, shared) codec for a wire-format id; raises ``KeyError`` if unknown."""
    codec = _CACHE.get(wire_format)
    if codec is None:
        module, cls = WIRE_FORMATS[wire_format]
        codec = getattr(importlib.import_module(f"{__name__}.{module}"), cls)()
        _CACHE[wire_format] = codec
    return codec
