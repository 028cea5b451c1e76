"""Normalising per-call options given in LangChain's many spellings into `CallOptions` parts.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from superstep_core.llm.codec import ResponseFormat

__all__ = ["number", "response_format", "tool_choice"]


def number(value: float | None) -> float | None:
    """A sampling number as sent: integral floats become ints."""
    # pydantic turns ``temperature=0`` into 0.0; send integral values as JSON integers so
    # the body is byte-identical to what the caller wrote (``0``, not ``0.0``).
    if value is not None and float(value).is_integer():
        return int(value)
    return value


def tool_choice(value: Any) -> tuple[Any, str | None]:
    """(``auto``/``none``/``required`` or ``None``, forced tool name or ``None``) from
    ``"auto"``, ``"none"``, ``"any"``, ``"required"``, ``True``, a tool name, or an OpenAI
    ``{"type": "function", "function": {"name": …}}`` dict."""
    if value is None or value is False:
        return None, None
    if value is True or value in ("any", "required"):
        return "required", None
    if value in ("auto", "none"):
        return value, None
    if isinstance(value, Mapping):
        function = value.get("function")
        name = function.get("name") if isinstance(function, Mapping) else value.get("name")
        return None, str(name)
    return None, str(value)


def response_format(value: Any) -> ResponseFormat | None:
    """A `ResponseFormat` from OpenAI's ``response_format`` shapes (``json_object`` or
    ``json_schema`` with ``{name, schema, strict}``); raises ``ValueError`` otherwise."""
    if value is None or isinstance(value, ResponseFormat):
        return value
    if isinstance(value, Mapping):
        if value.get("type") == "json_object":
            return ResponseFormat("json_object")
        inner = value.get("json_schema") if value.get("type") == "json_schema" else value
        if isinstance(inner, Mapping) and "schema" in inner:
            return ResponseFormat(
                "json_schema",
                str(inner.get("name") or "response"),
                inner["schema"],
                inner.get("strict"),
            )
    raise ValueError(f"unsupported response_format {value!r}")
