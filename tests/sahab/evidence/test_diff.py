"""`sahab evidence diff A B` between two prod variants names each change: a resource added and one removed, a
verdict that changed, a waiver added and one expired, and the controls that newly fail."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import json

import pytest
import yaml
from sahab.policies.core import rule_by

from sahab.cli import main
from sahab.evidence import bundle, signing
from sahab.policy_check import policy_config_layers
from tests.sahab.evidence.conftest import ROOT

WAIVERS = ROOT / "policies" / "waivers.yaml"


@pytest.fixture(scope="module")
def variants(evidence, keys, tmp_path_factory):
    """Prod as planned (A), and B: prod with a KMS key turned multi-Region, a bucket added in eu-west-1, a namespace
    gone, a new waiver for an advisory finding and one digest waiver past its expiry."""
    a = evidence.bundle("prod")
    when = dt.datetime.strptime(a.doc["generatedAt"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    plan = copy.deepcopy(a.plan)
    key = next(r for r in plan.resources if r.type == "aws:kms/key:Key" and r.name == "sahab-datasets-key")
    key.inputs["multiRegion"] = True
    gone = next(r for r in plan.resources if r.type == "kubernetes:core/v1:Namespace"
                and r.name == "sahab-eks-main-platform-gpu-namespace")
    plan.resources.remove(gone)
    bucket = next(r for r in plan.resources if r.type.startswith("aws:s3/bucket"))
    added = dataclasses.replace(copy.deepcopy(bucket), name="shadow-copy",
                                urn=bucket.urn.rsplit("::", 1)[0] + "::shadow-copy")
    added.inputs["region"] = "eu-west-1"
    plan.resources.append(added)

    waived_ns = next(r.urn for r in plan.resources if r.type == "kubernetes:core/v1:Namespace"
                     and r.name == "sahab-aks-main-platform-gpu-namespace")
    doc = yaml.safe_load(WAIVERS.read_text())
    expired = doc["waivers"][0]
    expired["expires"] = when.date() - dt.timedelta(days=1)
    expired["granted"] = when.date() - dt.timedelta(days=60)
    doc["waivers"].append({"policy": "SAHAB-K8S-003", "resource": waived_ns, "owner": "gpu-team@example.ae",
                           "reason": "the GPU operator's pods need privileged Pod Security", "granted": when.date(),
                           "expires": when.date() + dt.timedelta(days=20)})
    waivers = tmp_path_factory.mktemp("waivers") / "waivers.yaml"
    waivers.write_text(yaml.safe_dump(doc, sort_keys=False))

    b_doc = bundle.collect(plan, layers=policy_config_layers(ROOT, "prod", None), waivers_path=waivers, when=when,
                           referenced=[])
    b_folder = tmp_path_factory.mktemp("variant") / "prod-b"
    bundle.write(b_doc, b_folder, signing.load_signer(keys["key"]))
    return {"a": a.folder, "b": b_folder, "key": key.urn, "gone": gone.urn, "added": added.urn,
            "waived_ns": waived_ns,
            # a mandatory rule's waiver lists its resources: each is one waiver, and each expires
            "expired": [f"{rule_by(expired['policy']).id} @ {urn}" for urn in expired["resource"]],
            "new_waiver": f"SAHAB-K8S-003 @ {waived_ns}"}


def test_the_diff_names_each_change(variants, keys, capsys):
    code = main(["evidence", "diff", str(variants["a"]), str(variants["b"]), "--format", "json",
                 "--public-key", str(keys["pub"])])
    changes = json.loads(capsys.readouterr().out)
    assert code == 1  # controls newly fail
    assert [r["urn"] for r in changes["resourcesAdded"]] == [variants["added"]]
    assert "SAHAB-AWS-001 fail" in changes["resourcesAdded"][0]["findings"]
    assert [r["urn"] for r in changes["resourcesRemoved"]] == [variants["gone"]]
    changed = {(v["rule"], v["urn"]): (v["before"], v["after"]) for v in changes["verdictsChanged"]}
    assert changed[("SAHAB-AWS-003", variants["key"])] == ("pass", "fail")
    assert changed[("SAHAB-K8S-003", variants["waived_ns"])] == ("advisory", "waived")
    digest_waived = [k for k, v in changed.items() if k[0] == "SAHAB-K8S-013"]
    assert digest_waived and all(changed[k] == ("waived", "fail") for k in digest_waived)
    assert [w["ref"] for w in changes["waiversAdded"]] == [variants["new_waiver"]]
    assert sorted(w["ref"] for w in changes["waiversExpired"]) == sorted(variants["expired"])
    assert [w["ref"] for w in changes["waiversExpiring"]] == [variants["new_waiver"]]  # 20 days left
    failing = {(c["framework"].split(" ")[0], c["id"]) for c in changes["controlsNewlyFailing"]}
    assert {("UAE", "Art. 22"), ("UAE", "Art. 13"), ("ISO/IEC", "A.5.34"), ("UAE", "M5"),  # the multi-Region key
            ("ISO/IEC", "A.8.19"), ("ISO/IEC", "A.8.30"), ("UAE", "T7"), ("UAE", "Art. 20")} <= failing


def test_the_text_diff_reads_as_a_list_of_changes(variants, capsys):
    code = main(["evidence", "diff", str(variants["a"]), str(variants["b"])])
    out = capsys.readouterr().out
    assert code == 1
    for expected in (f"+ {variants['added']}", f"- {variants['gone']}",
                     f"~ SAHAB-AWS-003 {variants['key']}: pass -> fail", f"+ {variants['new_waiver']}",
                     *[f"! {ref} (expired" for ref in variants["expired"]], "controls newly failing", "Art. 22"):
        assert expected in out, expected


def test_a_bundle_against_itself_has_no_change(variants, capsys):
    code = main(["evidence", "diff", str(variants["a"]), str(variants["a"])])
    out = capsys.readouterr().out
    assert code == 0 and "plan: unchanged" in out and "no change in resources, verdicts, waivers or controls" in out


def test_diff_refuses_bundles_that_do_not_verify(variants, keys, tmp_path, capsys):
    import shutil

    tampered = tmp_path / "b"
    shutil.copytree(variants["b"], tampered)
    (tampered / "evidence.json").write_text((tampered / "evidence.json").read_text().replace('"fail"', '"pass"'))
    code = main(["evidence", "diff", str(variants["a"]), str(tampered), "--public-key", str(keys["pub"])])
    out = capsys.readouterr().out
    assert code == 1 and "changed: evidence.json" in out and "not compared" in out
