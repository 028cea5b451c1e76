"""A pydantic model returned by a node (or as a `Command` update) writes a field set to
None when it was set explicitly, is required, or has a default that is not None; a field left
at a None default is not written (so it does not clear what another node wrote)."""

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command
from pydantic import BaseModel


class Required(BaseModel):
    foo: str | None


class Optional_(BaseModel):
    foo: str | None = None
    bar: str | None = None
    baz: str | None = "default"


def run() -> dict:
    def clear(state: Required) -> Required:
        return Required(foo=None)

    def clear_by_command(state: Required) -> Command:
        return Command(update=Required(foo=None))

    out: dict = {}
    for name, node in (("returned", clear), ("command", clear_by_command)):
        graph = StateGraph(Required).add_node("node", node).add_edge(START, "node").compile()
        out[name] = graph.invoke({"foo": "set"})

    def first(state: Optional_) -> Optional_:
        return Optional_(foo="foo", bar="bar")

    def second(state: Optional_) -> Command:
        return Command(update=Optional_(bar=None))

    def third(state: Optional_) -> Optional_:
        return Optional_(baz=None)

    builder = StateGraph(Optional_)
    builder.add_node("first", first)
    builder.add_node("second", second)
    builder.add_node("third", third)
    builder.add_edge(START, "first")
    builder.add_edge("first", "second")
    builder.add_edge("second", "third")
    builder.add_edge("third", END)
    out["defaults"] = builder.compile().invoke(Optional_(), stream_mode="updates")
    return out
