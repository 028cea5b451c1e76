# Two set-up commands (see README): `make demo` and `make test`. Both create .venv if missing.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
DEVSTAMP := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck layers pytest plan-coverage clean bench bench-shared bench-micro bench-own

# Real LangGraph (the `bench` extra: pinned langgraph 1.2) in a venv of its own, never imported
# by the project: the differential tests and `make bench` compare against it side by side.
# `make bench [REPEAT=5] [BENCH_ARGS='--slope w01 w07 w08']` runs ../shared/bench/run.py with
# both, redirecting the Superstep side's `langgraph` to bench/target/superstep_bench_langgraph
# (the façade, with the real langgraph.checkpoint/store/cache); `make bench-micro` runs the
# engine's own hot-path micro-benchmarks in bench/.
SHARED_BENCH ?= ../shared/bench
REPEAT       ?= 5
BENCH_ARGS   ?=
LG_VENV      := .venv-langgraph
LG_PY        := $(LG_VENV)/bin/python
LG_STAMP     := $(LG_VENV)/.installed

# Installs print each package as it goes (a fresh clone downloads a few hundred MB: silence
# there looks like a hang); no progress bars, so logs hold no terminal escape codes.
PIP_INSTALL := -m pip install --progress-bar off

$(PY):
	@echo "make: creating $(VENV)"
	$(PYTHON) -m venv $(VENV)
	$(PY) $(PIP_INSTALL) --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	@echo "make: installing the project into $(VENV)"
	$(PY) $(PIP_INSTALL) -e .
	touch $@

$(DEVSTAMP): pyproject.toml | $(PY)
	@echo "make: installing the project and its test tools into $(VENV)"
	$(PY) $(PIP_INSTALL) -e '.[dev]'
	touch $@ $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/superstep run examples/pipeline.py:graph

lint: $(DEVSTAMP)
	@echo "make: ruff"
	$(VENV)/bin/ruff check src tests examples
	$(VENV)/bin/ruff format --check src tests examples

typecheck: $(DEVSTAMP)
	@echo "make: mypy --strict (about a minute the first time, then cached)"
	$(VENV)/bin/mypy

layers: $(DEVSTAMP)
	$(VENV)/bin/lint-imports

# langchain (pinned, no dependencies of its own to install) for the create_agent differential
# tests, on the path of both sides only (tests/compat/ecosystem), never a project dependency.
ECO_DIR   := $(VENV)/ecosystem
ECO_STAMP := $(ECO_DIR)/.installed
$(ECO_STAMP): | $(PY)
	$(PY) -m pip install --quiet --no-deps --upgrade --target $(ECO_DIR) 'langchain==1.5.2'
	touch $@

# Two workers (one per core on CI), a file's tests on one worker (module fixtures and
# subprocess-heavy files stay together); `make pytest PYTEST_ARGS=-n0` runs them serially.
PYTEST_ARGS ?= -n 2 --dist loadfile

# The viewer's browser tests (tests/viewer) drive the distribution's Chromium through
# Playwright (whose own browser download is not reachable from every machine). Installed here
# when missing and apt-get can (root); otherwise the tests are skipped with that reason.
.PHONY: browser
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	    if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	        echo "make: installing chromium from the distribution's packages (browser tests)"; \
	        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	    else \
	        echo "make: no chromium and no root apt-get to install it: the browser tests will be skipped"; \
	    fi; }

pytest: $(DEVSTAMP) $(LG_STAMP) $(ECO_STAMP) browser
	@echo "make: pytest $(PYTEST_ARGS) (skipped tests are listed with their reason at the end)"
	SUPERSTEP_LANGGRAPH_PYTHON=$(abspath $(LG_PY)) $(VENV)/bin/pytest $(PYTEST_ARGS)

# The pure half of superstep_core.plan is held to 100 % statement coverage by its own tests.
plan-coverage: $(DEVSTAMP)
	$(VENV)/bin/pytest tests/plan/pure -p no:cacheprovider -o addopts=-q \
	    --cov --cov-config=tests/plan/pure/coveragerc

test: lint typecheck layers pytest plan-coverage

clean:
	rm -rf $(VENV) $(LG_VENV) .mypy_cache .pytest_cache .ruff_cache

$(LG_STAMP): pyproject.toml
	@echo "make: installing real LangGraph (pinned) into $(LG_VENV), for the differential tests"
	test -x $(LG_PY) || $(PYTHON) -m venv $(LG_VENV)
	$(LG_PY) $(PIP_INSTALL) --quiet --upgrade pip
	$(LG_PY) -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["bench"]))' > $(LG_VENV)/bench-requirements.txt
	$(LG_PY) $(PIP_INSTALL) -r $(LG_VENV)/bench-requirements.txt
	touch $@

bench-shared:
	@test -f $(SHARED_BENCH)/run.py || { echo "bench: $(SHARED_BENCH)/run.py not found: the shared folder must sit at ../shared beside the repo (or pass SHARED_BENCH=DIR)" >&2; exit 2; }

bench: bench-shared $(STAMP) $(LG_STAMP)
	$(PY) $(SHARED_BENCH)/run.py --impl langgraph --impl superstep \
	    --python-for langgraph=$(abspath $(LG_PY)) --python-for superstep=$(abspath $(PY)) \
	    --target superstep_bench_langgraph --path-for superstep=$(abspath bench/target) \
	    --repeat $(REPEAT) $(BENCH_ARGS)

# w08's chain on Superstep with LangGraph's official SqliteSaver and with the engine's own
# SqliteCheckpointSaver (same protocol, changed channels only), interleaved in fresh processes;
# BENCH_OWN_ARGS=--file: on a SQLite file (wall clock), as `superstep run --thread` keeps threads.
bench-own: $(STAMP)
	$(PY) bench/w08_own_saver.py --repeat $(REPEAT) $(BENCH_OWN_ARGS)

bench-micro: $(DEVSTAMP)
	$(PY) -m pip install --quiet 'pytest-benchmark>=4'
	$(VENV)/bin/pytest bench -p no:cacheprovider -o addopts= --benchmark-columns=min,median,mean,rounds
	$(PY) bench/engine_activation.py

# Other projects' suites on real LangGraph and on Superstep side by side (not part of `make
# test`: it builds venvs and takes long). LANGGRAPH_GIT_DIR: a git dir of LangGraph's public
# repository (bare is fine) for the langgraph suite, DEEPAGENTS_GIT_DIR one of deepagents' for
# the deepagents suite (trustcall, langmem and bigtool take theirs from the mirror, or
# COMPAT_ARGS='--git-dir NAME=DIR'); SUITE=langchain|langgraph|deepagents|supervisor|swarm|
# trustcall|langmem|bigtool|all.
SUITE ?= all
LANGGRAPH_GIT_DIR ?= /work/.mirror/langchain-ai+langgraph/repo
DEEPAGENTS_GIT_DIR ?= /work/.mirror/langchain-ai+deepagents/repo
COMPAT_ARGS ?=
.PHONY: compat-suites
compat-suites:
	$(PYTHON) tools/compat_suites.py --suite $(SUITE) --langgraph-git-dir $(LANGGRAPH_GIT_DIR) \
		--deepagents-git-dir $(DEEPAGENTS_GIT_DIR) $(COMPAT_ARGS)

# The README's viewer screenshots (docs/screenshots), rewritten by the browser tests.
.PHONY: screenshots
screenshots: $(DEVSTAMP) browser
	SUPERSTEP_WRITE_SCREENSHOTS=1 $(VENV)/bin/pytest tests/viewer -n0 -p no:cacheprovider
