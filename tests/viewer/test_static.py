"""The viewer's files as `superstep serve` serves them (no browser needed): the page, its
modules, the vendored layout library with its licence."""

from __future__ import annotations

from typing import Any

import httpx

from superstep_server.viewer import STATIC


def test_superstep_serve_serves_the_viewer_page_and_its_assets(served: Any) -> None:
    moved = httpx.get(f"{served.url}/viewer")
    assert moved.status_code == 308
    assert moved.headers["location"].endswith("/viewer/")
    page = httpx.get(f"{served.url}/viewer/")
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
    assert 'src="js/app.js"' in page.text
    for asset in ("js/app.js", "js/graph.js", "style.css", "vendor/dagre.min.js"):
        got = httpx.get(f"{served.url}/viewer/{asset}")
        assert got.status_code == 200, asset
        assert got.content == (STATIC / asset).read_bytes()
    assert (
        "Permission is hereby granted"
        in httpx.get(f"{served.url}/viewer/vendor/dagre.LICENSE").text
    )
    assert httpx.get(f"{served.url}/viewer/nothing-here.js").status_code == 404
