"""Property-based: whatever malformed fleet a user writes, the answer is a ConfigError naming a config path
(exit code 2 and one `error:` line from the CLI), never another exception or a traceback."""

import copy
import json
import math
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sahab.components.fleet_config import FleetConfig, parse_fleet

from sahab.cli import main
from sahab.errors import ConfigError
from tests.fleets import ROOT, stack_fleet

# Its programs fork from warm hosts (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("warm_program_hosts")

junk = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def _paths(value, prefix=()):
    """Every location inside a fleet document."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


@st.composite
def malformed_fleets(draw):
    fleet = stack_fleet(draw(st.sampled_from(["dev", "prod", "burst", "smb"])))
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(fleet) if p]
        path = draw(st.sampled_from(paths))
        parent = fleet
        for part in path[:-1]:
            parent = parent[part]
        action = draw(st.sampled_from(["replace", "delete", "unknown-key"]))
        if action == "replace":
            parent[path[-1]] = draw(junk)
        elif action == "delete" and isinstance(parent, dict):
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=10))] = draw(junk)
    return fleet


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(malformed_fleets())
def test_malformed_fleets_fail_only_with_a_config_error_naming_the_path(fleet):
    try:
        result = parse_fleet(copy.deepcopy(fleet))
    except ConfigError as err:
        assert err.path.startswith("sahab:fleet")
        assert "\n" not in str(err)
        assert err.message
    else:
        assert isinstance(result, FleetConfig)


@given(junk)
@settings(max_examples=100, deadline=None)
def test_a_fleet_that_is_not_a_mapping_is_refused(value):
    if isinstance(value, dict):
        return
    with pytest.raises(ConfigError, match=r"^sahab:fleet: must be a mapping"):
        parse_fleet(value)


def _program(tmp_path: Path, stack_doc: str | dict) -> Path:
    """A project folder that runs Sahab's own program with the given stack file, beside the prod stack that
    burst fleets reference."""
    (tmp_path / "Pulumi.yaml").write_text(f"name: sahab\nruntime: python\nmain: {ROOT / 'stacks'}\n")
    (tmp_path / "Pulumi.prod.yaml").write_text((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    text = stack_doc if isinstance(stack_doc, str) else yaml.safe_dump(stack_doc)
    (tmp_path / "Pulumi.t.yaml").write_text(text)
    return tmp_path


def _infinite(value) -> bool:
    if isinstance(value, dict):
        return any(_infinite(v) for v in value.values())
    if isinstance(value, list):
        return any(_infinite(v) for v in value)
    return isinstance(value, float) and not math.isfinite(value)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(fleet=malformed_fleets())
@example(fleet={**stack_fleet("dev"), "name": math.inf})
def test_the_cli_answers_any_malformed_fleet_with_exit_2_and_one_error_line(tmp_path_factory, capsys, fleet):
    program = _program(tmp_path_factory.mktemp("p"), {"config": {"sahab:fleet": fleet}})
    # An infinite number is valid YAML but no JSON value: the stack file is refused before the fleet is read, as
    # the Pulumi CLI could not hand it to the program, and the error names the file and the setting in it.
    refused_by = f"error: {program / 'Pulumi.t.yaml'}: config.sahab:fleet" if _infinite(fleet) else "error: sahab:fleet"
    try:
        parse_fleet(copy.deepcopy(fleet))
        valid = not _infinite(fleet)
    except ConfigError:
        valid = False
    capsys.readouterr()
    code = main(["plan", "--program", str(program), "--stack", "t", "--format", "json"])
    out, err = capsys.readouterr()
    if valid:  # planned; exit 1 when the fleet would not come up, with the problems named
        doc = json.loads(out)
        assert doc["stack"] == "t"
        assert code == (0 if doc["readiness"]["ok"] else 1)
    else:
        assert code == 2
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(refused_by), err
        assert "Traceback" not in err


@pytest.mark.parametrize(("stack_text", "says"), [
    ("config:\n  sahab:fleet: {environment: dev\n", "not valid YAML"),
    ("config:\n  sahab:fleet:\n    environment: qa\n", "sahab:fleet.environment: Input should be 'dev'"),
    ("config:\n  aws:region: me-central-1\n", "sahab:fleet: missing"),
    ("- just\n- a list\n", "must be a mapping"),
])
def test_broken_stack_files_give_one_error_line(tmp_path, capsys, stack_text, says):
    program = _program(tmp_path, stack_text)
    assert main(["plan", "--program", str(program), "--stack", "t"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and says in err, err


def test_a_missing_stack_file_names_the_stacks_that_exist(capsys):
    assert main(["plan", "--stack", "qa"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --stack qa: no Pulumi.qa.yaml") and "burst, dev, prod, smb" in err


def test_a_program_that_raises_is_reported_with_its_file_and_line(tmp_path, capsys):
    (tmp_path / "Pulumi.yaml").write_text("name: broken\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    (tmp_path / "__main__.py").write_text("import pulumi\n\nraise RuntimeError('disk on fire')\n")
    assert main(["plan", "--program", str(tmp_path), "--stack", "dev"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"error: {tmp_path / '__main__.py'}:3: RuntimeError: disk on fire"
