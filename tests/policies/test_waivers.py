"""Waivers: an active waiver silences exactly the violation it names; an expired one stops waiving and says
so; an invalid file is an error naming the entry."""

from __future__ import annotations

import datetime as dt

import pytest
from sahab.policies.waivers import DEFAULT_PATH, Waiver, WaiverError, load_waivers

from tests.policies.policy_harness import Res, run
from tests.policies.test_rule_catalog import ME

RULE = "aws-kms-key-rotation-enabled"
KEY = Res("aws:kms/key:Key", {"enableKeyRotation": False}, name="legacy", provider=ME)
TODAY = dt.date(2026, 6, 1)


def waiver(expires: dt.date, resource: str = KEY.urn, policy: str = RULE) -> Waiver:
    return Waiver(policy, resource, "vendor appliance cannot re-wrap keys", "ciso@example.ae", expires)


def test_active_waiver_silences_the_named_violation():
    assert run(RULE, KEY, today=TODAY)
    assert run(RULE, KEY, waivers=[waiver(TODAY)], today=TODAY) == []  # the expiry day itself still holds
    # By rule id and by URN glob too.
    assert run(RULE, KEY, waivers=[waiver(TODAY, "urn:pulumi:test::*::legacy", "SAHAB-AWS-014")], today=TODAY) == []


def test_waiver_covers_only_its_rule_and_resource():
    assert run(RULE, KEY, waivers=[waiver(TODAY, policy="aws-ebs-volume-encrypted")], today=TODAY)
    assert run(RULE, KEY, waivers=[waiver(TODAY, resource="urn:pulumi:test::proj::aws:kms/key:Key::other")],
               today=TODAY)


def test_expired_waiver_stops_waiving_and_says_so():
    found = run(RULE, KEY, waivers=[waiver(dt.date(2026, 5, 31))], today=TODAY)
    assert len(found) == 1
    assert "expired" in found[0][0] and "ciso@example.ae" in found[0][0] and "2026-05-31" in found[0][0]


def test_shipped_waivers_file_is_valid():
    assert DEFAULT_PATH.name == "waivers.yaml"
    assert isinstance(load_waivers(DEFAULT_PATH), list)


def test_waiver_file_parsing(tmp_path):
    good = tmp_path / "waivers.yaml"
    good.write_text("waivers:\n  - policy: SAHAB-AWS-014\n"
                    "    resource: 'urn:pulumi:prod::sahab::aws:kms/key:Key::legacy'\n"
                    "    reason: r\n    approver: a@example.ae\n    expires: 2026-12-31\n")
    (w,) = load_waivers(good, today=dt.date(2026, 11, 1))
    assert w.expires == dt.date(2026, 12, 31) and w.policy == "aws-kms-key-rotation-enabled"  # the rule, by name
    bad = tmp_path / "bad.yaml"
    bad.write_text("waivers:\n  - policy: SAHAB-AWS-014\n    resource: x\n    reason: r\n    expires: 2026-12-31\n")
    with pytest.raises(WaiverError, match=r"waivers\[0\]\.owner: required"):
        load_waivers(bad)
    bad.write_text("waivers:\n  - {policy: SAHAB-AWS-014, resource: x, reason: r, approver: a, expires: soon}\n")
    with pytest.raises(WaiverError, match="not a date"):
        load_waivers(bad)


REGION_URN = "urn:pulumi:prod::sahab::aws:s3/bucketV2:BucketV2::legacy"


def entry(**fields) -> str:
    base = {"policy": "SAHAB-AWS-001", "resource": REGION_URN, "reason": "migration to me-central-1 (OPS-42)",
            "owner": "dpo@example.ae", "expires": "2026-07-01"} | fields
    return "waivers:\n  - " + "\n    ".join(f"{k}: '{v}'" for k, v in base.items() if v is not None) + "\n"


@pytest.mark.parametrize(("fields", "field", "needle"), [
    ({"resource": "*"}, "resource", "no concrete resource"),
    ({"resource": "urn:pulumi:prod::sahab::*"}, "resource", "no concrete resource"),
    ({"resource": "urn:pulumi:prod::sahab::*::legacy"}, "resource", "mandatory residency rule"),
    ({"policy": "cloud-all-resource-references-in-country", "resource": "arn:aws:s3:::legacy-*"}, "resource",
     "one resource at a time"),
    ({"expires": "9999-12-31"}, "expires", "more than 90 days"),
    ({"expires": "2026-08-31"}, "expires", "more than 90 days"),
    ({"policy": "aws-s3-bucket-made-up"}, "policy", "not a rule of the pack"),
    ({"owner": None}, "owner", "required"),
    ({"reason": "  "}, "reason", "required"),
])
def test_waiver_integrity_names_the_entry_and_field(tmp_path, fields, field, needle):
    file = tmp_path / "waivers.yaml"
    file.write_text(entry(**fields))
    with pytest.raises(WaiverError) as caught:
        load_waivers(file, today=TODAY)
    assert caught.value.path == f"{file}: waivers[0].{field}" and needle in caught.value.message


def test_residency_waiver_for_one_resource_within_90_days_is_accepted(tmp_path):
    file = tmp_path / "waivers.yaml"
    file.write_text(entry(expires=(TODAY + dt.timedelta(days=90)).isoformat()))
    (w,) = load_waivers(file, today=TODAY)
    assert (w.resource, w.approver) == (REGION_URN, "dpo@example.ae")
    # An advisory rule still takes a concrete glob and a longer exception; `approver` still names the owner.
    file.write_text(entry(policy="aws-s3-bucket-versioning-enabled", resource="urn:pulumi:prod::sahab::*::legacy-*",
                          expires="2027-12-31", owner=None) + "    approver: 'ciso@example.ae'\n")
    (w,) = load_waivers(file, today=TODAY)
    assert w.approver == "ciso@example.ae"


ENCRYPTION = "aws-kms-key-rotation-enabled"  # mandatory in the pack, not a residency rule
DIGESTS = "kubernetes-all-workload-image-digest-pinned"  # advisory in the pack, mandatory in prod's policy config
ADVISORY = "aws-s3-bucket-versioning-enabled"


@pytest.mark.parametrize("policy", [ENCRYPTION, ADVISORY, "SAHAB-AWS-001"])
@pytest.mark.parametrize("resource", ["*t*", "?", "[a-z]*", "urn:pulumi:prod::sahab::*::*t*",
                                      "urn:pulumi:prod::sahab::*::?y*", "urn:pulumi:*::sahab::*::legacy-key",
                                      "urn:pulumi:prod::*::*::legacy-key", "*::legacy-key", "arn:aws:s3:::*t*"])
def test_a_pattern_that_names_nothing_in_particular_is_refused_for_every_rule(tmp_path, policy, resource):
    file = tmp_path / "waivers.yaml"
    file.write_text(entry(policy=policy, resource=resource))
    with pytest.raises(WaiverError) as caught:
        load_waivers(file, today=TODAY)
    assert caught.value.path == f"{file}: waivers[0].resource"


@pytest.mark.parametrize("resource", ["urn:pulumi:prod::sahab::*::legacy-key",
                                      "urn:pulumi:prod::sahab::aws:kms/key:Key::legacy-?ey",
                                      "urn:pulumi:prod::sahab::aws:kms/key:Key::legacy-[kK]ey",
                                      "arn:aws:kms:me-central-1:111122223333:key/legacy-*"])
def test_a_mandatory_rule_is_never_waived_by_a_pattern(tmp_path, resource):
    file = tmp_path / "waivers.yaml"
    file.write_text(entry(policy=ENCRYPTION, resource=resource))
    with pytest.raises(WaiverError) as caught:
        load_waivers(file, today=TODAY)
    assert caught.value.path == f"{file}: waivers[0].resource"
    assert "is a pattern" in caught.value.message and "mandatory rule (the pack)" in caught.value.message


@pytest.mark.parametrize("policy", [ENCRYPTION, "SAHAB-AWS-012", "SAHAB-K8S-001"])
def test_every_mandatory_rule_is_waived_for_90_days_at_most(tmp_path, policy):
    file = tmp_path / "waivers.yaml"
    file.write_text(entry(policy=policy, expires=(TODAY + dt.timedelta(days=90)).isoformat()))
    assert load_waivers(file, today=TODAY)
    file.write_text(entry(policy=policy, expires=(TODAY + dt.timedelta(days=91)).isoformat()))
    with pytest.raises(WaiverError, match=r"more than 90 days after 2026-06-01.*\(the pack\)") as caught:
        load_waivers(file, today=TODAY)
    assert caught.value.path == f"{file}: waivers[0].expires"


def test_a_rule_a_stacks_policy_config_makes_mandatory_is_waived_as_one(tmp_path):
    """Prod's config makes digest pinning mandatory: a prod waiver of it lists resources and lasts 90 days; the same
    waiver for dev (advisory there) may be a pattern and last longer. A stack glob reaches prod too."""
    file = tmp_path / "waivers.yaml"
    file.write_text(entry(policy=DIGESTS, resource="urn:pulumi:prod::sahab::*::*-release"))
    with pytest.raises(WaiverError, match=r"is a pattern; .* mandatory rule \(prod's policy config\)"):
        load_waivers(file, today=TODAY)
    file.write_text(entry(policy=DIGESTS, resource="urn:pulumi:prod::sahab::a:b:C::x-release", expires="2027-12-31"))
    with pytest.raises(WaiverError, match=r"more than 90 days"):
        load_waivers(file, today=TODAY)
    file.write_text(entry(policy=DIGESTS, resource="urn:pulumi:dev::sahab::*::*-release", expires="2027-12-31"))
    assert load_waivers(file, today=TODAY)
    file.write_text(entry(policy=DIGESTS, resource="urn:pulumi:[dp]*::sahab::a:b:C::x-release"))
    with pytest.raises(WaiverError):  # a stack pattern: never a literal stack, refused outright
        load_waivers(file, today=TODAY)
    # What the operator's --policy-config makes mandatory counts as well (sahab check passes it in).
    file.write_text(entry(policy=ADVISORY, resource="urn:pulumi:dev::sahab::*::legacy-*"))
    assert load_waivers(file, today=TODAY)
    with pytest.raises(WaiverError, match=r"mandatory rule \(dev's policy config\)"):
        load_waivers(file, today=TODAY, mandatory={"dev": {ADVISORY}})


def test_a_waiver_lists_resources_one_by_one_and_covers_each_whatever_the_urns_parent_chain(tmp_path):
    file = tmp_path / "waivers.yaml"
    engine = "urn:pulumi:prod::sahab::sahab:index:Fleet$sahab:kubernetes:Kueue$kubernetes:helm.sh/v3:Release::k"
    file.write_text(entry(policy=DIGESTS, resource=None)
                    + f"    resource:\n      - '{engine}'\n      - 'urn:pulumi:prod::sahab::a:b:C::other'\n")
    first, second = load_waivers(file, today=TODAY)
    assert (first.resource, second.resource) == (engine, "urn:pulumi:prod::sahab::a:b:C::other")
    covers = first.covers
    assert covers("SAHAB-K8S-013", DIGESTS, "urn:pulumi:prod::sahab::sahab:kubernetes:Kueue$kubernetes:helm.sh/v3:"
                                            "Release::k")  # `sahab plan` names the nearest parent only
    assert covers("SAHAB-K8S-013", DIGESTS, engine.replace("Fleet$", "Fleet$sahab:kubernetes:Platform$")) is False
    assert covers("SAHAB-K8S-013", DIGESTS, engine.replace("::k", "::k2")) is False
    assert covers("SAHAB-K8S-013", DIGESTS, engine.replace("prod", "dev")) is False
    assert covers("SAHAB-K8S-013", DIGESTS, engine.replace("Release::", "Deployment::")) is False
    with pytest.raises(WaiverError, match=r"waivers\[0\]\.resource\[1\]: .* is a pattern"):
        file.write_text(entry(policy=DIGESTS, resource=None) + f"    resource:\n      - '{engine}'\n"
                        "      - 'urn:pulumi:prod::sahab::*::*-release'\n")
        load_waivers(file, today=TODAY)


def test_binary_waivers_file_is_an_error_naming_the_file(tmp_path):
    file = tmp_path / "waivers.yaml"
    file.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    with pytest.raises(WaiverError) as caught:
        load_waivers(file)
    assert caught.value.path == str(file) and "UTF-8" in caught.value.message


def test_a_waivers_file_names_a_rule_by_id_in_any_case_or_by_name(tmp_path):
    file = tmp_path / "waivers.yaml"
    file.write_text(f"""waivers:
  - policy: sahab-aws-014
    resource: "{KEY.urn}"
    reason: vendor appliance cannot re-wrap keys
    owner: ciso@example.ae
    expires: 2026-06-30
""")
    (loaded,) = load_waivers(file, today=TODAY)
    assert loaded.policy == RULE  # stored as the rule, whichever way the file named it
    assert run(RULE, KEY, waivers=[loaded], today=TODAY) == []
