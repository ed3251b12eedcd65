"""``python -m symbolic.cli``: the same as the ``mlsysym`` command."""

import sys

from symbolic.cli import main

sys.exit(main())
