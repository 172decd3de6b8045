"""`sahab node-validate`: the workload image's own command (workloads/commands/node_validate.py), served by
the sahab CLI too.

The image runs `python -m workloads node-validate` and carries no `sahab`; this module only delegates, so both
entrypoints parse and behave alike."""

from sahab.workloads.commands.node_validate import HELP, add_arguments, run

__all__ = ["HELP", "add_arguments", "run"]
