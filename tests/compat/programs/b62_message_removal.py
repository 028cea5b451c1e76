"""A chat history trimmed the ways people trim it: RemoveMessage by id from a node,
REMOVE_ALL_MESSAGES then a fresh history, replacing a message by reusing its id, removals
through update_state (also as_node), a removal of an id that is not there (an error), and
the messages stream of a node that edits history."""

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.message import REMOVE_ALL_MESSAGES, add_messages


class Chat(MessagesState):
    summary: str


def reply(s):
    n = len(s["messages"])
    return {"messages": [AIMessage(content=f"reply to {n}", id=f"ai-{n}")]}


def trim(s):
    msgs = s["messages"]
    if len(msgs) <= 4:
        return {}
    drop = [RemoveMessage(id=m.id) for m in msgs[:-2]]
    return {"messages": drop, "summary": f"dropped {len(drop)}"}


def reset(s):
    return {
        "messages": [
            RemoveMessage(id=REMOVE_ALL_MESSAGES),
            SystemMessage(content="fresh", id="sys"),
        ]
    }


def ids(values):
    return [(m.type, m.id, m.content) for m in values["messages"]]


def run():
    out = {}
    g = StateGraph(Chat)
    g.add_node("reply", reply)
    g.add_node("trim", trim)
    g.add_edge(START, "reply")
    g.add_edge("reply", "trim")
    g.add_edge("trim", END)
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    for i in range(4):
        res = app.invoke({"messages": [HumanMessage(content=f"q{i}", id=f"h{i}")]}, cfg)
        out[f"turn{i}"] = [ids(res), res.get("summary")]
    # replace a message by id, then remove one by id, through update_state
    app.update_state(cfg, {"messages": [AIMessage(content="edited", id="ai-7")]})
    out["replaced"] = ids(app.get_state(cfg).values)
    app.update_state(cfg, {"messages": [RemoveMessage(id="h3")]}, as_node="trim")
    st = app.get_state(cfg)
    out["removed"] = [ids(st.values), list(st.next), st.metadata["source"], st.metadata["step"]]
    try:
        app.update_state(cfg, {"messages": [RemoveMessage(id="nope")]})
        out["missing"] = "no error"
    except Exception as e:
        out["missing"] = [type(e).__name__, str(e)[:80]]
    out["after_missing"] = ids(app.get_state(cfg).values)

    g2 = StateGraph(Chat)
    g2.add_node("reset", reset)
    g2.add_node("reply", reply)
    g2.add_edge(START, "reset")
    g2.add_edge("reset", "reply")
    app2 = g2.compile()
    res = app2.invoke(
        {
            "messages": [HumanMessage(content="a", id="a"), HumanMessage(content="b", id="b")],
            "summary": "",
        }
    )
    out["reset"] = ids(res)
    chunks = []
    for mode, data in app2.stream(
        {"messages": [HumanMessage(content="x", id="x")]}, stream_mode=["messages", "updates"]
    ):
        if mode == "messages":
            msg, meta = data
            chunks.append(
                [mode, msg.type, msg.content, meta["langgraph_node"], meta["langgraph_step"]]
            )
        else:
            chunks.append(
                [mode, {k: (ids(v) if v and "messages" in v else v) for k, v in data.items()}]
            )
    out["stream"] = chunks

    # the reducer alone, as people unit-test it
    base = [HumanMessage(content="1", id="1"), AIMessage(content="2", id="2")]
    out["reducer"] = [
        [(m.id, m.content) for m in add_messages(base, [RemoveMessage(id="1")])],
        [
            (m.id, m.content)
            for m in add_messages(
                base, [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage(content="n", id="n")]
            )
        ],
        [(m.id, m.content) for m in add_messages(base, [HumanMessage(content="one", id="1")])],
        [(m.type, m.content) for m in add_messages(base, {"role": "user", "content": "dict"})[2:]],
    ]
    return out
