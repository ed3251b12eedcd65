"""Sympy-free runtime support imported by the generated package.

How it works
------------
The generated evaluators are plain arithmetic on numbers in each input's declared
unit. This package adds the layer people use: ``ScenarioBase`` validates keyword
inputs once (``validation.py``), calls the evaluator lazily and wraps each output as a
pint Quantity in its display unit (``scenario.py``). ``units.py`` loads the project's
one pint registry on first use, so importing the runtime never imports pint or sympy.
``hardware.py`` holds hardware nodes and datasets; ``errors.py`` the error hierarchy.
Rule: nothing under ``symbolic/runtime`` may import sympy, jinja2 or ``symbolic.model``.
"""
