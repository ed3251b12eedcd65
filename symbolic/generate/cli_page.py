"""The command line's reference page, ``generated/docs/cli.md``, from the ``mlsysym`` parser itself.

It is rendered here, above both the command line and the code generator, because it is
the one generated file that reads the command line (``symbolic.codegen`` sits below it).
"""

from __future__ import annotations

import argparse

from symbolic.cli import build_parser
from symbolic.codegen.environment import environment, header


def cli_commands() -> list[dict[str, str]]:
    """Every command of ``mlsysym`` with its help text, as the parser prints it."""
    parser = build_parser()
    commands = [{"name": "mlsysym", "help": parser.format_help()}]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):  # the subcommands
            for name, sub in action.choices.items():
                commands.append({"name": f"mlsysym {name}", "help": sub.format_help()})
    return commands


def cli_page() -> dict[str, str]:
    return {"generated/docs/cli.md": environment().get_template("cli.md.j2").render(
        header=header("symbolic/cli/__init__.py (build_parser)", "cli.md.j2"), commands=cli_commands())}
