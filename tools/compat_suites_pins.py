"""What `compat_suites.py` runs: each suite's packages (the reference releases and the test
dependencies, pinned) and where its tests come from. See that tool's docstring."""

from __future__ import annotations

from dataclasses import dataclass

LANGCHAIN = "1.5.2"
LANGGRAPH_TAG = "1.2.11"
# The reference packages of each suite (what the tests were written against), pinned.
LANGCHAIN_PACKAGES = [
    f"langchain=={LANGCHAIN}",
    "langgraph==1.2.24",
    "langgraph-prebuilt==1.1.3",
    "langgraph-checkpoint==4.3.2",
    "langgraph-checkpoint-sqlite==3.1.2",
    "langchain-core==1.8.3",
]
LANGCHAIN_TEST_DEPS = [
    "pytest>=9.0.3,<10",
    "pytest-asyncio>=1.3,<2",
    "pytest-socket>=0.6,<1",
    "pytest-xdist>=3.6,<4",
    "pytest-mock",
    "pytest-timeout",
    "syrupy>=5,<6",
    "toml",
    "blockbuster>=1.5.26,<1.6",
    "langchain-tests>=1.1.9,<2",
    "langchain-openai",
    "fastmcp>=4.0.11,<5",
]
LANGGRAPH_PACKAGES = [
    f"langgraph=={LANGGRAPH_TAG}",
    "langgraph-prebuilt==1.1.0",
    "langgraph-checkpoint==4.3.2",
    "langgraph-checkpoint-sqlite==3.1.2",
    "langgraph-checkpoint-postgres==3.2.0",
]
LANGGRAPH_TEST_DEPS = [
    "pytest",
    "pytest-mock",
    "pytest-asyncio",
    "pytest-xdist",
    "pytest-timeout",
    "syrupy",
    "redis",
    "psycopg[binary]",
    "psycopg-pool",
    "pycryptodome",
    "httpx",
]
DEEPAGENTS = "0.7.8"
DEEPAGENTS_ACP = "0.0.10"  # its last release in the mirror; it accepts deepagents 0.7.8
DEEPAGENTS_PACKAGES = [
    f"deepagents=={DEEPAGENTS}",
    f"deepagents-acp=={DEEPAGENTS_ACP}",
    *LANGCHAIN_PACKAGES,
    *("langchain-anthropic==1.7.10", "langchain-google-genai==4.4.3", "wcmatch==11.0"),
]
# As deepagents' lock file has them: its settings turn warnings into errors, so a newer
# pytest-asyncio's configuration warning would stop the session.
DEEPAGENTS_TEST_DEPS = [
    *("pytest==9.0.3", "pytest-asyncio==1.4.0", "pytest-socket==0.7.0", "pytest-xdist==3.8.0"),
    *("pytest-timeout==2.4.0", "pytest-benchmark==5.2.3", "pytest-cov==7.0.0", "pytest-mock"),
    *("langchain-tests==1.1.9", "langchain-openai==1.8.1", "av==18.0.0", "pillow==12.3.0"),
]


@dataclass(frozen=True)
class GitSuite:
    """A library built on LangGraph whose tests come from its public repository."""

    # The release on the package index (the reference code under test), or "" to install
    # the repository at `rev` instead (a fix not released yet).
    package: str
    rev: str  # the commit or tag of that release in the repository
    tests: str  # the test folder, relative to the repository root
    # What is exported: the tests and the conftest/package files above them. Not the package
    # beside them (the installed release is what is tested), nor the recorded model calls of
    # the evaluations, which the mirrors may not hold.
    export: tuple[str, ...]
    default_git_dir: str  # the repository's mirror on the developers' machines


MIRRORS = "/work/.mirror"
GIT_SUITES = {
    # 0.0.39 is not tagged; this commit's pyproject.toml names it.
    "trustcall": GitSuite(
        "trustcall==0.0.39",
        "8c7312b591542cf9349ce00d2811e890ea6eef91",
        "tests/unit_tests",
        ("tests/conftest.py", "tests/unit_tests"),
        f"{MIRRORS}/hinthornw+trustcall/repo",
    ),
    # 0.0.30 is not tagged either.
    "langmem": GitSuite(
        "langmem==0.0.30",
        "b5dbe4aa34055face022cb4a6db153edd5826377",
        "tests/short_term",
        ("tests/__init__.py", "tests/conftest.py", "tests/short_term"),
        f"{MIRRORS}/langchain-ai+langmem/repo",
    ),
    # 0.0.3, its last release, calls `ToolNode.inject_tool_args`, which LangGraph 1.x renamed:
    # every test fails on LangGraph too. This later commit (same version number) has the fix.
    "bigtool": GitSuite(
        "",
        "79fbe9cf60050dff18ee7bd7b6836c3267d3036f",
        "tests/unit_tests",
        ("tests/__init__.py", "tests/unit_tests"),
        f"{MIRRORS}/langchain-ai+langgraph-bigtool/repo",
    ),
    # The AG-UI protocol's LangGraph agent (CopilotKit's): streams a graph's events, reads and
    # edits its state, resumes interrupts. Its tests sit in a monorepo; they import
    # `tests._helpers`, which resolves from the exported folder (tests/ is a package). One test
    # file loads the state-streaming middleware by its path beside the tests: that file alone
    # is exported (the same as the release's; `import ag_ui_langgraph` still finds the release,
    # a folder without __init__.py being only a namespace portion).
    "agui": GitSuite(
        "ag-ui-langgraph[fastapi]==0.0.43",
        "ag-ui-langgraph@0.0.43",
        "integrations/langgraph/python/tests",
        (
            "integrations/langgraph/python/tests",
            "integrations/langgraph/python/ag_ui_langgraph/middlewares/state_streaming.py",
        ),
        f"{MIRRORS}/ag-ui-protocol+ag-ui/repo",
    ),
    # CopilotKit's Python SDK: its LangGraph middleware and AG-UI agent (on ag-ui-langgraph,
    # which the agui suite pins) over real graphs: interrupts and resumes, emitted state and
    # tool calls, subgraph context. Its crewai tests skip (crewai is an extra, not installed).
    "copilotkit": GitSuite(
        "copilotkit==0.1.95",
        "python-sdk/v0.1.95",
        "sdk-python/tests",
        ("sdk-python/tests",),
        f"{MIRRORS}/CopilotKit+CopilotKit/repo",
    ),
}
GIT_SUITE_TEST_DEPS = [
    *("pytest>=9,<10", "pytest-asyncio>=1.3,<2", "anyio>=4.7", "pytest-socket"),
    *("pytest-timeout", "numpy>=1", "langchain-openai"),
]


@dataclass(frozen=True)
class SdistSuite:
    """A library built on LangGraph whose tests ship in its sdist on the package index."""

    package: str  # name==version: the release under test, whose sdist holds the tests
    source: str  # the package's folder beside the tests, removed: the release is tested
    tests: str  # the test folder in the sdist
    venv: str  # suites naming the same venv share it, with all their packages
    packages: tuple[str, ...]  # what else the venv has: reference pins, test dependencies
    ini: str  # the pytest settings replacing the sdist's (theirs are mostly verbosity)
    options: tuple[str, ...] = ()
    # the variable its tests take a Redis URL from: given SUPERSTEP_REDIS_URL's value
    # when that is set (else the tests' own default)
    redis_url_var: str = ""
    # More test folders of the sdist, each its own session (labelled by the folder) as the
    # project's Makefile runs them: two folders that are each a package named ``tests``
    # cannot share one session.
    more_tests: tuple[str, ...] = ()
    # The database server its tests need ("mysql" or "postgres", else none), the local one
    # (SUPERSTEP_MYSQL_URL, default MYSQL_URL; SUPERSTEP_POSTGRES_URL less its database,
    # default POSTGRES_URL), and a database the tests expect on it, created before the
    # sessions.
    server: str = ""
    database: str = ""
    # Where the tests' hard-coded address of their compose file's server is replaced by the
    # local server's URL (without a database): (file, text, replacement), ``{server}`` in
    # the replacement standing for that URL. Connection settings only, never a test's logic.
    rewrites: tuple[tuple[str, str, str], ...] = ()


# The database servers as the machines run them (MariaDB: root, no password).
MYSQL_URL = "mysql://root@127.0.0.1:3306/"
POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/"
MULTI_AGENT_PACKAGES = (
    *LANGCHAIN_PACKAGES,
    *("pytest>=9,<10", "pytest-socket", "pytest-xdist", "pytest-timeout"),
)
SDIST_OPTIONS = ("--timeout=120", "--disable-socket", "--allow-unix-socket")
SDIST_SUITES = {
    # Their pytest settings are only verbosity (-ra -q -v); the tests are offline.
    "supervisor": SdistSuite(
        "langgraph-supervisor==0.0.31",
        "langgraph_supervisor",
        "tests",
        "multi-agent",
        MULTI_AGENT_PACKAGES,
        "[pytest]\naddopts =\n",
        SDIST_OPTIONS,
    ),
    "swarm": SdistSuite(
        "langgraph-swarm==0.1.0",
        "langgraph_swarm",
        "tests",
        "multi-agent",
        MULTI_AGENT_PACKAGES,
        "[pytest]\naddopts =\n",
        SDIST_OPTIONS,
    ),
    # LangGraph's official SQLite saver and store: the saver's tests (the protocol, its delta
    # channels' history walks, migrations), some over graphs compiled with it (DeltaChannel
    # state, sync and async). Its store tests need sqlite3's extension loading (sqlite-vec),
    # which a Python built without it lacks: they fail on both sides then; so does its delta
    # conformance test, whose capability the conformance suite's last release (0.0.2) lacks.
    # Its own settings less verbosity and strictness; pytest-retry is its dependency for a
    # timing test.
    "savers": SdistSuite(
        "langgraph-checkpoint-sqlite==3.1.2",
        "langgraph",
        "tests",
        "sdist-suites",
        (
            *LANGCHAIN_PACKAGES,
            *("langgraph-checkpoint-conformance==0.0.2", "aiosqlite", "sqlite-vec"),
            *("pytest>=9,<10", "pytest-asyncio>=1.3,<2", "pytest-mock", "pytest-retry"),
            "pytest-timeout",
        ),
        "[pytest]\naddopts =\nasyncio_mode = auto\n",
        ("--timeout=120",),
    ),
    # A community saver on plain Redis (no RedisJSON/RediSearch modules): its protocol and
    # parity tests, and end-to-end ones over a graph compiled with it (sync and async-only
    # savers). Each test keys under a random prefix and removes its keys. Its settings are
    # asyncio's auto mode and warnings of its own as errors.
    "plainredis": SdistSuite(
        "langgraph-checkpoint-plainredis==0.1.0",
        "src",
        "tests",
        "sdist-suites",
        (
            *LANGCHAIN_PACKAGES,
            *("redis>=5", "pytest>=9,<10", "pytest-asyncio>=1.3,<2", "pytest-timeout"),
        ),
        "[pytest]\naddopts =\nasyncio_mode = auto\n"
        "asyncio_default_fixture_loop_scope = function\n"
        "filterwarnings =\n    error::DeprecationWarning:langgraph_checkpoint_plainredis.*\n",
        ("--timeout=120",),
        "PLAINREDIS_TEST_URL",
    ),
    # agent-contracts: nodes declared by contracts (what they read and write, when they
    # trigger) compiled into StateGraphs with supervisors that route between them; its tests
    # build and run those graphs, sync and async. It has no pytest settings; its async tests
    # carry markers, which auto mode leaves as they are.
    "contracts": SdistSuite(
        "agent-contracts==0.6.0",
        "src",
        "tests",
        "sdist-suites",
        (
            *LANGCHAIN_PACKAGES,
            *("pyyaml>=6", "pytest>=9,<10", "pytest-asyncio>=1.3,<2", "pytest-timeout"),
        ),
        "[pytest]\naddopts =\nasyncio_mode = auto\n",
        ("--timeout=120",),
    ),
    # MCP tools as LangChain tools, and create_agent calling them with interceptors that
    # return Commands. Its stdio tests start MCP servers with `python` from PATH (the venv's
    # bin comes first, as in an activated venv); its HTTP tests enable sockets themselves.
    "mcp": SdistSuite(
        "langchain-mcp-adapters==0.3.2",
        "langchain_mcp_adapters",
        "tests",
        "sdist-suites",
        (
            *LANGCHAIN_PACKAGES,
            *("pytest>=9,<10", "pytest-asyncio>=1.3,<2", "pytest-socket>=0.7", "pytest-timeout"),
            *("websockets>=15", "dirty-equals>=0.9"),
        ),
        "[pytest]\naddopts =\nasyncio_mode = auto\n",
        SDIST_OPTIONS,
    ),
    # A community saver and store on MySQL/MariaDB (PyMySQL, aiomysql and asyncmy, plain and
    # pooled connections): its protocol tests, and langgraph-tests, LangGraph's own graph
    # tests of its time (Pregel, large cases, interrupts, checkpoint migration, the ReAct
    # agent) over graphs compiled with each of its savers and stores, sync and async. Its
    # Makefile runs the two folders as two sessions. The tests address a server of their
    # compose file: pointed at the local one, each graph test in a database of its own, the
    # saver tests in `mysql_database`. Async tests carry anyio's marker; its own settings are
    # strictness and verbosity.
    "mysql": SdistSuite(
        "langgraph-checkpoint-mysql[pymysql,aiomysql,asyncmy]==3.0.0",
        "langgraph",
        "tests",
        "mysql",
        (
            *LANGCHAIN_PACKAGES,
            *("pymysql>=1.1.1", "aiomysql>=0.2", "asyncmy>=0.2.10", "sqlalchemy>=2.0.37"),
            *("pytest>=9,<10", "anyio>=4.7", "pytest-mock", "syrupy>=4.0.2", "pytest-timeout"),
        ),
        "[pytest]\naddopts =\n",
        ("--timeout=120",),
        more_tests=("langgraph-tests/tests",),
        rewrites=(
            *(
                (file, "mysql://mysql:mysql@localhost:5441/", "{server}")
                for file in (
                    "tests/conftest.py",
                    "langgraph-tests/tests/conftest.py",
                    "langgraph-tests/tests/conftest_checkpointer.py",
                    "langgraph-tests/tests/conftest_store.py",
                )
            ),
            (
                "tests/conftest.py",
                'DEFAULT_BASE_URI + "mysql"',
                'DEFAULT_BASE_URI + "compat_suites"',
            ),
        ),
        server="mysql",
        database="compat_suites",
    ),
    # agent-blueprint: YAML blueprints compiled to LangGraph projects (supervisors routing by
    # Command, tool loops with retries and fallbacks, subgraphs, context trimming); many of
    # its tests generate a project and run it in a subprocess of the same interpreter (so
    # under the shim there too, through the .pth file), with scripted model outputs, and
    # check the trace it writes. Its own settings are only its test path.
    "blueprint": SdistSuite(
        "agent-blueprint==0.5.0",
        "src",
        "tests",
        "blueprint",
        (
            *LANGCHAIN_PACKAGES,
            # the generated projects import their provider's chat model (no call is made)
            *("langchain-openai", "opentelemetry-sdk>=1.25", "pytest>=9,<10", "pytest-timeout"),
        ),
        "[pytest]\naddopts =\n",
        ("--timeout=300",),
    ),
    # LangGraph's official Postgres saver and store: the saver's protocol tests (sync and
    # async, pipelines and pools, shallow savers, delta channels' history walks, pruning),
    # some over graphs compiled with it. Its store's vector tests need the pgvector
    # extension, which the local server may lack: they fail on both sides then. Each saver
    # test makes a database of its own; the shared fixtures use `database`. Its own settings
    # less strictness and verbosity.
    "postgres": SdistSuite(
        "langgraph-checkpoint-postgres==3.2.0",
        "langgraph",
        "tests",
        "postgres",
        (
            *LANGCHAIN_PACKAGES,
            *("psycopg[binary]>=3.2", "psycopg-pool"),
            *("pytest>=9,<10", "pytest-asyncio>=1.3,<2", "pytest-mock", "anyio>=4.7"),
            *("langgraph-checkpoint-conformance==0.0.2", "pytest-timeout"),
        ),
        "[pytest]\naddopts =\nasyncio_mode = auto\n",
        ("--timeout=120",),
        server="postgres",
        database="compat_suites",
        rewrites=(
            (
                "tests/conftest.py",
                "postgres://postgres:postgres@localhost:5441/postgres?",
                "{server}compat_suites?",
            ),
            ("tests/conftest.py", "postgres://postgres:postgres@localhost:5441/", "{server}"),
        ),
    ),
}
SUITES = ["langchain", "langgraph", "deepagents", *SDIST_SUITES, *GIT_SUITES]
LANGGRAPH_FILES = [
    *("test_time_travel.py", "test_time_travel_async.py", "test_messages_state.py"),
    *("test_subgraph_persistence.py", "test_subgraph_persistence_async.py"),
    *("test_type_checking.py", "test_state.py", "test_pydantic.py", "test_managed_values.py"),
    *("test_interruption.py", "test_parent_command.py", "test_parent_command_async.py"),
    *("test_deprecation.py", "test_pregel.py", "test_pregel_async.py", "test_pregel_debug.py"),
    "test_pregel_stream_events_v3.py",
    *("prebuilt/test_react_agent.py", "prebuilt/test_tool_node.py"),
]
