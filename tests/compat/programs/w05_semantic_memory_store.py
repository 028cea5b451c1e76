"""Long-term memory with a semantically indexed InMemoryStore (``index={"dims", "embed",
"fields"}``, a deterministic embedding function): a graph whose nodes save memories through
``runtime.store`` and an injected ``store`` parameter (some with ``index=False`` or their
own ``index=[...]`` fields), then recall them by a natural-language query (ranked by score,
with a filter, with limit/offset); the same store shared by an @entrypoint; the items'
fields as an app reads them."""

from dataclasses import dataclass
from typing import Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

VOCAB = ["pizza", "pasta", "food", "hiking", "mountains", "travel", "python", "code"]


def embed(texts: list[str]) -> list[list[float]]:
    """Bag of words over a small vocabulary (plus a constant so no vector is zero)."""
    out = []
    for t in texts:
        words = t.lower().replace(",", " ").split()
        out.append([float(sum(w.startswith(v) for w in words)) for v in VOCAB] + [0.5])
    return out


@dataclass
class Ctx:
    user: str


class S(TypedDict, total=False):
    facts: list[str]
    query: str
    recalled: list[str]


def save(state: S, runtime: Runtime[Ctx]) -> dict[str, Any]:
    ns = ("memories", runtime.context.user)
    for i, fact in enumerate(state.get("facts", [])):
        runtime.store.put(ns, f"m{i}", {"text": fact, "kind": "fact" if i % 2 else "pref"})
    runtime.store.put(ns, "secret", {"text": "pizza pizza pizza"}, index=False)
    return {}


def save_more(state: S, store: BaseStore, runtime: Runtime[Ctx]) -> dict[str, Any]:
    store.put(
        ("memories", runtime.context.user),
        "tagged",
        {"text": "unrelated words", "topic": "hiking mountains"},
        index=["topic"],
    )
    return {}


def recall(state: S, runtime: Runtime[Ctx]) -> dict[str, Any]:
    hits = runtime.store.search(("memories", runtime.context.user), query=state["query"], limit=3)
    return {"recalled": [f"{h.key}:{round(h.score, 4)}" for h in hits]}


def item(i: Any) -> list[Any]:
    score = getattr(i, "score", None)
    return [list(i.namespace), i.key, i.value, None if score is None else round(score, 4)]


def run() -> dict[str, Any]:
    store = InMemoryStore(index={"dims": len(VOCAB) + 1, "embed": embed, "fields": ["text"]})
    g = StateGraph(S, context_schema=Ctx)
    g.add_node("save", save)
    g.add_node("save_more", save_more)
    g.add_node("recall", recall)
    g.add_edge(START, "save")
    g.add_edge("save", "save_more")
    g.add_edge("save_more", "recall")
    app = g.compile(store=store, checkpointer=InMemorySaver())
    out: dict[str, Any] = {}
    facts = ["I love pizza and pasta", "hiking in the mountains", "python code daily", "food"]
    out["run"] = app.invoke(
        {"facts": facts, "query": "favourite food, pizza?"},
        {"configurable": {"thread_id": "1"}},
        context=Ctx(user="ann"),
    )
    ns = ("memories", "ann")
    out["travel"] = [item(i) for i in store.search(ns, query="travel to mountains hiking")]
    out["filtered"] = [
        item(i) for i in store.search(ns, query="pizza food", filter={"kind": "fact"})
    ]
    out["paged"] = [item(i) for i in store.search(ns, query="code", limit=2, offset=1)]
    out["no_query"] = [item(i) for i in store.search(ns)]
    out["get"] = item(store.get(ns, "secret"))
    out["namespaces"] = [list(n) for n in store.list_namespaces(prefix=("memories",))]

    @entrypoint(store=store, checkpointer=InMemorySaver())
    def assistant(question: str, *, store: BaseStore) -> list[str]:
        hits = store.search(("memories", "ann"), query=question, limit=2)
        store.put(("memories", "bob"), "q", {"text": question})
        return [h.key for h in hits]

    out["entrypoint"] = assistant.invoke("pasta and pizza", {"configurable": {"thread_id": "e"}})
    out["bob"] = [item(i) for i in store.search(("memories", "bob"), query="pasta")]
    return out
