"""The pre-commit hook (.pre-commit-hooks.yaml, id `sahab-check`): `sahab check` on the stacks a commit touches.

    sahab-precommit [--fail-on mandatory|advisory] FILE ...

pre-commit starts it in the repository's root. As a console script its sys.path starts at the script's own
folder, and each check runs as `python -P -m sahab check` (no current folder on sys.path), so no module of the
checked repository (a `sahab/` package, an `argparse.py`) stands in for Sahab's or the standard library's.

pre-commit passes the changed files. Each belongs to the Pulumi program whose Pulumi.yaml is the nearest one
above it (none: not ours, skipped). A changed `Pulumi.<stack>.yaml` in the program's stack config folder checks
that stack; any other changed file of the program (its code, its policy config) checks every stack it has.
Exit 1 when a check fails (mandatory violations; with --fail-on advisory, any violation), 2 on bad input.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

PROJECT_FILES = ("Pulumi.yaml", "Pulumi.yml")


def program_of(path: Path) -> Path | None:
    """The nearest folder at or above `path` holding a Pulumi project file."""
    for folder in [path.parent, *path.parent.parents]:
        if any((folder / name).is_file() for name in PROJECT_FILES):
            return folder
    return None


def stacks_to_check(files: list[str]) -> dict[Path, set[str]]:
    """program folder -> the stacks to check there, from the changed files."""
    from sahab.project import find_project

    wanted: dict[Path, set[str]] = {}
    for name in files:
        path = Path(name).resolve()
        program = program_of(path)
        if program is None:
            continue
        project = find_project(program)
        every = {p.name.split(".")[1] for p in project.stack_config_dir.glob("Pulumi.*.yaml")}
        stacks = wanted.setdefault(program, set())
        if path.parent == project.stack_config_dir and path.name.startswith("Pulumi.") and path.name.count(".") == 2:
            stack = path.name.split(".")[1]
            if stack in every:  # a deleted stack file has nothing left to check
                stacks.add(stack)
        else:
            stacks |= every
    return {program: stacks for program, stacks in wanted.items() if stacks}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sahab-check (pre-commit)", description=__doc__.split("\n\n")[0])
    parser.add_argument("--fail-on", choices=("mandatory", "advisory"), default="mandatory",
                        help="fail on mandatory violations only (default) or on any violation")
    parser.add_argument("files", nargs="*", metavar="FILE")
    args = parser.parse_args(argv)
    try:
        targets = stacks_to_check(args.files)
    except Exception as exc:  # a broken Pulumi.yaml: one `error:` line
        from sahab.errors import report_error

        return report_error(exc)
    failed = False
    for program, stacks in sorted(targets.items()):
        for stack in sorted(stacks):
            # -P: the folder it starts in (the repository) is not put first on sys.path, as plain -m would
            command = [sys.executable, "-P", "-m", "sahab", "check", "--quiet", "--stack", stack,
                       "--program", str(program)]
            if args.fail_on == "advisory":
                import json

                done = subprocess.run([*command, "--format", "json"], capture_output=True, text=True, check=False)
                if done.returncode >= 2:
                    sys.stderr.write(done.stderr)
                    return done.returncode
                summary = json.loads(done.stdout)["summary"]
                bad = summary["violations"] > 0
                if bad:
                    subprocess.run([c for c in command if c != "--quiet"], check=False)  # advisory ones too
            else:
                done = subprocess.run(command, capture_output=True, text=True, check=False)
                if done.returncode >= 2:
                    sys.stderr.write(done.stderr)
                    return done.returncode
                bad = done.returncode != 0
                if bad:
                    sys.stdout.write(done.stdout)  # only a failing stack's report: a passing one stays quiet
            failed |= bad
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
