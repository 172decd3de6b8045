"""Real third-party Pulumi programs (tests/e2e/corpus/<source>/<program>/): `sahab check` gives each the expected
verdict, plans the expected resources, and gives the same answer on a second run.

The first run is Sahab as a user installs it (the wheel in a fresh virtualenv, its `sahab` command, started
outside this checkout); the second is this checkout's library. Two checks per program, a few seconds each."""

import json

import pytest

from tests.e2e.corpus.corpus import CORPUS, check_again, check_installed, observe, programs

# Its programs fork from warm hosts (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("warm_program_hosts")

PROGRAMS = programs()


@pytest.fixture(scope="session")
def installed(wheel_venv, tmp_path_factory):
    return wheel_venv / "bin" / "sahab", tmp_path_factory.mktemp("elsewhere")


@pytest.mark.slow
@pytest.mark.parametrize("program", PROGRAMS, ids=[str(p.relative_to(CORPUS)) for p in PROGRAMS])
def test_a_third_party_program_gets_its_expected_verdict_every_time(program, installed):
    expected = json.loads((program / "expected.json").read_text())
    sahab, elsewhere = installed
    python = str(sahab.parent / "python")
    first = check_installed(program, sahab, elsewhere)  # as a user runs it: `sahab check --format json`
    assert "Traceback" not in first[2] and "Exception ignored" not in first[2]
    if expected["exit_code"] == 2:  # one error line, naming the program's own file
        assert observe(program, first, python=python) == expected
        errors = [line for line in first[2].splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and errors[0].startswith(f"error: {program}/")
        return
    again = check_again(program)  # a second, independent run through this checkout's library
    assert observe(program, first, again, python=python) == expected
    assert again[1] == first[1]["violations"]


EDGE_RULE = "cloud-all-resource-edge-service-forbidden"


def test_the_corpus_is_large_and_judges_placement():
    sources = [p for p in PROGRAMS if "pulumi/examples" in (p / "SOURCE").read_text()]
    assert len(sources) >= 30
    verdicts = [json.loads((p / "expected.json").read_text()) for p in sources]
    planned = [v for v in verdicts if v["exit_code"] in (0, 1)]
    assert len(planned) / len(verdicts) >= 0.85
    outside = [p for p in sources if not p.name.endswith("-uae")]
    inside = [p for p in sources if p.name.endswith("-uae")]
    assert len(inside) >= 5
    for p in outside:
        doc = json.loads((p / "expected.json").read_text())
        assert doc.get("residency") in ("fails", None), p
    for p in inside:
        # Placed in the UAE, only a global edge service (a CDN caches the data worldwide) may still fail residency.
        doc = json.loads((p / "expected.json").read_text())
        assert doc["residency"] == "passes" or doc["residency_rules"] == [EDGE_RULE], p
