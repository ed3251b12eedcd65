"""Sympy-free runtime support imported by the generated package (the bottom layer).

How it works
------------
The generated evaluators are plain arithmetic on numbers in each input's declared
unit. This package adds the layer people use: ``ScenarioBase`` validates keyword
inputs once (``validation.py``), calls the evaluator lazily and wraps each output as a
pint Quantity in its display unit (``scenario.py``, descriptors in ``outputs.py``, one
naming of every output leaf in ``paths.py``, notebook tables in ``display.py``).
``units.py`` loads the project's one pint registry on first use, so importing the runtime
never imports pint or sympy. ``hardware.py`` holds hardware nodes and datasets,
``records.py`` the base of the generated catalog record types, ``errors.py`` the error
hierarchy, ``provided.py`` what the generated package hands down (``node.memory``'s type);
``sweep.py``, ``analysis.py`` (sensitivity, compare) and ``search*.py`` (the
design-space search)
answer questions with the generated evaluators.
Rule (import-linter, ``make lint``): nothing here imports sympy, jinja2 or any other layer
of ``symbolic``, with no exception. What it offers but the generator implements
(``instance.explain``) it finds by name at call time, as an entry point (``extensions.py``).
"""
