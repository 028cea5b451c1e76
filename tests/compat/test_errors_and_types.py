"""errors, warnings, constants and types: names, hierarchy, reprs and messages."""

import warnings

import pytest

from superstep_compat import constants, errors
from superstep_compat.types import (
    CachePolicy,
    Command,
    Interrupt,
    Overwrite,
    RetryPolicy,
    Send,
    default_retry_on,
    interrupt,
)
from superstep_compat.warnings import LangGraphDeprecatedSinceV10


def test_graph_recursion_error_is_a_recursion_error() -> None:
    assert issubclass(errors.GraphRecursionError, RecursionError)


def test_interrupt_exceptions_bubble_up() -> None:
    assert issubclass(errors.NodeInterrupt, errors.GraphInterrupt)
    assert issubclass(errors.ParentCommand, errors.GraphBubbleUp)
    assert issubclass(errors.GraphDrained, errors.GraphBubbleUp)


def test_error_message_ends_with_troubleshooting_url() -> None:
    msg = errors.create_error_message(
        message="hello", error_code=errors.ErrorCode.GRAPH_RECURSION_LIMIT
    )
    assert msg == (
        "hello\nFor troubleshooting, visit: "
        "https://docs.langchain.com/oss/python/langgraph/errors/GRAPH_RECURSION_LIMIT"
    )


def test_node_interrupt_warns_and_wraps_an_interrupt() -> None:
    with pytest.warns(LangGraphDeprecatedSinceV10, match="NodeInterrupt is deprecated"):
        exc = errors.NodeInterrupt("v")
    assert exc.args == ([Interrupt(value="v", id="placeholder-id")],)


def test_node_timeout_error_message() -> None:
    exc = errors.NodeTimeoutError("n", 1.5, kind="run", run_timeout=1.0)
    assert str(exc) == "Node 'n' exceeded its run timeout of 1.000s (elapsed: 1.500s)."


def test_constants_values() -> None:
    assert (constants.START, constants.END) == ("__start__", "__end__")
    assert constants.TAG_NOSTREAM == "nostream"
    assert constants.CONF == "configurable"


def test_send_from_constants_warns() -> None:
    with pytest.warns(LangGraphDeprecatedSinceV10, match="Importing Send from"):
        assert constants.Send is Send  # type: ignore[attr-defined]


def test_private_constant_from_constants_warns() -> None:
    with pytest.warns(LangGraphDeprecatedSinceV10):
        assert constants.INTERRUPT == "__interrupt__"  # type: ignore[attr-defined]


def test_send_repr() -> None:
    assert repr(Send("n", {"a": 1})) == "Send(node='n', arg={'a': 1})"


def test_command_repr_omits_defaults() -> None:
    assert repr(Command()) == "Command()"
    assert repr(Command(update={"a": 1}, goto="x")) == "Command(update={'a': 1}, goto='x')"
    assert Command.PARENT == "__parent__"


def test_command_update_list_of_pairs_is_kept() -> None:
    assert Command(update=[("a", 1), ("a", 2)])._update_as_tuples() == [("a", 1), ("a", 2)]


def test_command_update_scalar_goes_to_root() -> None:
    assert Command(update=5)._update_as_tuples() == [("__root__", 5)]


def test_interrupt_repr_and_equality() -> None:
    assert repr(Interrupt("v", "abc")) == "Interrupt(value='v', id='abc', response_schema=None)"
    assert Interrupt("v", "a") == Interrupt("v", "a")


def test_interrupt_outside_a_run_raises_runtime_error() -> None:
    with pytest.raises(RuntimeError, match="Called get_config outside of a runnable context"):
        interrupt("x")


def test_retry_policy_defaults() -> None:
    policy = RetryPolicy()
    assert policy[:5] == (0.5, 2.0, 128.0, 3, True)
    assert policy.retry_on is default_retry_on


@pytest.mark.parametrize(
    ("exc", "retried"),
    [
        (ConnectionError(), True),
        (ValueError(), False),
        (KeyError(), False),
        (TimeoutError(), False),
        (RuntimeError(), False),
        (Exception(), True),
        (AttributeError(), True),
    ],
)
def test_default_retry_on(exc: Exception, retried: bool) -> None:
    assert default_retry_on(exc) is retried


def test_cache_policy_defaults() -> None:
    assert CachePolicy().ttl is None


def test_overwrite_repr() -> None:
    assert repr(Overwrite([1])) == "Overwrite(value=[1], type='__overwrite__')"


def test_no_warning_on_plain_imports() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from superstep_compat.graph import END, START, StateGraph  # noqa: F401
