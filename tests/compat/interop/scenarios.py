"""Graphs whose threads move between LangGraph and Superstep (imported by both sides: only
``langgraph``, ``langchain_core`` and the standard library). Each scenario has ``build(saver)``
and two phases: ``start`` (run by the side that writes the thread) and ``proceed`` (run by
the side that continues it). ``RAN`` notes which nodes ran in this process."""

from __future__ import annotations

import operator
import os
import time
from typing import Annotated, Any, TypedDict

from langgraph.channels.delta import DeltaChannel
from langgraph.channels.topic import Topic
from langgraph.func import entrypoint, task
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Overwrite, Send, StateUpdate, interrupt

RAN: list[str] = []
CFG = {"configurable": {"thread_id": "moving"}}


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def _node(name: str) -> Any:
    def run(state: State) -> dict[str, Any]:
        RAN.append(name)
        return {"log": [name]}

    return run


def _asking(name: str) -> Any:
    def run(state: State) -> dict[str, Any]:
        RAN.append(name)
        answer = interrupt(f"{name}?")
        return {"log": [f"{name}={answer}"]}

    return run


# --- finished -----------------------------------------------------------------------------


def finished(saver: Any) -> Any:
    g = StateGraph(State)
    g.add_node("a", _node("a"))
    g.add_node("b", _node("b"))
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    return g.compile(checkpointer=saver)


def finished_start(graph: Any) -> Any:
    return graph.invoke({"log": ["in"]}, CFG)


def finished_proceed(graph: Any) -> Any:
    return graph.invoke({"log": ["more"]}, CFG)


# --- one interrupt --------------------------------------------------------------------------


def one_interrupt(saver: Any) -> Any:
    g = StateGraph(State)
    g.add_node("a", _node("a"))
    g.add_node("ask", _asking("ask"))
    g.add_node("b", _node("b"))
    g.add_edge(START, "a")
    g.add_edge("a", "ask")
    g.add_edge("ask", "b")
    return g.compile(checkpointer=saver)


def one_interrupt_start(graph: Any) -> Any:
    return graph.invoke({"log": []}, CFG)


def one_interrupt_proceed(graph: Any) -> Any:
    return graph.invoke(Command(resume="yes"), CFG)


# --- parallel interrupts ------------------------------------------------------------------------


def parallel_interrupts(saver: Any) -> Any:
    g = StateGraph(State)
    g.add_node("x", _asking("x"))
    g.add_node("y", _asking("y"))
    g.add_node("plain", _node("plain"))
    g.add_node("z", _node("z"))
    g.add_edge(START, "x")
    g.add_edge(START, "y")
    g.add_edge(START, "plain")
    g.add_edge(["x", "y", "plain"], "z")
    return g.compile(checkpointer=saver)


def parallel_interrupts_start(graph: Any) -> Any:
    return graph.invoke({"log": []}, CFG)


def parallel_interrupts_proceed(graph: Any) -> Any:
    pending = graph.get_state(CFG).interrupts
    answers = {i.id: f"ok-{i.value}" for i in pending}
    return graph.invoke(Command(resume=answers), CFG)


# --- a Send fan-out paused part-way ------------------------------------------------------------


class Items(TypedDict):
    items: list[int]
    out: Annotated[list[str], operator.add]


def _work(item: int) -> dict[str, Any]:
    RAN.append(f"w{item}")
    if item == 2:
        answer = interrupt(f"item {item}?")
        return {"out": [f"{item}:{answer}"]}
    return {"out": [str(item)]}


def send_paused(saver: Any) -> Any:
    g = StateGraph(Items)
    g.add_node("w", _work)
    g.add_node("done", lambda s: {"out": ["done"]})
    g.add_conditional_edges(START, lambda s: [Send("w", i) for i in s["items"]])
    g.add_edge("w", "done")
    return g.compile(checkpointer=saver)


def send_paused_start(graph: Any) -> Any:
    return graph.invoke({"items": [1, 2, 3], "out": []}, CFG)


def send_paused_proceed(graph: Any) -> Any:
    return graph.invoke(Command(resume="fine"), CFG)


def send_due(saver: Any) -> Any:
    g = StateGraph(Items)
    g.add_node("w", _work)
    g.add_node("done", lambda s: {"out": ["done"]})
    g.add_conditional_edges(START, lambda s: [Send("w", i) for i in s["items"]])
    g.add_edge("w", "done")
    return g.compile(checkpointer=saver, interrupt_before=["w"])


def send_due_start(graph: Any) -> Any:
    # paused before the fan-out: its packets are due, none ran (item 2 would ask)
    return graph.invoke({"items": [3, 1], "out": []}, CFG)


def send_due_proceed(graph: Any) -> Any:
    return graph.invoke(None, CFG)


# --- a parallel step that failed ----------------------------------------------------------------


def _flaky(state: State) -> dict[str, Any]:
    RAN.append("flaky")
    if not os.path.exists(os.environ["INTEROP_FLAG"]):
        # fail only once the sibling "ok" has ended: LangGraph keeps a sibling's write only
        # if it ended before the failure surfaced, so a race here made the reference itself
        # vary (sometimes "ok" ran again when the thread went on)
        deadline = time.monotonic() + 5
        while "ok" not in RAN and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(0.1)
        raise RuntimeError("flaky is broken until the flag exists")
    return {"log": ["flaky"]}


def failed_parallel(saver: Any) -> Any:
    g = StateGraph(State)
    g.add_node("ok", _node("ok"))
    g.add_node("flaky", _flaky)
    g.add_node("after", _node("after"))
    g.add_edge(START, "ok")
    g.add_edge(START, "flaky")
    g.add_edge(["ok", "flaky"], "after")
    return g.compile(checkpointer=saver)


def failed_parallel_start(graph: Any) -> Any:
    return graph.invoke({"log": []}, CFG)


def failed_parallel_proceed(graph: Any) -> Any:
    with open(os.environ["INTEROP_FLAG"], "w"):
        pass
    return graph.invoke(None, CFG)


# --- a node looping onto itself, stopped by the recursion limit ------------------------------


class Count(TypedDict):
    n: int


def _inc(state: Count) -> dict[str, Any]:
    RAN.append(f"inc{state['n']}")
    return {"n": state["n"] + 1}


def self_loop(saver: Any) -> Any:
    g = StateGraph(Count)
    g.add_node("inc", _inc)
    g.add_edge(START, "inc")
    g.add_conditional_edges("inc", lambda s: END if s["n"] >= 5 else "inc")
    return g.compile(checkpointer=saver)


def self_loop_start(graph: Any) -> Any:
    return graph.invoke({"n": 0}, {**CFG, "recursion_limit": 3})


def self_loop_proceed(graph: Any) -> Any:
    return graph.invoke(None, CFG)


# --- a DeltaChannel key (deepagents' messages and files) ----------------------------------------


def _keep(state: list[str], writes: list[Any]) -> list[str]:
    """Appends each write's items: batching-invariant, as a DeltaChannel reducer must be."""
    out = list(state)
    for write in writes:
        out.extend(write)
    return out


class Notes(TypedDict):
    # every second update is snapshotted by LangGraph; the steps between store no value
    notes: Annotated[list[str], DeltaChannel(_keep, snapshot_frequency=2)]
    n: int


def _note(state: Notes) -> dict[str, Any]:
    RAN.append(f"note{state['n']}")
    if state["n"] == 2:
        return {"notes": Overwrite(["reset"]), "n": 3}
    return {"notes": [f"n{state['n']}:{len(state['notes'])}"], "n": state["n"] + 1}


def delta_channel(saver: Any) -> Any:
    g = StateGraph(Notes)
    g.add_node("note", _note)
    g.add_edge(START, "note")
    g.add_conditional_edges("note", lambda s: END if s["n"] >= 7 else "note")
    return g.compile(checkpointer=saver)


def delta_channel_start(graph: Any) -> Any:
    return graph.invoke({"notes": ["in"], "n": 0}, {**CFG, "recursion_limit": 5})


def delta_channel_proceed(graph: Any) -> Any:
    return graph.invoke(None, CFG)


# --- a DeltaChannel key edited: Commands onto the checkpoint, edits, forks, "exit" runs -------


class Jots(TypedDict):
    # snapshotted every third update: most checkpoints store no value
    jots: Annotated[list[str], DeltaChannel(_keep, snapshot_frequency=3)]
    n: int


def _jot(state: Jots) -> dict[str, Any]:
    RAN.append(f"jot{state['n']}")
    return {"jots": [f"j{state['n']}"], "n": state["n"] + 1}


def delta_edits(saver: Any) -> Any:
    g = StateGraph(Jots)
    g.add_node("jot", _jot)
    g.add_edge(START, "jot")
    g.add_conditional_edges("jot", lambda s: END if s["n"] >= 4 else "jot")
    return g.compile(checkpointer=saver)


def _at(graph: Any, source: str, *, oldest: bool = False) -> Any:
    """The config of the newest (``oldest``) checkpoint of ``source`` in the history."""
    found = [s.config for s in graph.get_state_history(CFG) if s.metadata["source"] == source]
    return found[-1 if oldest else 0]


def delta_edits_start(graph: Any) -> Any:
    graph.invoke({"jots": ["in"], "n": 0}, CFG)
    graph.update_state(CFG, {"jots": ["u"], "n": 2}, as_node="jot")
    graph.invoke(Command(update={"jots": ["c"]}), CFG)  # onto the edit: tasks due
    return graph.invoke(Command(update={"jots": ["c2"]}), CFG)  # onto the finished thread


def delta_edits_proceed(graph: Any) -> Any:
    # more writes of no task onto the checkpoint the other side wrote some on
    ran = [graph.invoke(Command(update={"jots": ["p"]}), CFG)]
    # a fork of the edit, its own edit, then a run from it held back to its end
    copied = graph.update_state(_at(graph, "update"), None, as_node="__copy__")
    edited = graph.update_state(copied, {"jots": ["f"]}, as_node="jot")
    ran.append(graph.invoke(None, edited, durability="exit"))
    # a Command from a checkpoint the thread moved past: a fork holding it
    ran.append(graph.invoke(Command(update={"jots": ["t"]}), _at(graph, "loop", oldest=True)))
    ran.append(graph.invoke({"jots": ["again"], "n": 1}, CFG, durability="exit"))
    return ran


# --- Commands given to the thread at its checkpoint: writes of no task on it ------------------


class Tally(TypedDict):
    log: Annotated[list[str], operator.add]
    n: int


def _flaky_goto(state: Tally) -> dict[str, Any]:
    RAN.append("flaky")
    if not os.path.exists(os.environ["INTEROP_FLAG"]):
        raise RuntimeError("flaky is broken until the flag exists")
    return {"log": [f"flaky{state['n']}"]}


def _ask_goto(state: Tally) -> dict[str, Any]:
    RAN.append("ask")
    return {"log": [f"ask{state['n']}={interrupt('ok?')}"]}


def plain_commands(saver: Any) -> Any:
    g = StateGraph(Tally)
    g.add_node("a", lambda s: {"log": ["a"], "n": s["n"] + 1})
    g.add_node("ask", _ask_goto)
    g.add_node("flaky", _flaky_goto)
    g.add_edge(START, "a")
    g.add_edge("a", END)
    g.add_edge("ask", END)
    g.add_edge("flaky", END)
    return g.compile(checkpointer=saver)


def plain_commands_start(graph: Any) -> Any:
    graph.invoke({"log": ["in"], "n": 0}, CFG)
    graph.invoke(Command(update={"log": ["u1"]}), CFG)  # onto the finished thread
    # a goto whose node asks: the thread stays at the checkpoint holding the writes
    return graph.invoke(Command(update={"log": ["u2"], "n": 5}, goto="ask"), CFG)


def plain_commands_proceed(graph: Any) -> Any:
    # the other side's writes of no task apply; the answer's update joins them
    ran = [graph.invoke(Command(resume="yes", update={"log": ["r"]}), CFG)]
    # a goto whose node fails, then runs again once it can
    try:
        ran.append(graph.invoke(Command(update={"n": 7}, goto="flaky"), CFG))
    except RuntimeError as exc:
        ran.append({"raised": str(exc)})
    with open(os.environ["INTEROP_FLAG"], "w"):
        pass
    ran.append(graph.invoke(None, CFG))
    return ran


def plain_command_failed(saver: Any) -> Any:
    return plain_commands(saver)


def plain_command_failed_start(graph: Any) -> Any:
    graph.invoke({"log": ["in"], "n": 0}, CFG)
    return graph.invoke(Command(update={"log": ["u"], "n": 3}, goto="flaky"), CFG)


def plain_command_failed_proceed(graph: Any) -> Any:
    with open(os.environ["INTEROP_FLAG"], "w"):
        pass
    return graph.invoke(None, CFG)


# --- an answer given, then its step failed: the answer waits on the checkpoint ---------------


def _ask_then_flaky(state: State) -> dict[str, Any]:
    RAN.append("ask")
    answer = interrupt("ok?")
    if not os.path.exists(os.environ["INTEROP_FLAG"]):
        raise RuntimeError("ask fails after its answer until the flag exists")
    return {"log": [f"ask={answer}"]}


def answer_then_failed(saver: Any) -> Any:
    g = StateGraph(State)
    g.add_node("ask", _ask_then_flaky)
    g.add_node("b", _node("b"))
    g.add_edge(START, "ask")
    g.add_edge("ask", "b")
    return g.compile(checkpointer=saver)


def answer_then_failed_start(graph: Any) -> Any:
    graph.invoke({"log": []}, CFG)
    try:
        # a plain answer (no interrupt id): saved as the checkpoint's write of no task
        graph.invoke(Command(resume="yes"), CFG)
    except RuntimeError as exc:
        return {"raised": str(exc)}
    return {"raised": None}


def answer_then_failed_proceed(graph: Any) -> Any:
    with open(os.environ["INTEROP_FLAG"], "w"):
        pass
    # the step runs again: its interrupt reads the answer the checkpoint holds
    return graph.invoke(None, CFG)


# --- an answer given before its node asks, the node failed: it waits on the checkpoint ------


def _flaky_then_ask(state: State) -> dict[str, Any]:
    RAN.append("ask")
    if not os.path.exists(os.environ["INTEROP_FLAG"]):
        raise RuntimeError("ask fails before it asks until the flag exists")
    return {"log": [f"ask={interrupt('ok?')}"]}


def answer_before_ask(saver: Any) -> Any:
    g = StateGraph(State)
    g.add_node("a", _node("a"))
    g.add_node("ask", _flaky_then_ask)
    g.add_node("b", _node("b"))
    g.add_edge(START, "a")
    g.add_edge("a", "ask")
    g.add_edge("ask", "b")
    return g.compile(checkpointer=saver, interrupt_before=["ask"])


def answer_before_ask_start(graph: Any) -> Any:
    graph.invoke({"log": []}, CFG)  # stops before ``ask``: no interrupt waits
    try:
        # LangGraph keeps the answer as the checkpoint's write of no task
        graph.invoke(Command(resume="early"), CFG)
    except RuntimeError as exc:
        return {"raised": str(exc)}
    return {"raised": None}


def answer_before_ask_proceed(graph: Any) -> Any:
    with open(os.environ["INTEROP_FLAG"], "w"):
        pass
    # the step runs again: the interrupt ``ask`` raises now takes the answer kept
    return graph.invoke(None, CFG)


# --- the functional API: tasks, one of which asks ----------------------------------------------


@task
def _double(x: int) -> int:
    RAN.append(f"double{x}")
    return 2 * x


@task
def _confirm(total: int) -> str:
    RAN.append("confirm")
    return f"{total}:{interrupt(f'keep {total}?')}"


def func_interrupt(saver: Any) -> Any:
    @entrypoint(checkpointer=saver)
    def flow(xs: list[int]) -> dict[str, Any]:
        doubled = [f.result() for f in [_double(x) for x in xs]]
        return {"doubled": doubled, "confirmed": _confirm(sum(doubled)).result()}

    return flow


def func_interrupt_start(graph: Any) -> Any:
    return graph.invoke([1, 2, 3], CFG)


def func_interrupt_proceed(graph: Any) -> Any:
    return graph.invoke(Command(resume="yes"), CFG)


# --- the functional API: a finished call, then the next one sees ``previous`` ------------------


def func_previous(saver: Any) -> Any:
    @entrypoint(checkpointer=saver)
    def tally(x: int, *, previous: Any = None) -> entrypoint.final[int, int]:
        RAN.append(f"tally{x}")
        total = (previous or 0) + _double(x).result()
        return entrypoint.final(value=total, save=total)

    return tally


def func_previous_start(graph: Any) -> Any:
    return graph.invoke(2, CFG)


def func_previous_proceed(graph: Any) -> Any:
    return graph.invoke(5, CFG)


# --- the functional API: nested task calls, the innermost asks; then the function asks ----------


@task
def _checked(xs: list[int]) -> str:
    RAN.append("checked")
    total = sum(_double(x).result() for x in xs)
    return _confirm(total).result()


def func_nested(saver: Any) -> Any:
    @entrypoint(checkpointer=saver)
    def nested(xs: list[int]) -> dict[str, Any]:
        RAN.append("nested")
        checked = _checked(xs).result()
        return {"checked": checked, "last": interrupt(f"last word on {checked}?")}

    return nested


def func_nested_start(graph: Any) -> Any:
    return graph.invoke([1, 2], CFG)


def func_nested_proceed(graph: Any) -> Any:
    graph.invoke(Command(resume="yes"), CFG)
    return graph.invoke(Command(resume="done"), CFG)


def func_two_asks_start(graph: Any) -> Any:
    graph.invoke([1, 2], CFG)
    return graph.invoke(Command(resume="yes"), CFG)


def func_two_asks_proceed(graph: Any) -> Any:
    return graph.invoke(Command(resume="done"), CFG)


func_two_asks = func_nested


# --- a subgraph that asks, inside a parent graph -----------------------------------------------


def subgraph_interrupt(saver: Any) -> Any:
    inner = StateGraph(State)
    inner.add_node("sub_a", _node("sub_a"))
    inner.add_node("sub_ask", _asking("sub_ask"))
    inner.add_edge(START, "sub_a")
    inner.add_edge("sub_a", "sub_ask")
    g = StateGraph(State)
    g.add_node("before", _node("before"))
    g.add_node("inner", inner.compile())
    g.add_node("after", _node("after"))
    g.add_edge(START, "before")
    g.add_edge("before", "inner")
    g.add_edge("inner", "after")
    return g.compile(checkpointer=saver)


def subgraph_interrupt_start(graph: Any) -> Any:
    return graph.invoke({"log": []}, CFG)


def subgraph_interrupt_proceed(graph: Any) -> Any:
    return graph.invoke(Command(resume="sure"), CFG)


# --- a subgraph that asks twice, answered once before the thread moves ------------------------


def _asking_twice(state: State) -> dict[str, Any]:
    RAN.append("twice")
    first = interrupt("first?")
    second = interrupt("second?")
    return {"log": [f"first={first}", f"second={second}"]}


def subgraph_two_interrupts(saver: Any) -> Any:
    inner = StateGraph(State)
    inner.add_node("twice", _asking_twice)
    inner.add_edge(START, "twice")
    g = StateGraph(State)
    g.add_node("inner", inner.compile())
    g.add_node("after", _node("after"))
    g.add_edge(START, "inner")
    g.add_edge("inner", "after")
    return g.compile(checkpointer=saver)


def subgraph_two_interrupts_start(graph: Any) -> Any:
    graph.invoke({"log": []}, CFG)
    return graph.invoke(Command(resume="one"), CFG)


def subgraph_two_interrupts_proceed(graph: Any) -> Any:
    return graph.invoke(Command(resume="two"), CFG)


# --- a Topic emptied by a write of nothing -------------------------------------------------


class TopicState(TypedDict):
    log: Annotated[list[str], operator.add]
    heard: Annotated[list[str], Topic(str)]


def _heard(name: str, said: list[str]) -> Any:
    def run(state: TopicState) -> dict[str, Any]:
        RAN.append(name)
        # what the node sees of the Topic: LangGraph leaves an emptied one out of its input
        return {"log": [f"{name}:{sorted(state)}"], "heard": said}

    return run


def emptied_topic(saver: Any) -> Any:
    g = StateGraph(TopicState)
    g.add_node("say", _heard("say", ["hi"]))
    g.add_node("hush", _heard("hush", []))
    g.add_node("look", _heard("look", []))
    g.add_edge(START, "say")
    g.add_edge("say", "hush")
    g.add_edge("hush", "look")
    return g.compile(checkpointer=saver)


def emptied_topic_start(graph: Any) -> Any:
    return graph.invoke({"log": []}, CFG)


def emptied_topic_proceed(graph: Any) -> Any:
    return [graph.get_state(CFG).values, graph.invoke({"log": ["more"]}, CFG)]


# --- a join's target due, the thread paused before it --------------------------------------------


def join_due(saver: Any) -> Any:
    g = StateGraph(State)
    g.add_node("a", _node("a"))
    g.add_node("b", _node("b"))
    g.add_node("z", _node("z"))
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge(["a", "b"], "z")
    return g.compile(checkpointer=saver, interrupt_before=["z"])


def join_due_start(graph: Any) -> Any:
    return graph.invoke({"log": []}, CFG)


def join_due_proceed(graph: Any) -> Any:
    # an edit keeps the join's target due (its barrier is complete), then it runs
    graph.update_state(CFG, {"log": ["edit"]}, as_node="a")
    return graph.invoke(None, CFG)


# --- subgraphs, their checkpoints moving with the parent's ------------------------------------


def _sub_view(graph: Any) -> Any:
    """The paused subgraphs' states as the continuing side reads them (their own
    checkpoints, down to the deepest), before it goes on."""
    out = []
    tasks = list(graph.get_state(CFG, subgraphs=True).tasks)
    while tasks:
        task = tasks.pop(0)
        if task.state is not None and hasattr(task.state, "values"):
            out.append([task.name, task.state.values, list(task.state.next)])
            tasks.extend(task.state.tasks)
    return out


def nested_subgraph_interrupt(saver: Any) -> Any:
    inner = StateGraph(State)
    inner.add_node("in_a", _node("in_a"))
    inner.add_node("in_ask", _asking("in_ask"))
    inner.add_edge(START, "in_a")
    inner.add_edge("in_a", "in_ask")
    middle = StateGraph(State)
    middle.add_node("mid_a", _node("mid_a"))
    middle.add_node("deep", inner.compile())
    middle.add_node("mid_b", _node("mid_b"))
    middle.add_edge(START, "mid_a")
    middle.add_edge("mid_a", "deep")
    middle.add_edge("deep", "mid_b")
    g = StateGraph(State)
    g.add_node("before", _node("before"))
    g.add_node("middle", middle.compile())
    g.add_node("after", _node("after"))
    g.add_edge(START, "before")
    g.add_edge("before", "middle")
    g.add_edge("middle", "after")
    return g.compile(checkpointer=saver)


def nested_subgraph_interrupt_start(graph: Any) -> Any:
    return graph.invoke({"log": []}, CFG)


def nested_subgraph_interrupt_proceed(graph: Any) -> Any:
    return [_sub_view(graph), graph.invoke(Command(resume="deep"), CFG)]


def subgraph_parallel_interrupts(saver: Any) -> Any:
    inner = StateGraph(State)
    inner.add_node("p", _asking("p"))
    inner.add_node("q", _asking("q"))
    inner.add_node("r", _node("r"))
    inner.add_node("s", _node("s"))
    inner.add_edge(START, "p")
    inner.add_edge(START, "q")
    inner.add_edge(START, "r")
    inner.add_edge(["p", "q", "r"], "s")
    g = StateGraph(State)
    g.add_node("inner", inner.compile())
    g.add_node("after", _node("after"))
    g.add_edge(START, "inner")
    g.add_edge("inner", "after")
    return g.compile(checkpointer=saver)


def subgraph_parallel_interrupts_start(graph: Any) -> Any:
    return graph.invoke({"log": []}, CFG)


def subgraph_parallel_interrupts_proceed(graph: Any) -> Any:
    pending = graph.get_state(CFG).interrupts
    answers = {i.id: f"ok-{i.value}" for i in pending}
    return [_sub_view(graph), graph.invoke(Command(resume=answers), CFG)]


def subgraph_breakpoint(saver: Any) -> Any:
    inner = StateGraph(State)
    inner.add_node("sub_a", _node("sub_a"))
    inner.add_node("sub_b", _node("sub_b"))
    inner.add_edge(START, "sub_a")
    inner.add_edge("sub_a", "sub_b")
    g = StateGraph(State)
    g.add_node("before", _node("before"))
    g.add_node("inner", inner.compile(interrupt_before=["sub_b"]))
    g.add_node("after", _node("after"))
    g.add_edge(START, "before")
    g.add_edge("before", "inner")
    g.add_edge("inner", "after")
    return g.compile(checkpointer=saver)


def subgraph_breakpoint_start(graph: Any) -> Any:
    return graph.invoke({"log": []}, CFG)


def subgraph_breakpoint_proceed(graph: Any) -> Any:
    return [_sub_view(graph), graph.invoke(None, CFG)]


def _flaky_alone(state: State) -> dict[str, Any]:
    RAN.append("flaky")
    if not os.path.exists(os.environ["INTEROP_FLAG"]):
        raise RuntimeError("flaky is broken until the flag exists")
    return {"log": ["flaky"]}


def subgraph_failed(saver: Any) -> Any:
    inner = StateGraph(State)
    inner.add_node("sub_a", _node("sub_a"))
    inner.add_node("flaky", _flaky_alone)
    inner.add_node("sub_c", _node("sub_c"))
    inner.add_edge(START, "sub_a")
    inner.add_edge("sub_a", "flaky")
    inner.add_edge("flaky", "sub_c")
    g = StateGraph(State)
    g.add_node("inner", inner.compile())
    g.add_node("after", _node("after"))
    g.add_edge(START, "inner")
    g.add_edge("inner", "after")
    return g.compile(checkpointer=saver)


def subgraph_failed_start(graph: Any) -> Any:
    return graph.invoke({"log": []}, CFG)


def subgraph_failed_proceed(graph: Any) -> Any:
    with open(os.environ["INTEROP_FLAG"], "w"):
        pass
    return [_sub_view(graph), graph.invoke(None, CFG)]


# --- state edits: update_state / bulk_update_state / as_node on a paused thread -----------------


def _chain(saver: Any, **compiled: Any) -> Any:
    g = StateGraph(State)
    g.add_node("a", _node("a"))
    g.add_node("b", _node("b"))
    g.add_node("c", _node("c"))
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    return g.compile(checkpointer=saver, **compiled)


def edits_paused(saver: Any) -> Any:
    return _chain(saver, interrupt_before=["b", "c"])


def edits_paused_start(graph: Any) -> Any:
    graph.invoke({"log": []}, CFG)
    graph.update_state(CFG, {"log": ["as-a"]}, as_node="a")  # b stays due
    graph.update_state(CFG, {"log": ["inferred"]})  # written as the node that ran last
    # two supersteps: as a (b due), then as b (c due instead)
    graph.bulk_update_state(
        CFG, [[StateUpdate({"log": ["bulk-a"]}, "a")], [StateUpdate({"log": ["bulk-b"]}, "b")]]
    )
    return graph.get_state(CFG).next


def edits_paused_proceed(graph: Any) -> Any:
    return graph.invoke(None, CFG)  # c runs from the edited checkpoint


# --- an edit of a past checkpoint, and a copy of one (forks) ------------------------------------


def edits_forked(saver: Any) -> Any:
    return _chain(saver)


def edits_forked_start(graph: Any) -> Any:
    graph.invoke({"log": []}, CFG)
    after_a = _at(graph, "loop", oldest=True)  # the step after START: a due
    edited = graph.update_state(after_a, {"log": ["edit"]}, as_node="a")  # b due on it
    copied = graph.update_state(edited, None, as_node="__copy__")
    return graph.get_state(copied).values


def edits_forked_proceed(graph: Any) -> Any:
    return graph.invoke(None, CFG)  # the copy of the edit is the thread's latest: b, c run


# --- update_state as the input ------------------------------------------------------------------


def input_edit(saver: Any) -> Any:
    return _chain(saver)


def input_edit_start(graph: Any) -> Any:
    graph.invoke({"log": []}, CFG)
    graph.update_state(CFG, {"log": ["again"]}, as_node="__input__")
    return graph.get_state(CFG).next


def input_edit_proceed(graph: Any) -> Any:
    return graph.invoke(None, CFG)


# --- a replayed past checkpoint (time travel): its fork paused, then continued ------------------


def replay_fork(saver: Any) -> Any:
    return _chain(saver, interrupt_before=["c"])


def replay_fork_start(graph: Any) -> Any:
    graph.invoke({"log": []}, CFG)
    graph.invoke(None, CFG)  # c runs: the thread finished
    # replayed from the step after a: b runs again on a fork, paused before c again
    past = next(s.config for s in graph.get_state_history(CFG) if s.next == ("b",))
    return graph.invoke(None, past)


def replay_fork_proceed(graph: Any) -> Any:
    return graph.invoke(None, CFG)


# --- a low-level Pregel paused beside a finished sibling ----------------------------------------


def _ll_step(name: str, suffix: str) -> Any:
    def run(value: Any) -> Any:
        RAN.append(name)
        return f"{value}{suffix}"

    return run


def _ll_ask(value: Any) -> Any:
    RAN.append("ask")
    return f"{value}={interrupt(f'{value}?')}"


def _ll_side(values: dict[str, Any]) -> Any:
    RAN.append("side")
    return sorted(str(v) for v in values.values() if v is not None)


def lowlevel_interrupt(saver: Any) -> Any:
    """Its nodes are triggered by the state channels they subscribe to (LangGraph's
    checkpoints hold no ``branch:to:*`` channels): ``side`` by two of them, so it runs beside
    ``ask`` when ``ask`` pauses, and its finished write is found by its task id."""
    from langgraph.channels import LastValue
    from langgraph.pregel import NodeBuilder, Pregel

    return Pregel(
        nodes={
            "one": NodeBuilder().subscribe_only("a").do(_ll_step("one", "1")).write_to("b"),
            "ask": NodeBuilder().subscribe_only("b").do(_ll_ask).write_to("c"),
            "side": NodeBuilder().subscribe_to("a", "b").do(_ll_side).write_to("seen"),
            "two": NodeBuilder().subscribe_only("c").do(_ll_step("two", "2")).write_to("d"),
        },
        channels={
            "a": LastValue(str),
            "b": LastValue(str),
            "c": LastValue(str),
            "d": LastValue(str),
            # (last value: with a Topic, LangGraph itself sometimes applies the finished
            # sibling's write twice on resume, a race between the two tasks)
            "seen": LastValue(list),
        },
        input_channels="a",
        output_channels=["b", "c", "d", "seen"],
        checkpointer=saver,
    )


def lowlevel_interrupt_start(graph: Any) -> Any:
    return graph.invoke("x", CFG)


def lowlevel_interrupt_proceed(graph: Any) -> Any:
    return graph.invoke(Command(resume="yes"), CFG)


# --- steps held back: answers given by interrupt id while other interrupts wait -------------------


def partial_resume(saver: Any) -> Any:
    return parallel_interrupts(saver)


def _answer(graph: Any, asked: str) -> Any:
    """Answer, by its id, the pending interrupt that asks ``asked``; the others wait."""
    pending = {i.value: i.id for i in graph.get_state(CFG).interrupts}
    return graph.invoke(Command(resume={pending[asked]: f"ok-{asked}"}), CFG)


def partial_resume_start(graph: Any) -> Any:
    graph.invoke({"log": []}, CFG)
    return _answer(graph, "x?")  # x finishes beside plain; y waits: the step is held


def partial_resume_proceed(graph: Any) -> Any:
    return [graph.invoke(None, CFG), _answer(graph, "y?")]


# --- update_state while paused beside a finished task, then continued until it pauses again ------


def edit_beside_finished(saver: Any) -> Any:
    g = StateGraph(State)
    g.add_node("ask", _asking("ask"))
    g.add_node("plain", _node("plain"))
    g.add_node("after", _node("after"))
    g.add_edge(START, "ask")
    g.add_edge(START, "plain")
    g.add_edge(["ask", "plain"], "after")
    return g.compile(checkpointer=saver)


def edit_beside_finished_start(graph: Any) -> Any:
    graph.invoke({"log": []}, CFG)
    graph.update_state(CFG, {"log": ["edited"]})
    return graph.invoke(None, CFG)  # from the edit: plain runs again, ask asks again


def edit_beside_finished_proceed(graph: Any) -> Any:
    return graph.invoke(Command(resume="yes"), CFG)


# --- update_state with a Command's goto while a node waits on its interrupt -----------------------


def edit_goto_paused(saver: Any) -> Any:
    g = StateGraph(State)
    g.add_node("ask", _asking("ask"))
    g.add_node("after", _node("after"))
    g.add_node("other", _node("other"))
    g.add_edge(START, "ask")
    g.add_edge("ask", "after")
    return g.compile(checkpointer=saver)


def edit_goto_paused_start(graph: Any) -> Any:
    graph.invoke({"log": []}, CFG)
    graph.update_state(CFG, Command(goto=["other", "after"], update={"log": ["jump"]}))
    return graph.invoke(None, CFG)  # other and after run beside ask, which asks again


def edit_goto_paused_proceed(graph: Any) -> Any:
    return graph.invoke(Command(resume="yes"), CFG)


# --- a deferred node (``defer=True``) waiting while a step pauses -------------------------------


def _deferred(saver: Any, *, join: bool) -> Any:
    g = StateGraph(State)
    g.add_node("rw", _node("rw"))
    g.add_node("r1", _node("r1"))
    g.add_node("r2", _node("r2"))
    g.add_node("an", _asking("an"))
    g.add_node("qa", _node("qa"), defer=True)
    g.add_edge(START, "rw")
    g.add_edge("rw", "r1")
    g.add_edge("rw", "r2")
    g.add_edge("r1", "an")
    if join:
        g.add_edge(["r1", "r2"], "qa")
    else:
        g.add_edge("r1", "qa")
        g.add_edge("r2", "qa")
    return g.compile(checkpointer=saver)


def deferred_at_interrupt(saver: Any) -> Any:
    return _deferred(saver, join=False)


def deferred_at_interrupt_start(graph: Any) -> Any:
    return graph.invoke({"log": []}, CFG)  # an asks; qa waits for the run to go quiet


def deferred_at_interrupt_proceed(graph: Any) -> Any:
    return graph.invoke(Command(resume="yes"), CFG)  # an answers, then qa runs


def deferred_join_at_interrupt(saver: Any) -> Any:
    return _deferred(saver, join=True)


def deferred_join_at_interrupt_start(graph: Any) -> Any:
    return graph.invoke({"log": []}, CFG)


def deferred_join_at_interrupt_proceed(graph: Any) -> Any:
    return graph.invoke(Command(resume="yes"), CFG)


SCENARIOS = [
    "finished",
    "one_interrupt",
    "parallel_interrupts",
    "send_paused",
    "failed_parallel",
    "self_loop",
    "func_interrupt",
    "func_previous",
    "func_nested",
    "func_two_asks",
    "subgraph_interrupt",
    "subgraph_two_interrupts",
    "delta_channel",
    "delta_edits",
    "plain_commands",
    "plain_command_failed",
    "emptied_topic",
    "answer_then_failed",
    "answer_before_ask",
    "join_due",
    "send_due",
    "nested_subgraph_interrupt",
    "subgraph_parallel_interrupts",
    "subgraph_breakpoint",
    "subgraph_failed",
    "edits_paused",
    "edits_forked",
    "input_edit",
    "replay_fork",
    "lowlevel_interrupt",
    "partial_resume",
    "edit_beside_finished",
    "edit_goto_paused",
    "deferred_at_interrupt",
    "deferred_join_at_interrupt",
]
