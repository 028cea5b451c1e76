"""A LangGraph-style travel agent: a tool-calling ReAct loop, a human approval step before any
tool runs, and a SQLite checkpointer. Written against `langgraph`; it runs unchanged on the
Superstep façade:

    .venv-langgraph/bin/python examples/agent.py             # real LangGraph (make test builds it)
    .venv/bin/python -m superstep_compat examples/agent.py   # the same file on Superstep

Both print the same transcript. `graph` is served over the LangGraph server API with
`superstep serve --config examples/langgraph.json` (README, "Serving an agent").

The chat model is scripted (no network, no API key): it asks for tools on a user turn and
summarises once the tool results are in.

The human reviewer is simulated by `REVIEWS`: the graph pauses with `interrupt()` before the
tools run, the process "restarts" (a new SqliteSaver on the same database file), and the run
resumes with `Command(resume=...)`.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import Command, interrupt

# --- tools -----------------------------------------------------------------------------------

WEATHER = {"paris": "14°C, light rain", "oslo": "-3°C, snow", "lisbon": "21°C, sunny"}
RATES = {("EUR", "USD"): 1.08, ("EUR", "NOK"): 11.6}


@tool
def get_weather(city: str) -> str:
    """Return today's weather for a city."""
    return WEATHER.get(city.lower(), "unknown")


@tool
def convert_currency(amount: float, source: str, target: str) -> str:
    """Convert an amount of money from one currency to another."""
    rate = RATES.get((source, target))
    if rate is None:
        raise ValueError(f"no rate for {source}->{target}")
    return f"{amount:g} {source} = {amount * rate:.2f} {target}"


@tool
def book_flight(destination: str) -> str:
    """Book a flight to the destination (an action with a side effect)."""
    return f"booked a flight to {destination}"


TOOLS = [get_weather, convert_currency, book_flight]


# --- a scripted chat model -------------------------------------------------------------------


class ScriptedChatModel(BaseChatModel):
    """A deterministic tool-calling chat model.

    On a user turn it picks tool calls from keywords in the message; once tool results follow
    its own tool calls, it answers with a summary of them.
    """

    tool_names: tuple[str, ...] = ()

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        return ScriptedChatModel(tool_names=tuple(t.name for t in tools))

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            message = AIMessage(content=self._summarise(messages))
        else:
            calls = self._plan(str(last.content), turn=len(messages))
            message = AIMessage(content="", tool_calls=calls) if calls else AIMessage("Hello!")
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _plan(self, text: str, turn: int) -> list[dict[str, Any]]:
        words = text.lower().replace("?", "").replace(",", "").split()
        calls: list[dict[str, Any]] = []
        for city in WEATHER:
            if city in words and "weather" in words:
                calls.append({"name": "get_weather", "args": {"city": city.title()}})
        if "eur" in words:
            amount = float(words[words.index("eur") - 1])
            target = words[words.index("eur") + 2].upper()
            calls.append(
                {
                    "name": "convert_currency",
                    "args": {"amount": amount, "source": "EUR", "target": target},
                }
            )
        if "book" in words:
            calls.append({"name": "book_flight", "args": {"destination": words[-1].title()}})
        return [
            {**call, "id": f"call_{turn}_{i}", "type": "tool_call"}
            for i, call in enumerate(calls)
            if call["name"] in self.tool_names
        ]

    @staticmethod
    def _summarise(messages: list[BaseMessage]) -> str:
        results: list[str] = []
        for message in reversed(messages):
            if not isinstance(message, ToolMessage):
                break
            results.append(f"{message.name}: {message.content}")
        return "Here is what I found. " + "; ".join(reversed(results)) + "."


# --- the graph -------------------------------------------------------------------------------

model = ScriptedChatModel().bind_tools(TOOLS)


def agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
    return {"messages": [model.invoke(state["messages"])]}


def route_after_agent(state: MessagesState) -> Literal["human_review", "__end__"]:
    last = state["messages"][-1]
    return "human_review" if isinstance(last, AIMessage) and last.tool_calls else END


def human_review(state: MessagesState) -> Command[Literal["tools", "agent"]]:
    """Pause before any tool runs; the reviewer approves or rejects the whole batch."""
    calls = state["messages"][-1].tool_calls  # type: ignore[attr-defined]
    decision = interrupt(
        {"question": "run these tools?", "calls": [[c["name"], c["args"]] for c in calls]}
    )
    if decision.get("approve"):
        return Command(goto="tools")
    rejected = [
        ToolMessage(
            content=f"not run: the reviewer said {decision.get('reason', 'no')!r}",
            name=c["name"],
            tool_call_id=c["id"],
        )
        for c in calls
    ]
    return Command(goto="agent", update={"messages": rejected})


def build(checkpointer: SqliteSaver | None) -> Any:
    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("human_review", human_review)
    builder.add_node("tools", ToolNode(TOOLS))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route_after_agent)
    builder.add_edge("tools", "agent")
    return builder.compile(checkpointer=checkpointer)


# The graph `superstep serve --config examples/langgraph.json` serves (LangGraph's own server
# takes the same file); the server gives it its checkpointer.
graph = build(None)


# --- a scripted session ----------------------------------------------------------------------

TURNS = [
    "What's the weather in Paris, and how much is 250 EUR in USD?",
    "Please book a flight to Oslo",
    "Hi there",
]
# One review decision per interrupt, in order.
REVIEWS: list[dict[str, Any]] = [
    {"approve": True},
    {"approve": False, "reason": "too expensive this month"},
]


def show(message: BaseMessage) -> str:
    if isinstance(message, AIMessage) and message.tool_calls:
        calls = ", ".join(f"{c['name']}({c['args']})" for c in message.tool_calls)
        return f"ai: calls {calls}"
    if isinstance(message, ToolMessage):
        return f"tool[{message.name}]: {message.content}"
    return f"{message.type}: {message.content}"


def stream(graph: Any, payload: Any, config: dict[str, Any], out: list[str]) -> bool:
    """Stream one run; print each node's update; return True if it paused for review."""
    paused = False
    for update in graph.stream(payload, config, stream_mode="updates"):
        for node, value in update.items():
            if node == "__interrupt__":
                paused = True
                for pending in value:
                    out.append(f"  [paused] {pending.value['question']} {pending.value['calls']}")
                continue
            messages = (value or {}).get("messages", [])
            out.append(f"  {node}: " + (" | ".join(show(m) for m in messages) or "(no update)"))
    return paused


def main(db_path: Path) -> list[str]:
    out: list[str] = []
    config: dict[str, Any] = {"configurable": {"thread_id": "traveller-1"}}
    reviews = iter(REVIEWS)
    for text in TURNS:
        out.append(f"user: {text}")
        with SqliteSaver.from_conn_string(str(db_path)) as saver:
            paused = stream(build(saver), {"messages": [HumanMessage(text)]}, config, out)
        while paused:
            # A new process, a new saver on the same file: the pause survived on disk.
            decision = next(reviews)
            out.append(f"  [review] {decision}")
            with SqliteSaver.from_conn_string(str(db_path)) as saver:
                graph = build(saver)
                waiting = graph.get_state(config)
                out.append(f"  [resume] next={list(waiting.next)}")
                paused = stream(graph, Command(resume=decision), config, out)
    with SqliteSaver.from_conn_string(str(db_path)) as saver:
        graph = build(saver)
        final = graph.get_state(config)
        history = list(graph.get_state_history(config))
    out.append("transcript:")
    out.extend(f"  {show(m)}" for m in final.values["messages"])
    out.append(f"checkpoints: {len(history)}, last step: {final.metadata['step']}")
    return out


if __name__ == "__main__":
    if len(sys.argv) > 1:
        lines = main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            lines = main(Path(tmp) / "agent.db")
    print("\n".join(lines))
