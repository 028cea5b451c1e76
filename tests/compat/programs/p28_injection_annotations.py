"""Which annotations of ``config``/``writer``/``store``/``runtime`` get the value injected:
LangGraph fills a parameter in only when its annotation allows it (and warns for config)."""

import warnings
from typing import Any, Optional, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from langgraph.types import StreamWriter


class State(TypedDict):
    x: int


def config_plain(state, config):
    return {"x": int(config is not None)}


def config_typed(state, config: RunnableConfig):
    return {"x": 1}


def config_optional(state, config: Optional[RunnableConfig]):  # noqa: UP045
    return {"x": int(bool(config))}


def config_dict(state, config: dict):
    return {"x": 1}


def config_defaulted(state, config: Any = None):
    return {"x": int(config is not None)}


def writer_plain(state, writer):
    return {"x": int(callable(writer))}


def writer_typed(state, writer: StreamWriter):
    return {"x": 1}


def writer_any(state, writer: Any = None):
    return {"x": int(writer is not None)}


def store_typed(state, store: BaseStore):
    return {"x": int(store is None)}


def store_dict(state, store: dict | None = None):
    return {"x": int(store is not None)}


def runtime_int(state, runtime: int):
    return {"x": int(isinstance(runtime, Runtime))}


def run() -> dict:
    out: dict[str, Any] = {}
    for fn in [
        config_plain,
        config_typed,
        config_optional,
        config_dict,
        config_defaulted,
        writer_plain,
        writer_typed,
        writer_any,
        store_typed,
        store_dict,
        runtime_int,
    ]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            b = StateGraph(State)
            b.add_node("f", fn)
            b.add_edge(START, "f")
            graph = b.compile()
        try:
            result: Any = graph.invoke({"x": 0})
        except TypeError as e:
            result = f"TypeError: {e}"
        warned = [str(w.message) for w in caught if "'config' parameter" in str(w.message)]
        out[fn.__name__] = {"result": result, "warned": warned}
    return out
