"""The viewer in a real browser on a served example: the threads list and its filters, a run
started from the page with the running node highlighted live, a step's diff, an interrupt
answered, a fork from an older checkpoint. Each writes a screenshot of its view into
docs/screenshots/ (the README shows them) under `make screenshots`."""

from __future__ import annotations

import json
import threading
from pathlib import Path
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
    page.wait_for_selector("#thread-status.idle")


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
    # The path is drawn after the status turns idle (it reads the run's checkpoints).
    page.wait_for_selector("#graph[data-visited*='__end__']")
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


def _run_released(page: Any, served: Any, thread: str, payload: str) -> None:
    """Open the thread and run it to the end (the held node released beforehand)."""
    page.goto(f"{served.url}/viewer/#/thread/{thread}")
    _ready(page)
    served.release()
    page.fill("#run-input", payload)
    page.click("#start-run")
    page.wait_for_selector("#graph[data-visited*='__end__']")
    page.wait_for_selector("#thread-status.idle")


def _step_row(page: Any, ran: str) -> Any:
    rows = page.locator("#timeline tr.step-row")
    for i in range(rows.count()):
        if rows.nth(i).locator("td").nth(2).text_content() == ran:
            return rows.nth(i)
    raise AssertionError(f"no superstep in the timeline ran {ran!r}")


def test_opening_a_superstep_shows_its_tasks_writes_and_the_state_diffed_against_the_step_before(
    page: Any, served: Any
) -> None:
    thread = _thread(served.url, "pipeline")
    _run_released(page, served, thread, '{"x": 4}')
    steps = page.locator("#timeline tr.step-row").evaluate_all("rs => rs.map(r => r.dataset.step)")
    assert steps == ["3", "2", "1", "0", "-1"]
    _step_row(page, "work").click()
    page.wait_for_selector("#step[data-checkpoint] #step-title:has-text('Superstep 2')")
    assert page.url.endswith(page.get_attribute("#step", "data-checkpoint") or "?")
    assert page.locator("#step ul.tasks.ran li").evaluate_all(
        "ls => ls.map(l => l.dataset.task)"
    ) == ["work"]
    # how long `work` took (held until the test released it): from the server's task times
    took = page.locator("#step ul.tasks.ran li[data-task='work'] .timing")
    assert float(took.get_attribute("data-ms") or "-1") > 0
    assert (took.text_content() or "").strip().endswith("ms")
    tree = page.locator("#state-tree")
    x = tree.locator(".entry.changed[data-key='x']")
    assert x.locator(".leaf").text_content() == "50"
    assert x.locator(".was").text_content() == "5"
    log = tree.locator("details.entry.changed[data-key='log']")
    assert log.locator(".entry.added[data-key='1'] .leaf").text_content() == '"work"'
    assert log.locator(".entry[data-key='0']:not(.added):not(.changed)").count() == 1
    assert page.locator("#step ul.tasks.next li").evaluate_all(
        "ls => ls.map(l => l.dataset.task)"
    ) == ["report"]
    screenshot(page, "step-diff")

    # A deep link opens the same step on a fresh page.
    link = page.url
    page.goto("about:blank")
    page.goto(link)
    page.wait_for_selector("#step[data-checkpoint] #step-title:has-text('Superstep 2')")
    assert page.locator("#timeline tr.selected").get_attribute("data-step") == "2"


def test_an_interrupt_shows_its_value_and_resuming_from_the_form_runs_to_the_end(
    page: Any, served: Any
) -> None:
    thread = _thread(served.url, "agent")
    page.goto(f"{served.url}/viewer/#/thread/{thread}")
    _ready(page)
    question = {"role": "user", "content": "What's the weather in Paris?"}
    page.fill("#run-input", json.dumps({"messages": [question]}))
    page.click("#start-run")
    page.wait_for_selector("#thread-status.interrupted")
    assert page.is_visible("#interrupt")
    assert "run these tools?" in (page.text_content("#interrupt pre") or "")
    assert '"Paris"' in (page.text_content("#interrupt pre") or "")
    page.wait_for_selector("#graph svg g[data-node='human_review'].waiting")
    screenshot(page, "interrupt")

    page.fill("#resume-value", '{"approve": true}')
    page.click("#resume")
    page.wait_for_selector("#thread-status.idle")
    # the path is drawn from the history fetched after the status changes
    page.wait_for_selector("#graph[data-visited*='__end__']")
    assert not page.is_visible("#interrupt")
    visited = set((page.get_attribute("#graph", "data-visited") or "").split(","))
    assert {"human_review", "tools", "agent", "__end__"} <= visited
    state = httpx.get(f"{served.url}/threads/{thread}/state").json()
    assert state["values"]["messages"][-1]["content"].startswith("Here is what I found.")
    assert "14°C" in state["values"]["messages"][-1]["content"]


def test_forking_from_an_older_checkpoint_with_an_edited_state_runs_from_there(
    page: Any, served: Any
) -> None:
    thread = _thread(served.url, "pipeline")
    _run_released(page, served, thread, '{"x": 1}')
    assert httpx.get(f"{served.url}/threads/{thread}/state").json()["values"]["x"] == 20
    _step_row(page, "plan").click()  # the state after plan: x = 2, work next
    page.wait_for_selector("#step[data-checkpoint] #step-title:has-text('Superstep 1')")
    page.select_option("#fork-as-node", "plan")
    page.fill("#fork-values", '{"x": 7}')
    served.release()
    page.click("#fork-run")
    # The fork's run ends at step 4 (the edit is step 2), and the page shows its head.
    page.wait_for_selector("#timeline tr.step-row[data-step='4']")
    page.wait_for_selector("#graph[data-visited*='report']")
    state = httpx.get(f"{served.url}/threads/{thread}/state").json()
    assert state["values"]["x"] == 70
    assert state["values"]["log"][-1] == "report x=70"
    # The fork's steps are the newest in the timeline; the first run's stay in the history.
    ran = page.locator("#timeline tr.step-row td:nth-child(3)").evaluate_all(
        "ts => ts.map(t => t.textContent)"
    )
    assert ran[:3] == ["report", "work", "state edit"]
    assert ran.count("work") == 2
    page.locator("#timeline tr.step-row").nth(2).click()
    page.wait_for_selector("#step[data-checkpoint] #step-title:has-text('Superstep 2')")
    assert page.text_content("#step") and "none: state edit" in page.text_content("#step")
    x = page.locator("#state-tree .entry.changed[data-key='x']")
    assert (x.locator(".leaf").text_content(), x.locator(".was").text_content()) == ("7", "2")
    screenshot(page, "fork")


def test_a_failing_node_shows_its_error_in_the_live_log_the_timeline_and_its_step(
    page: Any, served: Any
) -> None:
    thread = _thread(served.url, "pipeline")
    page.goto(f"{served.url}/viewer/#/thread/{thread}")
    _ready(page)
    page.fill("#run-input", '{"x": -5}')
    page.click("#start-run")
    page.wait_for_selector("#thread-status.error")
    assert "work cannot take a negative x (-4)" in (page.text_content("#problem") or "")
    failed = page.locator("#live li.failed")
    assert failed.text_content() == "work"
    row = page.locator("#timeline tr.step-row").first
    assert row.locator(".flag.failed").count() == 1
    row.click()
    page.wait_for_selector("#step ul.tasks.next li[data-task='work'] pre.error")
    assert "negative x (-4)" in (page.text_content("#step ul.tasks.next pre.error") or "")
    timing = page.locator("#step ul.tasks.next li[data-task='work'] .timing")
    assert "failed" in (timing.text_content() or "")
    assert float(timing.get_attribute("data-ms") or "-1") >= 0


def test_a_node_retried_twice_lists_its_attempts_with_the_errors_that_ended_them(
    page: Any, served: Any
) -> None:
    thread = _thread(served.url, "retried")
    waited = httpx.post(
        f"{served.url}/threads/{thread}/runs/wait",
        json={"assistant_id": "retried", "input": {"x": 1}},
        timeout=30,
    )
    assert waited.json() == {"x": 1, "got": "fetched on attempt 3"}
    page.goto(f"{served.url}/viewer/#/thread/{thread}")
    _ready(page)
    _step_row(page, "fetch").click()
    task = page.locator("#step ul.tasks.ran li[data-task='fetch']")
    task.locator("ol.attempts").wait_for()
    tried = task.locator("ol.attempts li")
    assert tried.evaluate_all("ls => ls.map(l => l.querySelector('.attempt-of').textContent)") == [
        "attempt 1 / 3",
        "attempt 2 / 3",
        "attempt 3 / 3",
    ]
    assert tried.evaluate_all("ls => ls.map(l => l.className)") == [
        "attempt failed",
        "attempt failed",
        "attempt ok",
    ]
    assert [tried.nth(i).locator("pre.error").text_content() for i in (0, 1)] == [
        "ConnectionError: upstream refused attempt 1",
        "ConnectionError: upstream refused attempt 2",
    ]
    assert tried.nth(2).locator("pre.error").count() == 0
    assert "3 attempts" in (task.locator(".timing").text_content() or "")
    screenshot(page, "retries")


def _attempts(item: Any) -> list[tuple[str, str, str]]:
    """Each attempt listed under a task: (its "attempt n / most", its class, its error)."""
    item.locator("ol.attempts").wait_for()
    listed: list[list[str]] = item.locator("ol.attempts li").evaluate_all(
        "ls => ls.map(l => [l.querySelector('.attempt-of').textContent, l.className,"
        " l.querySelector('pre.error')?.textContent ?? ''])"
    )
    return [(a, b, c) for a, b, c in listed]


def test_the_task_calls_of_an_entrypoint_are_listed_under_its_step_with_their_attempts(
    page: Any, served: Any
) -> None:
    thread = _thread(served.url, "called")
    waited = httpx.post(
        f"{served.url}/threads/{thread}/runs/wait",
        json={"assistant_id": "called", "input": 3},
        timeout=30,
    )
    assert waited.json() == 70
    page.goto(f"{served.url}/viewer/#/thread/{thread}")
    _ready(page)
    _step_row(page, "called").click()
    page.wait_for_selector("#step ul.tasks.ran li[data-task='called']")
    calls = page.locator("#step ul.tasks.ran li.call[data-task='lookup']")
    calls.nth(1).wait_for()
    assert calls.count() == 2
    for i, x in enumerate((3, 4)):
        call = calls.nth(i)
        assert "@task call" in (call.text_content() or "")
        assert "2 attempts" in (call.locator(".timing").text_content() or "")
        assert _attempts(call) == [
            (
                "attempt 1 / 2",
                "attempt failed",
                f"ConnectionError: lookup of {x} refused on attempt 1",
            ),
            ("attempt 2 / 2", "attempt ok", ""),
        ]
    screenshot(page, "task-calls")


def test_an_attempt_stopped_at_its_timeout_is_listed_with_the_timeout(
    page: Any, served: Any
) -> None:
    thread = _thread(served.url, "timed")
    # a run streaming `events` runs the graph asynchronously, where node timeouts apply
    with httpx.stream(
        "POST",
        f"{served.url}/threads/{thread}/runs/stream",
        json={"assistant_id": "timed", "input": {"x": 1}, "stream_mode": ["values", "events"]},
        timeout=30,
    ) as streamed:
        for _ in streamed.iter_lines():
            pass
    state = httpx.get(f"{served.url}/threads/{thread}/state").json()
    assert state["values"] == {"x": 1, "got": "answered on attempt 2"}
    page.goto(f"{served.url}/viewer/#/thread/{thread}")
    _ready(page)
    _step_row(page, "slow").click()
    task = page.locator("#step ul.tasks.ran li[data-task='slow']")
    (first, second) = _attempts(task)
    assert first[:2] == ("attempt 1 / 2", "attempt failed")
    assert first[2].startswith("NodeTimeoutError: Node 'slow' ")
    assert second == ("attempt 2 / 2", "attempt ok", "")
    took = task.locator("ol.attempts li").first.text_content() or ""
    assert float(took.split("failed after ")[1].split(" ms")[0]) >= 150


def test_cancelling_a_running_run_from_the_viewer(page: Any, served: Any) -> None:
    thread = _thread(served.url, "pipeline")
    page.goto(f"{served.url}/viewer/#/thread/{thread}")
    _ready(page)
    page.fill("#run-input", '{"x": 1}')
    page.click("#start-run")
    page.wait_for_selector("#graph svg g[data-node='work'].active")
    with page.expect_response("**/cancel") as cancelled:
        page.click("#cancel-run")
    assert cancelled.value.ok
    served.release()  # the held node returns; the run stops at the step's end
    page.wait_for_selector("#runs li .status.interrupted")
    page.wait_for_selector("#start-run:not([disabled])")
    assert page.is_hidden("#cancel-run")
    runs = httpx.get(f"{served.url}/threads/{thread}/runs").json()
    assert [r["status"] for r in runs] == ["interrupted"]


def test_a_run_started_elsewhere_is_followed_live_when_its_thread_is_opened(
    page: Any, served: Any
) -> None:
    thread = _thread(served.url, "pipeline")
    httpx.post(
        f"{served.url}/threads/{thread}/runs",
        json={"assistant_id": "pipeline", "input": {"x": 2}},
    ).raise_for_status()
    for _ in range(600):
        if served.held():
            break
        threading.Event().wait(0.05)
    page.goto(f"{served.url}/viewer/#/thread/{thread}")
    page.wait_for_selector("#graph svg g[data-node='work'].active")
    assert page.text_content("#thread-status") == "busy"
    served.release()
    page.wait_for_selector("#thread-status.idle")
    page.wait_for_selector("#graph[data-visited*='__end__']")
    assert not page.locator("#graph svg g.node.active").count()
    visited = set((page.get_attribute("#graph", "data-visited") or "").split(","))
    assert {"plan", "work", "report", "__end__"} <= visited


def test_with_an_api_key_the_page_loads_asks_for_the_key_and_then_reads_the_api(
    page: Any, tmp_path: Path
) -> None:
    from server.conftest import LiveServer
    from superstep_server.app import create_app

    app = create_app(database=str(tmp_path / "keyed.db"), graphs={}, api_key="s3cret")
    with LiveServer(app) as keyed:
        assert httpx.get(f"{keyed.url}/viewer/").status_code == 200
        assert httpx.get(f"{keyed.url}/info").status_code == 401
        asked: list[str] = []
        page.on("dialog", lambda d: (asked.append(d.message), d.accept("s3cret")))
        page.goto(f"{keyed.url}/viewer/")
        _ready(page)
        assert asked and "API key" in asked[0]
        page.reload()
        _ready(page)
        assert page.is_visible("#threads")
        assert page.locator("#threads td").text_content() == "no threads match"


def test_expanding_subgraphs_draws_a_subgraphs_nodes_inside_its_node_and_its_run_path(
    page: Any, served: Any
) -> None:
    thread = _thread(served.url, "nested")
    page.goto(f"{served.url}/viewer/#/thread/{thread}")
    _ready(page)
    page.wait_for_selector("#graph svg g[data-node='review']")
    assert not page.locator("#graph svg g[data-node='review:check']").count()
    page.check("#xray")
    page.wait_for_selector("#graph svg g.cluster[data-node='review']")
    inner = page.locator("#graph svg g.node[data-node^='review:']")
    assert sorted(inner.evaluate_all("ns => ns.map(n => n.dataset.node)")) == [
        "review:approve",
        "review:check",
    ]
    edges = page.locator("#graph svg path.edge").evaluate_all(
        "ps => ps.map(p => p.dataset.source + '>' + p.dataset.target)"
    )
    assert {"prepare>review:check", "review:check>review:approve", "review:approve>done"} <= set(
        edges
    )
    page.fill("#run-input", "{}")
    page.click("#start-run")
    page.wait_for_selector("#thread-status.idle")
    page.wait_for_selector("#graph[data-visited*='__end__']")
    visited = set((page.get_attribute("#graph", "data-visited") or "").split(","))
    assert {"prepare", "review", "done"} <= visited
    screenshot(page, "subgraphs")


def test_two_interrupts_pending_at_once_are_answered_one_then_the_other(
    page: Any, served: Any
) -> None:
    thread = _thread(served.url, "parallel")
    page.goto(f"{served.url}/viewer/#/thread/{thread}")
    _ready(page)
    page.fill("#run-input", "{}")
    page.click("#start-run")
    page.wait_for_selector("#thread-status.interrupted")
    asks = page.locator("#interrupt .interrupt-value")
    assert sorted(asks.evaluate_all("as => as.map(a => a.dataset.task)")) == [
        "ask_colour",
        "ask_size",
    ]
    screenshot(page, "interrupts")
    # answer one: the other stays pending
    page.fill("#interrupt .interrupt-value[data-task='ask_size'] textarea", '"large"')
    page.click("#resume")
    page.wait_for_selector("#thread-status.interrupted")
    page.wait_for_function("document.querySelectorAll('#interrupt .interrupt-value').length === 1")
    assert asks.first.get_attribute("data-task") == "ask_colour"
    page.fill("#resume-value", '"teal"')
    page.click("#resume")
    page.wait_for_selector("#thread-status.idle")
    state = httpx.get(f"{served.url}/threads/{thread}/state").json()
    assert sorted(state["values"]["answers"][:2]) == ["colour=teal", "size=large"]
    assert state["values"]["answers"][2] == "2 answered"
