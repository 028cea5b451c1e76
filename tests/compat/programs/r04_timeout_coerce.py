"""`TimeoutPolicy.coerce` (and `langgraph._internal._timeout.coerce_timeout_policy`): None
stays None, a number or timedelta is a run timeout in float seconds, a policy is normalised
(ints and timedeltas to float seconds; neither timeout set: None), a policy already
normalised is returned as the same object, and bad values raise LangGraph's ValueErrors."""

from datetime import timedelta

from langgraph._internal._timeout import coerce_timeout_policy
from langgraph.types import Send, TimeoutPolicy


def shown(value: object) -> object:
    if isinstance(value, TimeoutPolicy):
        return {
            "run": [type(value.run_timeout).__name__, value.run_timeout],
            "idle": [type(value.idle_timeout).__name__, value.idle_timeout],
            "refresh_on": value.refresh_on,
        }
    return value


def attempt(make: object) -> object:
    try:
        return shown(make())  # type: ignore[operator]
    except ValueError as e:
        return f"ValueError: {e}"


def run() -> dict:
    done = TimeoutPolicy.coerce(TimeoutPolicy(run_timeout=1.0, idle_timeout=2.0))
    loose = TimeoutPolicy(run_timeout=1, idle_timeout=timedelta(seconds=2))
    return {
        "same_instance": TimeoutPolicy.coerce(done) is done,
        "same_instance_module_fn": coerce_timeout_policy(done) is done,
        "loose_is_new": TimeoutPolicy.coerce(loose) is not loose,
        "loose": attempt(lambda: TimeoutPolicy.coerce(loose)),
        "none": attempt(lambda: coerce_timeout_policy(None)),
        "int": attempt(lambda: coerce_timeout_policy(3)),
        "timedelta": attempt(lambda: coerce_timeout_policy(timedelta(milliseconds=250))),
        "idle_only": attempt(lambda: coerce_timeout_policy(TimeoutPolicy(idle_timeout=1.5))),
        "empty": attempt(lambda: coerce_timeout_policy(TimeoutPolicy())),
        "heartbeat": attempt(
            lambda: TimeoutPolicy.coerce(TimeoutPolicy(idle_timeout=1, refresh_on="heartbeat"))
        ),
        "zero": attempt(lambda: coerce_timeout_policy(0)),
        "negative_idle": attempt(lambda: TimeoutPolicy.coerce(TimeoutPolicy(idle_timeout=-1.0))),
        "bad_refresh": attempt(
            lambda: TimeoutPolicy.coerce(TimeoutPolicy(idle_timeout=1, refresh_on="x"))  # type: ignore[arg-type]
        ),
        "send": attempt(lambda: Send("n", None, timeout=timedelta(milliseconds=250)).timeout),
    }
