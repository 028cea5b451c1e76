"""A compiled graph used as the langchain-core `Runnable` it is, as applications built on
LangGraph do: ``batch`` (with ``return_exceptions``), ``abatch``, ``batch_as_completed``,
``output_keys`` given per call, ``pick``/``assign``/``|`` composition, ``with_config`` of a
recursion limit, ``as_tool`` (its name, description, arguments and a call), its input and
output JSON schemas and names, ``interrupt_before`` given per call then resumed, and the
``version="v2"`` stream parts. Each compared with LangGraph's."""

import asyncio
import operator
import warnings
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class S(TypedDict, total=False):
    x: int
    log: Annotated[list[str], operator.add]


def build(cp: Any = None) -> Any:
    b = StateGraph(S)
    b.add_node("inc", lambda s: {"x": s.get("x", 0) + 1, "log": ["inc"]})
    b.add_node("dbl", lambda s: {"x": s["x"] * 2, "log": ["dbl"]})
    b.add_edge(START, "inc")
    b.add_edge("inc", "dbl")
    b.add_edge("dbl", END)
    return b.compile(checkpointer=cp, name="calc")


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    g = build()
    out["batch"] = g.batch([{"x": 1}, {"x": 2}])
    out["batch_exc"] = [
        type(r).__name__ if isinstance(r, Exception) else r
        for r in g.batch([{"x": 1}, {}], return_exceptions=True)
    ]
    out["abatch"] = asyncio.run(g.abatch([{"x": 3}]))
    out["as_completed"] = sorted(str(r) for r in g.batch_as_completed([{"x": 1}, {"x": 5}]))
    out["output_keys"] = g.invoke({"x": 1}, output_keys="x")
    out["output_keys_list"] = g.invoke({"x": 1}, output_keys=["log"])
    out["pick"] = g.pick("x").invoke({"x": 4})
    out["assign"] = g.assign(y=lambda s: s["x"] + 100).invoke({"x": 4})
    out["pipe"] = (g | (lambda s: s["x"])).invoke({"x": 2})
    try:
        g.with_config(recursion_limit=2).invoke({"x": 1})
    except Exception as e:
        out["recursion"] = type(e).__name__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # langchain-core's beta warning for as_tool
        tool = g.as_tool(name="calc_tool", description="calc")
    out["tool"] = [tool.name, tool.description, sorted(tool.args)]
    out["tool_run"] = tool.invoke({"x": 7, "log": []})
    out["input_schema"] = g.get_input_jsonschema()
    out["output_schema"] = g.get_output_jsonschema()
    out["name"] = [g.name, g.get_name(), g.with_config(run_name="zz").get_name()]
    c = build(InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    out["interrupt_before"] = c.invoke({"x": 1}, cfg, interrupt_before=["dbl"])
    out["next"] = c.get_state(cfg).next
    out["resume"] = c.invoke(None, cfg)
    out["stream_v2_types"] = [
        [p["type"], p["ns"], p["data"]]
        for p in g.stream({"x": 1}, stream_mode=["updates", "values"], version="v2")
    ]
    return out
