"""Errors of the persistence layer: values the codec refuses to write or cannot read back.

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.checkpoint.
"""

from __future__ import annotations

from superstep_core.errors import SuperstepError

__all__ = ["CodecError", "DecodeError", "TooDeepError", "UnsupportedTypeError"]


class CodecError(SuperstepError):
    """Base of every error the codec raises."""


class UnsupportedTypeError(CodecError, TypeError):
    """A value of a type outside the codec's registry was offered for writing.

    Attributes: ``where`` (the channel or other root name given to ``dumps``, or ``None``),
    ``kind`` (what ``where`` names, e.g. ``"channel"``), ``path`` (where in the value the
    offending object sits, e.g. ``"docs[3].x"``), ``type_name`` (its ``module.qualname``).
    """

    def __init__(
        self, *, where: str | None, kind: str, path: str, type_name: str, hint: str
    ) -> None:
        self.where = where
        self.kind = kind
        self.path = path
        self.type_name = type_name
        prefix = f"{kind} {where!r}: " if where is not None else ""
        super().__init__(f"{prefix}cannot serialise value of type {type_name!r} at {path}; {hint}")


class TooDeepError(CodecError, ValueError):
    """A value nested deeper than the codec writes (msgpack's limit: 255 levels of lists and
    dicts) was offered for writing. ``where`` and ``kind`` as for `UnsupportedTypeError`;
    ``limit``: the number of levels."""

    def __init__(self, *, where: str | None, kind: str, limit: int) -> None:
        self.where = where
        self.kind = kind
        self.limit = limit
        prefix = f"{kind} {where!r}: " if where is not None else ""
        super().__init__(
            f"{prefix}cannot serialise a value nested more than {limit} levels deep (lists, "
            "dicts and tuples inside each other): flatten it"
        )


class DecodeError(CodecError, ValueError):
    """Bytes could not be read back: they are not the codec's format, or they name a type tag
    that is neither registered nor importable from an allowed module."""
