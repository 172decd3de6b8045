"""The corpus of third-party programs: where they are, what each is expected to give, and how to record it.

Each program lives in `tests/e2e/corpus/<source>/<program>/` with its `SOURCE` (repository, path, commit, what
was vendored and what was added) and `expected.json`:

    {"exit_code": 1,                       # what `sahab check --stack dev` exits with
     "resources": {"aws:s3/bucketV2:BucketV2": 1, ...},   # planned resources by type (exit 0/1)
     "residency": "fails" | "passes" | null,              # residency verdict (null: nothing placed)
     "residency_rules": ["cloud-all-resource-edge-service-forbidden", ...],  # the residency rules that failed
     "error": "..."}                       # exit 2: what the one `error:` line says

`python -m tests.e2e.corpus.corpus [--installed PATH/TO/bin/sahab] [PROGRAM_DIR ...]` re-records expected.json from
what the engine answers now; review the diff before committing it. The test's first run is Sahab installed from
its wheel (a program with no virtualenv runs on that environment, whose packages are the runtime lock's), so
record with `--installed` pointing at such an installation's `sahab` (the test's `wheel_venv`, which a run under
xdist keeps in its temporary folder: /tmp/pytest-of-$USER/pytest-N/shared/wheel-venv/) for programs whose answer
depends on what is installed beside Sahab.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

CORPUS = Path(__file__).resolve().parent
STACK = "dev"


def programs() -> list[Path]:
    return sorted(p.parent for p in CORPUS.rglob("SOURCE"))


def residency_rules() -> set[str]:
    from sahab.policies.core import all_rules

    return {r.name for r in all_rules() if r.residency}


def check(program: Path) -> tuple[int, dict | None, str]:
    """Run `sahab check --format json` on a program: exit code, the JSON report (None on exit 2), stderr."""
    from sahab.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["check", "--program", str(program), "--stack", STACK, "--format", "json"])
    text = out.getvalue()
    return code, (json.loads(text) if text.strip() else None), err.getvalue()


def check_installed(program: Path, sahab: Path, cwd: Path) -> tuple[int, dict | None, str]:
    """`sahab check --format json` as an installed Sahab runs it (the console script `sahab`), from `cwd`."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([str(sahab), "check", "--program", str(program), "--stack", STACK, "--format", "json"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False)
    return done.returncode, (json.loads(done.stdout) if done.stdout.strip() else None), done.stderr


def check_again(program: Path) -> tuple[dict[str, int], list[dict]]:
    """A second, independent run through the library: planned resource types and the violations found."""
    from sahab.engine import plan_phases
    from sahab.policy_check import check_plan

    preview, update = plan_phases(program, STACK)
    counts = Counter(r.type for r in preview.resources if r.type != "pulumi:pulumi:Stack")
    return dict(sorted(counts.items())), check_plan(preview, update=update).contract()["violations"]


def observe(program: Path, checked: tuple[int, dict | None, str] | None = None,
            again: tuple[dict[str, int], list[dict]] | None = None, python: str = sys.executable) -> dict:
    """What the engine answers for a program now, in the shape of expected.json (`python`: the interpreter that
    ran the programs, shown as PYTHON)."""
    code, report, err = checked or check(program)
    doc: dict = {"exit_code": code}
    if code == 2:
        doc["error"] = next((line for line in err.splitlines() if line.startswith("error:")), "")
        doc["error"] = doc["error"].replace(str(program) + "/", "").replace(python, "PYTHON")
        return doc
    doc["resources"] = (again or check_again(program))[0]
    residency = residency_rules()
    placed = any(t.startswith(("aws:", "azure-native:")) for t in doc["resources"])
    failed = sorted({v["policy"] for v in report["violations"]
                     if v["policy"] in residency and v["enforcement"] == "mandatory"})
    doc["residency"] = ("fails" if failed else "passes") if placed else None
    if failed:
        doc["residency_rules"] = failed  # which residency rules: a place abroad, or a global edge service
    return doc


def main(argv: list[str]) -> int:
    installed = None
    if argv[:1] == ["--installed"]:
        installed, argv = Path(argv[1]), argv[2:]
    for program in [Path(a).resolve() for a in argv] or programs():
        if installed is None:
            doc = observe(program)
        else:
            checked = check_installed(program, installed, Path(tempfile.gettempdir()))
            doc = observe(program, checked, python=str(installed.parent / "python"))
        (program / "expected.json").write_text(json.dumps(doc, indent=1) + "\n")
        print(program.relative_to(CORPUS), doc["exit_code"], doc.get("residency"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
