"""`get_graph()` of low-level `Pregel`s: LangGraph draws them by a dry run over their
channels (START, an edge wherever a write triggered a node, END after the last nodes).
Compared for a chain, a fan-in over a `Topic`, a cycle, a node reading two channels, a
list of input channels (nothing is written: no edges), fixed writes, mapped writes, a node
that writes nothing, interrupts, node metadata, and a node writing
``__pregel_tasks``: each drawing's nodes (with metadata), edges and Mermaid text."""

from typing import Any

from langgraph.channels import BinaryOperatorAggregate, EphemeralValue, LastValue, Topic
from langgraph.pregel import NodeBuilder, Pregel


def ident(x: Any) -> Any:
    return x


def drawn(app: Pregel, **kwargs: Any) -> Any:
    try:
        g = app.get_graph(**kwargs)
    except Exception as e:  # the type and the text are what is compared
        return {"raised": [type(e).__name__, str(e)]}
    return {
        "nodes": {k: n.metadata for k, n in g.nodes.items()},
        "edges": [[e.source, e.target, e.conditional, e.data] for e in g.edges],
        "mermaid": g.draw_mermaid(),
    }


def node(reads: Any, *writes: str, **kw: Any) -> Any:
    built = NodeBuilder()
    built = built.subscribe_only(reads) if isinstance(reads, str) else built.subscribe_to(*reads)
    return built.do(ident).write_to(*writes, **kw)


def run() -> dict[str, Any]:
    chain = Pregel(
        nodes={"one": node("a", "b"), "two": node("b", "c")},
        channels={"a": LastValue(int), "b": LastValue(int), "c": LastValue(int)},
        input_channels="a",
        output_channels="c",
    )
    fan_in = Pregel(
        nodes={"x": node("a", "inbox"), "y": node("a", "inbox"), "z": node("inbox", "out")},
        channels={"a": LastValue(int), "inbox": Topic(int), "out": LastValue(int)},
        input_channels="a",
        output_channels="out",
    )
    cycle = Pregel(
        nodes={
            "n": node("a", "b"),
            "m": node(["b", "a"], "c"),
            "k": node("c", "b", "d"),
        },
        channels={
            "a": EphemeralValue(object),
            "b": LastValue(object),
            "c": Topic(object, accumulate=True),
            "d": LastValue(object),
        },
        input_channels="a",
        output_channels=["b", "c"],
        interrupt_before_nodes=["m"],
        interrupt_after_nodes=["m", "k"],
    )
    listed_inputs = Pregel(
        nodes={"one": node("a", "b"), "two": node("b", "c")},
        channels={"a": LastValue(int), "b": LastValue(int), "c": LastValue(int)},
        input_channels=["a"],
        output_channels="c",
    )
    writes = Pregel(
        nodes={
            "fixed": NodeBuilder().subscribe_only("a").do(ident).write_to(b=5),
            "silent": NodeBuilder().subscribe_only("a").do(ident),
            "skipping": NodeBuilder().subscribe_only("a").do(ident).write_to(c=lambda x: x),
            "after_b": node("b", "total").meta("drawn", kind="sum"),
            "after_c": node("c", "total"),
        },
        channels={
            "a": LastValue(int),
            "b": LastValue(int),
            "c": LastValue(int),
            "total": BinaryOperatorAggregate(int, lambda x, y: (x or 0) + (y or 0)),
        },
        input_channels="a",
        output_channels="total",
    )
    reserved = Pregel(
        nodes={"one": node("a", "__pregel_tasks")},
        channels={"a": LastValue(int)},
        input_channels="a",
        output_channels="a",
    )
    return {
        "chain": drawn(chain),
        "fan_in": drawn(fan_in),
        "cycle": drawn(cycle),
        "cycle_xray": drawn(cycle, xray=True),
        "listed_inputs": drawn(listed_inputs),
        "writes": drawn(writes),
        "reserved": drawn(reserved),
    }
