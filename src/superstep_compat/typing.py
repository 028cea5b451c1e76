"""`langgraph.typing`: the type variables of StateGraph's and Runtime's generics."""

from __future__ import annotations

from dataclasses import Field
from typing import Any, ClassVar, Protocol, TypeAlias

from pydantic import BaseModel
from typing_extensions import TypeVar

__all__ = ("ContextT", "InputT", "OutputT", "StateT", "StateT_co", "StateT_contra")


class _TypedDictClassKeys(Protocol):
    """A TypedDict class as type checkers see it: its keys in class variables."""

    __required_keys__: ClassVar[frozenset[str]]
    __optional_keys__: ClassVar[frozenset[str]]


class _TypedDictKeys(Protocol):
    """A TypedDict class as some type checkers see it: its keys as plain attributes."""

    __required_keys__: frozenset[str]
    __optional_keys__: frozenset[str]


class _DataclassFields(Protocol):
    """A dataclass: what `dataclasses.fields` reads."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]


StateLike: TypeAlias = _TypedDictClassKeys | _TypedDictKeys | _DataclassFields | BaseModel
"""What a state schema may be (a TypedDict, a dataclass or a pydantic model), for
annotations: applications import it from here as from LangGraph's module (not in
``__all__`` there either)."""

StateT = TypeVar("StateT", bound=Any)
StateT_co = TypeVar("StateT_co", covariant=True)
StateT_contra = TypeVar("StateT_contra", contravariant=True)
ContextT = TypeVar("ContextT", default=None)
ContextT_contra = TypeVar("ContextT_contra", contravariant=True)
# As LangGraph: the input and output schemas default to the state schema, so
# ``CompiledStateGraph[S]`` and ``Pregel[Any]`` are valid with fewer arguments.
InputT = TypeVar("InputT", bound=Any, default=StateT)
OutputT = TypeVar("OutputT", bound=Any, default=StateT)
NodeInputT = TypeVar("NodeInputT")
NodeInputT_contra = TypeVar("NodeInputT_contra", contravariant=True)
