"""New input on a thread whose last run left work (a task paused by an interrupt, a failed
task, a breakpoint before a node) starts over from the input: the old pending tasks are
dropped, as LangGraph does, and an untracked channel starts empty again."""

from typing import Annotated, Any, NotRequired

from langgraph.channels import UntrackedValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import interrupt
from typing_extensions import TypedDict


class S(TypedDict):
    x: int
    log: Annotated[list, lambda a, b: a + b]
    c: NotRequired[Annotated[int, UntrackedValue]]


def _graph(b: Any, **compile_kwargs: Any) -> Any:
    def a(s: S) -> dict[str, Any]:
        return {"x": s["x"] + 1, "log": [f"a x={s['x']} c={s.get('c')}"], "c": s.get("c", 0) + 1}

    g = StateGraph(S)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    return g.compile(checkpointer=InMemorySaver(), **compile_kwargs)


def _twice(app: Any) -> dict[str, Any]:
    config = {"configurable": {"thread_id": "t"}}
    out: list[Any] = []
    for x in (0, 10):
        try:
            result = app.invoke({"x": x, "log": []}, config)
            out.append({k: v for k, v in result.items() if k != "__interrupt__"})
        except ValueError as e:
            out.append({"raised": str(e)})
        state = app.get_state(config)
        out.append([list(state.next), len(state.interrupts)])
    return {"runs": out}


def run() -> dict[str, Any]:
    def asks(s: S) -> dict[str, Any]:
        return {"log": [f"b got {interrupt('q')}"]}

    failed: list[bool] = []

    def fails_once(s: S) -> dict[str, Any]:
        if not failed:
            failed.append(True)
            raise ValueError("boom")
        return {"log": [f"b x={s['x']} c={s.get('c')}"]}

    def plain(s: S) -> dict[str, Any]:
        return {"log": [f"b x={s['x']}"]}

    return {
        "interrupted": _twice(_graph(asks)),
        "failed": _twice(_graph(fails_once)),
        "breakpoint": _twice(_graph(plain, interrupt_before=["b"])),
    }
