"""mlsysym: the scenarios from a shell (the top layer, with ``symbolic.generate``).

How it works
------------
``build_parser`` wires one subcommand to each ``cmd_*`` handler of ``commands.py``;
``values.py`` reads ``--set``/``--vary`` text into validated inputs, ``search.py`` runs the
design-space search, ``output.py`` and ``describe.py`` print tables (or ``--json``).
Evaluation commands (list, show, eval, sweep, sensitivity, compare) use only the generated
runtime and never import sympy; derivation commands (explain, solve, scaling) load the
symbolic declarations (``symbolic.analysis``, ``symbolic.codegen.explain``), imported
inside those commands so the others start without sympy. ``calibration.py`` is ``mlsysym calibrate`` (the measuring itself is ``symbolic.calibration``) and
``validate --here``; ``validate.py`` is ``mlsysym validate``, the measured runs against their predictions.
``demo.py`` is ``make demo``.
Exit status: 0 success, 2 bad usage or input, 1 internal error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from symbolic.cli.calibration import add_calibrate_parser
from symbolic.cli.commands import (
    cmd_compare,
    cmd_eval,
    cmd_explain,
    cmd_list,
    cmd_scaling,
    cmd_sensitivity,
    cmd_show,
    cmd_solve,
    cmd_sweep,
)
from symbolic.cli.output import outputs_of, shown, table
from symbolic.cli.search import add_parser as add_search_parser
from symbolic.cli.validate import add_parser as add_validate_parser
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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (also the source of the generated CLI reference page)."""
    parser = argparse.ArgumentParser(prog="mlsysym", description=__doc__.split("\n")[0],
                                     epilog=EPILOG, formatter_class=_Formatter)
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, handler: Any, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text, formatter_class=_Formatter)
        sub.register("action", None, _Once)  # every single-valued option refuses a second value
        sub.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON instead of tables")
        sub.set_defaults(handler=handler)
        return sub

    sub = command("list", cmd_list, "list the named scenarios and the scenario classes, one class's inputs "
                                    "and outputs, or a catalog's entries")
    sub.add_argument("name", nargs="?", help="a scenario class or registry name (its inputs and outputs), or a "
                                             "catalog: Hardware, Models, Datasets, Systems, Constants")
    sub = command("show", cmd_show, "the outputs of a named scenario (all, or those named), with their units")
    sub.add_argument("name", help="a registry name, e.g. MnistTwoLayerTrainingStepOnH100")
    sub.add_argument("outputs", nargs="*", metavar="OUTPUT",
                     help="output paths or their prefixes, e.g. compute_time host op_flops[relu] (default: all)")
    def settings(sub: argparse.ArgumentParser, held: bool = False) -> None:
        """``--set``, read for every command that takes it by the same code as for ``eval``."""
        sub.add_argument("--set", action="append", metavar="NAME=VALUE",
                         help=("an input held at this value (the others grow): " if held else "an input: ")
                         + "64, 1e7, 10us, '3.35 TB/s', 784,128,10, H100, MNIST, fp16_dense, none, or @FILE "
                           "read by the input's kind (workload=@config.json: a Hugging Face config)")

    on_entry = "a registry name, or a scenario class with its inputs given by --set"
    sub = command("eval", cmd_eval, "evaluate a scenario class with inputs set on the command line")
    sub.add_argument("scenario", help="a scenario class, or a registry name (its class, starting from its inputs)")
    sub.add_argument("--from", dest="base", help="start from this registry entry's inputs (of the same class)")
    settings(sub)
    sub = command("explain", cmd_explain, "definition -> closed form -> numbers substituted -> result")
    sub.add_argument("name", help=on_entry)
    sub.add_argument("output", help="an output path, e.g. compute_time, host.overhead_ratio, result.rate[host]")
    settings(sub)
    sub = command("sweep", cmd_sweep, "evaluate a grid of input values through the vectorised evaluator")
    sub.add_argument("name", help=on_entry + " (the inputs not varied)")
    settings(sub)
    sub.add_argument("--vary", action="append", required=True, metavar="NAME=RANGE",
                     help="a..b (step 1), a..b:step=S, a..b:log2, a..b:lin=N, a..b:log=N, or v1,v2,...; "
                          "values may carry units: dispatch=1us..10us:lin=4, dispatch=1us,5us")
    sub.add_argument("--outputs", help="comma-separated output paths (default: all)")
    sub.add_argument("--out", help="write FILE.csv or FILE.json (default: print the first rows)")
    add_search_parser(command)
    sub = command("solve", cmd_solve, "solve an output equation for an input, exactly")
    sub.add_argument("name", help=on_entry + " (the other inputs' values)")
    sub.add_argument("--for", dest="unknown", required=True, help="the input to solve for")
    sub.add_argument("--where", required=True, metavar="OUTPUT=VALUE",
                     help="e.g. compute_time=memory_time or total=8GiB")
    settings(sub)
    sub = command("sensitivity", cmd_sensitivity, "exact derivatives and elasticities of an output, ranked")
    sub.add_argument("name", help=on_entry)
    sub.add_argument("output", help="an output path")
    settings(sub)
    sub = command("scaling", cmd_scaling, "leading-order growth of an output in each input")
    sub.add_argument("scenario", help="a scenario class or registry name (growth is the class's), or either with "
                                      "--set holding inputs at values")
    sub.add_argument("output", help="an output path")
    settings(sub, held=True)
    sub = command("compare", cmd_compare, "what changed between two scenarios of one class, and why")
    sub.add_argument("a", help="a registry name")
    sub.add_argument("b", nargs="?", help="a registry name of the same class (default: a itself, with --set)")
    sub.add_argument("--set", action="append", metavar="NAME=VALUE",
                     help="an input of b changed: compare a against b (or a) with these values")
    add_calibrate_parser(command)
    add_validate_parser(command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # exits with 2 on bad usage

    try:
        return args.handler(args)
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
