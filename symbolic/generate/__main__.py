"""``python -m symbolic.generate``: the generator's command line (see the package docstring)."""

import sys

from symbolic.generate import main

sys.exit(main())
