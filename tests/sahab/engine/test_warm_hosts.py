"""Runs from warm hosts (`sahab.engine.warm_hosts`, what the suites that plan many programs use) give what a fresh
process gives: the same plan, the same error, the same time limit; a program's own module is its own even when
an earlier run imported an SDK of that name into the host."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from sahab.engine import plan, plan_phases, warm_hosts
from sahab.errors import ProgramError

ADVERSARIAL = Path(__file__).resolve().parents[2] / "e2e" / "adversarial" / "programs"
# Kubernetes, AWS, Azure; a compliant program and leaks.
CORPUS = [ADVERSARIAL / name for name in ("chart_claim_on_stack_class", "enc_dynamodb_owned_key",
                                          "place_azure_group_uae_inherited", "dest_cosmos_secondary_location")]


def program(root: Path, name: str, files: dict[str, str]) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "Pulumi.yaml").write_text(f"name: {name}\nruntime: python\n")
    (folder / "Pulumi.dev.yaml").write_text("config:\n  aws:region: me-central-1\n")
    for file, text in files.items():
        (folder / file).parent.mkdir(exist_ok=True)
        (folder / file).write_text(textwrap.dedent(text))
    return folder


def outcome(run) -> object:
    """A run's plan (its contract and stack outputs), or the error it ended with."""
    try:
        result = run()
    except ProgramError as exc:
        return type(exc).__name__, str(exc)
    return [(r.contract(), r.outputs) for r in result] if isinstance(result, tuple) else \
        (result.contract(), result.outputs)


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> list[Path]:
    root = tmp_path_factory.mktemp("warm")
    raises = program(root, "raises", {"__main__.py": """
        import pulumi_aws as aws
        aws.s3.BucketV2("data")
        raise ValueError("no bucket for you")
        """})
    # Its own `pulumi_kubernetes` module, which the Kubernetes program before it has the host import from the SDK.
    shadows = program(root, "shadows", {"__main__.py": """
        import pulumi
        import pulumi_kubernetes
        pulumi.export("own", pulumi_kubernetes.OWN)
        """, "pulumi_kubernetes.py": "OWN = 'the program own module'\n"})
    return [*CORPUS, raises, shadows]


def test_hosted_runs_plan_what_fresh_processes_plan(programs):
    fresh = [outcome(lambda p=p: plan(p, "dev")) for p in programs]
    with warm_hosts():
        hosted = [outcome(lambda p=p: plan(p, "dev")) for p in programs]
        both = outcome(lambda: plan_phases(CORPUS[0], "dev"))
    assert hosted == fresh
    assert fresh[-2] == ("ProgramError", f"{programs[-2] / '__main__.py'}:4: ValueError: no bucket for you")
    assert fresh[-1][1] == {"own": "the program own module"}
    assert both == outcome(lambda: plan_phases(CORPUS[0], "dev"))  # a check's two runs, forked from a hosted run


def test_a_hosted_run_is_stopped_at_the_time_limit_and_the_host_serves_the_next(tmp_path):
    sleeps = program(tmp_path, "sleeps", {"__main__.py": "import pulumi_aws\nimport time\ntime.sleep(3600)\n"})
    fresh = outcome(lambda: plan(CORPUS[1], "dev"))
    with warm_hosts():
        with pytest.raises(ProgramError, match="did not finish within 2 s and was stopped"):
            plan(sleeps, "dev", timeout=2)
        assert outcome(lambda: plan(CORPUS[1], "dev")) == fresh
    assert fresh[0]["resources"]


def test_within_warm_hosts_a_run_is_forked_from_a_host_not_started_by_the_caller(tmp_path):
    """A host that cannot serve falls back to a fresh process, silently: this is what shows the hosts serve."""
    parent = program(tmp_path, "parent", {"__main__.py": """
        import os
        import pulumi
        pulumi.export("ppid", os.getppid())
        """})
    assert plan(parent, "dev").outputs["ppid"] == os.getpid()
    with warm_hosts():
        hosted = [plan(parent, "dev").outputs["ppid"] for _ in range(2)]
    assert os.getpid() not in hosted
    assert hosted[0] == hosted[1]  # one host served both runs


def test_a_host_loads_the_sdk_modules_a_run_reached_through_the_programs_own_package(tmp_path):
    """A program whose resources live in a package of its own (a folder of modules: the host reads only the
    program's top-level files) names no SDK there; the host learns from its first run which SDK modules it
    loaded, and each later run starts with them loaded. The program's own modules are never carried over, even
    one named like an SDK."""
    folder = program(tmp_path, "library", {"__main__.py": """
        import os
        import sys
        import types

        import pulumi

        def loaded(name):
            return type(sys.modules.get(name)) is types.ModuleType

        pulumi.export("s3_loaded_at_start", loaded("pulumi_aws.s3"))
        import infra
        import pulumi_helpers
        infra.bucket("data")
        pulumi.export("helpers_loaded_here", pulumi_helpers.LOADED_IN == os.getpid())
        """, "infra/__init__.py": """
        import pulumi_aws as aws

        def bucket(name):
            return aws.s3.BucketV2(name)
        """, "pulumi_helpers.py": "import os\nLOADED_IN = os.getpid()\n"})
    fresh = plan(folder, "dev")
    with warm_hosts():
        hosted = [plan(folder, "dev") for _ in range(3)]
    assert [p.outputs["s3_loaded_at_start"] for p in hosted] == [False, True, True]
    assert all(p.outputs["helpers_loaded_here"] for p in [fresh, *hosted])
    assert "aws:s3/bucketV2:BucketV2" in {r["type"] for r in fresh.contract()["resources"]}
    assert all(p.contract() == fresh.contract() for p in hosted)
