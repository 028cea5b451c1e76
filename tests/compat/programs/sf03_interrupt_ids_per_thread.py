"""Interrupt ids differ between threads running the same graph (LangGraph derives them from
the task's namespace, whose task id comes from the thread's checkpoint): a graph node's
interrupt, an ``@entrypoint``'s own and one raised in its ``@task``. Each thread's id is
the one its state's task shows, and resuming by id answers it."""

from typing import Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    x: Any


def _graph() -> Any:
    def ask(state: State) -> State:
        return {"x": interrupt("node")}

    builder = StateGraph(State)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    return builder.compile(InMemorySaver())


def _entrypoint() -> Any:
    @entrypoint(checkpointer=InMemorySaver())
    def main(value: int) -> list[Any]:
        return [interrupt("first"), interrupt("second")]

    return main


def _entrypoint_task() -> Any:
    @task
    def asks(value: int) -> Any:
        return interrupt(f"task {value}")

    @entrypoint(checkpointer=InMemorySaver())
    def main(value: int) -> Any:
        return asks(value).result()

    return main


def _threads(app: Any, value: Any, answers: int) -> dict[str, Any]:
    """Two threads: each interrupt's id, whether it is its state's, and the final output."""
    ids: dict[str, list[str]] = {}
    out: dict[str, Any] = {}
    for thread in ("one", "two"):
        config = {"configurable": {"thread_id": thread}}
        raised = app.invoke(value, config)["__interrupt__"][0]
        ids[thread] = [raised.id]
        for n in range(answers):
            shown = app.get_state(config).tasks[0].interrupts[0].id
            out[f"{thread} {n} shown"] = shown == raised.id
            result = app.invoke(Command(resume={raised.id: f"answer {n}"}), config)
            if isinstance(result, dict) and "__interrupt__" in result:
                raised = result["__interrupt__"][0]
                ids[thread].append(raised.id)
            else:
                out[f"{thread} result"] = result
    out["ids differ across threads"] = [a != b for a, b in zip(ids["one"], ids["two"])]
    out["ids differ within a thread"] = len(set(ids["one"])) == len(ids["one"])
    return out


def run() -> dict[str, Any]:
    return {
        "graph": _threads(_graph(), {"x": None}, 1),
        "entrypoint": _threads(_entrypoint(), 1, 2),
        "entrypoint task": _threads(_entrypoint_task(), 3, 1),
    }
