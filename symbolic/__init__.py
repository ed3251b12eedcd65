"""mlsysym: ML-systems napkin math, written once as sympy and generated into code and docs.

How it works
------------
Every module sits in one layer folder; each layer imports only the layers below it
(``make lint`` checks this with import-linter, contracts in ``pyproject.toml``). Top down:

* ``cli/``: the ``mlsysym`` command; its evaluation commands need no sympy.
  ``generate/``: ``python -m symbolic.generate [--check]``, writing or checking ``generated/``.
* ``codegen/``: prints the expressions (Python, JavaScript, LaTeX), builds each evaluator
  and its exact gradient, computes the docs' worked examples, charts and derivations, and
  renders the jinja2 templates in ``templates/`` into ``generated/``.
* ``analysis/``: exact sympy over a declaration: closed forms, dimensions, definedness,
  derivatives, scaling, solving, ``explain``.
* ``scenarios/<family>/``: one hand-written module per scenario (typed inputs, named steps
  and outputs as sympy expressions, the registry's named instances), on ``model`` and ``catalog``.
* ``catalog/``: the hardware, workload, system, dataset and constant data files, and the
  record types they are validated against.
* ``model/``: the declaration language the scenarios are written in (``from symbolic.model import ...``).
* ``runtime/``: the sympy-free support the generated package imports: the lazy pint
  registry, input validation, the scenario base class, hardware nodes, sweeps and search.

This ``__init__`` imports nothing, so that ``import generated`` (which imports
``symbolic.runtime``) never loads sympy.
"""
