"""A bundle for each example stack holds what an auditor asks for, in JSON, CSV and HTML that agree, and verifies."""

from __future__ import annotations

import csv
import io
import json
import subprocess
from collections import Counter

import pytest
import yaml
from sahab.policies.controls import CONTROLS, rules_for
from sahab.policies.core import all_rules

from sahab.cli import main
from sahab.schema import SCHEMA_VERSION
from sahab.version import version
from tests.sahab.evidence.conftest import ROOT, STACKS

FILES = {"evidence.json", "evidence.html", "controls.csv", "evidence.intoto.jsonl"}


@pytest.fixture(scope="module")
def built(evidence):
    return evidence.all()


@pytest.mark.parametrize("stack", STACKS)
def test_the_bundle_verifies_and_holds_its_files(built, keys, stack, capsys):
    folder = built[stack].folder
    assert {p.name for p in folder.iterdir()} == FILES
    assert main(["evidence", "verify", str(folder), "--public-key", str(keys["pub"])]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"verified: 3 files of sahab/{stack} ")


@pytest.mark.parametrize("stack", STACKS)
def test_provenance_names_the_plan_pack_commit_and_tools(built, stack):
    from importlib import metadata

    from sahab.evidence.provenance import plan_sha256

    b = built[stack]
    doc = json.loads((b.folder / "evidence.json").read_text())
    assert (doc["schemaVersion"], doc["sahabVersion"], doc["kind"], doc["stack"]) == \
        (SCHEMA_VERSION, version(), "sahab-evidence", stack)
    p = doc["provenance"]
    assert p["planSha256"] == plan_sha256(b.plan)
    assert p["pack"]["version"] == str(yaml.safe_load((ROOT / "policies" / "PulumiPolicy.yaml").read_text())["version"])
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert p["git"]["commit"] == head
    assert p["tools"]["sahab"] == version() and p["tools"]["pulumi"] == metadata.version("pulumi")
    providers = {r.type for r in b.plan.resources if r.type.startswith("pulumi:providers:")}
    used = {t.split(":")[2] for t in providers} - {"pulumi-python"}
    assert set(p["tools"]["providers"]) == used
    for package, v in p["tools"]["providers"].items():
        assert v == metadata.version(f"pulumi-{package}")
    assert p["waiversFile"]["file"].endswith("policies/waivers.yaml")
    config = [c["file"] for c in p["policyConfig"]]
    pack_config = ROOT / "policies" / "config" / f"{stack}.json"
    assert len(config) == int(pack_config.is_file())
    assert all(c.endswith(f"policies/config/{stack}.json") for c in config)


@pytest.mark.parametrize("stack", STACKS)
def test_each_resource_rule_judges_every_resource_of_its_types(built, stack):
    b = built[stack]
    rules = {r["id"]: r for r in b.doc["rules"]}
    resources = [r for r in b.plan.resources if r.type != "pulumi:pulumi:Stack"]
    for rule in all_rules():
        entry = rules[rule.id]
        if rule.scope != "resource" or entry["enforcement"] == "disabled":
            continue
        judged = {v["urn"] for v in entry["verdicts"]}
        assert judged == {r.urn for r in resources if rule.applies_to(r.type)}, rule.id
        if not judged:
            assert entry["verdict"] == "not-applicable", rule.id


@pytest.mark.parametrize("stack", STACKS)
def test_every_control_is_in_the_matrix_with_its_rules(built, stack):
    doc = built[stack].doc
    matrix = {(c["framework"], c["id"]): c for c in doc["controls"]}
    assert len(matrix) == len(CONTROLS)
    rule_verdicts = {r["id"]: r["verdict"] for r in doc["rules"]}
    order = ("fail", "advisory", "waived", "pass", "not-applicable")
    for control in CONTROLS:
        row = matrix[(control.framework, control.id)]
        served = [r.id for r in rules_for(control)]
        assert row["rules"] == served
        if not served:
            assert (row["status"], row["reason"]) == ("not-served", control.not_served)
            continue
        judged = [rule_verdicts[r] for r in served if rule_verdicts[r] != "disabled"]
        assert row["status"] == next((v for v in order if v in judged), "not-applicable")


@pytest.mark.parametrize("stack", STACKS)
def test_the_csv_holds_the_same_matrix(built, stack):
    doc = built[stack].doc
    rows = list(csv.DictReader(io.StringIO((built[stack].folder / "controls.csv").read_text())))
    per_control = Counter((r["framework"], r["control"]) for r in rows)
    rules = {r["id"]: r for r in doc["rules"]}
    for c in doc["controls"]:
        expected = sum(max(1, len(rules[r]["verdicts"])) for r in c["rules"]) if c["rules"] else 1
        assert per_control[(c["framework"], c["id"])] == expected, c["id"]
    failing = {(r["rule"], r["resource"]) for r in rows if r["verdict"] in ("fail", "advisory", "waived")}
    listed = {(r["id"], v["urn"] or "(the stack)") for r in doc["rules"] for v in r["verdicts"]
              if v["verdict"] in ("fail", "advisory", "waived") and any(r["id"] in c["rules"] for c in doc["controls"])}
    assert failing == listed


@pytest.mark.parametrize("stack", STACKS)
def test_readiness_and_artifacts_are_sahab_plans_and_registry_lists(built, stack):
    from sahab.commands.registry import registry_document

    doc = built[stack].doc
    assert doc["readiness"]["ok"] is True and doc["summary"]["ready"] is True  # every example stack comes up
    listed = registry_document(ROOT, stack)
    assert doc["artifacts"] == {"registries": listed["registries"], "artifacts": listed["artifacts"]}
    assert doc["summary"]["passed"] is True  # and passes its mandatory rules (prod through its waivers)


def test_prod_registers_its_waivers_with_owner_dates_and_what_they_cover(built):
    doc = built["prod"].doc
    register = doc["waivers"]
    # prod's digest rule is mandatory there, so its waiver lists each resource: one register entry per resource
    assert len(register) == len({u for w in register for u in w["covers"]}) >= 30
    for w in register:
        assert (w["ruleId"], w["owner"], w["granted"], w["expires"]) == \
            ("SAHAB-K8S-013", "platform-security@example.ae", "2026-11-23", "2027-02-20")
        assert w["covers"] and all(u.startswith("urn:pulumi:prod::sahab::") for u in w["covers"])
        assert w["status"] == ("expired" if w["daysLeft"] < 0 else "expiring" if w["daysLeft"] <= 30 else "active")
    in_force = {w["ref"] for w in register if w["status"] != "expired"}
    by_id = {(c["framework"].split(" ")[0], c["id"]): c for c in doc["controls"]}
    for key in (("ISO/IEC", "A.8.19"), ("ISO/IEC", "A.8.30"), ("UAE", "T7")):
        assert set(by_id[key]["waivers"]) == in_force
    waived = [v for r in doc["rules"] if r["id"] == "SAHAB-K8S-013" for v in r["verdicts"] if v["verdict"] == "waived"]
    assert waived and all(v["waiver"] in in_force for v in waived)
    html = (built["prod"].folder / "evidence.html").read_text()
    assert "platform-security@example.ae" in html and "2027-02-20" in html


@pytest.mark.parametrize("stack", ["dev", "smb", "burst"])
def test_a_stack_no_waiver_names_has_an_empty_register(built, stack):
    assert built[stack].doc["waivers"] == []


@pytest.mark.parametrize("stack", STACKS)
def test_the_page_shows_every_control_and_the_verdicts(built, stack):
    html = (built[stack].folder / "evidence.html").read_text()
    doc = built[stack].doc
    assert f"Compliance evidence: sahab / {stack}" in html
    assert doc["provenance"]["planSha256"] in html
    for c in doc["controls"]:
        assert f"<td>{c['id']}</td>" in html
    assert html.count('class="status not-served"') == sum(c["status"] == "not-served" for c in doc["controls"])
