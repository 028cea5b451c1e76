"""Errors of workflow documents: a `Problem` names where (node, edge, state field, key) and
says what to do; `DocumentError` carries every problem found.

Must never import the runtime, the host, the llm layer or compat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from superstep_core.errors import SuperstepError

__all__ = ["DocumentError", "InputError", "Problem", "RunNotFoundError", "VersionNotFoundError"]


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong: ``where`` (``node 'n1' data.prompt``, ``edge 'e2'``, ``state field
    'answers'``, ``input``) and ``message`` (what is wrong and what to do)."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


class DocumentError(SuperstepError, ValueError):
    """A document that cannot be loaded, validated or compiled. ``problems`` lists every one
    found; the message is the first, with a count of the others."""

    def __init__(self, problems: Sequence[Problem], document: str = "") -> None:
        self.problems = tuple(problems)
        self.document = document
        first = str(self.problems[0]) if self.problems else "invalid document"
        more = len(self.problems) - 1
        name = f"document {document!r}: " if document else ""
        tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more > 0 else ""
        super().__init__(f"{name}{first}{tail}")


class InputError(DocumentError):
    """A run's input (or a human node's answer) that does not fit the document's state."""


class VersionNotFoundError(SuperstepError, LookupError):
    """No saved version of that workflow (or no such version number)."""


class RunNotFoundError(SuperstepError, LookupError):
    """No document run with that id in the store."""
