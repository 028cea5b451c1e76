"""Hypothesis strategies for plans and states: small random DAGs (edges only to steps drawn
earlier, so acyclic by construction) with every kind of edge, estimates and compensations, and
states that put each step in one of four places."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from superstep_core.plan import WHENS

Plan = dict[str, Any]
State = dict[str, list[str]]


@st.composite
def plans(draw: st.DrawFn, *, max_steps: int = 8, compensations: bool = True) -> Plan:
    n = draw(st.integers(1, max_steps))
    # Ids in a random order, so that id order and dependency order disagree.
    ids = draw(st.permutations([f"s{i}" for i in range(n)]))
    steps: list[dict[str, Any]] = []
    for i, sid in enumerate(ids):
        step: dict[str, Any] = {"id": sid, "kind": draw(st.sampled_from(["a", "b"]))}
        deps = draw(st.lists(st.sampled_from(ids[:i]), unique=True, max_size=3)) if i else []
        if deps:
            step["dependsOn"] = [
                d if draw(st.booleans()) else {"id": d, "when": draw(st.sampled_from(WHENS))}
                for d in deps
            ]
        estimate = draw(st.none() | st.integers(0, 40))
        if estimate is not None:
            step["estimateMinor"] = estimate
        steps.append(step)
    if compensations:
        for j in range(draw(st.integers(0, 2))):
            undo: dict[str, Any] = {
                "id": f"u{j}",
                "kind": "undo",
                "compensates": draw(st.sampled_from(ids)),
            }
            if draw(st.booleans()):
                undo["estimateMinor"] = draw(st.integers(0, 40))
            steps.append(undo)
    return {"steps": steps}


@st.composite
def states(draw: st.DrawFn, plan: Plan) -> State:
    out: State = {"succeeded": [], "failed": [], "in_flight": []}
    for step in plan["steps"]:
        where = draw(st.sampled_from(["", "succeeded", "failed", "in_flight"]))
        if where:
            out[where].append(step["id"])
    return out


@st.composite
def plans_and_states(draw: st.DrawFn, **options: Any) -> tuple[Plan, State]:
    plan = draw(plans(**options))
    return plan, draw(states(plan))


@st.composite
def shuffled(draw: st.DrawFn, plan: Plan, state: State) -> tuple[Plan, State]:
    """The same plan and state with every list in another order."""
    steps = []
    for step in draw(st.permutations(plan["steps"])):
        step = dict(step)
        if "dependsOn" in step:
            step["dependsOn"] = draw(st.permutations(step["dependsOn"]))
        steps.append(step)
    return {"steps": steps}, {k: draw(st.permutations(v)) for k, v in state.items()}
