"""Which names `langgraph.func` and `langgraph.pregel` hold: LangGraph has no
``EntrypointGraph`` (an entrypoint is a plain ``Pregel``) and no ``CompiledStateGraph`` in
``langgraph.pregel`` (it lives in ``langgraph.graph.state``), and a decorated task's class is
``langgraph.func._TaskFunction``. Compared: each name's presence, the modules' ``__all__``,
and what a task and an entrypoint show of their classes."""

from typing import Any

import langgraph.func
import langgraph.graph.state
import langgraph.pregel
from langgraph.func import entrypoint, task

ASKED = {
    "langgraph.func": [
        "EntrypointGraph",
        "TaskFunction",
        "_TaskFunction",
        "SyncAsyncFuture",
        "entrypoint",
        "task",
        "Pregel",
    ],
    "langgraph.pregel": ["CompiledStateGraph", "Pregel", "NodeBuilder", "EntrypointGraph"],
    "langgraph.graph.state": ["CompiledStateGraph", "StateGraph", "Pregel"],
}


def run() -> dict[str, Any]:
    modules = {
        "langgraph.func": langgraph.func,
        "langgraph.pregel": langgraph.pregel,
        "langgraph.graph.state": langgraph.graph.state,
    }

    @task
    def double(x: int) -> int:
        return 2 * x

    @entrypoint()
    def main(x: int) -> int:
        return double(x).result()

    return {
        "present": {m: {n: hasattr(modules[m], n) for n in names} for m, names in ASKED.items()},
        "all": {m: sorted(getattr(modules[m], "__all__", ())) for m in ASKED},
        "task_class": [type(double).__module__, type(double).__name__],
        "task_is_task_function": isinstance(double, langgraph.func._TaskFunction),
        "entrypoint_class": [type(main).__module__, type(main).__name__],
        "entrypoint_result": main.invoke(3),
    }
