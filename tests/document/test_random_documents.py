"""Property: a document that validates compiles onto the engine and runs to ``ok`` (random
DAGs of tool nodes with forks, joins and conditions), and its run replays exactly."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from superstep_core.document import DocumentRunner, check_document, compile_document
from superstep_core.host.durable import DurableRunner

from .conftest import edge, load


@st.composite
def dags(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(1, 7))
    ids = [f"n{i}" for i in range(count)]
    kinds = {i: draw(st.sampled_from(["tool", "tool", "condition"])) for i in ids}
    nodes: list[dict[str, Any]] = []
    for i in ids:
        if kinds[i] == "condition":
            rules = [{"label": "yes", "when": "input.flag == true"}]
            nodes.append({"id": i, "type": "condition", "data": {"rules": rules, "default": "no"}})
        else:
            data = {"function": "mark", "args": {"node": i}, "output_field": "log"}
            nodes.append({"id": i, "type": "tool", "data": data})
    edges = [edge("start", ids[0])]
    for k, source in enumerate(ids):
        later = [*ids[k + 1 :], "end"]
        labels = ["yes", "no"] if kinds[source] == "condition" else [None]
        for label in labels:
            targets = draw(st.lists(st.sampled_from(later), min_size=1, max_size=2, unique=True))
            edges += [edge(source, t, label) for t in targets]
    extra = draw(st.lists(st.sampled_from(ids), max_size=2, unique=True))
    edges += [edge("start", t) for t in extra if t != ids[0]]
    return {
        "name": "random",
        "state": [
            {"name": "flag", "type": "boolean"},
            {"name": "log", "type": "list", "reducer": "append"},
        ],
        "nodes": nodes,
        "edges": edges,
    }


def _marks(*ids: str) -> list[dict[str, Any]]:
    data = {"output_field": "log", "function": "mark"}
    return [{"id": i, "type": "tool", "data": {**data, "args": {"node": i}}} for i in ids]


# Found by this property: label 'yes' of n0 forks into n1 and n2, which join at n3, while label
# 'no' enters n1 alone, so on 'no' the join waits forever for n2. The validator refuses it now.
_ONE_LABEL_FORKS_THE_OTHER_ENTERS_ONE_BRANCH = {
    "name": "random",
    "state": [
        {"name": "flag", "type": "boolean"},
        {"name": "log", "type": "list", "reducer": "append"},
    ],
    "nodes": [
        {
            "id": "n0",
            "type": "condition",
            "data": {"rules": [{"label": "yes", "when": "input.flag == true"}], "default": "no"},
        },
        *_marks("n1", "n2", "n3", "n4", "n5"),
    ],
    "edges": [
        edge("start", "n0"),
        edge("n0", "n1", "yes"),
        edge("n0", "n2", "yes"),
        edge("n0", "n1", "no"),
        edge("n1", "n3"),
        edge("n2", "n3"),
        edge("n3", "n4"),
        edge("n4", "n5"),
        edge("n5", "end"),
    ],
}


@example(raw=_ONE_LABEL_FORKS_THE_OTHER_ENTERS_ONE_BRANCH, flag=False)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags(), st.booleans())
def test_a_valid_document_compiles_runs_to_ok_and_replays(raw: dict[str, Any], flag: bool) -> None:
    doc = load(raw)
    assume(check_document(doc) == [])
    compiled = compile_document(doc)
    runner = DocumentRunner(tools={"mark": lambda node: node})
    result = runner.start(doc, {"flag": flag}, run_id="p")
    assert result.status == "ok", result.error
    assert set(result.values.get("log", [])) <= {n["id"] for n in raw["nodes"]}
    assert DurableRunner(runner.saver).replay(compiled.graph, "p").matched
