# The single entry point. `make demo` and `make test` do all set-up on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install generate check lint test demo bench clean

install: $(STAMP)  ## create .venv and install the project with its dev extras

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

generate: install  ## regenerate generated/ from the symbolic sources
	$(PY) -m symbolic.generate

check: install  ## fail if generated/ is stale, hand-edited or orphaned
	$(PY) -m symbolic.generate --check

lint: install
	$(PY) -m ruff check symbolic generated tests benchmarks

test: check lint  ## freshness, lint, then the test suite
	$(PY) -m pytest -q

demo: generate  ## the main job: regenerate, then print every named scenario's outputs
	$(PY) -m symbolic.demo

bench: install  ## benchmarks (not part of make test)
	$(PY) benchmarks/bench_evaluate.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
