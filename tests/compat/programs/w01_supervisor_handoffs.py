"""A supervisor of two prebuilt ReAct agents, written the way langgraph-supervisor's docs
build one by hand: the supervisor is itself a ReAct agent whose handoff tools return
``Command(goto=<agent>, graph=Command.PARENT, update=...)``; each worker agent is a subgraph
node with tools of its own and an edge back to the supervisor. Two turns on one thread, the
second streamed (updates + values, subgraphs=True), the checkpointed history and who ran,
and the graph's JSON drawn with xray (the agents' nodes named as LangGraph's runnables)."""

from typing import Annotated, Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedState, create_react_agent
from langgraph.types import Command


class Model(FakeMessagesListChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> "Model":
        return self


def call(name: str, args: dict[str, Any], cid: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": cid, "type": "tool_call"}


def handoff(agent: str):
    @tool(f"transfer_to_{agent}", description=f"Ask {agent} for help.")
    def transfer(
        state: Annotated[MessagesState, InjectedState],
        tool_call_id: Annotated[str, InjectedToolCallId],
    ) -> Command:
        note = ToolMessage(
            content=f"Successfully transferred to {agent}",
            name=f"transfer_to_{agent}",
            tool_call_id=tool_call_id,
        )
        return Command(
            goto=agent,
            graph=Command.PARENT,
            update={**state, "messages": [*state["messages"], note]},
        )

    return transfer


@tool
def web_search(query: str) -> str:
    """Search the web."""
    return f"results for {query}: 3 hits"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def multiply(a: int, b: int) -> int:
    """Multiply two numbers."""
    return a * b


def build() -> Any:
    supervisor_model = Model(
        responses=[
            AIMessage("", tool_calls=[call("transfer_to_research", {}, "s1")]),
            AIMessage("", tool_calls=[call("transfer_to_math", {}, "s2")]),
            AIMessage("The answer is 42, from 3 hits."),
            AIMessage("", tool_calls=[call("transfer_to_math", {}, "s3")]),
            AIMessage("Second answer: 20."),
        ]
    )
    research_model = Model(
        responses=[
            AIMessage("", tool_calls=[call("web_search", {"query": "gdp"}, "r1")]),
            AIMessage("Research done: 3 hits."),
        ]
    )
    math_model = Model(
        responses=[
            AIMessage(
                "",
                tool_calls=[
                    call("add", {"a": 40, "b": 2}, "m1"),
                    call("multiply", {"a": 6, "b": 7}, "m2"),
                ],
            ),
            AIMessage("Math done: 42."),
            AIMessage("", tool_calls=[call("multiply", {"a": 4, "b": 5}, "m3")]),
            AIMessage("Math done: 20."),
        ]
    )
    research = create_react_agent(research_model, [web_search], name="research")
    math = create_react_agent(math_model, [add, multiply], name="math")
    supervisor = create_react_agent(
        supervisor_model,
        [handoff("research"), handoff("math")],
        name="supervisor",
    )
    g = StateGraph(MessagesState)
    g.add_node(supervisor, destinations=("research", "math", END))
    g.add_node(research)
    g.add_node(math)
    g.add_edge(START, "supervisor")
    g.add_edge("research", "supervisor")
    g.add_edge("math", "supervisor")
    return g.compile(checkpointer=InMemorySaver())


def short(m: Any) -> list[Any]:
    calls = [c["name"] for c in getattr(m, "tool_calls", None) or []]
    return [m.type, getattr(m, "name", None), m.content, calls]


def run() -> dict[str, Any]:
    app = build()
    cfg = {"configurable": {"thread_id": "t"}}
    out: dict[str, Any] = {}
    first = app.invoke({"messages": [("user", "gdp and 40+2")]}, cfg)
    out["first"] = [short(m) for m in first["messages"]]
    chunks = []
    for ns, mode, data in app.stream(
        {"messages": [("user", "4*5?")]}, cfg, stream_mode=["updates", "values"], subgraphs=True
    ):
        names = [p.split(":")[0] for p in ns]
        if mode == "values":
            chunks.append([names, mode, len(data["messages"])])
        else:
            chunks.append(
                [
                    names,
                    mode,
                    {
                        k: (
                            [short(m) for m in v["messages"]]
                            if isinstance(v, dict) and "messages" in v
                            else v
                        )
                        for k, v in data.items()
                    },
                ]
            )
    out["second"] = chunks
    state = app.get_state(cfg)
    out["state"] = [len(state.values["messages"]), list(state.next)]
    history = list(app.get_state_history(cfg))
    out["history"] = [
        [h.metadata.get("step"), h.metadata.get("source"), list(h.next)] for h in history
    ]
    drawing = app.get_graph(xray=True).to_json()  # what LangGraph Studio draws
    out["drawing"] = [
        [n["id"], n["data"].get("id") if isinstance(n.get("data"), dict) else None]
        for n in drawing["nodes"]
    ]
    out["writers"] = [
        sorted((h.metadata.get("writes") or {}).keys()) for h in history if h.metadata
    ]
    return out
