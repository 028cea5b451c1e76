"""Routers that declare ``config``, ``runtime``, ``store`` or ``writer`` receive them; interrupt
ids differ per thread and stay the same within one; ``interrupt(response_schema=T)`` surfaces
T's JSON schema, validates (and coerces) the resume value, and a value that does not match
raises a `ValidationError` marked `is_invalid_resume`, leaving the interrupt answerable."""

from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import is_invalid_resume
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command, StreamWriter, interrupt
from pydantic import BaseModel
from typing_extensions import TypedDict


class State(TypedDict):
    x: int


@dataclass
class Ctx:
    user: str


def routers() -> list[Any]:
    seen: list[Any] = []

    def by_config(s: State, config: RunnableConfig) -> str:
        seen.append(
            ["config", config["configurable"].get("thread_id"), config["configurable"]["k"]]
        )
        return END

    def by_runtime(s: State, runtime: Runtime[Ctx]) -> str:
        seen.append(["runtime", runtime.context.user, runtime.store is not None])
        return END

    def by_store(s: State, *, store: BaseStore) -> str:
        item = store.get(("ns",), "k")
        seen.append(["store", item.value if item else None])
        return END

    def by_writer(s: State, writer: StreamWriter) -> str:
        writer({"from": "router"})
        return END

    store = InMemoryStore()
    store.put(("ns",), "k", {"v": 1})
    for router in (by_config, by_runtime, by_store, by_writer):
        g = StateGraph(State, context_schema=Ctx)
        g.add_node("n", lambda s: {"x": s["x"] + 1})
        g.add_edge(START, "n")
        g.add_conditional_edges("n", router)
        app = g.compile(checkpointer=InMemorySaver(), store=store)
        config: RunnableConfig = {"configurable": {"thread_id": "T", "k": 7}}
        chunks = list(app.stream({"x": 0}, config, stream_mode="custom", context=Ctx("u")))
        if chunks:
            seen.append(["custom", chunks])
    return seen


class Answer(BaseModel):
    ok: bool


class AnswerDict(TypedDict):
    n: int


def ask(s: State) -> dict[str, Any]:
    first = interrupt("first?", response_schema=Answer)
    second = interrupt("second?", response_schema=AnswerDict)
    third = interrupt("third?", response_schema={"type": "string"})
    return {"x": int(first.ok) + second["n"] + len(third)}


def interrupts() -> dict[str, Any]:
    g = StateGraph(State)
    g.add_node(ask)
    g.add_edge(START, "ask")
    app = g.compile(checkpointer=InMemorySaver())
    out: dict[str, Any] = {}
    ids = {}
    for thread in ("a", "b"):
        cfg: RunnableConfig = {"configurable": {"thread_id": thread}}
        ids[thread] = app.invoke({"x": 0}, cfg)["__interrupt__"][0].id
        ids[thread + "_again"] = app.get_state(cfg).interrupts[0].id
    out["ids_differ_per_thread"] = ids["a"] != ids["b"]
    out["ids_stable_in_thread"] = ids["a"] == ids["a_again"] and ids["b"] == ids["b_again"]
    cfg = {"configurable": {"thread_id": "a"}}
    out["schema"] = app.get_state(cfg).interrupts[0].response_schema
    try:
        app.invoke(Command(resume={"ok": "surely"}), cfg)
    except Exception as e:
        out["bad"] = [type(e).__name__, is_invalid_resume(e)]
    out["next_after_bad"] = list(app.get_state(cfg).next)
    second = app.invoke(Command(resume={"ok": "yes"}), cfg)["__interrupt__"][0]
    out["second"] = [second.value, second.response_schema]
    third = app.invoke(Command(resume={"n": "4"}), cfg)["__interrupt__"][0]
    out["third"] = [third.value, third.response_schema]
    out["done"] = app.invoke(Command(resume="abc"), cfg)
    return out


def run() -> dict[str, Any]:
    return {"routers": routers(), "interrupts": interrupts()}
