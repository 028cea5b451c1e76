"""A research workflow on the task layer: plan, search with a tool, draft, review, publish.

    plan ──> search ─────┐
         └─> background ─┴─> draft ──> review (approval) ──> publish

Every task is a `superstep_core.task.Task`: the model calls (`chat_call`), the search tool
and publishing are effects the host performs, so each one is recorded and retried by the
engine. ``search`` asks the model, which calls the ``web_search`` tool, and answers from the
tool's result; ``draft`` waits for ``search`` and ``background`` (a join); ``review`` asks the
model for a review, then suspends for a human approval; a rejection with feedback makes it
revise the draft and ask again.

Run it with any provider key (the API key comes from the provider's environment variable or
``--api-key``), offline with the ``mock`` provider, or against the mock server:

    python examples/research.py --topic "superstep engines"                    # mock: offline
    python examples/research.py --provider openai:gpt-4o-mini --approve ask
    python examples/mock_llm_server.py --port 8787 --fail-first &
    python examples/research.py --provider anthropic:claude-x --base-url http://127.0.0.1:8787 \
        --api-key x --approve yes

``--option key=value`` sets any other model setting (``region=us-east-1``, ``project_id=p``,
``token_url=...``). Retries: the model's own retries are off; each task retries retryable
failures (HTTP 429/5xx) up to ``--max-attempts`` times, ``--retry-delay`` seconds apart
(doubling); the host's ledger replays the effects a retried task had already completed, so
each failing effect costs exactly one retry. The search tool is a tiny offline corpus.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import BaseModel, Field

from superstep_core import (
    Append,
    Effect,
    EffectCompleted,
    EffectContext,
    Host,
    LastValue,
    RetryPolicy,
    Status,
)
from superstep_core.llm import init
from superstep_core.llm.nodes import Token, chat_call, llm_handlers, without_client_retries
from superstep_core.task import Done, Interrupt, Task, TaskContext, task_graph

# --- the tool and the publisher (host handlers) ---------------------------------------------

CORPUS = {
    "superstep": "A superstep delivers every queued event, then commits all writes at once.",
    "reducer": "A node is an event reducer: (context, event) -> updates, effects, control.",
    "retry": "A retryable failure is rescheduled with attempt+1 after the declared backoff.",
    "join": "A join waits for its sources per fan-out lineage before activating its target.",
}


@tool
def web_search(query: str) -> str:
    """Search the web for ``query`` and return the best snippets."""
    return search({"query": query}, None)


def search(args: dict[str, Any], ctx: EffectContext | None) -> str:
    """The ``search`` effect: snippets of the offline corpus whose key occurs in the query."""
    query = str(args.get("query", "")).lower()
    hits = [text for key, text in CORPUS.items() if key in query]
    return " ".join(hits) or f"No results for {args.get('query')!r}; general knowledge applies."


def publish(report: dict[str, Any], ctx: EffectContext) -> str:
    """The ``publish`` effect: here, a document id (a real one would write somewhere)."""
    return f"doc/{ctx.idempotency_key.split('/')[0]}"


class MemoryLedger:
    """Completed effects by id: a retried task gets these instead of calling again."""

    def __init__(self) -> None:
        self.results: dict[str, EffectCompleted] = {}

    def recorded(self, effect_id: str) -> EffectCompleted | None:
        return self.results.get(effect_id)

    def record(self, completed: EffectCompleted) -> None:
        self.results[completed.effect_id] = completed


# --- the tasks ------------------------------------------------------------------------------


class Plan(BaseModel):
    """A research plan."""

    queries: list[str] = Field(description="one to three web search queries")
    outline: list[str] = Field(description="section titles of the report")


def tasks(model: BaseChatModel, retry: RetryPolicy) -> list[Task]:
    """The five steps (plus background) as tasks over ``model``."""
    searcher = model.bind_tools([web_search])

    def ask(system: str, user: str) -> list[BaseMessage]:
        return [SystemMessage(system), HumanMessage(user)]

    def plan(ctx: TaskContext) -> Effect:
        topic = ctx.state["topic"]
        return chat_call(model, ask("Plan a short research report.", topic), schema=Plan)

    def planned(ctx: TaskContext, result: dict[str, Any]) -> Done:
        plan = Plan.model_validate(result)  # structured results come back as plain dicts
        return Done({"plan": plan.model_dump()}, output=plan.queries[:3])

    # search: ask the model per query (it calls the tool), run the tool calls, let it answer
    def search_start(ctx: TaskContext) -> list[Effect]:
        queries: list[str] = ctx.inputs["plan"] or [ctx.state["topic"]]
        ctx.memory["asks"] = [ask("Research with the web_search tool.", q) for q in queries]
        return [chat_call(searcher, m, stream=False) for m in ctx.memory["asks"]]

    def search_step(ctx: TaskContext, results: list[Any]) -> Any:
        if "replies" not in ctx.memory:
            ctx.memory["replies"] = results
            calls = [c for r in results for c in r.tool_calls]
            if calls:
                return [Effect("search", c["args"]) for c in calls]
            return _notes(results)
        if "found" not in ctx.memory:
            ctx.memory["found"] = results
            follow_ups: list[list[BaseMessage]] = []
            found = iter(results)
            for history, reply in zip(ctx.memory["asks"], ctx.memory["replies"], strict=True):
                answers = [ToolMessage(next(found), tool_call_id=c["id"]) for c in reply.tool_calls]
                follow_ups.append([*history, reply, *answers])
            return [chat_call(searcher, m, stream=False) for m in follow_ups]
        return _notes(results)

    def background(ctx: TaskContext) -> Effect:
        topic = ctx.state["topic"]
        return chat_call(model, ask("Give two sentences of background.", topic), stream=False)

    def draft(ctx: TaskContext) -> Effect:
        notes = "\n".join(ctx.state["notes"])
        outline = ", ".join(ctx.state["plan"]["outline"])
        user = f"Topic: {ctx.state['topic']}\nOutline: {outline}\nNotes:\n{notes}"
        return chat_call(model, ask("Write a short report from the notes.", user))

    def review(ctx: TaskContext) -> Effect:
        ctx.memory["draft"] = ctx.state["draft"]
        return chat_call(model, ask("Review this report in one paragraph.", ctx.memory["draft"]))

    def reviewed(ctx: TaskContext, reply: AIMessage) -> Any:
        if "review" not in ctx.memory:  # the model's review: now ask a human
            ctx.memory["review"] = reply.text
        else:  # a revision after feedback
            ctx.memory["draft"] = reply.text
        return Interrupt({"draft": ctx.memory["draft"], "review": ctx.memory["review"]})

    def answered(ctx: TaskContext, answer: dict[str, Any]) -> Any:
        if answer.get("approved"):
            return {"draft": ctx.memory["draft"], "review": ctx.memory["review"]}
        feedback = str(answer.get("feedback") or "Improve it.")
        user = f"Report:\n{ctx.memory['draft']}\n\nFeedback: {feedback}"
        return chat_call(model, ask("Revise the report to address the feedback.", user))

    def publishing(ctx: TaskContext) -> Effect:
        return Effect("publish", {"topic": ctx.state["topic"], "report": ctx.state["draft"]})

    return [
        Task("plan", plan, on_result=planned, retry=retry),
        Task("search", search_start, on_result=search_step, after=("plan",), retry=retry),
        Task("background", background, on_result=_note, after=("plan",), retry=retry),
        Task(
            "draft",
            draft,
            on_result=lambda ctx, r: {"draft": r.text},
            after=("search", "background"),
            retry=retry,
        ),
        # A retry starts the task over: completed effects replay from the ledger, but the
        # approval is asked again (the engine keeps no answers across attempts).
        Task(
            "review",
            review,
            on_result=reviewed,
            on_resume=answered,
            after=("draft",),
            retry=retry,
        ),
        Task("publish", publishing, on_result=lambda ctx, r: {"published": r}, after=("review",)),
    ]


def _note(ctx: TaskContext, reply: AIMessage) -> Done:
    return Done([("notes", reply.text)])


def _notes(replies: Sequence[AIMessage]) -> Done:
    return Done([("notes", r.text) for r in replies])


def graph(model: BaseChatModel, retry: RetryPolicy) -> Any:
    """The compiled research graph over ``model``."""
    channels = {
        "topic": LastValue(),
        "plan": LastValue(),
        "notes": Append(),
        "draft": LastValue(),
        "review": LastValue(),
        "published": LastValue(),
    }
    return task_graph("research", tasks(model, retry), channels=channels).compile()


# --- running --------------------------------------------------------------------------------


def _options(pairs: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"--option expects key=value, got {pair!r}")
        out[key.strip()] = value
    return out


def _approver(mode: str, feedback: str | None) -> Callable[[dict[str, Any]], dict[str, Any]]:
    given: list[str] = [feedback] if feedback else []

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        if given:  # the first answer is the feedback, then approve the revision
            return {"approved": False, "feedback": given.pop()}
        if mode == "yes":
            return {"approved": True}
        print(f"\n--- draft ---\n{request['draft']}\n--- review ---\n{request['review']}")
        reply = input("approve? [y/N or feedback] ").strip()
        if reply.lower() in ("y", "yes"):
            return {"approved": True}
        return {"approved": False, "feedback": reply or "Make it clearer."}

    return answer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--provider", default="mock:research", help="provider:model")
    parser.add_argument("--topic", default="How a superstep engine retries and joins work")
    parser.add_argument("--base-url")
    parser.add_argument("--api-key")
    parser.add_argument("--option", action="append", default=[], help="model setting key=value")
    parser.add_argument(
        "--approve",
        choices=("ask", "yes"),
        help="ask on the terminal, or approve (default: ask when stdin is a terminal)",
    )
    parser.add_argument("--feedback", help="reject the first draft with this feedback")
    parser.add_argument("--stream", action="store_true", help="print the draft's tokens")
    parser.add_argument("--max-attempts", type=int, default=4)
    parser.add_argument("--retry-delay", type=float, default=0.5)
    parser.add_argument("--json", action="store_true", help="print a JSON summary")
    args = parser.parse_args(argv)

    settings = _options(args.option)
    if args.base_url:
        settings["base_url"] = args.base_url
    if args.api_key:
        settings["api_key"] = args.api_key
    model = without_client_retries(init(args.provider, **settings))
    retry = RetryPolicy(args.max_attempts, initial_interval=args.retry_delay)

    def show(token: Token) -> None:
        if token.node == "draft":
            print(token.text, end="", file=sys.stderr, flush=True)

    performed: dict[str, dict[str, int]] = {}
    lock = threading.Lock()

    def counted(kind: str, handler: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        def perform(request: Any, ctx: EffectContext) -> Any:  # how often each effect ran
            with lock:  # effects of one superstep run on several threads
                calls = performed.setdefault(kind, {})
                calls[ctx.idempotency_key] = calls.get(ctx.idempotency_key, 0) + 1
            return handler(request, ctx)

        return perform

    plain = {
        **llm_handlers(on_token=show if args.stream else None),
        "search": search,
        "publish": publish,
    }
    handlers = {kind: counted(kind, handler) for kind, handler in plain.items()}
    mode = args.approve or ("ask" if sys.stdin is not None and sys.stdin.isatty() else "yes")
    approve = _approver(mode, args.feedback)
    with Host(handlers, ledger=MemoryLedger()) as host:
        ex = host.run_graph(graph(model, retry), payload=None, updates={"topic": args.topic})
        while ex.status is Status.SUSPENDED:
            (_, request), *_ = ex.interrupts
            host.resume(ex, approve(request))

    calls = {eid: n for by_id in performed.values() for eid, n in by_id.items()}
    retried = {eid: n - 1 for eid, n in calls.items() if n > 1}
    summary = {
        "status": ex.status.value,
        "failure": ex.failure.message if ex.failure else None,
        "published": ex.values.get("published"),
        "performed": performed,
        "retries": retried,
        "notes": list(ex.values.get("notes", ())),
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"\n{ex.values.get('draft', '')}\n")
        print(f"status: {summary['status']}  published: {summary['published']}")
        print(f"effects performed: {len(calls)}; retried: {len(retried)}")
        for eid, n in sorted(retried.items()):
            print(f"  {eid}: {n} retr{'y' if n == 1 else 'ies'}")
        if ex.failure:
            print(f"failed: {ex.failure.message}", file=sys.stderr)
    return 0 if ex.status is Status.COMPLETED else 1


if __name__ == "__main__":
    sys.exit(main())
