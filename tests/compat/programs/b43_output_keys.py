"""invoke/stream with output_keys (a list or one key): the values chunks, updates chunks and
the result keep only those keys, a values chunk only for a step that wrote one of them; an
unknown key is refused; a subgraph with an output schema, invoked as a node or from a node,
streams (subgraphs=True) only its output keys."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import interrupt


class S(TypedDict, total=False):
    a: str
    b: Annotated[list[str], operator.add]
    c: int


class Out(TypedDict, total=False):
    c: int


def one(s: S):
    return {"a": s.get("a", "") + "1", "b": ["x"]}


def two(s: S):
    return {"c": len(s.get("b", []))}


def asker(s: S):
    return {"a": interrupt("q?")}


def _ints(chunk):
    """A chunk with its interrupts' (random) ids left out."""
    if isinstance(chunk, dict) and "__interrupt__" in chunk:
        return {**chunk, "__interrupt__": [i.value for i in chunk["__interrupt__"]]}
    return chunk


def _ns(chunk):
    ns, *rest = chunk
    return (tuple(part.split(":")[0] for part in ns), *rest)


def run():
    g = StateGraph(S)
    g.add_node("one", one)
    g.add_node("two", two)
    g.add_edge(START, "one")
    g.add_edge("one", "two")
    app = g.compile()
    out = {}
    out["inv_list"] = app.invoke({"a": "q"}, output_keys=["a", "c"])
    out["inv_str"] = app.invoke({"a": "q"}, output_keys="c")
    out["inv_v2"] = repr(app.invoke({"a": "q"}, output_keys="a", version="v2"))
    out["values_list"] = list(app.stream({"a": "q"}, stream_mode="values", output_keys=["b"]))
    out["values_str"] = list(app.stream({"a": "q"}, stream_mode="values", output_keys="a"))
    out["updates_list"] = list(app.stream({"a": "q"}, stream_mode="updates", output_keys=["c"]))
    out["updates_str"] = list(app.stream({"a": "q"}, stream_mode="updates", output_keys="a"))
    out["multi"] = list(
        app.stream({"a": "q"}, stream_mode=["values", "updates"], output_keys=["a"])
    )
    out["multi_v2"] = [
        repr(c)
        for c in app.stream(
            {"a": "q"}, stream_mode=["values", "updates"], output_keys="c", version="v2"
        )
    ]
    for name, keys in (("bad_list", ["a", "zz"]), ("bad_str", "zz")):
        try:
            app.invoke({"a": "q"}, output_keys=keys)
        except ValueError as e:
            out[name] = str(e)

    # an interrupt shows through the output keys (one key's value does not)
    g2 = StateGraph(S)
    g2.add_node("asker", asker)
    g2.add_node("two", two)
    g2.add_edge(START, "asker")
    g2.add_edge("asker", "two")
    app2 = g2.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    out["int_list"] = _ints(app2.invoke({"b": ["z"]}, cfg, output_keys=["c", "b"]))
    cfg = {"configurable": {"thread_id": "u"}}
    out["int_str"] = _ints(app2.invoke({"b": ["z"]}, cfg, output_keys="b"))
    cfg = {"configurable": {"thread_id": "v"}}
    out["int_stream"] = [
        _ints(c) for c in app2.stream({"b": ["z"]}, cfg, output_keys="b", stream_mode="values")
    ]
    # a resumed run shows the state it starts from through the keys too
    from langgraph.types import Command

    out["resumed"] = [
        _ints(c)
        for c in app2.stream(Command(resume="A"), cfg, output_keys=["a"], stream_mode="values")
    ]

    # an output schema: invoke shows nothing for a run that never wrote its keys
    g3 = StateGraph(S, output_schema=Out)
    g3.add_node("one", one)
    g3.add_edge(START, "one")
    app3 = g3.compile()
    out["schema_none"] = app3.invoke({"a": "q"})
    out["schema_none_v2"] = repr(app3.invoke({"a": "q"}, version="v2"))
    out["schema_stream"] = list(app3.stream({"a": "q"}, stream_mode="values"))

    # subgraphs with an output schema stream their output keys only
    sg = StateGraph(S, output_schema=Out)
    sg.add_node("one", one)
    sg.add_node("two", two)
    sg.add_node("three", lambda s: {"a": "y"})
    sg.add_edge(START, "one")
    sg.add_edge("one", "two")
    sg.add_edge("two", "three")
    sub = sg.compile()
    pg = StateGraph(S)
    pg.add_node("sub", sub)
    pg.add_node("fn", lambda s, config: {"c": sub.invoke({"a": "z"}, config)["c"] + 1})
    pg.add_edge(START, "sub")
    pg.add_edge("sub", "fn")
    parent = pg.compile()
    out["sub_values"] = [
        _ns(c) for c in parent.stream({"a": "q"}, stream_mode="values", subgraphs=True)
    ]
    out["sub_both"] = [
        _ns(c) for c in parent.stream({"a": "q"}, stream_mode=["values", "updates"], subgraphs=True)
    ]
    return out
