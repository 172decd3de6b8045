"""The adversarial corpus: small real Pulumi programs that try to move data out of the UAE (or leave it
unencrypted), and compliant look-alikes that must not be flagged.

Each program under `tests/policies/adversarial/<name>/` declares what `sahab check` must find in its header:
`# expect: <policy> <resource name>` once per mandatory violation that must name the leaking resource, or
`# expect: pass` for a compliant program (exit 0, no mandatory violation at all). `# xfail: <reason>` marks a
program whose right verdict needs an engine capability the offline engine lacks today (strict: it fails the
suite once the engine catches up). All programs run in this one process through `sahab.policy_check`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sahab.engine import plan
from sahab.policy_check import check_plan

CORPUS = Path(__file__).resolve().parent / "adversarial"
PROGRAMS = sorted(p.parent for p in CORPUS.glob("*/__main__.py"))


def expectations(program: Path) -> tuple[list[tuple[str, str]], str | None]:
    text = (program / "__main__.py").read_text()
    expected = []
    for line in re.findall(r"^# expect: (.+)$", text, re.M):
        if line.strip() != "pass":
            policy, name = line.split()
            expected.append((policy, name))
    xfail = re.search(r"^# xfail: (.+)$", text, re.M)
    return expected, xfail.group(1) if xfail else None


def _param(program: Path):
    _, xfail = expectations(program)
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(program, id=program.name, marks=marks)


def test_corpus_is_large_and_balanced():
    kinds = [bool(expectations(p)[0]) for p in PROGRAMS]
    assert len(PROGRAMS) >= 60
    assert sum(kinds) >= 35 and len(kinds) - sum(kinds) >= 15  # leaks, and compliant look-alikes


@pytest.mark.parametrize("program", [_param(p) for p in PROGRAMS])
def test_program_verdict(program):
    expected, _ = expectations(program)
    result = check_plan(plan(program, "dev"))
    mandatory = {(v.policy, v.name) for v in result.mandatory}
    if expected:
        missing = [e for e in expected if e not in mandatory]
        assert not missing, f"not reported: {missing}; mandatory found: {sorted(mandatory)}"
        assert result.exit_code == 1
    else:
        assert (result.exit_code, sorted(mandatory)) == (0, [])
