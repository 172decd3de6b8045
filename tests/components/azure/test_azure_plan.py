"""Azure names and storage redundancy, without Pulumi."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sahab.components.azure import plan

UAE = ("me-central-1", "uaenorth", "uaecentral")


@given(st.from_regex(r"[a-z][a-z0-9-]{0,60}", fullmatch=True), st.text(max_size=20))
def test_generated_names_meet_azure_rules(prefix, unique):
    vault = plan.key_vault_name(prefix, unique)
    account = plan.storage_account_name(prefix, unique)
    assert re.fullmatch(r"[a-z][a-z0-9-]{1,22}[a-z0-9]", vault) and "--" not in vault
    assert re.fullmatch(r"[a-z0-9]{3,24}", account)


def test_names_are_stable_and_differ_between_stacks():
    assert plan.storage_account_name("sahabdata", "prod") == plan.storage_account_name("sahabdata", "prod")
    assert plan.storage_account_name("sahabdata", "prod") != plan.storage_account_name("sahabdata", "dev")


def test_storage_redundancy_stays_in_the_uae():
    assert plan.storage_sku("uaenorth", False, UAE) == "Standard_ZRS"
    assert plan.storage_sku("uaenorth", True, UAE) == "Standard_GZRS"  # pairs with uaecentral
    assert plan.storage_sku("uaecentral", True, UAE) == "Standard_GRS"  # no zones there
    with pytest.raises(ValueError, match="would replicate to uaecentral"):
        plan.storage_sku("uaenorth", True, ("uaenorth",))
    with pytest.raises(ValueError, match="unknown pair"):
        plan.storage_sku("westeurope", True, (*UAE, "westeurope"))
