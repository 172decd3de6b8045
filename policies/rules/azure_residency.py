"""Azure residency: every located resource, provider and geo-replica stays in the allowed locations."""

from __future__ import annotations

from ..core import (
    UNKNOWN,
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    Unknown,
    health_data,
    iso27001,
    lookup,
    pdpl,
    rule,
)
from ..residency import (
    AZURE_PACKAGES,
    describe_place,
    effective_place,
    pair_place,
    place_allowed,
    place_problem,
    provider_place,
)

RESIDENCY = (pdpl("Art. 22 (cross-border transfer)"), health_data("Art. 13"), iso27001("A.5.34"))
PROVIDER = "pulumi:providers:azure-native"
STORAGE_ACCOUNT = "azure-native:storage:StorageAccount"
GEO_REDUNDANT_SKUS = ("Standard_GRS", "Standard_RAGRS", "Standard_GZRS", "Standard_RAGZRS")


@rule(id="SAHAB-AZ-001", name="azure-all-resource-location-allowed",
      title="Every Azure resource lives in an allowed location",
      description="The effective location of every resource of the azure-native and azure packages (its own "
                  "`location`, else its resource group's, else the provider's) is uaenorth or uaecentral; "
                  "`global` only for allow-listed control-plane types. A type whose SDK gives it no `location` "
                  "lives where its parent does; a location that cannot be resolved fails closed.",
      remediation="Set `location=\"uaenorth\"` (or uaecentral) on the resource or on a resource group this "
                  "program creates, and pin the provider's `location`.",
      severity=Severity.CRITICAL, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, unknown=Unknown.FAILS, scope="stack")
def azure_resource_location(ctx: Context):
    for view in ctx.resources:
        if view.package in AZURE_PACKAGES:
            problem = place_problem(view, ctx)
            if problem:
                yield Finding(problem, view.urn)


@rule(id="SAHAB-AZ-002", name="azure-pulumi-provider-location-allowed",
      title="Azure providers default to an allowed location",
      description="An azure-native provider whose `location` is outside the list would place every resource "
                  "that does not name its own location outside the UAE.",
      remediation="Set the provider's `location` (or the stack's `azure-native:location`) to uaenorth.",
      severity=Severity.HIGH, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, unknown=Unknown.FAILS, types=(PROVIDER,))
def azure_provider_location(view: ResourceView, ctx: Context):
    place = provider_place(view, ctx)
    if not isinstance(place.value, str) and place.value is not UNKNOWN:
        return  # no default location: each resource must name one, which SAHAB-AZ-001 checks
    if isinstance(place.value, str) and place.value.lower() == "global":
        allowed = PROVIDER in ctx.global_location_types
    else:
        allowed = place_allowed(place, ctx)
    if not allowed:
        yield Finding(f"the provider location is {describe_place(place)}, outside the allowed locations")


@rule(id="SAHAB-AZ-003", name="azure-storage-storageaccount-geo-replica-in-country",
      title="Geo-redundant storage replicates within the UAE",
      description="Geo-redundant storage (GRS, RA-GRS, GZRS, RA-GZRS) keeps a second copy in the location's "
                  "Azure pair; that pair must be an allowed location too (uaenorth pairs with uaecentral). The "
                  "account's location is its effective one: its own, else its resource group's, else the "
                  "provider's.",
      remediation="Use a location whose pair is allowed (uaenorth or uaecentral), or a locally/zone-redundant "
                  "SKU (Standard_LRS, Standard_ZRS).",
      severity=Severity.CRITICAL, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, unknown=Unknown.FAILS, scope="stack",
      covers=(STORAGE_ACCOUNT,))
def azure_storage_geo_replica(ctx: Context):
    # A stack rule: the account's place may come from its resource group, which only the whole stack shows.
    for view in ctx.of_type(STORAGE_ACCOUNT):
        sku = lookup(view.props, "sku", "name")
        if sku is UNKNOWN:
            yield Finding("`sku.name` is unknown; the replica location cannot be shown, so it fails closed", view.urn)
            continue
        if sku not in GEO_REDUNDANT_SKUS:
            continue
        pair = pair_place(effective_place(view, ctx))
        if not place_allowed(pair, ctx):
            yield Finding(f"{sku} keeps a second copy in {describe_place(pair)}, which is not an allowed location",
                          view.urn)
