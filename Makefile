# Two set-up commands (see README): `make demo` and `make test`. Both create .venv if missing.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
DEVSTAMP := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck layers pytest clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e .
	touch $@

$(DEVSTAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@ $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/superstep run examples/pipeline.py:graph

lint: $(DEVSTAMP)
	$(VENV)/bin/ruff check src tests examples
	$(VENV)/bin/ruff format --check src tests examples

typecheck: $(DEVSTAMP)
	$(VENV)/bin/mypy

layers: $(DEVSTAMP)
	$(VENV)/bin/lint-imports

pytest: $(DEVSTAMP)
	$(VENV)/bin/pytest

test: lint typecheck layers pytest

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
