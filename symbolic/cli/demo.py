"""``python -m symbolic.cli.demo`` (``make demo``): five questions a user has, each asked by the
command that answers it, in half a screen each.

Every answer is the command's own output (run through ``symbolic.cli.main``, as a user runs it),
shortened only where a table goes on past what the question needs (say so, and how many lines were
left out). ``mlsysym list`` names every scenario; ``python -m symbolic.cli.demo --all`` prints every
named scenario's outputs (the old demo).
"""

from __future__ import annotations

import contextlib
import io
import shlex
import sys
from collections.abc import Callable
from typing import NamedTuple

from generated import Scenarios
from symbolic.cli import main as cli
from symbolic.cli import outputs_of, shown, table

SITE = ("The docs site: `make docs`, then open build/site/index.html (a page per scenario with its equations, a "
        "calculator and worked examples; Predicted vs measured; This machine). Every command: `mlsysym --help`.")


class Question(NamedTuple):
    asks: str
    command: str
    keep: Callable[[list[str]], list[str]] = lambda lines: lines
    says: str = ""


def _until(marker: str) -> Callable[[list[str]], list[str]]:
    """The lines before the first that starts with ``marker``."""
    def keep(lines: list[str]) -> list[str]:
        cut = next((i for i, line in enumerate(lines) if line.startswith(marker)), len(lines))
        return lines[:cut]
    return keep


def _from_blank(lines: list[str]) -> list[str]:
    """The last table (after the last blank line): validate's summary per kind."""
    cut = max((i for i, line in enumerate(lines) if not line.strip()), default=-1)
    return lines[cut + 1:]


QUESTIONS = (
    Question("How much memory does serving Llama-3.1-70B take, and does it fit on one H100?",
             "mlsysym eval ServingScenario --from Llama3_70B_Fp8ServingH100 --set batch_size=8 "
             "result.model_weights_size result.kv_cache_size result.total_memory_required fits",
             _until("workload:"),
             "At FP8, 8 requests of 2,048 tokens fit its 80 GiB; at FP16 the weights alone do not "
             "(`mlsysym show Llama3_70B_ServingH100`)."),
    Question("How fast does it decode, and what limits it?",
             "mlsysym show Llama3_70B_Fp8DecodeH100 result.memory_time result.compute_time result.bottleneck",
             _until("workload:"),
             "Each token streams every weight once: memory-bound, so batching raises throughput almost for free "
             "(`mlsysym solve Llama3_70B_Fp8DecodeH100 --for batch_size --where "
             "result.compute_time=result.memory_time`)."),
    Question("What is the fastest layout to train a 530B model on 2,240 to 4,096 A100s?",
             "mlsysym search Megatron530BSeqSelective --vary tp=1,2,4,8 --vary pp=1,3,5,7,15,21,35,105 "
             "--vary dp=1..512 --vary micro_batch=1,2,4 --where 'tp * pp * dp >= 2240' "
             "--where 'tp * pp * dp <= 4096' --minimize iteration_time --top 3",
             lambda lines: [line for line in lines if not line.startswith("  ")],
             "Layouts that do not fit memory or split layers unevenly are skipped, with the reason counted."),
    Question("What does a model need, read from its Hugging Face config.json?",
             "mlsysym describe examples/Mixtral-8x7B/config.json --context 32768 --batch 4",
             _until("memory to serve counts"),
             "Weights and KV cache only; no network, no weights downloaded."),
    Question("How accurate is it?",
             "mlsysym validate",
             _from_blank,
             "Against published runs (Megatron-LM on A100s, TensorRT-LLM; symbolic/catalog/measurements.toml): the "
             "times are measured, the memory rows are the paper's own formula figures (hence 0.0 %); two efficiency "
             "figures are fitted, their leave-one-out errors in `mlsysym validate --fit`."),
)

LONGEST = 16  # lines of output a question may print: half a screen with its heading and command


def answer(question: Question) -> list[str]:
    """The command's output, kept to what answers the question (and how much was left out)."""
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        status = cli(shlex.split(question.command)[1:])
    if status != 0:
        raise SystemExit(f"demo: `{question.command}` exited with {status}")
    lines = captured.getvalue().rstrip("\n").splitlines()
    kept = question.keep(lines)
    left = len(lines) - len(kept)
    return kept + ([f"(… {left} more line{'s' if left != 1 else ''} of the full output)"] if left else [])


def main(argv: list[str] | None = None) -> None:
    if "--all" in (sys.argv[1:] if argv is None else argv):
        return every_entry()
    for number, question in enumerate(QUESTIONS, start=1):
        print(f"{number}. {question.asks}")
        print(f"$ {question.command}")
        print("\n".join(answer(question)))
        if question.says:
            print(f"→ {question.says}")
        print()
    print(SITE)
    return None


def every_entry() -> None:
    """Every named scenario's outputs, with units: the same table as ``mlsysym show NAME``."""
    for key, scenario in Scenarios.items():
        print(f"{key} ({type(scenario).__name__}): {scenario.name}")
        rows = [(path, shown(value, unit)) for path, (value, unit) in outputs_of(scenario).items()]
        print(table(rows, ("output", "value")))
        print()


if __name__ == "__main__":
    main()
