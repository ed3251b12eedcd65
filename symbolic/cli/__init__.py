"""mlsysym: the scenarios from a shell (the top layer, with ``symbolic.generate``).

How it works
------------
``build_parser`` declares every subcommand and its options, and names its handler as
``module:function`` of this package; ``main`` loads that module only when the command runs, so
each command imports only what it needs, at the top of its module: ``commands.py`` the evaluation
commands (list, show, eval, sweep, sensitivity, compare: the generated runtime only, no sympy),
``derivation.py`` explain, solve and scaling (the symbolic declarations: sympy, the ``generator``
extra), ``search.py`` the design-space search, ``calibration.py`` ``mlsysym calibrate`` and
``validate --here`` (the probes of ``symbolic.calibration``: numpy), ``validate.py`` ``mlsysym
validate``, the measured runs against their predictions (``runs.py``, ``fits.py``: the catalog's
record types). ``values.py`` reads ``--set``/``--vary`` text into validated inputs; ``output.py``
and ``describe.py`` print tables (or ``--json``). ``demo.py`` is ``make demo``.
Exit status: 0 success, 2 bad usage or input, 1 internal error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

from symbolic.cli.output import outputs_of, shown, table
from symbolic.cli.search import add_parser as add_search_parser
from symbolic.cli.usage import UsageError
from symbolic.cli.values import build, parse_setting, parse_vary
from symbolic.runtime.errors import MlsysymError

__all__ = ["UsageError", "build", "build_parser", "main", "outputs_of", "parse_setting", "parse_vary", "shown",
           "table"]

EPILOG = """examples:
  mlsysym list MlpTrainingStepScenario
  mlsysym list Models
  mlsysym show MnistTwoLayerTrainingStepOnH100
  mlsysym show MnistTwoLayerTrainingStepOnH100 compute_time memory_time host
  mlsysym show Hardware.Cloud.H100
  mlsysym show Models.Language.Llama3_70B --context 32768 --batch 8
  mlsysym describe path/to/config.json --precision fp8
  mlsysym eval MlpTrainingStepScenario --from MnistTwoLayerTrainingStepOnH100 --set batch_size=64 --set hardware=B200
  mlsysym eval DecodeScenario --from Llama3_70B_DecodeH100 --set workload=Llama3_8B
  mlsysym eval DecodeScenario --from Llama3_70B_DecodeH100 --set workload=@path/to/config.json
  mlsysym sweep MnistTwoLayerTrainingStepOnH100 --vary batch_size=1..4096:log2 --outputs compute_time,memory_time --out sweep.csv
  mlsysym search Llama2_70B_DecodeH100 --vary hardware=Cloud.* --vary tp_size=1..8:log2 \\
      --where 'result.weight_bytes <= hardware.memory_capacity' --minimize 'hardware.unit_cost * tp_size'
  mlsysym solve MnistTwoLayerTrainingStepOnH100 --for batch_size --where compute_time=memory_time
  mlsysym solve PhoneFullUpdateWorkingSet --for parameters --where total=8GiB
  mlsysym sensitivity MnistEpochCpuVersusH100 'result.total_time[accelerator]'
  mlsysym scaling UpdateWorkingSetScenario total
  mlsysym solve Llama3_70B_DecodeH100 --set workload=Llama3_8B --for batch_size --where result.compute_time=result.memory_time
  mlsysym compare MnistDenseNetwork MnistDenseNetworkLargeBatch
  mlsysym calibrate --quick --out node.toml
  mlsysym eval MlpTrainingStepScenario --from MnistTwoLayerTrainingStepOnH100 --set hardware=@node.toml
"""


# -- the parser -----------------------------------------------------------------------------
class _Formatter(argparse.RawDescriptionHelpFormatter):
    """A fixed width, so the help (and the generated CLI page) does not depend on the terminal."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=100, max_help_position=32)


class _Once(argparse._StoreAction):
    """An option that takes one value: given twice, argparse would keep the last in silence
    (``--outputs a --outputs b`` printed only b, ``--top 3 --top 1`` one row); a usage error instead."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        seen = namespace.__dict__.setdefault("_given_once", set())
        if option_string is not None and self.dest in seen:
            parser.error(f"{'/'.join(self.option_strings)} is given twice; give it once")
        seen.add(self.dest)
        super().__call__(parser, namespace, values, option_string)


def add_serving_options(sub: argparse.ArgumentParser) -> None:
    """The context, batch and precision a workload is sized at (``show Models.X``, ``describe``)."""
    sub.add_argument("--context", type=int, default=8192, metavar="TOKENS",
                     help="tokens cached per sequence for the memory to serve (default 8192)")
    sub.add_argument("--batch", type=int, default=1, metavar="B", help="sequences served at once (default 1)")
    sub.add_argument("--precision", default="bf16", metavar="P",
                     help="width of weights and KV cache for the memory to serve: fp32, bf16, fp8, int4, ... "
                          "(default bf16)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (also the source of the generated CLI reference page)."""
    parser = argparse.ArgumentParser(prog="mlsysym", description=__doc__.split("\n")[0],
                                     epilog=EPILOG, formatter_class=_Formatter)
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, handler: str, help_text: str) -> argparse.ArgumentParser:
        """A subcommand whose ``handler`` is ``module:function`` of this package (loaded when it runs)."""
        sub = commands.add_parser(name, help=help_text, description=help_text, formatter_class=_Formatter)
        sub.register("action", None, _Once)  # every single-valued option refuses a second value
        sub.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON instead of tables")
        sub.set_defaults(handler=handler)
        return sub

    sub = command("list", "commands:cmd_list", "list the named scenarios and the scenario classes, one class's inputs "
                                    "and outputs, or a catalog's entries")
    sub.add_argument("name", nargs="?", help="a scenario class or registry name (its inputs and outputs), or a "
                                             "catalog: Hardware, Models, Datasets, Systems, Constants")
    sub = command("show", "commands:cmd_show", "a named scenario's inputs and outputs (all, or those named), with "
                                               "their units; or a catalog entry's fields")
    sub.add_argument("name", help="a registry name, e.g. MnistTwoLayerTrainingStepOnH100, or a catalog entry, e.g. "
                                  "Hardware.Cloud.H100, Models.Language.Llama3_70B")
    sub.add_argument("outputs", nargs="*", metavar="OUTPUT",
                     help="output paths or their prefixes, e.g. compute_time host op_flops[relu] (default: all)")
    add_serving_options(sub)
    sub = command("describe", "records:cmd_describe",
                  "a Hugging Face config.json: parameters, active parameters, KV bytes per token, weights at each "
                  "precision, memory to serve it at a context and batch")
    sub.add_argument("config", help="path to a config.json (no network, no weights)")
    add_serving_options(sub)
    def settings(sub: argparse.ArgumentParser, held: bool = False) -> None:
        """``--set``, read for every command that takes it by the same code as for ``eval``."""
        sub.add_argument("--set", action="append", metavar="NAME=VALUE",
                         help=("an input held at this value (the others grow): " if held else "an input: ")
                         + "64, 1e7, 10us, '3.35 TB/s', 784,128,10, H100, MNIST, fp16_dense, none, or @FILE "
                           "read by the input's kind (workload=@config.json: a Hugging Face config)")

    on_entry = "a registry name, or a scenario class with its inputs given by --set"
    sub = command("eval", "commands:cmd_eval", "evaluate a scenario class with inputs set on the command line")
    sub.add_argument("scenario", help="a scenario class, or a registry name (its class, starting from its inputs)")
    sub.add_argument("outputs", nargs="*", metavar="OUTPUT",
                     help="output paths or their prefixes, as show takes them (default: all)")
    sub.add_argument("--from", dest="base", help="start from this registry entry's inputs (of the same class)")
    settings(sub)
    sub = command("explain", "derivation:cmd_explain", "definition -> closed form -> numbers substituted -> result")
    sub.add_argument("name", help=on_entry)
    sub.add_argument("output", help="an output path, e.g. compute_time, host.overhead_ratio, result.rate[host]")
    settings(sub)
    sub = command("sweep", "commands:cmd_sweep", "evaluate a grid of input values through the vectorised evaluator")
    sub.add_argument("name", help=on_entry + " (the inputs not varied)")
    settings(sub)
    sub.add_argument("--vary", action="append", required=True, metavar="NAME=RANGE",
                     help="a..b (step 1), a..b:step=S, a..b:log2, a..b:lin=N, a..b:log=N, or v1,v2,...; "
                          "values may carry units: dispatch=1us..10us:lin=4, dispatch=1us,5us")
    sub.add_argument("--outputs", help="comma-separated output paths (default: all)")
    sub.add_argument("--out", help="write FILE.csv or FILE.json (default: print the first rows)")
    add_search_parser(command)
    sub = command("solve", "derivation:cmd_solve", "solve an output equation for an input, exactly")
    sub.add_argument("name", help=on_entry + " (the other inputs' values)")
    sub.add_argument("--for", dest="unknown", required=True, help="the input to solve for")
    sub.add_argument("--where", required=True, metavar="OUTPUT=VALUE",
                     help="e.g. compute_time=memory_time or total=8GiB")
    settings(sub)
    sub = command("sensitivity", "commands:cmd_sensitivity", "exact derivatives and elasticities of an output, ranked")
    sub.add_argument("name", help=on_entry)
    sub.add_argument("output", help="an output path")
    settings(sub)
    sub = command("scaling", "derivation:cmd_scaling", "leading-order growth of an output in each input")
    sub.add_argument("scenario", help="a scenario class or registry name (growth is the class's), or either with "
                                      "--set holding inputs at values")
    sub.add_argument("output", help="an output path")
    settings(sub, held=True)
    sub = command("compare", "commands:cmd_compare", "what changed between two scenarios of one class, and why")
    sub.add_argument("a", help="a registry name")
    sub.add_argument("b", nargs="?", help="a registry name of the same class (default: a itself, with --set)")
    sub.add_argument("--set", action="append", metavar="NAME=VALUE",
                     help="an input of b changed: compare a against b (or a) with these values")
    sub = command("calibrate", "calibration:cmd_calibrate",
                  "measure this machine (matmul, STREAM, cache points, host costs, allocation) into a node file")
    sub.add_argument("--quick", action="store_true", help="3 short blocks per figure (under a minute) instead of 7")
    sub.add_argument("--threads", metavar="N,M", help="BLAS/STREAM thread counts to measure; the first is the "
                                                      "node's (default 1,2 on two or more cores)")
    sub.add_argument("--out", metavar="FILE", help="write the node file here (default: print it only)")
    sub.add_argument("--force", action="store_true",
                     help="write the node file even when the run is refused, its verdict saying why")
    sub.add_argument("--max-load", type=float, default=None, metavar="X",
                     help="refuse when other processes keep the load average above X per core (default 0.75)")
    sub.add_argument("--max-spread", type=float, default=None, metavar="X",
                     help="refuse when a headline figure's blocks spread more than X (default 0.25)")
    sub = command("validate", "validate:cmd_validate",
                  "predicted against measured: every published run (symbolic/catalog/measurements.toml, and "
                  "--file RUNS.toml) predicted from the equations; --here runs the scenarios' workloads on this "
                  "machine")
    sub.add_argument("--file", action="append", default=[], metavar="RUNS.toml",
                     help="also predict the runs of this file ([[run]] tables in the form of measurements.toml); "
                          "repeatable")
    sub.add_argument("--only", action="store_true", help="predict only the --file runs, not the project's own")
    sub.add_argument("--fit", action="store_true",
                     help="also refit the fitted efficiency figures on their declared runs, with leave-one-out errors")
    sub.add_argument("--search", action="store_true",
                     help="also search the fastest layout of the 530B model on 2,240 to 4,096 A100s that fits memory")
    sub.add_argument("--here", action="store_true",
                     help="run the workloads here (MLP step, Adam, roofline kernels, fusion chains, an epoch) "
                          "between calibration blocks and set each against its prediction")
    sub.add_argument("--suite", metavar="A,B", help="suites to run (default all: mlp,adam,roofline,fusion,epoch)")
    sub.add_argument("--node", metavar="FILE", help="the node file to predict with (default: a quick calibration "
                                                    "first, written nowhere)")
    sub.add_argument("--out", metavar="FILE", help="also write the rows and summary as JSON here")
    sub.add_argument("--force", action="store_true",
                     help="with --here: measure on a loaded machine, and accept a run whose conditions (load, "
                          "the calibration's verdict, drift) say its errors cannot be trusted (exit 0)")
    return parser


def handler(spec: str) -> Callable[[argparse.Namespace], int]:
    """The function ``module:function`` of this package names, its module imported now."""
    module, _, function = spec.partition(":")
    # start-up: a command loads its own module (sympy, numpy or the catalog) only when it runs
    return getattr(importlib.import_module(f"symbolic.cli.{module}"), function)  # type: ignore[no-any-return]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)  # exits with 2 on bad usage
    if extra:  # output names after an option (`eval X --set a=1 out1`): argparse leaves them over
        if getattr(args, "outputs", None) is None or any(item.startswith("-") for item in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.outputs = [*args.outputs, *extra]

    try:
        return handler(args.handler)(args)
    except (UsageError, MlsysymError) as error:
        print(f"mlsysym: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except Exception as error:  # an internal error: say so, with the type, for the bug report
        print(f"mlsysym: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
