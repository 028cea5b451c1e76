"""The viewer's scale bench, in the browser: a thread of 1,000 supersteps whose state holds
1,000 messages. Measured, in milliseconds of the page's own clock (``performance.now()``):

- first contentful paint of the thread page (navigation start to the paint);
- timeline ready (the page built: graph, status, runs, the newest page of supersteps);
- opening the newest step (click to its state tree drawn, diffed against the step before);
- step 500 by its deep link (``#/thread/{id}/checkpoint/{checkpoint_id}``);
- the next page of older supersteps.

Each is measured ``ROUNDS`` times on a fresh page; the runs and their medians are printed
(``pytest -s``) and kept as the test's properties (``--junitxml``); BENCH.md's "Viewer"
section records them. Nothing asserts on a time (a shared machine's wall clock says nothing
about the code): the test checks that every step finishes and shows what it should, with
the long lists paged rather than drawn whole."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import httpx

from viewer.conftest import screenshot

STEPS = 1000
MIDDLE = STEPS // 2
ROUNDS = 3


def _long_thread(url: str) -> str:
    thread = httpx.post(f"{url}/threads", json={"metadata": {"graph_id": "long"}}).json()
    tid = str(thread["thread_id"])
    started = time.perf_counter()
    response = httpx.post(
        f"{url}/threads/{tid}/runs/wait",
        json={
            "assistant_id": "long",
            "input": {"until": STEPS},
            "config": {"recursion_limit": STEPS + 10},
        },
        timeout=600,
    )
    response.raise_for_status()
    assert len(response.json()["messages"]) == STEPS
    print(f"\n{STEPS} supersteps run through the server in {time.perf_counter() - started:.1f} s")
    return tid


def _checkpoint_of_step(url: str, tid: str, step: int) -> str:
    found = httpx.post(
        f"{url}/threads/{tid}/history",
        json={"limit": 1, "metadata": {"step": step}},
        timeout=120,
    ).json()
    assert len(found) == 1, found
    return str(found[0]["checkpoint"]["checkpoint_id"])


def _timed(page: Any, act: Callable[[], None]) -> float:
    """Milliseconds of the page's clock that ``act`` (an action and its wait) took."""
    start = float(page.evaluate("performance.now()"))
    act()
    return float(page.evaluate("performance.now()")) - start


def _round(page: Any, url: str, tid: str, middle: str, first: bool) -> dict[str, float]:
    page.goto(f"{url}/viewer/#/thread/{tid}")
    page.wait_for_selector("body[data-ready='1'] #timeline tr.step-row")
    ready = float(page.evaluate("performance.now()"))
    fcp = float(
        page.evaluate("performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1")
    )
    rows = page.locator("#timeline tr.step-row")
    assert 0 < rows.count() <= 20  # a page of the timeline, not a thousand rows
    assert rows.first.get_attribute("data-step") == str(STEPS)

    # the newest step: a thousand messages, diffed against the step before
    def open_newest() -> None:
        rows.first.click()
        page.wait_for_selector(f"#step[data-checkpoint] #step-title:has-text('Superstep {STEPS}')")
        page.wait_for_selector("#state-tree .entry")

    newest = _timed(page, open_newest)
    messages = page.locator("#state-tree details.entry[data-key='messages']")
    assert f"[{STEPS}]" in (messages.locator(".brief").first.text_content() or "")
    drawn = messages.locator(":scope > .children > .entry").count()
    assert 0 < drawn <= 50, f"{drawn} messages drawn at once: the list is not paged"
    assert f"of {STEPS}" in (messages.locator(".pager").first.text_content() or "")
    if first:
        screenshot(page, "long-thread")

    def open_middle() -> None:
        page.evaluate(f"window.location.hash = '#/thread/{tid}/checkpoint/{middle}'")
        page.wait_for_selector(f"#step[data-checkpoint='{middle}'] #state-tree .entry")

    deep_link = _timed(page, open_middle)
    assert f"Superstep {MIDDLE}" in (page.text_content("#step-title") or "")

    shown = rows.count()

    def next_page() -> None:
        page.click("#older-steps")
        page.wait_for_function(
            f"document.querySelectorAll('#timeline tr.step-row').length > {shown}"
        )

    older = _timed(page, next_page)
    return {
        "first contentful paint": fcp,
        "timeline ready": ready,
        "open the newest step": newest,
        f"open step {MIDDLE} (deep link)": deep_link,
        "next page of the timeline": older,
    }


def test_a_thread_of_1000_supersteps_and_1000_messages(
    browser: Any, served: Any, record_property: Callable[[str, object], None]
) -> None:
    tid = _long_thread(served.url)
    middle = _checkpoint_of_step(served.url, tid, MIDDLE)
    runs: list[dict[str, float]] = []
    errors: list[str] = []
    for i in range(ROUNDS):
        # a fresh page each round: nothing of the last round's reads kept in the page
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.set_default_timeout(120_000)
        try:
            runs.append(_round(page, served.url, tid, middle, first=i == 0))
        finally:
            context.close()
        assert not errors, f"the viewer raised in the browser: {errors}"
    print(f"viewer on {STEPS} supersteps, {STEPS} messages ({ROUNDS} rounds, ms):")
    for name in runs[0]:
        samples = [r[name] for r in runs]
        median = statistics.median(samples)
        record_property(name, round(median))
        print(f"  {name:<32} median {median:7.0f}   ({', '.join(f'{s:.0f}' for s in samples)})")
