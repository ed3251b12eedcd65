"""From declarations to text: printers (Python, LaTeX) and the driver that renders templates.

The pipeline is straight: discover scenario modules -> check dimensions -> fold unit
factors and eliminate common subexpressions -> print -> render jinja2 templates ->
write, or compare with what is on disk (``python -m symbolic.generate --check``).

The docs site adds three steps to the render: ``worked.py`` evaluates each registry
instance exactly from its declaration (the worked examples), ``charts.py`` draws the
sweep and roofline charts as reproducible SVGs, and ``site_pages.py`` builds the symbol
legends and the hardware, outputs and units pages. ``docsite/`` turns the Markdown into
HTML (``make docs``) and the LaTeX into a PDF (``make pdf``).
"""
