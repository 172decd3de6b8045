"""JUnit XML for CI dashboards: one test suite per stack, one test case per policy; a violation of a
mandatory policy is a failure, advisory violations are recorded in the case's output."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from sahab.policy_check import CheckResult
from sahab.version import version


def junit(result: CheckResult) -> str:
    from sahab.policies.core import all_rules

    stack = result.plan.stack
    cases = []
    failures = skipped = 0
    for rule in all_rules():
        level = result.levels.get(rule.name, rule.enforcement.value)
        found = [v for v in result.violations if v.policy == rule.name]
        case = ET.Element("testcase", classname=f"sahab.{stack}.{rule.id}", name=f"{rule.id} {rule.name}")
        if level == "disabled":
            ET.SubElement(case, "skipped", message="disabled for this stack")
            skipped += 1
        elif found and level == "mandatory":
            failures += 1
            failure = ET.SubElement(case, "failure", message=f"{len(found)} violation(s) of {rule.name}",
                                    type=rule.severity.value)
            failure.text = _lines(found) + f"\nRemediation: {rule.remediation}"
        elif found:
            ET.SubElement(case, "system-out").text = "advisory:\n" + _lines(found)
        cases.append(case)
    suite = ET.Element("testsuite", name=f"sahab check {result.plan.project}/{stack}", tests=str(len(cases)),
                       failures=str(failures), errors="0", skipped=str(skipped))
    properties = ET.SubElement(suite, "properties")  # JUnit's place for run facts: which Sahab (and pack) judged
    ET.SubElement(properties, "property", name="sahabVersion", value=version())
    suite.extend(cases)
    suites = ET.Element("testsuites", name="sahab check", tests=str(len(cases)), failures=str(failures))
    suites.append(suite)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _lines(violations) -> str:
    return "\n".join(f"{v.urn or 'stack'} [{v.phase}]: {v.message}" for v in violations)
