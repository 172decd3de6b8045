"""`sahab bench`: the workload image's own command (workloads/commands/bench.py), served by the sahab CLI too.

The image runs `python -m workloads bench` and carries no `sahab`; this module only delegates, so both
entrypoints parse and behave alike."""

from sahab.workloads.commands.bench import HELP, add_arguments, run

__all__ = ["HELP", "add_arguments", "run"]
