"""The "Predicted vs measured" page, from the committed validation run (``make validate``).

``make validate`` writes ``benchmarks/validation.json`` (``mlsysym validate --fit --search --out``): every
measured run of ``symbolic/catalog/measurements.toml`` against its prediction, the refits of the fitted
efficiency figures with their leave-one-out errors, and the best-layout search with its time. This module
turns it into ``generated/docs/validation.md`` and its chart, and ``generated/latex/validation.tex`` for the
handbook; the efficiency figures and their sources are read from ``efficiency.toml``. Nothing here
predicts: ``tests/cli/test_validate.py`` holds the committed run equal to a fresh one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import Environment
from symbolic.catalog import efficiency_sources
from symbolic.codegen.charts import validation_chart

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "benchmarks" / "validation.json"
SCENARIO_PAGES = {"training": "MegatronIterationScenario", "prefill": "PrefillPassScenario"}
LABELS = {"iteration_time": "iteration time", "params_optimizer_per_gpu": "params & optimizer per GPU",
          "activations_per_gpu": "activations per GPU", "ttft": "time to first token", "flops_per_gpu": "FLOP/s per GPU"}
# The targets on the development set, and the best published analytical tool's errors there
TARGETS = {"iteration_time": "mean ≤ 3.5 %, max ≤ 8 % (best published analytical tool: 3.65 % / 8.87 %)",
           "params_optimizer_per_gpu": "mean ≤ 3 % (published tool: 8.5 %)",
           "activations_per_gpu": "mean ≤ 3 % (published tool: 2.1 %)", "ttft": "mean ≤ 10 %",
           "flops_per_gpu": "a run no fit has seen"}


def validation_run(path: Path = RUN) -> dict[str, Any] | None:
    """The committed run, with each row's page link and the efficiency figures (None without one)."""
    if not path.exists():
        return None

    data = json.loads(path.read_text(encoding="utf-8"))
    for row in data["rows"]:
        row["page"] = f"scenarios/{SCENARIO_PAGES[row['kind']]}.md#{row['name'].lower()}"
        row["label"] = LABELS.get(row["quantity"], row["quantity"])
    summary = [{"kind": kind, "quantity": quantity, "label": LABELS.get(quantity, quantity),
                "target": TARGETS.get(quantity, ""), **stats}
               for kind, kind_stats in data["summary"].items() for quantity, stats in kind_stats["quantities"].items()]
    efficiency = [{"section": section, "figure": figure, **entry}
                  for section, figures in efficiency_sources().items() for figure, entry in figures.items()]
    return {**data, "summary_rows": summary, "efficiency": efficiency}


def validation_files(env: Environment, header: Callable[[str, str], list[str]]) -> dict[str, str]:
    """The page, the handbook's section and their chart, when a run is committed."""
    run = validation_run()
    if run is None:
        return {}

    source = "benchmarks/validation.json (make validate)"
    return {
        "generated/docs/validation.md": env.get_template("validation.md.j2").render(
            header=header(source, "validation.md.j2"), run=run),
        "generated/docs/charts/validation.svg": validation_chart(run["rows"], header(source, "charts.mplstyle")),
        "generated/latex/validation.tex": env.get_template("validation.tex.j2").render(
            header=header(source, "validation.tex.j2"), run=run),
        "generated/latex/charts/validation.pdf": validation_chart(run["rows"], header(source, "charts.mplstyle"),
                                                                  pdf=True),
    }
