"""`python -m sahab ARGS`, keeping the plans it makes: `python -m tests.recorded_cli FILE ARGS`.

The command line runs as `python -m sahab ARGS` runs it, in a process of its own (its exit code, stdout and stderr
are the command's); besides, every plan the engine hands the command (`plan()`, both runs of `plan_phases()`) is
pickled to FILE as it was returned, by phase (`{"preview": Plan, "update": Plan}`). So one run of
`sahab check --stack prod` both judges the command and gives the tests that read prod's update run their plan
(tests/plans.py), where they once planned prod again."""

from __future__ import annotations

import functools
import pickle
import sys
from pathlib import Path


def main(kept: Path, argv: list[str]) -> int:
    from sahab.cli import main as sahab
    from sahab.engine import host

    plans: dict[str, bytes] = {}

    def keep(*found) -> None:
        for planned in found:
            if planned is not None:  # a snapshot: the command may add to a plan after the engine returns it
                plans[planned.phase] = pickle.dumps(planned, protocol=pickle.HIGHEST_PROTOCOL)

    def kept_plan(*args, **kwargs):
        planned = plan(*args, **kwargs)
        keep(planned)
        return planned

    def kept_phases(*args, **kwargs):
        runs = plan_phases(*args, **kwargs)
        keep(*runs)
        return runs

    plan, plan_phases = host.plan, host.plan_phases
    host.plan = functools.wraps(plan)(kept_plan)
    host.plan_phases = functools.wraps(plan_phases)(kept_phases)
    code = sahab(argv)
    kept.write_bytes(pickle.dumps({phase: pickle.loads(data) for phase, data in plans.items()},
                                  protocol=pickle.HIGHEST_PROTOCOL))
    return code


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2:]))
