"""``python -m symbolic.demo``: every named scenario's outputs, with units.

Uses only the generated runtime (``generated``), as a user would.
"""

from __future__ import annotations

from typing import Any

from generated import ScenarioBase, Scenarios


def _shown(value: Any) -> str:
    if hasattr(value, "units"):
        return f"{value:~P}"
    return repr(value)


def lines(scenario: ScenarioBase, indent: str = "  ") -> list[str]:
    """One line per output; tables one line per entry, contained scenarios indented."""
    out = []
    for name, value in scenario.outputs().items():
        if isinstance(value, ScenarioBase):
            out.append(f"{indent}{name}: {type(value).__name__} '{value.name}'")
            out.extend(lines(value, indent + "    "))
        elif isinstance(value, dict):
            out.extend(f"{indent}{name}[{key!r}] = {_shown(entry)}" for key, entry in value.items())
        else:
            out.append(f"{indent}{name} = {_shown(value)}")
    return out


def main() -> None:
    for key, scenario in Scenarios.items():
        print(f"{key} ({type(scenario).__name__}): {scenario.name}")
        print("\n".join(lines(scenario)))
        print()


if __name__ == "__main__":
    main()
