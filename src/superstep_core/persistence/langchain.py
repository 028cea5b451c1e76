"""The langchain-core classes the codec knows without registration: every message class
(``AIMessage``, ``HumanMessage``, ``SystemMessage``, ``ToolMessage``, ``FunctionMessage``,
``ChatMessage``, ``RemoveMessage`` and their ``*Chunk`` variants) and ``Document``.

They are pydantic v2 models, so they use the pydantic handler: content (string or content
blocks), ``id``, ``name``, ``additional_kwargs``, ``response_metadata``, ``tool_calls``,
``invalid_tool_calls``, ``tool_call_chunks``, ``usage_metadata``, ``tool_call_id``, ``artifact``
and any extra fields all come back as written. Tags are ``"lc:<ClassName>"`` so stored bytes do
not depend on langchain-core's internal module layout. langchain-core is imported lazily, on the
first value or tag that needs it.

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.checkpoint.
"""

from __future__ import annotations

from superstep_core.persistence.objects import TypeHandler, pydantic_handler

__all__ = ["LANGCHAIN_MODULE_PREFIX", "LANGCHAIN_TAG_PREFIX", "langchain_handlers"]

LANGCHAIN_TAG_PREFIX = "lc:"
LANGCHAIN_MODULE_PREFIX = "langchain_core."


def langchain_handlers() -> list[TypeHandler]:
    """One handler per langchain-core message class and for ``Document``.

    Raises ``ImportError`` when langchain-core is not installed.
    """
    from langchain_core import messages
    from langchain_core.documents import Document

    classes: list[type] = [Document]
    for name in sorted(dir(messages)):
        obj = getattr(messages, name)
        if isinstance(obj, type) and issubclass(obj, messages.BaseMessage):
            classes.append(obj)
    return [pydantic_handler(cls, LANGCHAIN_TAG_PREFIX + cls.__name__) for cls in classes]
