"""Differential programs ``pt*`` (programs/), from a porting pass that ran the test suites
of libraries built on LangGraph (trustcall, langmem, langgraph-bigtool; `make compat-suites`)
and realistic programs of its own: `ToolNode._inject_tool_args` called from a router as
langgraph-bigtool does (pt01); `set_node_defaults` applied when compiling, to nodes added
before it too, and node specs kept as given and changeable before compiling (pt02); a
compiled graph used as a langchain-core Runnable (batch, composition, as_tool, per-call
options, v2 stream parts; pt03); the error-message templates and content-block types
applications import from ``langgraph.prebuilt.tool_node`` (pt04); the typing names they
import from ``langgraph.types`` and ``langgraph.typing`` (pt05); generative-UI messages
(``langgraph.graph.ui``: pushed, merged, deleted; pt06); a node polling
``runtime.drain_requested`` to stop early when its run drains (pt07); a `@task` called
from a graph node that interrupts, resumed (pt08); the ``messages`` stream of functional-API
apps: tokens from an entrypoint's body and its tasks, its returned messages (pt09); what a
streamed run reads of a state whose output schema leaves keys out (a graph's callback run
ends with every state channel when streamed; a subgraph node under ``astream_events`` keeps
its private keys; found driving agents through ag-ui-langgraph; pt10); an async-only saver's
coroutines awaited on the caller's loop, whose client the caller keeps using there (found
running langgraph-checkpoint-plainredis's own tests; pt11). Each runs under real LangGraph
and under the façade; the two results must be equal."""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

(
    PROGRAMS,
    results,
    test_program_runs_under_langgraph,
    test_program_matches_langgraph,
) = differential_program_tests("pt[0-9]*.py")
