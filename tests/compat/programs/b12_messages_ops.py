"""MessagesState with RemoveMessage, REMOVE_ALL_MESSAGES, Overwrite, pydantic state errors,
with_config, and a mermaid drawing."""

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from pydantic import BaseModel, Field


class P(BaseModel):
    count: int = Field(ge=0)
    label: str = "x"


def run():
    out = {}
    g = StateGraph(MessagesState)
    g.add_node(
        "reply",
        lambda s: {
            "messages": [AIMessage("r" + str(len(s["messages"])), id=f"a{len(s['messages'])}")]
        },
    )
    g.add_node("trim", lambda s: {"messages": [RemoveMessage(id=m.id) for m in s["messages"][:-2]]})
    g.add_edge(START, "reply")
    g.add_edge("reply", "trim")
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "m"}}
    for i in range(3):
        out[f"turn{i}"] = app.invoke({"messages": [HumanMessage(f"h{i}", id=f"h{i}")]}, cfg)
    app.update_state(
        cfg, {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("fresh", id="f")]}
    )
    out["cleared"] = app.get_state(cfg).values
    out["bad_remove"] = None
    try:
        app.update_state(cfg, {"messages": [RemoveMessage(id="ghost")]})
    except Exception as e:
        out["bad_remove"] = [type(e).__name__, str(e)]
    pg = StateGraph(P)
    pg.add_node("inc", lambda s: {"count": s.count + 1})
    pg.add_edge(START, "inc")
    papp = pg.compile()
    out["p_ok"] = papp.invoke({"count": 1})
    for bad in ({"count": -1}, {"count": "nan"}, {}):
        try:
            out[f"p_bad {bad}"] = papp.invoke(bad)
        except Exception as e:
            out[f"p_bad {bad}"] = [type(e).__name__, str(e).splitlines()[:2]]
    pg2 = StateGraph(P)
    pg2.add_node("neg", lambda s: {"count": -5})
    pg2.add_edge(START, "neg")
    try:
        out["p_node_bad"] = pg2.compile().invoke({"count": 1})
    except Exception as e:
        out["p_node_bad"] = [type(e).__name__, str(e).splitlines()[:2]]
    out["mermaid"] = app.get_graph().draw_mermaid()
    out["with_config"] = papp.with_config(recursion_limit=3, tags=["t"]).invoke({"count": 2})
    return out
