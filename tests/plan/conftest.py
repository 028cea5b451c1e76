"""Fixtures of the plan tests: the PostgreSQL URL (skipped, with the reason shown, when
``SUPERSTEP_POSTGRES_URL`` is unset)."""

from __future__ import annotations

import os

import pytest

POSTGRES_URL_VAR = "SUPERSTEP_POSTGRES_URL"


@pytest.fixture
def postgres_url() -> str:
    url = os.environ.get(POSTGRES_URL_VAR)
    if not url:
        pytest.skip(
            f"{POSTGRES_URL_VAR} is unset: PostgreSQL plan tests skipped (set it to e.g. "
            f"postgresql://postgres@127.0.0.1:5432/test)"
        )
    return url
