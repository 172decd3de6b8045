"""Look-alike (egress): a Data Share subscription receiving a partner's share into this program's account."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
account = azure_native.datashare.Account("shares", resource_group_name=rg.name, location="uaenorth",
                                         identity={"type": "SystemAssigned"})
azure_native.datashare.ShareSubscription(
    "from-partner", resource_group_name=rg.name, account_name=account.name, share_subscription_name="frompartner",
    invitation_id="4e3d5a1c-7b2f-4c8e-9a6d-1f0b2c3d4e5f", source_share_location="uaenorth",
    expiration_date="2027-06-30T00:00:00Z")
