"""InMemoryStore, InMemoryCache (the real `langgraph-checkpoint` ones, re-exported) and the
langgraph import shim."""

import subprocess
import sys
from pathlib import Path

import pytest

from superstep_compat.cache.memory import InMemoryCache
from superstep_compat.store.base import InvalidNamespaceError
from superstep_compat.store.memory import InMemoryStore

SRC = Path(__file__).resolve().parents[2] / "src"


def test_store_put_get() -> None:
    store = InMemoryStore()
    store.put(("users", "1"), "prefs", {"theme": "dark"})
    item = store.get(("users", "1"), "prefs")
    assert item is not None and item.value == {"theme": "dark"}


def test_store_search_by_prefix_and_filter() -> None:
    store = InMemoryStore()
    store.put(("docs", "a"), "1", {"kind": "x"})
    store.put(("docs", "b"), "2", {"kind": "y"})
    assert [i.key for i in store.search(("docs",), filter={"kind": "y"})] == ["2"]


def test_store_delete() -> None:
    store = InMemoryStore()
    store.put(("a",), "k", {"v": 1})
    store.delete(("a",), "k")
    assert store.get(("a",), "k") is None


def test_store_list_namespaces_with_depth() -> None:
    store = InMemoryStore()
    store.put(("a", "b", "c"), "k", {})
    store.put(("a", "d"), "k", {})
    assert store.list_namespaces(prefix=("a",), max_depth=2) == [("a", "b"), ("a", "d")]


def test_store_rejects_empty_namespace() -> None:
    with pytest.raises(InvalidNamespaceError):
        InMemoryStore().put((), "k", {})


def test_cache_clear_namespace() -> None:
    cache = InMemoryCache()
    cache.set({(("a",), "k"): (1, None), (("b",), "k"): (2, None)})
    cache.clear([("a",)])
    assert cache.get([(("a",), "k"), (("b",), "k")]) == {(("b",), "k"): 2}


def run_python(code: str) -> str:
    env = {"PYTHONPATH": str(SRC), "PATH": ""}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return result.stdout.strip()


def test_shim_aliases_modules() -> None:
    out = run_python(
        "from superstep_compat.shim import install; install()\n"
        "import langgraph.graph, superstep_compat.graph\n"
        "from langgraph.types import Send\n"
        "print(langgraph.graph is superstep_compat.graph, Send.__module__)"
    )
    assert out == "True langgraph.types"  # the wire name a saver writes it under


def test_under_the_shim_checkpoint_store_and_cache_are_the_real_modules() -> None:
    out = run_python(
        "from superstep_compat.shim import install; install(real=())\n"
        "import langgraph.checkpoint.base as base, langgraph.store.memory as store\n"
        "import langgraph.cache.memory as cache\n"
        "from langgraph.checkpoint.serde.encrypted import EncryptedSerializer\n"
        "from langgraph.checkpoint.sqlite import SqliteSaver\n"
        "print(*(m.__file__.split('site-packages/')[-1] for m in (base, store, cache)))"
    )
    assert out.split() == [
        "langgraph/checkpoint/base/__init__.py",
        "langgraph/store/memory/__init__.py",
        "langgraph/cache/memory/__init__.py",
    ]


def test_python_m_runs_script(tmp_path: Path) -> None:
    script = tmp_path / "s.py"
    script.write_text("from langgraph.graph import START\nprint(START)\n")
    result = subprocess.run(
        [sys.executable, "-m", "superstep_compat", str(script)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(SRC), "PATH": ""},
        check=True,
    )
    assert result.stdout.strip() == "__start__"


def test_compiled_graph_classes_name_the_facade_module_without_the_shim() -> None:
    """Without the shim a compiled graph's class names the public façade module holding it
    (LangGraph's path under ``superstep_compat``); the shim names LangGraph's, imported
    before or after it is installed; uninstalling it names the façade's again."""
    show = (
        "def show():\n"
        "    from superstep_compat.func import entrypoint\n"
        "    from superstep_compat.graph.state import CompiledStateGraph\n"
        "    from superstep_compat.pregel import Pregel\n"
        "    ep = entrypoint()(lambda x: x)\n"
        "    print(CompiledStateGraph.__module__, Pregel.__module__, type(ep).__module__,"
        " type(ep).__name__)\n"
    )
    before = run_python(
        show + "show()\n"
        "from superstep_compat.shim import install, uninstall\n"
        "install(); show(); uninstall(); show()"
    )
    assert before.splitlines() == [
        "superstep_compat.graph.state superstep_compat.pregel.main "
        "superstep_compat.pregel.main Pregel",
        "langgraph.graph.state langgraph.pregel.main langgraph.pregel.main Pregel",
        "superstep_compat.graph.state superstep_compat.pregel.main "
        "superstep_compat.pregel.main Pregel",
    ]
    after = run_python("from superstep_compat.shim import install; install()\n" + show + "show()")
    assert after == "langgraph.graph.state langgraph.pregel.main langgraph.pregel.main Pregel"
    import_main = run_python(
        "import superstep_compat.pregel.main as m, superstep_compat.pregel as p\n"
        "print(m.Pregel is p.Pregel, m.NodeBuilder is p.NodeBuilder)"
    )
    assert import_main == "True True"
