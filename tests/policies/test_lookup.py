"""`lookup` is the one way rules read values: it must agree with the SDK's unknown-checking proxy on every
shape of properties, never raise, and tell UNKNOWN from MISSING."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from pulumi_policy.proxy import UNKNOWN_BOOLEAN_VALUE, UNKNOWN_STRING_VALUE, unknown_checking_proxy
from sahab.policies.core import MISSING, UNKNOWN, lookup

KEYS = st.sampled_from(["a", "b", "region", "rules"])
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5),
                   st.sampled_from([UNKNOWN_STRING_VALUE, UNKNOWN_BOOLEAN_VALUE]))
VALUES = st.recursive(LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(KEYS, inner, max_size=3)), max_leaves=12)
PATHS = st.lists(st.one_of(KEYS, st.integers(min_value=0, max_value=3)), max_size=4)


def _reference(value, path):
    """What the path means on plain data: the value, UNKNOWN at the first sentinel, MISSING when absent."""
    for step in path:
        if value in (UNKNOWN_STRING_VALUE, UNKNOWN_BOOLEAN_VALUE):
            return UNKNOWN
        in_list = isinstance(step, int) and isinstance(value, list) and step < len(value)
        in_dict = isinstance(step, str) and isinstance(value, dict) and step in value
        if not (in_list or in_dict):
            return MISSING
        value = value[step]
    if value is None:
        return MISSING
    return UNKNOWN if value in (UNKNOWN_STRING_VALUE, UNKNOWN_BOOLEAN_VALUE) else value


@settings(max_examples=150, deadline=None)
@given(props=st.dictionaries(KEYS, VALUES, max_size=4), path=PATHS)
def test_lookup_agrees_on_plain_data_and_on_the_sdk_proxy(props, path):
    expected = _reference(props, path)
    plain = lookup(props, *path)
    proxied = lookup(unknown_checking_proxy(props), *path)
    for got in (plain, proxied):
        if expected is UNKNOWN or expected is MISSING:
            assert got is expected
        elif isinstance(expected, (dict, list)):
            assert len(got) == len(expected)
        else:
            assert got == expected
