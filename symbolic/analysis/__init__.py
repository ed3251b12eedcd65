"""Exact questions about a declared scenario: closed forms, dimensions, definedness, solving, explain.

How it works
------------
Everything here is sympy over the very expressions the evaluators are generated from, so
an answer cannot disagree with the numbers. ``closed.py`` rewrites every quantity of a
``ScenarioModel`` in terms of its inputs only (built once per model); the other modules
read those closed forms:

* ``dimensions.py`` infers each expression's dimension and checks it against the declared
  unit (the generator runs it on every output, catalog method and check);
* ``domains.py`` proves every division is by a quantity the input domains keep positive;
* ``derive.py`` gives closed forms, derivatives and scaling exponents, in base units;
* ``solving.py`` solves ``output = target`` for an input, branch by branch;
* ``list_entries.py`` turns one entry of a list output into a scalar to solve for;
* ``explain.py`` prints one output of an instance as definition -> closed form -> numbers.

This layer sits on ``model``, ``catalog`` and ``scenarios`` and below ``codegen``: the
generator prints what these modules prove, and the CLI asks them questions.
"""
