"""``python -m symbolic.cli.demo``: every named scenario's outputs, with units.

Uses only the generated runtime (``generated``) and the command line's formatting, as a
user would; the same table as ``mlsysym show NAME`` for every registry entry.
"""

from __future__ import annotations

from generated import Scenarios
from symbolic.cli import outputs_of, shown, table


def main() -> None:
    for key, scenario in Scenarios.items():
        print(f"{key} ({type(scenario).__name__}): {scenario.name}")
        rows = [(path, shown(value, unit)) for path, (value, unit) in outputs_of(scenario).items()]
        print(table(rows, ("output", "value")))
        print()


if __name__ == "__main__":
    main()
