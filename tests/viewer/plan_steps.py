"""The step handlers of plan.json, a plan the viewer's browser tests serve: ``charge`` is
declined, so ``ship`` can never run and ``notify`` (which waits for charge to fail) does."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from superstep_core import EffectContext


def fine(request: Mapping[str, Any], ctx: EffectContext) -> Any:
    return {"done": request["step"]}


def declined(request: Mapping[str, Any], ctx: EffectContext) -> Any:
    raise RuntimeError("the card was declined")


handlers = {"fine": fine, "declined": declined}
