# The single entry point. `make demo` and `make test` do all set-up on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install generate check lint test demo bench clean docs pdf validate-here validate

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
	$(PY) -m mypy
	$(VENV)/bin/lint-imports --no-cache  # the layer contracts in pyproject.toml

test: check lint  ## freshness, lint, then the test suite
	$(PY) -m pytest -q

demo: generate  ## five questions a user has, each answered by the command that asks it (--all: every entry)
	$(PY) -m symbolic.cli.demo

docs: generate  ## build the static docs site into build/site (MkDocs + Material; math typeset offline by KaTeX)
	$(PY) docsite/build.py site

# The PDF handbook needs pdflatex and LaTeX packages from Debian's packages, listed in
# docsite/debian-packages.txt (.ci/run installs them where missing). By hand:
#   apt-get install texlive-latex-base texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended
pdf: generate  ## build the PDF handbook into build/pdf/handbook.pdf from generated/latex
	$(PY) docsite/build.py pdf

bench: install  ## benchmarks (not part of make test)
	$(PY) benchmarks/run.py
	$(PY) -m symbolic.generate  # the docs page shows benchmarks/results.json

validate-here: install  ## measure this machine, run the scenarios' workloads on it, refresh the "This machine" page
	$(VENV)/bin/mlsysym calibrate --force --out benchmarks/this_machine_node.toml || [ $$? -eq 2 ]  # 2: refused, written anyway
	$(VENV)/bin/mlsysym validate --here --node benchmarks/this_machine_node.toml --out benchmarks/this_machine.json \
	    || [ $$? -eq 2 ]  # 2: not trusted (load, verdict, drift): written with its conditions, the page says so
	$(PY) -m symbolic.calibration.constants benchmarks/this_machine_node.toml  # the registry's MeasuredCpu figures
	$(PY) -m symbolic.generate  # the page shows benchmarks/this_machine.json

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

validate: install  ## predict the published runs, refit the fitted figures, search the 530B layout; regenerate the page
	$(VENV)/bin/mlsysym validate --fit --search --out benchmarks/validation.json
	$(PY) -m symbolic.generate
