"""Running the app under uvicorn for ``superstep serve``, draining from the signal on.

uvicorn answers SIGTERM/SIGINT by closing its listeners, then waiting (up to its graceful
timeout) for open connections, such as a client following a run's stream, and only then
runs the app's lifespan shutdown, where the workers drain. Meanwhile the workers would go
on claiming queued runs and running further steps. `DrainingServer` starts the drain when
the signal arrives: the workers claim nothing more and the runs in progress stop at their
next step boundary and go back to the queue; the lifespan shutdown then waits for them."""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import FrameType

import uvicorn

__all__ = ["DrainingServer"]


class DrainingServer(uvicorn.Server):
    """A `uvicorn.Server` that calls ``on_signal`` (once, in a thread of its own) when told
    to exit by a signal, before its own shutdown begins."""

    def __init__(self, config: uvicorn.Config, on_signal: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_signal = on_signal
        self._signalled = False

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        if not self._signalled:
            self._signalled = True
            # this runs in a signal handler: the drain takes locks, so not here
            threading.Thread(target=self._on_signal, name="superstep-drain", daemon=True).start()
