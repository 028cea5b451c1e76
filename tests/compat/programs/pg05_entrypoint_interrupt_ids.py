"""How LangGraph derives the id of an interrupt in the functional API (ids themselves
differ per checkpoint, so the program compares the derivation): the xxh3-128 of the asking
task's namespace, the entrypoint's ``<name>:<task id>`` for its body, its caller's
namespace with ``|<name>:<call's task id>`` for a `@task` call (nested calls nest), with
``|<n>`` appended when the task already has ``n`` answers. Task ids are read from the
``tasks`` stream. With and without a checkpointer, and a graph node's for comparison: its
namespace is its whole checkpoint namespace, a subgraph's node's under its parent task's
(a resume by that id reaches it)."""

from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict
from xxhash import xxh3_128_hexdigest


def h(ns: str) -> str:
    return xxh3_128_hexdigest(ns.encode())


def derived(chunks: list[Any]) -> list[Any]:
    """For each interrupt streamed, the namespaces (of task names and ids seen) it hashes."""
    ids: dict[str, list[str]] = {}
    found: list[Any] = []
    for _, mode, data in chunks:
        if mode == "tasks" and "input" in data:
            ids.setdefault(data["name"], []).append(data["id"])
        if mode == "updates" and "__interrupt__" in data:
            for i in data["__interrupt__"]:
                found.append(matches(i.id, ids))
    return found


def matches(iid: str, ids: dict[str, list[str]]) -> list[str]:
    own = [f"{name}:{tid}" for name, tids in ids.items() for tid in tids]
    candidates = list(own)
    for a in own:
        for b in own:
            candidates.append(f"{a}|{b}")
            candidates.extend(f"{a}|{b}|{c}" for c in own)
    out = []
    for ns in candidates:
        for suffix in ("", "|1", "|2"):
            if h(ns + suffix) == iid:
                out.append("|".join(p.split(":")[0] for p in ns.split("|")) + suffix)
    return out


MODES = ["tasks", "updates"]


@task
def ask_task(x: int) -> Any:
    return interrupt(f"t{x}")


@task
def outer_task(x: int) -> Any:
    return ask_task(x).result()


def body_twice(x: int) -> Any:
    return [interrupt("a"), interrupt("b")]


def one_call(x: int) -> Any:
    return ask_task(x).result()


def nested_call(x: int) -> Any:
    return outer_task(x).result()


class S(TypedDict, total=False):
    x: Any


def ask_node(s: S) -> S:
    return {"x": [interrupt("n1"), interrupt("n2")]}


class T(TypedDict, total=False):
    y: str


def ask_twice(s: T) -> T:
    return {"y": f"{interrupt('s1')},{interrupt('s2')}"}


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, fn in (("body", body_twice), ("call", one_call), ("nested", nested_call)):
        ep = entrypoint(checkpointer=InMemorySaver())(fn)
        config = {"configurable": {"thread_id": name}}
        first = list(ep.stream(1, config, stream_mode=MODES, subgraphs=True))
        second = list(ep.stream(Command(resume="A"), config, stream_mode=MODES, subgraphs=True))
        bare = entrypoint()(fn)
        out[name] = {
            "first": derived(first),
            "second": derived(second),
            "no_checkpointer": derived(list(bare.stream(1, stream_mode=MODES, subgraphs=True))),
        }
    graph = StateGraph(S).add_node("ask", ask_node).add_edge(START, "ask")
    compiled = graph.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "g"}}
    out["node"] = [
        derived(list(compiled.stream({"x": 0}, config, stream_mode=MODES, subgraphs=True))),
        derived(
            list(compiled.stream(Command(resume="A"), config, stream_mode=MODES, subgraphs=True))
        ),
    ]
    sub = StateGraph(T).add_node("ask", ask_twice).add_edge(START, "ask").compile()
    outer = StateGraph(T).add_node("sub", sub).add_edge(START, "sub")
    nested = outer.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "s"}}
    first = list(nested.stream({"y": ""}, config, stream_mode=MODES, subgraphs=True))
    asked = [i for _, m, d in first if m == "updates" for i in d.get("__interrupt__", ())]
    by_id = {asked[0].id: "A"} if asked else {}
    second = list(nested.stream(Command(resume=by_id), config, stream_mode=MODES, subgraphs=True))
    last = nested.invoke(Command(resume="B"), config)
    out["subgraph"] = [derived(first), derived(second), last]
    sub = StateGraph(T).add_node("ask", ask_twice).add_edge(START, "ask").compile()
    outer = StateGraph(T).add_node("sub", sub).add_edge(START, "sub")
    nested = outer.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "s"}}
    first = list(nested.stream({"y": ""}, config, stream_mode=MODES, subgraphs=True))
    asked = [i for _, m, d in first if m == "updates" for i in d.get("__interrupt__", ())]
    by_id = {asked[0].id: "A"} if asked else {}
    second = list(nested.stream(Command(resume=by_id), config, stream_mode=MODES, subgraphs=True))
    last = nested.invoke(Command(resume="B"), config)
    out["subgraph"] = [derived(first), derived(second), last]
    return out
