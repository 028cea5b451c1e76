"""The run viewer on a large thread, in Debian's Chromium (Playwright): a thread of 1,000
supersteps, each adding one message (a 1,000-message state at the end), served by `superstep
serve` (its own process, SQLite). Prints milliseconds for:

- seeding the thread (one ``POST /threads`` with 1,000 ``supersteps``, not the viewer);
- first paint of the thread page (navigation start to the first contentful paint) and the
  page ready (graph drawn, newest page of the timeline listed, the latest run's path);
- opening the newest superstep (click to its state tree, diffed, drawn) and the one in the
  middle (step 500 of 1,000, by its deep link);
- the next page of older supersteps.

    .venv/bin/python bench/viewer_large_thread.py [--steps 1000] [--repeat 3]

Not a test: wall-clock numbers on a shared machine vary (BENCH.md has the ones measured).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

GRAPH = """
from langgraph.graph import START, MessagesState, StateGraph

def respond(state: MessagesState) -> dict:
    return {"messages": [{"role": "ai", "content": f"reply {len(state['messages'])}"}]}

builder = StateGraph(MessagesState)
builder.add_node("respond", respond)
builder.add_edge(START, "respond")
graph = builder.compile()
"""


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _seed(url: str, steps: int) -> str:
    supersteps = [
        {
            "updates": [
                {
                    "as_node": "respond",
                    "values": {
                        "messages": [
                            {
                                "role": "human" if i % 2 == 0 else "ai",
                                "content": f"message {i}: " + "lorem ipsum dolor sit amet " * 3,
                                "id": f"m{i}",
                            }
                        ]
                    },
                }
            ]
        }
        for i in range(steps)
    ]
    body = {"metadata": {"graph_id": "chat"}, "supersteps": supersteps}
    response = httpx.post(f"{url}/threads", json=body, timeout=3600)
    response.raise_for_status()
    return str(response.json()["thread_id"])


def _measure(page: Any, url: str, thread: str, middle_step: int) -> dict[str, float]:
    page.goto("about:blank")
    page.goto(f"{url}/viewer/#/thread/{thread}")
    page.wait_for_selector("body[data-ready='1'] #timeline tr.step-row")
    ready = page.evaluate("performance.now()")
    fcp = page.evaluate(
        "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1"
    )
    start = page.evaluate("performance.now()")
    page.locator("#timeline tr.step-row").first.click()
    page.wait_for_selector("#state-tree .entry")
    newest = page.evaluate("performance.now()") - start
    middle_id = page.evaluate(
        f"""async () => (await (await fetch('/threads/{thread}/history', {{method: 'POST',
        headers: {{'content-type': 'application/json'}},
        body: JSON.stringify({{limit: 1, metadata: {{step: {middle_step}}}}})}})).json())[0]
        .checkpoint.checkpoint_id"""
    )
    start = page.evaluate("performance.now()")
    page.evaluate(f"window.location.hash = '#/thread/{thread}/checkpoint/{middle_id}'")
    page.wait_for_selector(f"#step[data-checkpoint='{middle_id}'] #state-tree .entry")
    middle = page.evaluate("performance.now()") - start
    rows = page.locator("#timeline tr.step-row").count()
    start = page.evaluate("performance.now()")
    page.click("#older-steps")
    page.wait_for_function(f"document.querySelectorAll('#timeline tr.step-row').length > {rows}")
    older = page.evaluate("performance.now()") - start
    return {
        "first contentful paint": fcp,
        "thread page ready": ready,
        "open the newest step": newest,
        f"open step {middle_step} (deep link)": middle,
        "next page of supersteps": older,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("SUPERSTEP_CHROMIUM") or shutil.which("chromium")
    if chromium is None:
        sys.exit("no chromium on the path: `make browser` installs it")
    here = Path(tempfile.mkdtemp(prefix="viewer-bench-"))
    (here / "chat.py").write_text(GRAPH)
    (here / "langgraph.json").write_text(
        json.dumps({"dependencies": ["."], "graphs": {"chat": "./chat.py:graph"}})
    )
    port = _port()
    url = f"http://127.0.0.1:{port}"
    superstep = Path(sys.executable).parent / "superstep"
    command = [str(superstep), "serve", "--config", str(here / "langgraph.json")]
    command += ["--port", str(port), "--db", str(here / "server.db"), "--workers", "1"]
    server = subprocess.Popen(command)
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        started = time.perf_counter()
        thread = _seed(url, args.steps)
        seeded = (time.perf_counter() - started) * 1000
        size = (here / "server.db").stat().st_size / 1e6
        print(f"seeded {args.steps} supersteps in {seeded:.0f} ms (database {size:.0f} MB)")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            runs = [_measure(page, url, thread, args.steps // 2) for _ in range(args.repeat)]
            browser.close()
        for name in runs[0]:
            samples = [r[name] for r in runs]
            print(
                f"{name:<28} median {statistics.median(samples):7.0f} ms   "
                f"(runs: {', '.join(f'{s:.0f}' for s in samples)})"
            )
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(30)
        shutil.rmtree(here, ignore_errors=True)


if __name__ == "__main__":
    main()
