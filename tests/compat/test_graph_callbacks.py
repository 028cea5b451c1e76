"""Graph lifecycle callbacks (`superstep_compat.callbacks`): `programs/gc*.py` run under
real LangGraph and under the façade must give equal results (which events, their status,
namespace, checkpoint, run, and how handler errors go); the managers' construction rules
are specified below without the reference."""

from __future__ import annotations

import uuid

import pytest
from langchain_core.callbacks import BaseCallbackHandler, CallbackManager

from compat.langgraph_venv import differential_program_tests
from superstep_compat.callbacks import (
    GraphCallbackHandler,
    _AsyncGraphCallbackManager,
    _GraphCallbackManager,
    get_async_graph_callback_manager_for_config,
    get_sync_graph_callback_manager_for_config,
)

PROGRAMS, results, test_program_runs_under_langgraph, test_program_matches_langgraph = (
    differential_program_tests("gc[0-9]*.py")
)


class Graphy(GraphCallbackHandler):
    pass


class Plain(BaseCallbackHandler):
    pass


def test_a_manager_keeps_only_graph_handlers() -> None:
    graphy, plain = Graphy(), Plain()
    run_id = uuid.uuid4()
    manager = get_sync_graph_callback_manager_for_config(
        {"callbacks": [plain, graphy]}, run_id=run_id
    )
    assert manager.handlers == [graphy] and manager.run_id == run_id
    base = CallbackManager(handlers=[plain, graphy], inheritable_handlers=[graphy])
    amanager = get_async_graph_callback_manager_for_config({"callbacks": base})
    assert amanager.handlers == [graphy] and amanager.inheritable_handlers == [graphy]
    assert amanager.is_async and isinstance(amanager, _AsyncGraphCallbackManager)


def test_configure_takes_one_handler_none_or_a_manager_of_the_other_kind() -> None:
    graphy = Graphy()
    assert _GraphCallbackManager.configure(graphy).handlers == [graphy]
    assert _GraphCallbackManager.configure(None).handlers == []
    other = _AsyncGraphCallbackManager([graphy])
    assert type(_GraphCallbackManager.configure(other)) is _GraphCallbackManager
    with pytest.raises(TypeError, match="callbacks must be"):
        _GraphCallbackManager.configure("handler")


def test_copy_keeps_or_replaces_the_run_id() -> None:
    run_id = uuid.uuid4()
    manager = _GraphCallbackManager([Graphy()], run_id=run_id)
    assert manager.copy().run_id == run_id
    assert manager.copy(run_id=None).run_id is None
    with pytest.raises(TypeError, match="UUID"):
        manager.copy(run_id="not a uuid")


def test_a_plain_handler_may_be_added_to_a_manager() -> None:
    manager = _GraphCallbackManager()
    plain = Plain()
    manager.add_handler(plain, inherit=True)
    assert plain in manager.handlers
