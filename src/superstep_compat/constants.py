"""`langgraph.constants`: START, END and the tag and config-key strings.

Importing `Send`, `Interrupt` or one of the private constants from here still works, with the
same deprecation warning LangGraph gives.
"""

from __future__ import annotations

import warnings
from typing import Any

from superstep_compat._internal._constants import (
    CONF,
    CONFIG_KEY_CHECKPOINTER,
    END,
    PRIVATE,
    START,
    TAG_HIDDEN,
    TAG_NOSTREAM,
    TASKS,
)
from superstep_compat.warnings import LangGraphDeprecatedSinceV10

__all__ = (
    "CONF",
    "CONFIG_KEY_CHECKPOINTER",
    "END",
    "START",
    "TAG_HIDDEN",
    "TAG_NOSTREAM",
    "TASKS",
)

_MOVED_TO_TYPES = ("Send", "Interrupt")


def __getattr__(name: str) -> Any:
    if name in _MOVED_TO_TYPES:
        warnings.warn(
            f"Importing {name} from langgraph.constants is deprecated. "
            f"Please use 'from langgraph.types import {name}' instead.",
            LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        from superstep_compat import types

        return getattr(types, name)
    if name in PRIVATE:
        warnings.warn(
            f"Importing {name} from langgraph.constants is deprecated. This constant is now "
            "private and should not be used directly. Please let the LangGraph team know if "
            "you need this value.",
            LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        return PRIVATE[name]
    raise AttributeError(f"module has no attribute '{name}'")
