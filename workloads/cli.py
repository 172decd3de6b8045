"""`python -m workloads`: the workload image's entrypoint, a thin dispatcher over `bench`, `train` and
`node-validate` (workloads/commands/<name>.py: `HELP`, `add_arguments(parser)`, `run(args) -> int`).

Everything it runs is importable from the files the Dockerfiles copy (workloads/ alone) plus the image's locked
packages (workloads/requirements.lock): no `sahab`, no `components`, no Pulumi. The `sahab` CLI serves the same
three commands by delegating to these modules."""

from __future__ import annotations

import argparse
import importlib
import sys

from .errors import UsageError, report_error

COMMANDS = ("bench", "node-validate", "train")


class _Parser(argparse.ArgumentParser):
    """argparse that exits 2 with one `error:` line, as every Sahab command does."""

    def error(self, message: str):
        raise UsageError(f"{self.prog}: {message}")


def command_module(name: str):
    return importlib.import_module(f"workloads.commands.{name.replace('-', '_')}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m workloads",
                     description="Sahab's workload: validate this node, record its verdict, train on it.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        module = command_module(name)
        cmd = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(cmd)
        cmd.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if getattr(args, "_module", None) is None:
            parser.print_help()
            return 2
        return int(args._module.run(args) or 0)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BaseException as exc:
        if isinstance(exc, SystemExit):
            return int(exc.code or 0) if isinstance(exc.code, int) else 2
        return report_error(exc)
