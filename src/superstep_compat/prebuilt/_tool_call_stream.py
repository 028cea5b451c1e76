"""``langgraph.prebuilt._tool_call_stream``: where LangGraph defines `ToolCallStream`, the
handle v3 streaming's ``run.tool_calls`` yields (`ToolCallTransformer`). The only module
LangGraph names the class in, so code that annotates with it or checks ``isinstance``
imports it from here; it is the façade's one class, not a copy."""

from superstep_compat.prebuilt._tool_call_transformer import ToolCallStream

__all__ = ["ToolCallStream"]
