"""`sahab train`: the workload image's own command (workloads/commands/train.py), served by the sahab CLI too.

The image runs `python -m workloads train` and carries no `sahab`; this module only delegates, so both
entrypoints parse and behave alike."""

from sahab.workloads.commands.train import HELP, add_arguments, run

__all__ = ["HELP", "add_arguments", "run"]
