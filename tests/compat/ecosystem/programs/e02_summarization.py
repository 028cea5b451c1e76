"""`create_agent` with `SummarizationMiddleware`: once the conversation passes the trigger,
the older messages are replaced by a summary the model writes, the recent ones are kept."""

from typing import Any

from _agent_model import ScriptedModel, transcript
from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver


def run() -> dict[str, Any]:
    model = ScriptedModel(script=[AIMessage(f"answer {i}") for i in range(1, 6)])
    summarizer = ScriptedModel(script=[AIMessage("SUMMARY of the talk")])
    middleware = SummarizationMiddleware(
        model=summarizer, trigger=("messages", 4), keep=("messages", 2)
    )
    agent = create_agent(model, [], middleware=[middleware], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "s"}}
    turns = []
    for i in range(1, 4):
        out = agent.invoke({"messages": [("user", f"question {i}")]}, config)
        turns.append(transcript(out["messages"]))
    return {"turns": turns, "model_saw": model.asked, "summarizer_saw": len(summarizer.asked)}
