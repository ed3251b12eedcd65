"""From declarations to text: printers, the evaluator and its gradient, docs content, rendering.

How it works
------------
The pipeline is straight: discover scenario modules (``symbolic.scenarios.discover``) ->
check dimensions and definedness (``symbolic.analysis``) -> fold unit factors and
eliminate common subexpressions (``pyprint.py``) -> build each evaluator and its exact
gradient (``python.py``, ``gradient.py``; a contained scenario is a call, ``contained.py``)
-> print it (Python, ``jsprint.py`` for JavaScript, ``latex.py`` for the docs) -> render
the jinja2 templates of ``templates/`` (``environment.py``; ``render.py`` has one handler
per declaration type) -> hand the files to ``symbolic.generate``, which writes or checks them.

The docs add: ``worked.py`` (formula = numbers = result, numbers from
``symbolic.analysis.exact``), ``charts.py`` (sweep and roofline SVGs), ``derivations.py``,
``site_pages.py`` and ``catalog_pages.py`` (legends, hardware, models, outputs, units pages).
``records.py`` prints the catalog's record types into ``generated/workloads.py`` and
``generated/systems.py``. ``explain.py`` prints one output of an instance as definition ->
closed form -> numbers -> result (``mlsysym explain``). ``pipeline.py`` and ``keys.py``
cache each scenario's render under a key of what it reads.
"""
