"""No gaps in the control mapping: every rule serves a listed control, every listed control names a rule or says
why none applies, and policies/README.md cites exactly what the matrix holds."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from sahab.policies import controls, rule_table
from sahab.policies.controls import CONTROLS, FRAMEWORKS, control_id, rules_for
from sahab.policies.core import ISO27001, Enforcement, all_rules

README = Path(__file__).resolve().parents[2] / "policies" / "README.md"


def test_every_framework_lists_each_of_its_controls_once():
    keys = Counter(c.key for c in CONTROLS)
    assert [k for k, n in keys.items() if n > 1] == []
    per = Counter(c.framework for c in CONTROLS)
    assert per == {FRAMEWORKS[0]: 31, FRAMEWORKS[1]: 1, FRAMEWORKS[2]: 93, FRAMEWORKS[3]: 15}
    annex = [c.id for c in CONTROLS if c.framework == ISO27001]
    themes = Counter(i.split(".")[1] for i in annex)
    assert themes == {"5": 37, "6": 8, "7": 14, "8": 34}  # ISO/IEC 27001:2022's four themes


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.id)
def test_every_rule_serves_a_listed_control(rule):
    listed = {(c.framework, c.id) for c in CONTROLS}
    cited = [(f.name, control_id(f.reference)) for f in rule.frameworks]
    assert cited, f"{rule.id} cites no control"
    assert [c for c in cited if c not in listed] == [], f"{rule.id} cites a control the matrix does not list"
    assert any(rule in rules_for(c) for c in CONTROLS)


def test_every_mandatory_rule_serves_a_law_or_annex_a():
    for rule in all_rules():
        if rule.enforcement is Enforcement.MANDATORY:
            assert {f.name for f in rule.frameworks} & set(FRAMEWORKS[:3]), rule.id


@pytest.mark.parametrize("control", CONTROLS, ids=lambda c: f"{c.framework.split(' ')[0]}-{c.id}")
def test_every_control_names_a_rule_or_says_why_none_applies(control):
    rules = rules_for(control)
    if rules:
        assert control.not_served is None, f"{control.id} is served by {[r.id for r in rules]} yet says none applies"
    else:
        assert control.not_served and len(control.not_served) > 20, f"{control.id}: no rule and no reason"


def test_uae_ia_families_cover_only_listed_annex_a_controls():
    annex = {c.id for c in CONTROLS if c.framework == ISO27001}
    for family in (c for c in CONTROLS if c.via):
        assert set(family.via) <= annex, family.id


def test_the_readme_catalog_and_control_tables_are_the_generated_ones():
    text = README.read_text()
    assert rule_table.markdown_table() in text, "regenerate the catalog: python -m policies.rule_table"
    assert controls.markdown_table() in text, "regenerate the control table: python -m policies.controls"


def test_every_annex_a_control_the_readme_cites_is_served():
    served = {c.id for c in CONTROLS if c.framework == ISO27001 and rules_for(c)}
    cited = set(re.findall(r"\bA\.[5-8]\.\d+\b", README.read_text()))
    assert cited, "the README cites no Annex A control"
    assert cited - served == set(), "the README cites controls the matrix says no rule serves"
    assert served - cited == set(), "the matrix serves controls the README never cites"
