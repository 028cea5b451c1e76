"""`langgraph.prebuilt`: `create_react_agent`, `ToolNode`, `tools_condition`,
`ValidationNode`, the tool injection markers and v3 streaming's `ToolCallTransformer`, built
on the façade's public API (`StateGraph`, `Send`, `Command`, the runtime) like any user
program.

Must never import: the engine (`superstep_core`) or the compiler.
"""

from superstep_compat.prebuilt._tool_call_transformer import ToolCallTransformer
from superstep_compat.prebuilt.chat_agent_executor import create_react_agent
from superstep_compat.prebuilt.tool_node import (
    InjectedState,
    InjectedStore,
    ToolNode,
    ToolRuntime,
    tools_condition,
)
from superstep_compat.prebuilt.tool_validator import ValidationNode

__all__ = [
    "InjectedState",
    "InjectedStore",
    "ToolCallTransformer",
    "ToolNode",
    "ToolRuntime",
    "ValidationNode",
    "create_react_agent",
    "tools_condition",
]
