"""The command line knows LangGraph-style graphs only through the ``superstep.plugins`` entry
point: the façade's `superstep_compat.cli_plugin` registers its target driver there, and the
engine package holds no driver of its own for them."""

from __future__ import annotations

from importlib.metadata import entry_points

from superstep_core import cli_drivers
from superstep_core.cli import load_plugins


def test_the_facade_registers_its_cli_plugin_through_the_entry_point() -> None:
    found = {e.name: e.value for e in entry_points(group="superstep.plugins")}
    assert found.get("langgraph") == "superstep_compat.cli_plugin:install"


def test_loading_the_plugins_registers_the_langgraph_driver() -> None:
    load_plugins()
    names = [d.name for d in cli_drivers.drivers()]
    assert "langgraph" in names
    driver = next(d for d in cli_drivers.drivers() if d.name == "langgraph")
    assert type(driver).__module__ == "superstep_compat.cli_plugin"
