"""What one scenario's render leaves behind: its files and the facts the index pages need.

A ``ScenarioRecord`` is plain data (JSON in the cache), so the index pages, the registry
and the hardware pages are re-rendered from the records of every scenario without
importing or analysing any scenario that did not change.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class ScenarioRecord:
    module: str  # snake name: generated/<module>.py
    family: str
    source: str  # symbolic/scenarios/<family>/<module>.py
    name: str  # the scenario class
    summary: str
    instances: tuple[dict[str, Any], ...]  # registry entries as the templates show them, with "hardware" paths
    sections: tuple[dict[str, str], ...]  # every output: path, kind, unit, doc, type (the outputs index)
    placements: tuple[tuple[str, float, str], ...]  # (label, intensity, precision) on the rooflines
    files: dict[str, str]  # the scenario's own generated files, by path

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScenarioRecord:
        return cls(**{**data, "instances": tuple(data["instances"]), "sections": tuple(data["sections"]),
                      "placements": tuple(tuple(p) for p in data["placements"])})
