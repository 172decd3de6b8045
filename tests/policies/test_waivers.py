"""Waivers: an active waiver silences exactly the violation it names; an expired one stops waiving and says
so; an invalid file is an error naming the entry."""

from __future__ import annotations

import datetime as dt

import pytest
from policy_harness import Res, run
from test_rule_catalog import ME

from policies.waivers import DEFAULT_PATH, Waiver, WaiverError, load_waivers

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
    good.write_text("waivers:\n  - policy: SAHAB-AWS-014\n    resource: 'urn:pulumi:prod::sahab::*::legacy-key'\n"
                    "    reason: r\n    approver: a@example.ae\n    expires: 2026-12-31\n")
    (w,) = load_waivers(good)
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
    # Rules outside residency still take a concrete glob and a longer exception; `approver` still names the owner.
    file.write_text(entry(policy="aws-kms-key-rotation-enabled", resource="urn:pulumi:prod::sahab::*::legacy-*",
                          expires="2027-12-31", owner=None) + "    approver: 'ciso@example.ae'\n")
    (w,) = load_waivers(file, today=TODAY)
    assert w.approver == "ciso@example.ae"


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
