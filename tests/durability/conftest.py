"""Fixtures of the durability tests: a small directory of Python files (a few invalid) and
the PostgreSQL URL (skipped with the reason shown when ``SUPERSTEP_POSTGRES_URL`` is unset)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

POSTGRES_URL_VAR = "SUPERSTEP_POSTGRES_URL"


@pytest.fixture(scope="session")
def documents(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """30 small ``.py`` files: 26 valid, 3 with syntax errors, 1 empty."""
    root = tmp_path_factory.mktemp("documents")
    for i in range(30):
        if i in (4, 13, 22):
            text = f"def broken_{i}(:\n    pass\n"
        elif i == 27:
            text = ""
        else:
            text = f"import threading\n\n\ndef work_{i}():\n    return threading.Lock()  # {i}\n"
        (root / f"module_{i:02d}.py").write_text(text)
    return root


@pytest.fixture
def postgres_url() -> str:
    url = os.environ.get(POSTGRES_URL_VAR)
    if not url:
        pytest.skip(
            f"{POSTGRES_URL_VAR} is unset: PostgreSQL durability tests skipped "
            f"(set it to e.g. postgresql://postgres@127.0.0.1:5432/test)"
        )
    return url
