"""A ReAct agent over a token-streaming fake model: messages-mode tokens with their metadata,
astream_events v2 (model and tool events), and get_state_history after two turns."""

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent


class Model(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self


@tool
def lookup(city: str) -> str:
    """Weather of a city."""
    return f"sunny in {city}"


def model():
    return Model(
        messages=iter(
            [
                AIMessage(
                    "let me check",
                    tool_calls=[{"name": "lookup", "args": {"city": "Oslo"}, "id": "t1"}],
                ),
                AIMessage("It is sunny in Oslo today"),
                AIMessage("Bye now friend"),
            ]
        )
    )


async def run():
    out = {}
    agent = create_react_agent(model(), [lookup], checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "a"}}
    toks = []
    async for msg, md in agent.astream(
        {"messages": [("user", "weather?")]}, cfg, stream_mode="messages"
    ):
        toks.append((type(msg).__name__, msg.content, md["langgraph_node"], md["langgraph_step"]))
    out["tokens"] = toks
    agent2 = create_react_agent(model(), [lookup])
    ev = []
    async for e in agent2.astream_events({"messages": [("user", "weather?")]}, version="v2"):
        if e["event"] in (
            "on_chat_model_start",
            "on_chat_model_end",
            "on_tool_start",
            "on_tool_end",
        ):
            ev.append((e["event"], e["name"], e["metadata"].get("langgraph_node")))
    out["events"] = ev
    out["turn2"] = await agent.ainvoke({"messages": [("user", "bye")]}, cfg)
    out["history"] = [
        (h.next, h.metadata["step"], h.metadata["source"])
        async for h in agent.aget_state_history(cfg)
    ]
    return out
