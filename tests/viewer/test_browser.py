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
