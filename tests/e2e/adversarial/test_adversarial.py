"""The adversarial corpus: small real Pulumi programs that try to move data out of the UAE (or leave it
unencrypted), and compliant look-alikes that must not be flagged.

Each program under `tests/e2e/adversarial/programs/<name>/` declares what `sahab check` must find in its header:
`# expect: <policy> <resource name>` once per mandatory violation that must name the leaking resource, or
`# expect: pass` for a compliant program (exit 0, no mandatory violation at all). `# xfail: <reason>` marks a
program whose right verdict needs an engine capability the offline engine lacks today (strict: it fails the
suite once the engine catches up). Each program is planned once, in the engine's worker processes, two at a time
(the test machines have two cores), each run forked from a warm host that has imported the SDKs once
(`warm_hosts`), and every test reads the shared plans; the checks run in this process through
`sahab.policy_check`. The first test to ask for the plans (alphabetically, chart_claim_on_stack_class) carries
the time of all of them in its setup."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sahab.engine import plan, warm_hosts
from sahab.policy_check import check_plan

CORPUS = Path(__file__).resolve().parent / "programs"
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
    assert len(PROGRAMS) >= 160
    assert sum(kinds) >= 80 and len(kinds) - sum(kinds) >= 50  # leaks, and compliant look-alikes


# The families of issues 25 and 36, by program-name prefix: each has at least three leaks and three look-alikes.
FAMILIES = ("place_", "expo_", "net_", "vol_", "reg_", "egress_", "saas_", "dir_", "open_", "transit_", "chart_")


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_has_three_leaks_and_three_look_alikes(family):
    members = [p for p in PROGRAMS if p.name.startswith(family)]
    leaks = [p for p in members if expectations(p)[0]]
    assert len(leaks) >= 3 and len(members) - len(leaks) >= 3, family


@pytest.fixture(scope="session")
def plans():
    """Every program's plan, made once: the workers are separate processes, so two run side by side."""
    def one(program):
        try:
            return plan(program, "dev")
        except Exception as exc:  # reported by the program's own test
            return exc

    with warm_hosts(), ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(PROGRAMS, pool.map(one, PROGRAMS), strict=True))


@pytest.mark.parametrize("program", [_param(p) for p in PROGRAMS])
def test_program_verdict(program, plans):
    expected, _ = expectations(program)
    planned = plans[program]
    if isinstance(planned, Exception):
        raise planned
    result = check_plan(planned)
    mandatory = {(v.policy, v.name) for v in result.mandatory}
    if expected:
        missing = [e for e in expected if e not in mandatory]
        assert not missing, f"not reported: {missing}; mandatory found: {sorted(mandatory)}"
        assert result.exit_code == 1
    else:
        assert (result.exit_code, sorted(mandatory)) == (0, [])
