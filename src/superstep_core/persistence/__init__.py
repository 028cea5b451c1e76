"""Persistence: the typed codec that turns execution state into bytes and back.

Owns: `Codec`, `ForeignSerializer`, `TypeRegistry`, `register`, `default_registry` and the
codec errors.
Must never import: the runtime, the host, the llm layer, compat, or superstep_core.checkpoint.
"""

from superstep_core.persistence.codec import Codec, ForeignSerializer
from superstep_core.persistence.errors import (
    CodecError,
    DecodeError,
    TooDeepError,
    UnsupportedTypeError,
)
from superstep_core.persistence.registry import TypeRegistry, default_registry, register

__all__ = [  # noqa: RUF022 - grouped by concept
    # codec
    "Codec",
    "ForeignSerializer",
    "TypeRegistry",
    "default_registry",
    "register",
    # errors
    "CodecError",
    "DecodeError",
    "TooDeepError",
    "UnsupportedTypeError",
]
