"""A hand-built tool-calling agent (model node, ToolNode, tools_condition) used as a subgraph
node of a parent app, streamed synchronously with stream_mode=["messages", "updates",
"custom"] and subgraphs=True: the model streams its tokens and its tool-call chunks, a tool
reports progress with get_stream_writer, the ToolNode's ToolMessages come through messages
mode, the parent's own nodes write custom chunks too. Also the same stream without
subgraphs, and invoke's final transcript."""

from collections.abc import Iterator
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import tool
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition


class ScriptedModel(BaseChatModel):
    """Answers from a script by how many AI messages the conversation already has; streams
    its text word by word and its tool calls as chunks."""

    script: list[AIMessage]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedModel":
        return self

    def _pick(self, messages: list[BaseMessage]) -> AIMessage:
        turn = sum(1 for m in messages if m.type == "ai")
        return self.script[turn]

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._pick(messages))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        msg = self._pick(messages)
        words = msg.content.split(" ") if msg.content else []
        for i, w in enumerate(words):
            token = w if i == 0 else " " + w
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=token, id=msg.id))
            if run_manager:
                run_manager.on_llm_new_token(token, chunk=chunk)
            yield chunk
        for i, c in enumerate(msg.tool_calls):
            piece = AIMessageChunk(
                content="",
                id=msg.id,
                tool_call_chunks=[
                    {
                        "name": c["name"],
                        "args": str(c["args"]).replace("'", '"'),
                        "id": c["id"],
                        "index": i,
                        "type": "tool_call_chunk",
                    }
                ],
            )
            chunk = ChatGenerationChunk(message=piece)
            if run_manager:
                run_manager.on_llm_new_token("", chunk=chunk)
            yield chunk


@tool
def weather(city: str) -> str:
    """Weather for a city."""
    writer = get_stream_writer()
    writer({"tool": "weather", "progress": "looking up " + city})
    writer({"tool": "weather", "progress": "done"})
    return f"sunny in {city}"


@tool
def clock(zone: str) -> str:
    """Time in a zone."""
    get_stream_writer()({"tool": "clock", "zone": zone})
    return f"12:00 {zone}"


MODEL = ScriptedModel(
    script=[
        AIMessage(
            "Let me check.",
            id="ai-1",
            tool_calls=[
                {"name": "weather", "args": {"city": "Oslo"}, "id": "c1", "type": "tool_call"},
                {"name": "clock", "args": {"zone": "CET"}, "id": "c2", "type": "tool_call"},
            ],
        ),
        AIMessage("Oslo is sunny at noon.", id="ai-2"),
    ]
)


def agent(state: MessagesState) -> dict[str, Any]:
    return {"messages": [MODEL.invoke(state["messages"])]}


def build() -> Any:
    sub = StateGraph(MessagesState)
    sub.add_node("agent", agent)
    sub.add_node("tools", ToolNode([weather, clock]))
    sub.add_edge(START, "agent")
    sub.add_conditional_edges("agent", tools_condition)
    sub.add_edge("tools", "agent")
    assistant = sub.compile()

    def prepare(state: MessagesState) -> dict[str, Any]:
        get_stream_writer()({"stage": "prepare", "n": len(state["messages"])})
        return {"messages": [("system", "be brief")]}

    def finish(state: MessagesState) -> dict[str, Any]:
        get_stream_writer()({"stage": "finish", "n": len(state["messages"])})
        return {}

    g = StateGraph(MessagesState)
    g.add_node("prepare", prepare)
    g.add_node("assistant", assistant)
    g.add_node("finish", finish)
    g.add_edge(START, "prepare")
    g.add_edge("prepare", "assistant")
    g.add_edge("assistant", "finish")
    g.add_edge("finish", END)
    return g.compile()


def msg(m: Any) -> list[Any]:
    if isinstance(m, tuple):  # a node's update as it returned it
        return list(m)
    out = [m.type, m.content]
    if getattr(m, "tool_call_chunks", None):
        out.append([[c["name"], c["id"]] for c in m.tool_call_chunks])
    if getattr(m, "tool_calls", None):
        out.append([c["name"] for c in m.tool_calls])
    if getattr(m, "tool_call_id", None):
        out.append(m.tool_call_id)
    return out


def shape(part: Any, with_ns: bool) -> list[Any]:
    if with_ns:
        ns, mode, data = part
        names = [p.split(":")[0] for p in ns]
    else:
        mode, data = part
        names = None
    if mode == "messages":
        m, meta = data
        return [
            names,
            mode,
            msg(m),
            meta["langgraph_node"],
            meta["langgraph_step"],
            [p.split(":")[0] for p in meta["langgraph_checkpoint_ns"].split("|")],
        ]
    if mode == "updates":
        return [
            names,
            mode,
            {
                k: [msg(m) for m in (v or {}).get("messages", [])] if v is not None else None
                for k, v in data.items()
            },
        ]
    return [names, mode, data]


def run() -> dict[str, Any]:
    app = build()
    inp = {"messages": [("user", "weather in Oslo?")]}
    modes = ["messages", "updates", "custom"]
    out: dict[str, Any] = {}
    out["subgraphs"] = [shape(p, True) for p in app.stream(inp, stream_mode=modes, subgraphs=True)]
    out["flat"] = [shape(p, False) for p in app.stream(inp, stream_mode=modes)]
    out["invoke"] = [msg(m) for m in app.invoke(inp)["messages"]]
    return out
