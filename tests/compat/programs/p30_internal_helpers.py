"""The semi-internal helpers libraries import from LangGraph: `RunnableCallable` as a node and
as a plain runnable (injection of config, store, runtime, writer; a missing store; recursion
into a returned runnable; explode_args), `ensure_config`/`patch_configurable`/`patch_config`,
`langgraph.utils.*` aliases, constants and the runtime defaults."""

from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig, RunnableLambda
from langgraph._internal._config import (
    ensure_config,
    merge_configs,
    patch_config,
    patch_configurable,
)
from langgraph._internal._constants import CONFIG_KEY_READ, CONFIG_KEY_RUNTIME, CONFIG_KEY_SEND
from langgraph._internal._runnable import RunnableCallable
from langgraph._internal._typing import MISSING
from langgraph.graph import START, StateGraph
from langgraph.runtime import DEFAULT_RUNTIME, Runtime
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from langgraph.utils.config import get_config
from langgraph.utils.runnable import RunnableCallable as OldRunnableCallable


class State(TypedDict):
    x: int
    seen: list


def node(state: State, config: RunnableConfig, *, store: BaseStore, runtime: Runtime) -> Any:
    stored = store.get(("ns",), "k")
    return {
        "x": state["x"] + 1,
        "seen": [
            config["configurable"].get("thread_id"),
            stored.value if stored else None,
            runtime.context,
            get_config()["configurable"].get("thread_id"),
        ],
    }


def plain_calls() -> dict[str, Any]:
    out: dict[str, Any] = {}
    rc = RunnableCallable(lambda x, config: (x, sorted(config)), name="f")
    out["name"] = rc.get_name()
    out["plain"] = rc.invoke(1)[0]
    out["config_keys"] = rc.invoke(1)[1]

    def needs_store(x: int, *, store: BaseStore) -> int:
        return x

    try:
        RunnableCallable(needs_store).invoke(1)
    except ValueError as e:
        out["missing_store"] = str(e)
    out["recurse"] = RunnableCallable(lambda x: RunnableLambda(lambda y: y * 10)).invoke(2)
    out["no_recurse"] = type(
        RunnableCallable(lambda x: RunnableLambda(lambda y: y), recurse=False).invoke(2)
    ).__name__
    out["explode"] = RunnableCallable(lambda a, b=0: a + b, explode_args=True).invoke(
        ((1,), {"b": 2})
    )
    out["given_runtime"] = RunnableCallable(lambda x, runtime: runtime.context).invoke(
        0, {"configurable": {CONFIG_KEY_RUNTIME: Runtime(context="ctx")}}
    )
    try:
        RunnableCallable(None)
    except ValueError as e:
        out["no_func"] = str(e)
    out["same_class"] = OldRunnableCallable is RunnableCallable
    return out


def config_helpers() -> dict[str, Any]:
    ensured = ensure_config({"configurable": {"thread_id": "t", "k": 1}, "tags": ["a"]})
    return {
        "ensured": {k: ensured[k] for k in sorted(ensured) if k != "callbacks"},
        "extra_key": ensure_config({"foo": 1})["configurable"],
        "patched": patch_configurable({"configurable": {"a": 1}}, {"b": 2}),
        "patched_none": patch_configurable(None, {"b": 2}),
        "patch_config": patch_config(
            {"run_name": "r", "tags": ["x"]}, callbacks=[], recursion_limit=5, configurable={"c": 3}
        ),
        "merged": merge_configs({"tags": ["a"]}, {"tags": ["b"], "metadata": {"m": 1}}),
        "constants": [CONFIG_KEY_READ, CONFIG_KEY_SEND, CONFIG_KEY_RUNTIME],
        "missing_is_object": type(MISSING).__name__,
        "default_runtime": [DEFAULT_RUNTIME.context, DEFAULT_RUNTIME.store],
    }


def run() -> dict[str, Any]:
    store = InMemoryStore()
    store.put(("ns",), "k", {"v": 1})
    g = StateGraph(State, context_schema=str)
    g.add_node("n", RunnableCallable(node, trace=False))
    g.add_edge(START, "n")
    app = g.compile(store=store)
    result = app.invoke({"x": 1, "seen": []}, {"configurable": {"thread_id": "t1"}}, context="c")
    return {"graph": result, "plain": plain_calls(), "config": config_helpers()}
