"""Under `astream_events` (and `astream_log`) LangGraph's async runner streams each node
rather than invoking it: a Runnable node's first step is ``astream``-ed and each next step
of a sequence ``atransform``-s the stream before it, so every step emits its chunks
(``on_chain_stream``) and a step starts before the one before it ends. Nodes: a
`RunnableLambda`, a `RunnableParallel`, a two-lambda sequence, an ``assign`` sequence, a
prompt | fake chat model | parser chain inside a sequence, a generator, a plain function
and a compiled subgraph (whose run streams itself: unchanged); ``ainvoke`` and a plain
``astream`` (no streaming handler) keep invoking them."""

import itertools
import operator
from typing import Annotated, Any, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import (
    RunnableGenerator,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
)
from langgraph.graph import START, StateGraph


class S(TypedDict):
    x: Annotated[list, operator.add]


async def _gen(chunks: Any) -> Any:
    async for _ in chunks:
        pass
    yield {"x": ["gen"]}


def _graph() -> Any:
    inner = StateGraph(S)
    inner.add_node("i", RunnableLambda(lambda s: {"x": ["i"]}))
    inner.add_edge(START, "i")
    model = GenericFakeChatModel(messages=itertools.cycle([AIMessage(content="hi there")]))
    chat = ChatPromptTemplate.from_messages([("human", "{q}")]) | model | StrOutputParser()
    nodes = {
        "lam": RunnableLambda(lambda s: {"x": ["lam"]}),
        "par": RunnableParallel(x=lambda s: ["par"]),
        "seq": RunnableLambda(lambda s: {"x": ["s1"]})
        | RunnableLambda(lambda d: {"x": [*d["x"], "s2"]}),
        "assign": RunnablePassthrough.assign(y=lambda s: 1)
        | RunnableLambda(lambda s: {"x": ["assign"]}),
        "chat": RunnableLambda(lambda s: {"q": "hello"})
        | chat
        | RunnableLambda(lambda t: {"x": [t]}),
        "gen": RunnableGenerator(_gen),
        "plain": lambda s: {"x": ["plain"]},
        "sub": inner.compile(),
    }
    g = StateGraph(S)
    previous = START
    for name, action in nodes.items():
        g.add_node(name, action)
        g.add_edge(previous, name)
        previous = name
    return g.compile()


def _event(e: dict) -> list:
    ns = e["metadata"].get("checkpoint_ns", "").split(":")[0]
    chunk = e["data"].get("chunk")
    shown = getattr(chunk, "content", chunk)  # (a message chunk's id is random)
    return [e["event"], e["name"], e["metadata"].get("langgraph_node"), ns, e["tags"], str(shown)]


async def run() -> dict:
    out: dict[str, Any] = {}
    out["v2"] = [_event(e) async for e in _graph().astream_events({"x": []}, version="v2")]
    out["log"] = [
        [op["path"] for op in patch.ops]
        async for patch in _graph().astream_log({"x": []}, include_types=["chain"])
    ]
    out["ainvoke"] = await _graph().ainvoke({"x": []})
    out["astream"] = [c async for c in _graph().astream({"x": []})]
    return out
