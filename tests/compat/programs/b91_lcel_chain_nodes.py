"""LCEL chains as nodes (``add_node("answer", prompt | model | parser ...)``, older tutorials):
LangGraph runs a RunnableSequence node's steps as steps of the node itself, so a callback
handler (LangSmith's tree, say) sees each step directly under the node's run with tags
``seq:step:K``, no RunnableSequence run between, and the node's router after them; the
node's tokens in the messages stream, its result, the async twin's tree."""

import asyncio
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    question: str
    answer: str
    length: int


class Tree(BaseCallbackHandler):
    """Each chain / model run: its name, its parent's name, its tags."""

    def __init__(self) -> None:
        self.names: dict[UUID, str] = {}
        self.runs: list[Any] = []

    def _start(self, name: Any, run_id: UUID, parent: UUID | None, tags: Any) -> None:
        self.names[run_id] = name
        self.runs.append([name, self.names.get(parent) if parent else None, sorted(tags or [])])

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, **kw: Any) -> None:
        self._start(kw.get("name"), run_id, kw.get("parent_run_id"), kw.get("tags"))

    def on_chat_model_start(
        self, serialized: Any, messages: Any, *, run_id: UUID, **kw: Any
    ) -> None:
        self._start("chat_model", run_id, kw.get("parent_run_id"), kw.get("tags"))


def _graph() -> Any:
    llm = GenericFakeChatModel(messages=iter([AIMessage("forty two")] * 20))
    prompt = ChatPromptTemplate.from_messages([("human", "{question}")])
    chain = (prompt | llm | StrOutputParser()).with_config(run_name="answer_chain")
    builder = StateGraph(State)
    builder.add_node(
        "answer",
        RunnablePassthrough.assign(answer=chain)
        | RunnableLambda(lambda s: {"answer": s["answer"]}, name="pick"),
    )
    builder.add_node("measure", RunnableLambda(lambda s: {"length": len(s["answer"])}))
    builder.add_edge(START, "answer")
    builder.add_conditional_edges("answer", RunnableLambda(lambda s: "measure", name="route"))
    builder.add_edge("measure", END)
    return builder.compile()


def run() -> dict[str, Any]:
    graph = _graph()
    tree = Tree()
    out: dict[str, Any] = {"result": graph.invoke({"question": "q"}, {"callbacks": [tree]})}
    out["tree"] = tree.runs
    out["tokens"] = [
        [m.content, meta["langgraph_node"], sorted(meta.get("tags") or [])]
        for m, meta in graph.stream({"question": "q"}, stream_mode="messages")
    ]
    atree = Tree()
    out["async_result"] = asyncio.run(graph.ainvoke({"question": "q"}, {"callbacks": [atree]}))
    out["async_tree"] = atree.runs
    return out
