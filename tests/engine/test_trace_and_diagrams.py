"""The human-readable trace projection and the Mermaid / DOT diagrams."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Any

from superstep_core import (
    Activated,
    CompiledGraph,
    CompleteActivation,
    Effect,
    EffectCompleted,
    Event,
    FailActivation,
    Graph,
    NodeContext,
    Reaction,
    Reducer,
    RemainActive,
    RequestTimer,
    RouteFailuresTo,
    compute_node,
    format_trace,
    to_dot,
    to_mermaid,
)
from superstep_core.runtime import Execution

from .support import completes, drain, ok, reaction


def parse(ctx: NodeContext, event: Event) -> Reaction:
    if isinstance(event, Activated):
        return Reaction(effects=[Effect("read")], disposition=RemainActive())
    assert isinstance(event, EffectCompleted)
    return Reaction(updates={"n": 1}, disposition=CompleteActivation(event.result))


def is_long(state: Mapping[str, Any], output: Any) -> str | None:
    return "archive" if state["n"] > 1 else None


def _document_graph() -> CompiledGraph:
    return (
        Graph("doc")
        .with_channels(n=Reducer(operator.add, int))
        .add_node("parse", parse)
        .add_node("validate", compute_node(lambda s, p: None))
        .add_node("index", compute_node(lambda s, p: None))
        .add_node("store", compute_node(lambda s, p: {"n": 1}))
        .add_node("reject", completes())
        .add_node("archive", completes())
        .add_node("watch", reaction(Reaction(disposition=RemainActive())))
        .add_node("spawner", completes(), may_activate=["parse"])
        .start_at("parse")
        .fork("parse", ["validate", "index"])
        .join_all("ready", ["validate", "index"], "store", on_failure=RouteFailuresTo("reject"))
        .branch("store", is_long, ["archive"])
        .route("ping", None, "watch")
        .route("spawn", None, "spawner")
        .end_at("archive")
        .compile()
    )


def test_format_trace_shows_each_superstep_its_events_dispositions_effects_and_writes() -> None:
    ex = drain(Execution.start(_document_graph(), "run-1"), ok("text"))
    assert format_trace(ex.trace) == (
        "superstep 1\n"
        "  parse:1 <- Activated -> RemainActive\n"
        "  effects: run-1/parse:1/e0\n"
        "superstep 2\n"
        "  parse:1 <- EffectCompleted -> CompleteActivation\n"
        "  wrote: n\n"
        "  next: validate:2, index:3\n"
        "superstep 3\n"
        "  index:3 <- Activated -> CompleteActivation\n"
        "  validate:2 <- Activated -> CompleteActivation\n"
        "  next: store:4\n"
        "superstep 4\n"
        "  store:4 <- Activated -> CompleteActivation\n"
        "  wrote: n\n"
        "  next: archive:5\n"
        "superstep 5\n"
        "  archive:5 <- Activated -> CompleteActivation"
    )


def test_format_trace_shows_timers_drops_and_failures() -> None:
    arm = reaction(Reaction(control=[RequestTimer("t", 1.0)], disposition=RemainActive()))
    g = Graph("g").add_node("a", arm).start_at("a").compile()
    ex = drain(Execution.start(g, "run"))
    ex.deliver(EffectCompleted("run/a:1/e7"))
    text = format_trace(ex.trace)
    assert "  timers: a:1/t#1" in text
    assert "  dropped: effect run/a:1/e7: nobody awaits it" in text

    fail = reaction(Reaction(disposition=FailActivation.permanent("no")))
    failing = Graph("g").add_node("a", fail).start_at("a").compile()
    ex = drain(Execution.start(failing, "run"))
    assert format_trace(ex.trace).splitlines()[0] == "superstep 1  FAILED: a (a:1): Error: no"


def test_trace_records_compare_as_plain_tuples() -> None:
    first = drain(Execution.start(_document_graph(), "run-1"), ok("text"))
    second = drain(Execution.start(_document_graph(), "run-1"), ok("text"))
    assert [r.as_tuple() for r in first.trace] == [r.as_tuple() for r in second.trace]
    assert first.trace[0].as_tuple()[0] == 1


def test_mermaid_shows_edges_branches_joins_routes_failure_routes_and_ends() -> None:
    text = to_mermaid(_document_graph())
    assert text.startswith("flowchart TD\n")
    for line in [
        "    __start__ --> n_parse",
        "    n_parse --> n_validate",
        '    j_ready{{"join ready: all"}}',
        "    n_validate --> j_ready",
        "    n_index --> j_ready",
        "    j_ready --> n_store",
        "    j_ready -. on failure .-> n_reject",
        "    n_store -. is_long .-> n_archive",
        '    e_ping>"event: ping"]',
        "    e_ping -. route .-> n_watch",
        "    n_spawner -. may activate .-> n_parse",
        "    n_archive --> __end__",
    ]:
        assert line in text.splitlines(), line


def test_mermaid_labels_join_fire_policies() -> None:
    g = (
        Graph("g")
        .add_node("a", completes())
        .add_node("b", completes())
        .add_node("t", completes())
        .add_node("u", completes())
        .start_at("a", "b")
        .join_any("first", ["a", "b"], "t")
        .join_at_least(2, "both", ["a", "b"], "u")
        .compile()
    )
    text = to_mermaid(g)
    assert '    j_first{{"join first: any"}}' in text
    assert '    j_both{{"join both: at least 2"}}' in text


def test_dot_shows_the_same_structure() -> None:
    text = to_dot(_document_graph())
    assert text.startswith('digraph "doc" {\n') and text.endswith("}\n")
    for line in [
        '  __start__ -> "parse";',
        '  "join:ready" [shape=hexagon, label="join ready: all"];',
        '  "validate" -> "join:ready";',
        '  "join:ready" -> "store";',
        '  "join:ready" -> "reject" [style=dashed, label="on failure"];',
        '  "store" -> "archive" [style=dashed, label="is_long"];',
        '  "event:ping" [shape=cds, label="event: ping"];',
        '  "event:ping" -> "watch" [style=dotted];',
        '  "spawner" -> "parse" [style=dashed, label="may activate"];',
        '  "archive" -> __end__;',
    ]:
        assert line in text.splitlines(), line


def test_diagrams_quote_awkward_names() -> None:
    g = Graph('say "hi"').add_node("a-b c", completes()).start_at("a-b c").compile()
    assert "    n_a_b_c[a-b c]" in to_mermaid(g)
    assert 'digraph "say \\"hi\\"" {' in to_dot(g)
