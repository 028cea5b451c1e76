"""`interrupt(response_schema=...)`: the JSON schema surfaced with an interrupt and the
validation of the value it is resumed with (LangGraph 1.2's behaviour)."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from superstep_compat.errors import mark_invalid_resume

__all__ = ["resume_adapter", "validated_resume"]


def resume_adapter(response_schema: Any) -> TypeAdapter[Any] | None:
    """A validator for ``interrupt(response_schema=...)``: a type (pydantic model, TypedDict,
    dataclass) is validated; a JSON-schema dict is only surfaced, as in LangGraph."""
    if response_schema is None or isinstance(response_schema, dict):
        return None
    return TypeAdapter(response_schema)


def validated_resume(adapter: TypeAdapter[Any], answer: Any) -> Any:
    """The resume value validated against the interrupt's schema; a `ValidationError` is
    marked `is_invalid_resume` (ToolNode lets it through instead of reporting a bad call)."""
    try:
        return adapter.validate_python(answer)
    except ValidationError as e:
        mark_invalid_resume(e)
        raise
