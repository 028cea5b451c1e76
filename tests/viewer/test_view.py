"""`superstep view --db PATH`: the viewer on the file `superstep serve` wrote, read-only and
without its langgraph.json: threads, supersteps with their tasks (named from the file alone)
and diffs, interrupts shown, and no control that would run anything."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from server.conftest import _free_port
from viewer.conftest import SUPERSTEP, screenshot, wait_until_up


@contextmanager
def view(db: Path) -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen(
        [str(SUPERSTEP), "view", "--db", str(db), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(process, url)
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)


def _finished_pipeline(served: Any, x: int) -> str:
    thread = httpx.post(f"{served.url}/threads", json={"metadata": {"graph_id": "pipeline"}})
    thread_id = str(thread.json()["thread_id"])
    served.release()
    run = httpx.post(
        f"{served.url}/threads/{thread_id}/runs/wait",
        json={"assistant_id": "pipeline", "input": {"x": x}},
        timeout=60,
    )
    assert run.json()["x"] == (x + 1) * 10
    return thread_id


def test_superstep_view_shows_a_served_file_read_only_without_its_config(
    page: Any, served: Any
) -> None:
    thread = _finished_pipeline(served, 2)
    with view(served.db) as url:
        assert httpx.get(f"{url}/info").json()["read_only"] is True
        assert httpx.post(f"{url}/threads/{thread}/runs", json={}).status_code in (404, 405)
        page.goto(f"{url}/viewer/#/threads?metadata=%7B%22graph_id%22%3A%22pipeline%22%7D")
        page.wait_for_selector("body[data-ready='1']")
        assert page.is_visible("#read-only")
        assert not page.locator("#new-thread").count()
        page.click(f"#threads a[href='#/thread/{thread}']")
        page.wait_for_selector("#timeline tr.step-row")
        ran = page.locator("#timeline tr.step-row td:nth-child(3)").evaluate_all(
            "ts => ts.map(t => t.textContent)"
        )
        assert ran == ["report", "work", "plan", "__start__", "input"]
        page.wait_for_selector("#thread-status.idle")
        page.locator("#timeline tr.step-row").nth(1).click()
        page.wait_for_selector("#step[data-checkpoint] #step-title:has-text('Superstep 2')")
        x = page.locator("#state-tree .entry.changed[data-key='x']")
        assert (x.locator(".leaf").text_content(), x.locator(".was").text_content()) == ("30", "3")
        assert page.locator("#step ul.tasks.ran li").evaluate_all(
            "ls => ls.map(l => l.dataset.task)"
        ) == ["work"]
        assert not page.locator("#start-run, #fork, #resume").count()
        screenshot(page, "view")


def test_superstep_view_names_a_file_that_is_not_a_checkpoint_file(tmp_path: Path) -> None:
    other = tmp_path / "notes.db"
    other.write_bytes(b"")
    done = subprocess.run(
        [str(SUPERSTEP), "view", "--db", str(other)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "holds no checkpoints table" in done.stderr + done.stdout
