"""How `ToolNode` turns a failing tool call into a `ToolMessage` (or lets it raise).

Owns: LangGraph's error message templates, `ToolInvocationError` (the model passed arguments
the tool's schema rejects), and the ``handle_tool_errors`` policy: which exceptions a setting
catches and what text the error `ToolMessage` carries.

Must never import: the engine (`superstep_core`) or the compiler.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias, cast

from langchain_core.tools import ToolException
from pydantic import ValidationError

__all__ = [
    "INVALID_TOOL_NAME_ERROR_TEMPLATE",
    "TOOL_CALL_ERROR_TEMPLATE",
    "TOOL_EXECUTION_ERROR_TEMPLATE",
    "TOOL_INVOCATION_ERROR_TEMPLATE",
    "HandleToolErrors",
    "ToolInvocationError",
    "default_handle_tool_errors",
    "error_content",
    "handled_types",
]

INVALID_TOOL_NAME_ERROR_TEMPLATE = (
    "Error: {requested_tool} is not a valid tool, try one of [{available_tools}]."
)
TOOL_CALL_ERROR_TEMPLATE = "Error: {error}\n Please fix your mistakes."
TOOL_EXECUTION_ERROR_TEMPLATE = (
    "Error executing tool '{tool_name}' with kwargs {tool_kwargs} with error:\n"
    " {error}\n"
    " Please fix the error and try again."
)
TOOL_INVOCATION_ERROR_TEMPLATE = (
    "Error invoking tool '{tool_name}' with kwargs {tool_kwargs} with error:\n"
    " {error}\n"
    " Please fix the error and try again."
)

HandleToolErrors: TypeAlias = (
    bool | str | Callable[..., str] | type[Exception] | tuple[type[Exception], ...]
)
"""``True`` (catch everything, default text), a fixed text, a function from the exception to
the text (catching what its first parameter's annotation names), an exception class or a
tuple of them (default text), or ``False`` (never catch)."""


def _describe(errors: Iterable[Any]) -> str:
    # One "loc: msg" line per error, without pydantic's URLs, so the model gets a short,
    # actionable list.
    return "\n".join(
        f"{'.'.join(str(p) for p in error.get('loc', ()))}: {error.get('msg', 'Unknown error')}"
        for error in errors
    )


class ToolInvocationError(ToolException):
    """The arguments of a tool call did not validate against the tool's schema.

    Raised only by `ToolNode`. ``filtered_errors`` are the validation errors of arguments
    the model controls (injected parameters are left out).
    """

    def __init__(
        self,
        tool_name: str,
        source: ValidationError,
        tool_kwargs: dict[str, Any],
        filtered_errors: list[Any] | None = None,
    ) -> None:
        detail = _describe(filtered_errors) if filtered_errors is not None else str(source)
        self.message = TOOL_INVOCATION_ERROR_TEMPLATE.format(
            tool_name=tool_name, tool_kwargs=tool_kwargs, error=detail
        )
        self.tool_name = tool_name
        self.tool_kwargs = tool_kwargs
        self.source = source
        self.filtered_errors = filtered_errors
        super().__init__(self.message)


def filter_validation_errors(error: ValidationError, hidden: frozenset[str]) -> list[Any]:
    """The errors of ``error`` about parameters the model supplies, with injected values
    removed from each error's ``input``."""
    kept: list[Any] = []
    for detail in error.errors():
        loc = detail.get("loc") or ()
        if not loc or loc[0] in hidden:
            continue
        copy: dict[str, Any] = dict(detail)
        if isinstance(copy.get("input"), dict):
            copy["input"] = {k: v for k, v in copy["input"].items() if k not in hidden}
        kept.append(copy)
    return kept


def default_handle_tool_errors(e: Exception) -> str:
    """The default ``handle_tool_errors``: bad arguments become an error message the model
    can act on; any other exception is re-raised."""
    if isinstance(e, ToolInvocationError):
        return e.message
    raise e


def _annotated_exceptions(handler: Callable[..., str]) -> tuple[type[Exception], ...]:
    """The exception classes a handler function declares on its first parameter."""
    params = list(inspect.signature(handler).parameters.values())
    if not params:
        return (Exception,)
    first = params[1] if params[0].name in ("self", "cls") and len(params) == 2 else params[0]
    try:
        hints = typing.get_type_hints(handler)
    except Exception:
        hints = {}
    if first.name not in hints:
        return (Exception,)
    hint = hints[first.name]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        members = typing.get_args(hint)
        if all(isinstance(m, type) and issubclass(m, Exception) for m in members):
            return tuple(members)
        raise ValueError(
            "All types in the error handler error annotation must be Exception types. "
            "For example, `def custom_handler(e: Union[ValueError, TypeError])`. "
            f"Got '{first.annotation}' instead."
        )
    if isinstance(hint, type) and issubclass(hint, Exception):
        return (hint,)
    raise ValueError(
        "Arbitrary types are not supported in the error handler signature. Please annotate "
        "the error with either a specific Exception type or a union of Exception types. "
        "For example, `def custom_handler(e: ValueError)` or "
        "`def custom_handler(e: Union[ValueError, TypeError])`. "
        f"Got '{hint}' instead."
    )


def handled_types(flag: HandleToolErrors) -> tuple[type[Exception], ...]:
    """The exception classes ``flag`` catches (when it is not falsy)."""
    if isinstance(flag, type) and issubclass(flag, Exception):
        return (flag,)
    if isinstance(flag, tuple):
        return flag
    if callable(flag) and not isinstance(flag, type):
        return _annotated_exceptions(flag)
    return (Exception,)


def error_content(e: Exception, flag: HandleToolErrors) -> str:
    """The text of the error `ToolMessage` for ``e`` under ``flag``."""
    if isinstance(flag, bool | tuple) or (isinstance(flag, type) and issubclass(flag, Exception)):
        return TOOL_CALL_ERROR_TEMPLATE.format(error=repr(e))
    if isinstance(flag, str):
        return flag
    if callable(flag):
        text: str = cast(Callable[[Exception], str], flag)(e)
        return text
    raise ValueError(
        "Got unexpected type of `handle_tool_error`. Expected bool, str or callable. "
        f"Received: {flag}"
    )
