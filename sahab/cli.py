"""The `sahab` command line: a thin dispatcher.

Each subcommand lives in `sahab/commands/<name>.py` and exposes `HELP`, `add_arguments(parser)` and
`run(args) -> int`. Command modules import only argparse at module level so `sahab --help` stays fast;
heavy SDKs (pulumi, torch, boto3) are imported inside `run`.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable

from sahab.errors import UsageError, report_error
from sahab.version import version

# The environment variables a user may set, as `sahab --help` lists them (the README repeats them).
ENVIRONMENT = """environment:
  SAHAB_DEBUG=1            print the Python traceback behind an `error:` line (and a program's own output in full)
  SAHAB_PROGRAM_TIMEOUT=S  default --timeout of plan and check: stop a program that runs longer (default 300)
  SAHAB_EVIDENCE_KEY_PASSPHRASE  the passphrase of an encrypted evidence signing key (sahab evidence)
  SOURCE_DATE_EPOCH=T      the time sahab evidence records, so a re-run gives the same bytes
  NO_COLOR=1               no colours in any output (as --no-color); see https://no-color.org"""
NO_COLOR_HELP = "no colours in the output (also: the NO_COLOR environment variable)"

# Order is the order shown in --help.
COMMANDS = ("init", "plan", "check", "doctor", "forwarders", "registry", "audit", "evidence", "bench",
            "node-validate", "train", "completion")


class _Parser(argparse.ArgumentParser):
    """argparse that exits 2 with one `error:` line, as every Sahab command does."""

    def error(self, message: str):
        raise UsageError(f"{self.prog}: {message}")


class _Command(_Parser):
    """One command's parser, its arguments added on first use (parsing its words, its help, completion): a
    command's arguments may import what no other command needs (the registry's take its cluster kinds from the
    registries schema, which imports pydantic), and every run would pay for all of them."""

    def __init__(self, *args, add_arguments: Callable[[argparse.ArgumentParser], None] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self._pending = add_arguments

    def load(self) -> _Command:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending(self)
        return self

    def parse_known_args(self, args=None, namespace=None):
        return super(_Command, self.load()).parse_known_args(args, namespace)

    def format_usage(self) -> str:
        return super(_Command, self.load()).format_usage()

    def format_help(self) -> str:
        return super(_Command, self.load()).format_help()


def _command_arguments(module) -> Callable[[argparse.ArgumentParser], None]:
    def add(cmd: argparse.ArgumentParser) -> None:
        module.add_arguments(cmd)
        # After the command too (`sahab check --no-color`); SUPPRESS keeps a flag given before it.
        cmd.add_argument("--no-color", action="store_true", default=argparse.SUPPRESS, help=NO_COLOR_HELP)

    return add


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="sahab",
        description="Sahab: UAE-resident ML training fleets. Plan, check, audit, benchmark and train.",
        epilog=ENVIRONMENT, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"sahab {version()}",
                        help="print Sahab's version (the CLI's, the policy pack's and the reports') and exit")
    parser.add_argument("--no-color", action="store_true", help=NO_COLOR_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Command)
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"sahab.commands.{name.replace('-', '_')}")
        except ModuleNotFoundError as exc:
            if exc.name != f"sahab.commands.{name.replace('-', '_')}":
                raise
            continue  # a command that is not built yet is simply absent
        cmd = sub.add_parser(name, help=module.HELP, description=module.HELP,
                             add_arguments=_command_arguments(module))
        cmd.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.no_color:
            os.environ["NO_COLOR"] = "1"  # rich's consoles (and what the commands start) honour it
        if getattr(args, "_module", None) is None:
            build_parser().print_help()
            return 2
        return int(args._module.run(args) or 0)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BaseException as exc:
        if isinstance(exc, SystemExit):
            return int(exc.code or 0) if isinstance(exc.code, int) else 2
        return report_error(exc)


def entry() -> int:
    """The `sahab` command (its script and `python -m sahab`): main() in a process of its own, which may end what
    the programs it checks leave running (sahab.strays)."""
    from sahab import strays

    strays.own_process()
    return main()


if __name__ == "__main__":
    sys.exit(entry())
