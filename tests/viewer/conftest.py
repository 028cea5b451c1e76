"""The viewer's browser tests: Debian's Chromium (``/usr/bin/chromium``, installed by the
Makefile's ``browser`` step or ``apt-get install chromium``) driven by Playwright for Python,
on `superstep serve` serving the example agent and a held pipeline.

Playwright's own browser download is not used: it launches the system Chromium through
``executable_path``. Without a Chromium or without Playwright, the tests are skipped with
the reason printed at the end of the run."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.conftest import _free_port

ROOT = Path(__file__).resolve().parents[2]
# The README's screenshots are rewritten only on request (`make screenshots`): every run
# changes their ids and times, and a test run must not leave the checkout modified.
SCREENSHOTS = (
    ROOT / "docs" / "screenshots"
    if os.environ.get("SUPERSTEP_WRITE_SCREENSHOTS") == "1"
    else Path(tempfile.gettempdir()) / "superstep-viewer-screenshots"
)
SUPERSTEP = Path(sys.executable).parent / "superstep"


def chromium_path() -> str | None:
    """The system Chromium: ``SUPERSTEP_CHROMIUM`` if set, else ``chromium`` on the path."""
    given = os.environ.get("SUPERSTEP_CHROMIUM")
    if given:
        return given
    return shutil.which("chromium") or shutil.which("chromium-browser")


# Module scope, not session: Playwright's sync API keeps an asyncio loop running on this
# thread while it is open, and every later test file on the same xdist worker that calls
# asyncio.run would fail with "cannot be called from a running event loop".
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install -e '.[dev]')")
    executable = chromium_path()
    if executable is None:
        pytest.skip(
            "no Chromium to drive: `make browser` (or apt-get install chromium) installs it"
        )
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-dev-shm-usage"]
        )
        try:
            yield browser
        finally:
            browser.close()


def wait_until_up(process: subprocess.Popen[bytes], url: str) -> None:
    """Until ``url``/ok answers (raises with the process's output if it exits first)."""
    for _ in range(600):
        if process.poll() is not None:
            out = process.stdout.read().decode() if process.stdout else ""
            raise AssertionError(f"{process.args} exited {process.returncode}: {out}")
        try:
            if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        threading.Event().wait(0.05)
    raise AssertionError(f"{url} did not answer in 30 s")


class Served:
    """`superstep serve` in a process of its own: the example agent (examples/agent.py), the
        held pipeline (pipeline.py), the long loop (long_thread.py), a graph with a subgraph and
        one with two interrupts at once (nested.py), a node retried twice, an entrypoint's retried
    `@task` calls and a node timed out once (retried.py), a plan whose
    payment step is declined (plan.json, plan_steps.py), on SQLite."""

    def __init__(self, url: str, hold: Path, db: Path) -> None:
        self.url = url
        self.hold = hold
        self.db = db

    def release(self) -> None:
        (self.hold / "released").touch()

    def held(self) -> bool:
        return (self.hold / "entered").exists()


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    here = tmp_path_factory.mktemp("viewer")
    config = here / "langgraph.json"
    config.write_text(
        json.dumps(
            {
                "dependencies": ["."],
                "graphs": {
                    "agent": str(ROOT / "examples" / "agent.py") + ":graph",
                    "pipeline": str(Path(__file__).parent / "pipeline.py") + ":graph",
                    "long": str(Path(__file__).parent / "long_thread.py") + ":graph",
                    "nested": str(Path(__file__).parent / "nested.py") + ":graph",
                    "parallel": str(Path(__file__).parent / "nested.py") + ":parallel",
                    "retried": str(Path(__file__).parent / "retried.py") + ":graph",
                    "called": str(Path(__file__).parent / "retried.py") + ":called",
                    "timed": str(Path(__file__).parent / "retried.py") + ":timed",
                    "plan": {
                        "path": str(Path(__file__).parent / "plan.json"),
                        "handlers": str(Path(__file__).parent / "plan_steps.py") + ":handlers",
                    },
                },
            }
        )
    )
    hold = here / "hold"
    hold.mkdir()
    port = _free_port()
    command = [str(SUPERSTEP), "serve", "--config", str(config), "--port", str(port)]
    command += ["--db", str(here / "server.db"), "--workers", "2"]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "VIEWER_HOLD_DIR": str(hold)},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(process, url)
        yield Served(url, hold, here / "server.db")
    finally:
        (hold / "released").touch()
        process.send_signal(signal.SIGTERM)
        process.wait(30)


@pytest.fixture
def page(browser: Any, served: Served) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(20_000)
    try:
        yield page
    finally:
        context.close()
    assert not errors, f"the viewer raised in the browser: {errors}"


def screenshot(page: Any, name: str) -> None:
    """NAME.png of the whole page, in docs/screenshots/ (the README shows them) when
    SUPERSTEP_WRITE_SCREENSHOTS=1, else in a temporary folder."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
