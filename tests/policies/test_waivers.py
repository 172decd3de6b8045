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
    good.write_text("waivers:\n  - policy: SAHAB-AWS-014\n    resource: 'urn:pulumi:prod::sahab::*'\n"
                    "    reason: r\n    approver: a@example.ae\n    expires: 2026-12-31\n")
    (w,) = load_waivers(good)
    assert w.expires == dt.date(2026, 12, 31) and w.policy == "SAHAB-AWS-014"
    bad = tmp_path / "bad.yaml"
    bad.write_text("waivers:\n  - policy: SAHAB-AWS-014\n    resource: x\n    reason: r\n    expires: 2026-12-31\n")
    with pytest.raises(WaiverError, match=r"waivers\[0\]\.approver: required"):
        load_waivers(bad)
    bad.write_text("waivers:\n  - {policy: p, resource: x, reason: r, approver: a, expires: soon}\n")
    with pytest.raises(WaiverError, match="not a date"):
        load_waivers(bad)
