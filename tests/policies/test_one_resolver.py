"""One verdict per fact: every rule that reasons about a place takes it from the one resolver
(policies/residency.py). A rule reading a `region`/`location` input itself would judge a place differently from
the others (the geo-replica rule that read only an account's own `location`, not its resource group's).

The test reads the source of every rule's check and of the module it lives in, and fails on a read of a place
input (`lookup(..., "region")`, `items(..., "locationName")`, `props["zone"]`, `stack_config.get("aws:region")`)."""

from __future__ import annotations

import ast
import inspect
import textwrap

import pytest
from sahab.policies.core import all_rules

PLACE_KEYS = {"region", "location", "regionName", "locationName", "zone", "country", "availabilityZone",
              "sahab.io/region"}
READERS = {"lookup", "items", "get"}


def _place_reads(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in READERS:
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and (
                            arg.value in PLACE_KEYS or arg.value.endswith((":region", ":location"))):
                        found.append(f"line {node.lineno}: {ast.unparse(node)}")
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and node.slice.value in PLACE_KEYS:
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


RULES = all_rules()


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_no_rule_reads_a_place_input_itself(rule):
    module = inspect.getmodule(rule.check)
    reads = _place_reads(ast.parse(inspect.getsource(module)))
    assert not reads, f"{rule.id} ({module.__name__}) reads a place itself; ask policies.residency: {reads}"


def test_the_walk_finds_a_rule_that_reads_its_own_location():
    def geo_replica(view, ctx):
        location = lookup(view.props, "location")  # noqa: F821 (parsed, never run)
        return location

    assert _place_reads(ast.parse(textwrap.dedent(inspect.getsource(geo_replica))))
