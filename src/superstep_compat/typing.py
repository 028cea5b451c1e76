"""`langgraph.typing`: the type variables of StateGraph's and Runtime's generics."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypeVar

__all__ = ("ContextT", "InputT", "OutputT", "StateT", "StateT_co", "StateT_contra")

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
