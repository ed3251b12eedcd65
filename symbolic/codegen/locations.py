"""Where the generator finds its templates and keeps its caches, in a checkout and installed alike.

One rule decides both. A **source checkout** is the folder holding ``symbolic/`` next to
``pyproject.toml`` and ``templates/`` (the repository, or an editable install of it): the
templates are its ``templates/`` and the caches its ``.cache/`` (gitignored; what
``make check`` reuses between runs). **Installed** from a wheel, ``templates/`` ships as
package data inside ``symbolic/templates/`` and the caches go to the user's cache
directory: ``$XDG_CACHE_HOME/mlsysym``, else ``~/.cache/mlsysym``. Nothing is ever written
next to the installed code (site-packages may be read-only or shared).
"""

from __future__ import annotations

import os
from pathlib import Path

import symbolic

PACKAGE = Path(symbolic.__file__).resolve().parent  # symbolic/, wherever it is (found by import, not by depth)
_ROOT = PACKAGE.parent
CHECKOUT: Path | None = _ROOT if (_ROOT / "pyproject.toml").is_file() and (_ROOT / "templates").is_dir() else None
# the wheel's copy first: a site-packages folder named templates/ would belong to some other distribution
TEMPLATES = PACKAGE / "templates" if (PACKAGE / "templates").is_dir() else _ROOT / "templates"


def user_cache() -> Path:
    """``$XDG_CACHE_HOME/mlsysym`` (an empty or relative value is ignored, as the XDG spec says), else
    ``~/.cache/mlsysym``."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "mlsysym"


def cache_root() -> Path:
    """The folder every cache of the generator lives under (read at call time: tests and users may set
    ``XDG_CACHE_HOME`` after import)."""
    return CHECKOUT / ".cache" if CHECKOUT is not None else user_cache()
