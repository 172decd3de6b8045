"""Every pattern of the fleet schema is ASCII-only: `\\d` (and `\\w`, `\\s`) match any Unicode digit (letter,
space) in pydantic's regex engine and in Python's `re`, so an account id in Arabic-Indic digits would plan.
The patterns are walked, and non-ASCII digits are fed to every digit-bearing setting."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import FleetConfig, parse_fleet

from tests.fleets import stack_fleet

UNICODE_CLASS = re.compile(r"(?<!\\)(?:\\\\)*\\[dDwWsSb]")
ARABIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


def _patterns(node, where="$"):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield where, value
            else:
                yield from _patterns(value, f"{where}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _patterns(value, f"{where}[{i}]")


def test_every_schema_pattern_is_ascii_only():
    found = list(_patterns(FleetConfig.model_json_schema()))
    assert len(found) > 20
    unicode_classes = [(where, p) for where, p in found if UNICODE_CLASS.search(p)]
    assert unicode_classes == []


def _receiver(**overrides) -> dict:
    return {"name": "ops", "type": "email", "to": ["a@example.ae"], "from_address": "am@example.ae",
            "smarthost": "smtp.example.ae:587", **overrides}


def _smb_alerting(**alerting) -> dict:
    fleet = stack_fleet("smb")
    fleet["monitoring"]["alerting"] = {"receivers": [_receiver()], **alerting}
    return fleet


def _account(value):
    fleet = stack_fleet("dev")
    fleet["registries"].pop("eks", None)
    fleet["clouds"]["aws"]["account_id"] = value
    return fleet


def _principal(value):
    fleet = stack_fleet("dev")
    fleet["clouds"]["aws"]["admin_principals"] = [value]
    return fleet


def _smarthost(value):
    fleet = stack_fleet("smb")
    fleet["monitoring"]["alerting"] = {"receivers": [_receiver(smarthost=value)]}
    return fleet


def _object_store(endpoint):
    fleet = stack_fleet("smb")
    fleet["sites"][0]["object_store"] = {"endpoint": endpoint, "addresses": ["192.168.60.0/28"], "bucket": "ckpt",
                                         "team_credentials": {"analytics": {"access_key_id_secret": "akid",
                                                                            "secret_access_key_secret": "sak"}}}
    return fleet


DIGIT_SETTINGS = [
    ("clouds.aws.account_id", lambda v: _account(v), "111122223333", "sahab:fleet.clouds.aws.account_id"),
    ("admin_principals", lambda v: _principal(v), "arn:aws:iam::111122223333:role/admin",
     "sahab:fleet.clouds.aws.admin_principals[0]"),
    ("group_wait", lambda v: _smb_alerting(group_wait=v), "30s", "sahab:fleet.monitoring.alerting.group_wait"),
    ("group_interval", lambda v: _smb_alerting(group_interval=v), "5m",
     "sahab:fleet.monitoring.alerting.group_interval"),
    ("repeat_interval", lambda v: _smb_alerting(repeat_interval=v), "4h",
     "sahab:fleet.monitoring.alerting.repeat_interval"),
    ("smarthost", lambda v: _smarthost(v), "smtp.example.ae:587",
     "sahab:fleet.monitoring.alerting.receivers[0].smarthost"),
    ("retention", lambda v: (f := stack_fleet("smb"), f["monitoring"].update(retention=v))[0], "7d",
     "sahab:fleet.monitoring.retention"),
    ("object_store.endpoint", lambda v: _object_store(v), "https://s3.office.example.ae:9000",
     "sahab:fleet.sites[0].object_store.endpoint"),
]


@pytest.mark.parametrize(("make", "good", "path"), [s[1:] for s in DIGIT_SETTINGS], ids=[s[0] for s in DIGIT_SETTINGS])
def test_non_ascii_digits_are_refused_naming_the_setting(make, good, path):
    parse_fleet(make(good))  # the ASCII spelling is fine
    with pytest.raises(ConfigError) as raised:
        parse_fleet(make(good.translate(ARABIC)))
    assert path in str(raised.value)


def test_no_component_grammar_uses_a_unicode_class():
    """The Python `re` grammars behind the schema's validators (components/) are ASCII too; free text
    (validation.plain_text: a city's name may be Arabic) is the one deliberate exception."""
    root = Path(__file__).resolve().parents[3] / "components"
    found = [f"{path.relative_to(root)}:{n}" for path in sorted(root.rglob("*.py"))
             for n, line in enumerate(path.read_text().splitlines(), 1)
             if UNICODE_CLASS.search(line) and not line.startswith("_PLAIN_TEXT = ")]
    assert found == []
