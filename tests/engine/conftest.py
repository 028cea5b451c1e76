from __future__ import annotations

from collections.abc import Iterator, Mapping

import pytest

from superstep_core.host import Handler

from .support import Driver, DriverFactory


@pytest.fixture(params=["sync", "async"])
def make_driver(request: pytest.FixtureRequest) -> Iterator[DriverFactory]:
    """A factory of drivers over `Host` or `AsyncHost` (each test runs on both)."""
    made: list[Driver] = []

    def make(handlers: Mapping[str, Handler] | None = None) -> Driver:
        driver = Driver(request.param, handlers)
        made.append(driver)
        return driver

    yield make
    for driver in made:
        driver.close()
