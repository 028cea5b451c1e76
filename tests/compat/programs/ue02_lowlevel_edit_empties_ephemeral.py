"""A low-level `Pregel`'s ``update_state`` without ``as_node``: LangGraph writes it as the
node that ran last (the only node, or the one ``versions_seen`` names), as a step: the
ephemeral channels it does not write are emptied, and a node stays due only while a channel
it subscribes to still holds a value. So a thread paused in a node fed by an ephemeral input
ends with nothing next, while a `LastValue` input keeps the node due. A fresh thread of two
nodes is ambiguous (the input is a channel, not a node)."""

from typing import Any

from langgraph.channels import EphemeralValue, LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.pregel import NodeBuilder, Pregel
from langgraph.types import Command, interrupt


def _ask(x: int) -> int:
    return interrupt("how much?") + x


def _view(app: Pregel, cfg: Any) -> dict[str, Any]:
    st = app.get_state(cfg)
    return {
        "values": st.values,
        "next": list(st.next),
        "step": (st.metadata or {}).get("step"),
        "source": (st.metadata or {}).get("source"),
        "tasks": [t.name for t in st.tasks],
    }


def _plain(result: Any) -> Any:
    if isinstance(result, dict):
        return {k: [i.value for i in v] if k == "__interrupt__" else v for k, v in result.items()}
    return result


def _attempt(f: Any) -> Any:
    try:
        return f()
    except Exception as e:
        return [type(e).__name__, str(e)]


def _one_node(channel: Any, scenario: str) -> list[Any]:
    node = NodeBuilder().subscribe_only("input").do(_ask).write_to("output")
    app = Pregel(
        nodes={"ask": node},
        channels={"input": channel(int), "output": LastValue(int)},
        input_channels="input",
        output_channels="output",
        checkpointer=InMemorySaver(),
    )
    cfg = {"configurable": {"thread_id": "1"}}
    out: list[Any] = []
    if scenario != "fresh":
        out.append(_plain(app.invoke(2, cfg)))
    if scenario == "finished":
        out.append(_plain(app.invoke(Command(resume=5), cfg)))
    out.append(_attempt(lambda: app.update_state(cfg, 10) and None))
    out.append(_view(app, cfg))
    out.append(_plain(app.invoke(None, cfg)))
    out.append(_view(app, cfg))
    return out


def _two_nodes(channel: Any, scenario: str) -> list[Any]:
    one = NodeBuilder().subscribe_only("input").do(lambda x: x + 1).write_to("inbox")
    two = NodeBuilder().subscribe_only("inbox").do(_ask).write_to("output")
    app = Pregel(
        nodes={"one": one, "ask": two},
        channels={"inbox": channel(int), "output": LastValue(int), "input": EphemeralValue(int)},
        input_channels="input",
        output_channels=["output", "inbox"],
        checkpointer=InMemorySaver(),
    )
    cfg = {"configurable": {"thread_id": "1"}}
    out: list[Any] = []
    if scenario != "fresh":
        out.append(_plain(app.invoke(2, cfg)))
    if scenario == "finished":
        out.append(_plain(app.invoke(Command(resume=5), cfg)))
    out.append(_attempt(lambda: app.update_state(cfg, 10) and None))
    out.append(_view(app, cfg))
    if scenario != "fresh":
        out.append(_attempt(lambda: app.update_state(cfg, 4, as_node="ask") and None))
        out.append(_view(app, cfg))
        out.append(_plain(app.invoke(None, cfg)))
        out.append(_view(app, cfg))
    return out


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for channel in (EphemeralValue, LastValue):
        for scenario in ("paused", "finished", "fresh"):
            out[f"one_{channel.__name__}_{scenario}"] = _one_node(channel, scenario)
            out[f"two_{channel.__name__}_{scenario}"] = _two_nodes(channel, scenario)
    return out
