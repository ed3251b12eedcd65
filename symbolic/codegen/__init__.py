"""From declarations to text: printers (Python, LaTeX) and the driver that renders templates.

The pipeline is straight: discover scenario modules -> check dimensions -> fold unit
factors and eliminate common subexpressions -> print -> render jinja2 templates ->
write, or compare with what is on disk (``python -m symbolic.generate --check``).
"""
