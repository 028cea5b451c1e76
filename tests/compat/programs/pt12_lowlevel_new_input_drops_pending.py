"""A low-level `Pregel` paused by ``interrupt_after`` and then given new input drops the
task the pause left (the second node) as LangGraph does: its input checkpoint marks that node
as having seen its trigger at the version it had, so the checkpoint's ``next`` is only the
node the input triggers, and the node left pending runs once, after it. Before, the façade's
input checkpoint kept the dropped node's old ``versions_seen``: ``get_state_history`` showed
``next == ("one", "two")`` there (langgraph-checkpoint-mysql's langgraph-tests,
test_invoke_two_processes_in_out_interrupt, on any saver)."""

from langgraph.channels import LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.pregel import NodeBuilder, Pregel


def build(saver, calls):
    def add_one(name):
        def step(x):
            calls.append(f"{name}:{x}")
            return x + 1

        return step

    one = NodeBuilder().subscribe_only("input").do(add_one("one")).write_to("inbox")
    two = NodeBuilder().subscribe_only("inbox").do(add_one("two")).write_to("output")
    return Pregel(
        nodes={"one": one, "two": two},
        channels={"inbox": LastValue(int), "output": LastValue(int), "input": LastValue(int)},
        input_channels="input",
        output_channels="output",
        checkpointer=saver,
        interrupt_after_nodes=["one"],
    )


def seen(saver, config):
    """Which channels each node has seen, as versions relative to the channel's current
    one (saver version strings differ between runs)."""
    checkpoint = saver.get_tuple(config).checkpoint
    versions = checkpoint["channel_versions"]
    return {
        node: {ch: v == versions.get(ch) for ch, v in sorted(chans.items())}
        for node, chans in sorted(checkpoint["versions_seen"].items())
        if node in ("one", "two")
    }


def run():
    saver = InMemorySaver()
    calls: list[str] = []
    app = build(saver, calls)
    t = {"configurable": {"thread_id": "1"}}
    out = [
        app.invoke(2, t),
        app.invoke(None, t),
        app.invoke(20, t),  # pauses after "one": "two" is pending
        app.invoke(3, t),  # new input: the pending "two" is dropped
        app.invoke(None, t),
    ]
    history = [
        {
            "step": s.metadata["step"],
            "source": s.metadata["source"],
            "values": s.values,
            "next": list(s.next),
            "seen": seen(saver, s.config),
        }
        for s in app.get_state_history(t)
    ]
    return {"out": out, "calls": calls, "history": history}
