"""mlsysym: ML-systems napkin math, written once as sympy and generated into code and docs.

How it works
------------
* ``symbolic/scenarios/<family>/`` holds one hand-written module per scenario: typed inputs,
  named steps and outputs as sympy expressions, and the registry's named instances.
* ``symbolic/model/`` is the declaration API those modules use; ``symbolic/dimensions.py``
  checks every expression's dimension against its declared unit.
* ``symbolic/codegen/`` prints the expressions (Python, LaTeX), builds each evaluator and
  its exact gradient, computes the docs' worked examples, charts and derivations, and
  renders the jinja2 templates in ``templates/`` into ``generated/``
  (``python -m symbolic.generate``).
* ``symbolic/derive.py`` (solve, derivatives, scaling) and ``symbolic/cli/`` (``mlsysym``)
  answer questions about a scenario; the CLI's evaluation commands need no sympy.
* ``symbolic/runtime/`` is the sympy-free support code the generated package imports:
  the lazy pint registry, input validation, the scenario base class, hardware nodes.
* ``symbolic/catalog/`` holds the hardware, dataset and constant data files.

This ``__init__`` imports nothing, so that ``import generated`` (which imports
``symbolic.runtime``) never loads sympy.
"""
