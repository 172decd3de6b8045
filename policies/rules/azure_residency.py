"""Azure residency: every located resource, provider and geo-replica stays in the allowed locations."""

from __future__ import annotations

from policies.core import (
    MISSING,
    UNKNOWN,
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    effective_azure_location,
    health_data,
    iso27001,
    lookup,
    normalise_location,
    pdpl,
    rule,
)
from policies.residency import AZURE_PACKAGES, place_problem

RESIDENCY = (pdpl("Art. 22 (cross-border transfer)"), health_data("Art. 13"), iso27001("A.5.34"))
PROVIDER = "pulumi:providers:azure-native"
RESOURCE_GROUP = "azure-native:resources:ResourceGroup"
# Azure's paired regions: geo-redundant storage keeps its second copy in the pair.
PAIRED_LOCATION = {
    "uaenorth": "uaecentral", "uaecentral": "uaenorth",
    "westeurope": "northeurope", "northeurope": "westeurope",
    "qatarcentral": "", "israelcentral": "",
    "southafricanorth": "southafricawest", "southafricawest": "southafricanorth",
    "centralindia": "southindia", "southindia": "centralindia",
    "eastus": "westus", "westus": "eastus",
}
GEO_REDUNDANT_SKUS = ("Standard_GRS", "Standard_RAGRS", "Standard_GZRS", "Standard_RAGZRS")


def allowed_locations(ctx: Context) -> set[str]:
    return {normalise_location(r) for r in ctx.allowed_regions}


def location_problem(location, ctx: Context, what: str, resource_type: str) -> str | None:
    allowed = allowed_locations(ctx)
    if location is UNKNOWN:
        return f"{what} is unknown during preview; residency cannot be shown, so it fails closed"
    if location is MISSING:
        return f"{what} is not set on the resource, its resource group, its provider or the stack " \
               "(`azure-native:location`)"
    if not isinstance(location, str):
        return f"{what} is {location!r}, not a location"
    location = normalise_location(location)
    if location == "global":
        if resource_type in ctx.global_location_types:
            return None
        return f"{what} is 'global', allowed only for {', '.join(sorted(ctx.global_location_types))}"
    if location in allowed:
        return None
    shown = sorted(a for a in allowed if "-" not in a) or sorted(allowed)  # Azure names, not AWS regions
    return f"{what} {location!r} is outside the allowed locations ({', '.join(shown)})"


@rule(id="SAHAB-AZ-001", name="azure-all-resource-location-allowed",
      title="Every Azure resource lives in an allowed location",
      description="The effective location of every resource of the azure-native and azure packages (its own "
                  "`location`, else its resource group's, else the provider's) is uaenorth or uaecentral; "
                  "`global` only for allow-listed control-plane types. A type whose SDK gives it no `location` "
                  "lives where its parent does; a location that cannot be resolved fails closed.",
      remediation="Set `location=\"uaenorth\"` (or uaecentral) on the resource or on a resource group this "
                  "program creates, and pin the provider's `location`.",
      severity=Severity.CRITICAL, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, scope="stack")
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
      enforcement=Enforcement.MANDATORY, residency=True, types=(PROVIDER,))
def azure_provider_location(view: ResourceView, ctx: Context):
    location = lookup(view.props, "location")
    if location is MISSING:
        return  # no default location: each resource must name one, which SAHAB-AZ-001 checks
    problem = location_problem(location, ctx, "provider location", PROVIDER)
    if problem:
        yield Finding(problem)


@rule(id="SAHAB-AZ-003", name="azure-storage-storageaccount-geo-replica-in-country",
      title="Geo-redundant storage replicates within the UAE",
      description="Geo-redundant storage (GRS, RA-GRS, GZRS, RA-GZRS) keeps a second copy in the location's "
                  "Azure pair; that pair must be an allowed location too (uaenorth pairs with uaecentral).",
      remediation="Use a location whose pair is allowed (uaenorth or uaecentral), or a locally/zone-redundant "
                  "SKU (Standard_LRS, Standard_ZRS).",
      severity=Severity.CRITICAL, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, types=("azure-native:storage:StorageAccount",))
def azure_storage_geo_replica(view: ResourceView, ctx: Context):
    sku = lookup(view.props, "sku", "name")
    if sku is UNKNOWN:
        yield Finding("`sku.name` is unknown during preview; the replica location cannot be shown, so it "
                      "fails closed")
        return
    if sku not in GEO_REDUNDANT_SKUS:
        return
    location = effective_azure_location(view, ctx)
    if not isinstance(location, str):
        yield Finding(f"{sku} replicates to the pair of a location that is "
                      f"{'unknown during preview' if location is UNKNOWN else 'not set'}; fails closed")
        return
    pair = PAIRED_LOCATION.get(location)
    if not pair:
        yield Finding(f"{sku} in {location!r}: no known in-country pair to replicate to")
    elif pair not in allowed_locations(ctx):
        yield Finding(f"{sku} in {location!r} keeps a second copy in its pair {pair!r}, outside the allowed "
                      "locations")
