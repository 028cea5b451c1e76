"""Where a node or a router sends control to a target that is not there: a router returning
None or START raises ValueError, a Send to END from a router InvalidUpdateError; a goto to
an unknown node (or START) and a Send to an unknown node are ignored with LangGraph's
warnings. Also the name a lambda router gets ("condition"), as error messages show it."""

import logging
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send


class State(TypedDict):
    x: int


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name} {record.levelname} {record.getMessage()}")


def attempt(node=None, router=None, path_map=None) -> dict:
    capture = Capture()
    logger = logging.getLogger("langgraph")
    logger.addHandler(capture)
    try:
        g = StateGraph(State)
        g.add_node("a", node or (lambda s: {}))
        g.add_node("b", lambda s: {"x": s["x"] + 1})
        g.add_edge(START, "a")
        if router is not None:
            g.add_conditional_edges("a", router, path_map)
        try:
            out = {"result": g.compile().invoke({"x": 0})}
        except Exception as e:
            out = {"raised": type(e).__name__, "message": str(e)}
    finally:
        logger.removeHandler(capture)
    out["logs"] = capture.lines
    return out


def lambda_router_name() -> list:
    g = StateGraph(State)
    g.add_node("a", lambda s: {})
    g.add_edge(START, "a")
    g.add_conditional_edges("a", lambda s: "missing", {"x": "missing"})
    try:
        g.compile()
    except ValueError as e:
        return [list(g.branches["a"]), str(e)]
    return [list(g.branches["a"])]


def run() -> dict:
    return {
        "goto_unknown": attempt(lambda s: Command(goto="zz")),
        "goto_start": attempt(lambda s: Command(goto=START)),
        "goto_end": attempt(lambda s: Command(goto=END)),
        "goto_list": attempt(lambda s: Command(goto=["zz", "b"])),
        "send_unknown": attempt(lambda s: Command(goto=Send("zz", s))),
        "send_end": attempt(lambda s: Command(goto=Send(END, s))),
        "router_none": attempt(router=lambda s: None),
        "router_start": attempt(router=lambda s: START),
        "router_unknown": attempt(router=lambda s: "zz"),
        "router_list_none": attempt(router=lambda s: ["b", None]),
        "router_send_unknown": attempt(router=lambda s: [Send("zz", s)]),
        "router_send_end": attempt(router=lambda s: [Send(END, s)]),
        "router_end": attempt(router=lambda s: END),
        "router_map_none": attempt(router=lambda s: None, path_map={None: "b", "x": END}),
        "router_map_missing": attempt(router=lambda s: "q", path_map={"x": "b"}),
        "lambda_name": lambda_router_name(),
    }
