"""The persistent savers behave as `InMemorySaver` does: interrupt and resume, state, history,
threads, time travel; and they persist across saver objects and processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, TypedDict

from superstep_compat.checkpoint.base import CheckpointTuple
from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.checkpoint.sqlite import SqliteSaver
from superstep_compat.graph import END, START, StateGraph
from superstep_compat.types import Command

from .graphs import approval_graph, script, view

GRAPHS = Path(__file__).with_name("graphs.py")


def test_interrupt_resume_history_equal_those_of_the_memory_saver(saver: Any) -> None:
    expected = script(approval_graph(InMemorySaver()))
    got = script(approval_graph(saver))
    assert got == expected
    assert got["first"] == {"log": ["start"], "interrupt": ["continue?"]}
    assert got["paused"]["next"] == ("ask",)
    assert got["paused"]["interrupts"] == ["continue?"]
    assert got["final"] == {"log": ["start", "answer=yes"]}
    assert [h["source"] for h in got["history"]] == ["loop", "loop", "loop", "input"]
    assert [h["next"] for h in got["history"]] == [(), ("ask",), ("start",), ("__start__",)]


def test_list_yields_checkpoint_tuples_newest_first(saver: Any) -> None:
    graph = approval_graph(saver)
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"log": []}, cfg)
    graph.invoke(Command(resume="yes"), cfg)
    tuples = list(saver.list(cfg))
    assert len(tuples) == 4
    assert all(isinstance(t, CheckpointTuple) for t in tuples)
    # as LangGraph: the input checkpoint holds only ``__start__`` (a channel never written
    # has no version, so no value in the checkpoint)
    assert [t.checkpoint["channel_values"].get("log") for t in tuples] == [
        ["start", "answer=yes"],
        ["start"],
        [],
        None,
    ]
    assert tuples[-1].checkpoint["channel_values"]["__start__"] == {"log": []}
    # each checkpoint's parent is the next older one
    ids = [t.config["configurable"]["checkpoint_id"] for t in tuples]
    parents = [t.parent_config["configurable"]["checkpoint_id"] for t in tuples[:-1]]
    assert parents == ids[1:]
    assert tuples[-1].parent_config is None
    assert saver.get_tuple(cfg).config == tuples[0].config
    assert len(list(saver.list(cfg, limit=2))) == 2
    assert [t.config for t in saver.list(cfg, before=tuples[1].config)] == [
        t.config for t in tuples[2:]
    ]
    assert [t.metadata["source"] for t in saver.list(cfg, filter={"source": "input"})] == ["input"]


def test_threads_are_independent_and_delete_thread_removes_one(saver: Any) -> None:
    graph = approval_graph(saver)
    one = {"configurable": {"thread_id": "one"}}
    two = {"configurable": {"thread_id": "two"}}
    graph.invoke({"log": []}, one)
    out = graph.invoke({"log": ["other"]}, two)
    assert out["log"] == ["other", "start"]
    assert graph.get_state(one).values == {"log": ["start"]}
    saver.delete_thread("one")
    assert list(saver.list(one)) == []
    assert saver.get_tuple(one) is None
    assert graph.get_state(two).values == {"log": ["other", "start"]}
    assert graph.invoke(Command(resume="ok"), two)["log"] == ["other", "start", "answer=ok"]


def test_time_travel_from_an_older_checkpoint_branches_and_keeps_the_old_history(
    saver: Any,
) -> None:
    graph = approval_graph(saver)
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"log": []}, cfg)
    graph.invoke(Command(resume="yes"), cfg)
    before = list(graph.get_state_history(cfg))
    paused = next(s for s in before if s.next == ("ask",))
    # resume the same interrupt again, from the past: as in LangGraph, the answer saved
    # there since comes first (the new one would serve a further interrupt)
    out = graph.invoke(Command(resume="no"), paused.config)
    assert out["log"] == ["start", "answer=yes"]
    assert graph.get_state(cfg).values == {"log": ["start", "answer=yes"]}
    after = list(graph.get_state_history(cfg))
    assert len(after) > len(before)
    assert {s.config["configurable"]["checkpoint_id"] for s in before} <= {
        s.config["configurable"]["checkpoint_id"] for s in after
    }
    # the old branch is still there to read
    assert graph.get_state(before[0].config).values == {"log": ["start", "answer=yes"]}


def test_update_state_is_saved_as_a_checkpoint(saver: Any) -> None:
    graph = approval_graph(saver)
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"log": []}, cfg)
    graph.update_state(cfg, {"log": ["edited"]})
    assert graph.get_state(cfg).values == {"log": ["start", "edited"]}
    assert graph.get_state(cfg).metadata["source"] == "update"


def test_a_new_saver_on_the_same_file_continues_a_thread_started_in_another_process(
    db_path: str,
) -> None:
    done = subprocess.run(
        [sys.executable, str(GRAPHS), db_path], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    with SqliteSaver.from_conn_string(db_path) as saver:
        graph = approval_graph(saver)
        cfg = {"configurable": {"thread_id": "t"}}
        paused = graph.get_state(cfg)
        assert paused.next == ("ask",)
        assert [i.value for i in paused.interrupts] == ["continue?"]
        assert graph.invoke(Command(resume="yes"), cfg) == {"log": ["start", "answer=yes"]}
        expected = script(approval_graph(InMemorySaver()))["history"]
        assert [view(s) for s in graph.get_state_history(cfg)] == expected


def test_in_memory_database_via_from_conn_string() -> None:
    with SqliteSaver.from_conn_string(":memory:") as saver:
        saver.setup()
        saver.setup()
        got = script(approval_graph(saver))
    assert got == script(approval_graph(InMemorySaver()))


def test_only_the_channels_a_step_changed_are_written(db_path: str) -> None:
    class Big(TypedDict):
        big: list[str]
        n: int

    class Recording(InMemorySaver):
        def __init__(self) -> None:
            super().__init__()
            self.written: list[set[str]] = []

        def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
            self.written.append(set(new_versions))
            return super().put(config, checkpoint, metadata, new_versions)

    def bump(state: Big) -> dict[str, Any]:
        return {"n": state["n"] + 1}

    builder = StateGraph(Big)
    builder.add_node("bump", bump)
    builder.add_edge(START, "bump")
    builder.add_conditional_edges("bump", lambda s: "bump" if s["n"] < 5 else END)
    saver = Recording()
    graph = builder.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "t"}}
    assert graph.invoke({"big": ["x" * 100] * 10, "n": 0}, cfg)["n"] == 5
    assert len(saver.written) == 7  # input, START's step, five bumps
    assert all("big" not in written for written in saver.written[2:])
    assert all("n" in written for written in saver.written[2:])
    assert graph.get_state(cfg).values["big"] == ["x" * 100] * 10


def test_state_with_messages_and_reducers_round_trips(saver: Any) -> None:
    from langchain_core.messages import AIMessage, HumanMessage

    from superstep_compat.graph import MessagesState

    builder = StateGraph(MessagesState)
    builder.add_node(
        "reply", lambda s: {"messages": [AIMessage("hi", id=f"a{len(s['messages'])}")]}
    )
    builder.add_edge(START, "reply")
    builder.add_edge("reply", END)
    graph = builder.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "m"}}
    graph.invoke({"messages": [HumanMessage("hello", id="h1")]}, cfg)
    graph.invoke({"messages": [HumanMessage("again", id="h2")]}, cfg)
    messages = graph.get_state(cfg).values["messages"]
    assert [type(m) for m in messages] == [HumanMessage, AIMessage, HumanMessage, AIMessage]
    assert [m.content for m in messages] == ["hello", "hi", "again", "hi"]


def test_a_saver_asserting_checkpoints_are_never_mutated_holds_a_thread() -> None:
    # LangGraph's own test fixture: every put checks the stored parent against its copy
    from collections import defaultdict

    class AssertImmutable(InMemorySaver):
        def __init__(self) -> None:
            super().__init__()
            self.copies: defaultdict[str, dict[str, Any]] = defaultdict(dict)
            self.checked = 0

        def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
            saved = super().get(config)
            if saved is not None:
                assert (
                    self.serde.loads_typed(
                        self.copies[config["configurable"]["thread_id"]][saved["id"]]
                    )
                    == saved
                )
                self.checked += 1
            thread = config["configurable"]["thread_id"]
            self.copies[thread][checkpoint["id"]] = self.serde.dumps_typed(checkpoint)
            return super().put(config, checkpoint, metadata, new_versions)

    saver = AssertImmutable()
    assert script(approval_graph(saver)) == script(approval_graph(InMemorySaver()))
    assert saver.checked >= 3
