"""Keyword arguments LangGraph renamed: the old name still works, with LangGraph's warning."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

__all__ = ["deprecated_kwarg"]


def deprecated_kwarg(
    kwargs: Mapping[str, Any], old: str, new: str, category: type[Warning], *, stacklevel: int = 3
) -> Any:
    """``kwargs[old]`` (None when absent), warning ``category`` as LangGraph does when the
    renamed argument ``old`` of ``new`` is passed. ``stacklevel`` as `warnings.warn` counts
    from this function: 3 blames the caller of the function that received ``kwargs``."""
    if old not in kwargs:
        return None
    warnings.warn(
        f"`{old}` is deprecated and will be removed. Please use `{new}` instead.",
        category,
        stacklevel=stacklevel,
    )
    return kwargs[old]
