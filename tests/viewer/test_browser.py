"""The viewer in a real browser on a served example: the threads list and its filters, a run
started from the page with the running node highlighted live, a step's diff, an interrupt
answered, a fork from an older checkpoint. Each writes a screenshot of its view into
docs/screenshots/ (the README shows them)."""

from __future__ import annotations

from typing import Any

import httpx

from viewer.conftest import screenshot


def _thread(url: str, graph: str, **metadata: Any) -> str:
    response = httpx.post(f"{url}/threads", json={"metadata": {"graph_id": graph, **metadata}})
    response.raise_for_status()
    return str(response.json()["thread_id"])


def _ready(page: Any) -> None:
    page.wait_for_selector("body[data-ready='1']")


def test_the_threads_list_filters_by_graph_status_and_metadata_and_links_to_threads(
    page: Any, served: Any
) -> None:
    ada = _thread(served.url, "agent", user="ada")
    bob = _thread(served.url, "pipeline", user="bob")
    page.goto(f"{served.url}/viewer/")
    _ready(page)
    rows = page.locator("#threads tr[data-thread]")
    assert {ada, bob} <= set(rows.evaluate_all("rs => rs.map(r => r.dataset.thread)"))
    screenshot(page, "threads")

    page.select_option("#filters select[name=graph]", "pipeline")
    page.click("#filters button[type=submit]")
    page.wait_for_url("**graph=pipeline**")
    _ready(page)
    shown = set(rows.evaluate_all("rs => rs.map(r => r.dataset.thread)"))
    assert bob in shown and ada not in shown

    page.fill("#filters input[name=metadata]", '{"user": "nobody"}')
    page.click("#filters button[type=submit]")
    page.wait_for_url("**metadata=**")
    _ready(page)
    assert rows.count() == 0

    page.goto(f"{served.url}/viewer/#/threads?metadata=%7B%22user%22%3A%22ada%22%7D&status=idle")
    _ready(page)
    assert rows.evaluate_all("rs => rs.map(r => r.dataset.thread)") == [ada]
    page.click(f"#threads a[href='#/thread/{ada}']")
    page.wait_for_selector("#graph svg g[data-node='human_review']")
    assert page.text_content("#thread-status") == "idle"


def _node(page: Any, name: str) -> Any:
    return page.locator(f"#graph svg g[data-node='{name}']")


def _has_class(locator: Any, name: str) -> bool:
    return bool(locator.evaluate(f"n => n.classList.contains('{name}')"))


def test_a_run_started_in_the_viewer_highlights_its_running_node_then_draws_its_path(
    page: Any, served: Any
) -> None:
    thread = _thread(served.url, "pipeline")
    page.goto(f"{served.url}/viewer/#/thread/{thread}")
    _ready(page)
    page.fill("#run-input", '{"x": 4}')
    page.click("#start-run")
    # `work` is held: while it runs it is the highlighted node, and `plan` no longer is.
    page.wait_for_selector("#graph svg g[data-node='work'].active")
    assert served.held()
    assert not _has_class(_node(page, "plan"), "active")
    assert page.text_content("#thread-status") == "busy"
    assert page.is_visible("#cancel-run")
    screenshot(page, "live-run")
    served.release()
    page.wait_for_selector("#thread-status.idle")
    assert page.locator("#live li").evaluate_all("ls => ls.map(l => l.textContent)") == [
        "__start__",  # the input step
        "plan",
        "work",
        "report",
    ]
    assert not page.locator("#graph svg g.node.active").count()
    visited = page.get_attribute("#graph", "data-visited")
    assert visited is not None
    assert set(visited.split(",")) == {"__start__", "plan", "work", "report", "__end__"}
    assert page.locator("#graph svg path.edge.visited").count() == 4
