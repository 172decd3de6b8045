"""Residency as one mechanism over every resource of every provider package.

Two questions decide whether a resource keeps data in the country:

1. Where does it sit? `effective_place` resolves its place as the provider would: its own place input
   (`region`, `location`, `zone`), else (Azure) its resource group's location when the group is in the
   program, else its provider's setting, else the stack's `<package>:region`/`<package>:location` config.
   A resource with no place of its own (an Azure child such as a blob container or an agent pool, which the
   provider's SDK gives no `location` input) lives where its parent does, and its parent is judged itself.
   A place that cannot be resolved is a finding: residency fails closed, and the message says what is missing.
2. Where do its inputs point? `reference_findings` scans every input (policies/places.py) for places
   outside the allowed set: region codes, Azure locations, ARNs, ARM ids, service endpoints. An input that
   names a destination (replica, partner, target, ...) by a reference this program does not create, and whose
   place the reference itself does not show, fails closed too.

Nothing here lists resource types as the source of truth: a type never seen before is judged the same way.
The few type lists that remain say what a package or a service *is* (places-less packages, edge services).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from policies.core import MISSING, UNKNOWN, UNKNOWN_SENTINELS, Context, ResourceView, lookup
from policies.places import allowed, normalise_location, places_in, region_of


@dataclass(frozen=True)
class PlaceSource:
    """Where a package's resources take their place from."""

    own: tuple[str, ...]  # the resource's own inputs
    provider: tuple[str, ...]  # the provider's settings
    config: tuple[str, ...]  # stack config keys `<package>:<key>`
    group: bool = False  # Azure: a resource without a location takes its resource group's


PLACE_SOURCES = {
    "aws": PlaceSource(("region",), ("region",), ("region",)),
    "aws-native": PlaceSource(("region",), ("region",), ("region",)),
    "azure-native": PlaceSource(("location",), ("location",), ("location",), group=True),
    "azure": PlaceSource(("location",), ("location",), ("location",), group=True),
    "gcp": PlaceSource(("region", "zone", "location"), ("region", "zone"), ("region", "zone")),
}
# Any other package: the usual names of a place.
GENERIC_SOURCE = PlaceSource(("region", "location", "zone", "regionName"), ("region", "location", "zone"),
                             ("region", "location", "zone"))
AZURE_PACKAGES = ("azure-native", "azure")
AWS_PACKAGES = ("aws", "aws-native")
# Packages whose resources hold no data in a cloud place: the engine's own, local generators, and Kubernetes
# objects (they live on a cluster, whose own place is judged where the cluster is declared).
PLACELESS_PACKAGES = frozenset({"pulumi", "random", "tls", "time", "command", "kubernetes", "pulumi-python",
                                "pulumi-nodejs", "std", "null", "local", "archive"})
# Packages of clouds with no region in the UAE: every resource of theirs is a transfer abroad.
NO_UAE_REGION = {"gcp": "Google Cloud", "google-native": "Google Cloud", "digitalocean": "DigitalOcean",
                 "linode": "Akamai/Linode", "hcloud": "Hetzner", "vultr": "Vultr", "scaleway": "Scaleway",
                 "upcloud": "UpCloud", "exoscale": "Exoscale", "ovh": "OVHcloud"}
AZURE_GROUP_TYPES = ("azure-native:resources:ResourceGroup", "azure:core/resourceGroup:ResourceGroup")
_SDK_DISTS = {"azure-native": "pulumi_azure_native", "azure": "pulumi_azure"}


@dataclass(frozen=True)
class Place:
    value: Any  # a place string, UNKNOWN or MISSING
    source: str  # where it came from, or what could not be resolved


def is_component(view: ResourceView) -> bool:
    """Components hold nothing themselves (their children are judged); the engine gives them no provider."""
    return view.provider is None and not view.type.startswith("pulumi:providers:")


def in_scope(view: ResourceView) -> bool:
    """Whether a resource has a place to judge: a custom resource of a package that holds data somewhere."""
    return (not view.type.startswith("pulumi:providers:") and view.package not in PLACELESS_PACKAGES
            and not is_component(view))


@functools.cache
def _takes_location(type_token: str) -> bool:
    """Whether the provider's own SDK gives this Azure type a `location` input (tracked resource), read from
    the SDK rather than a list. Unknown to the SDK (not installed, a newer type): assume it does, which fails
    closed when no location can be resolved."""
    package, module, name = [*type_token.split(":"), "", ""][:3]
    dist = _SDK_DISTS.get(package)
    if not dist or not module or not name:
        return True
    path = ".".join([dist, *module.split("/")]) if package == "azure-native" else f"{dist}.{module.split('/')[0]}"
    try:
        args = getattr(importlib.import_module(path), f"{name}Args")
        return "location" in inspect.signature(args.__init__).parameters
    except (ImportError, AttributeError, TypeError, ValueError):
        return True


def resource_group_of(view: ResourceView, ctx: Context) -> ResourceView | None:
    name = lookup(view.props, "resourceGroupName")
    return ctx.resolve(name, view.property_dependencies.get("resourceGroupName", ()), AZURE_GROUP_TYPES)


def effective_place(view: ResourceView, ctx: Context, _depth: int = 0) -> Place:
    """Where the provider would put this resource (see the module doc); MISSING with the reason when it
    cannot be resolved, UNKNOWN when an input it depends on is only known after the update."""
    source = PLACE_SOURCES.get(view.package, GENERIC_SOURCE)
    for key in source.own:
        value = lookup(view.props, key)
        if value is not MISSING:
            return Place(value, f"its own `{key}`")
    group_name = MISSING
    if source.group and view.type not in AZURE_GROUP_TYPES:
        group = resource_group_of(view, ctx)
        if group is not None and _depth < 3:
            inherited = effective_place(group, ctx, _depth + 1)
            return Place(inherited.value, f"its resource group {group.name!r} ({inherited.source})")
        group_name = lookup(view.props, "resourceGroupName")
        if group_name is not MISSING and view.package == "azure-native":
            # The provider reads the location of a group this program does not create at update time.
            shown = "unknown until the update runs" if group_name is UNKNOWN else repr(group_name)
            return Place(MISSING, f"no `location`, and its resource group {shown} is not created by this "
                                  "program, so the location it would inherit cannot be resolved")
    if view.provider is not None:
        for key in source.provider:
            value = lookup(view.provider.props, key)
            if value is not MISSING:
                return Place(value, f"the `{key}` of its provider {view.provider.name!r}")
    for key in source.config:
        value = ctx.stack_config.get(f"{view.package}:{key}")
        if isinstance(value, str) and value:
            return Place(value, f"the stack's `{view.package}:{key}`")
    own = "/".join(f"`{k}`" for k in source.own)
    return Place(MISSING, f"no {own} on the resource, its provider or the stack config "
                          f"(`{view.package}:{source.config[0]}`)")


def place_problem(view: ResourceView, ctx: Context) -> str | None:
    """Why this resource's place is not shown to be allowed; None when it is (or it has no place of its own)."""
    if not in_scope(view):
        return None
    if view.package in NO_UAE_REGION:
        return (f"{NO_UAE_REGION[view.package]} ({view.package}) has no region in the UAE: any place it offers "
                "is outside the allowed set")
    if view.package in AZURE_PACKAGES and lookup(view.props, "location") is MISSING \
            and view.type not in AZURE_GROUP_TYPES and not _takes_location(view.type):
        return None  # a child resource (container, agent pool, role assignment) lives where its parent does
    place = effective_place(view, ctx)
    value = place.value
    if value is UNKNOWN:
        return f"the effective place ({place.source}) is unknown until the update runs; residency cannot be " \
               "shown, so it fails closed"
    if value is MISSING:
        return f"the effective place cannot be resolved: {place.source}; residency fails closed"
    if not isinstance(value, str):
        return f"the effective place ({place.source}) is {value!r}, not a region or location"
    if normalise_location(value) == "global":
        if view.type in ctx.global_location_types:
            return None
        return f"the effective place ({place.source}) is 'global', allowed only for " \
               f"{', '.join(sorted(ctx.global_location_types))}"
    if allowed(value, ctx.allowed_regions):
        return None
    return f"the effective place {value!r} ({place.source}) is outside the allowed places " \
           f"({', '.join(ctx.allowed_regions)})"


# ---------------------------------------------------------------------------------------------------------
# References in inputs

# Inputs that send data somewhere: the place they name is where copies of the data go.
DESTINATION_KEY = re.compile(r"destination|replica|partner|secondary|failover|target|copy|sink|forward|"
                             r"export|remote|peer|subscriber|endpoint", re.IGNORECASE)
_ARN = re.compile(r"^arn:[a-z0-9-]+:([a-z0-9-]+):([a-z0-9-]*):")
_ARM_ID = re.compile(r"^/subscriptions/[^/]+/", re.IGNORECASE)
# Services whose ARNs carry no region although the resource has one (S3 buckets and access points).
_REGIONLESS_REGIONAL_ARN_SERVICES = frozenset({"s3"})


def _own_place_keys(view: ResourceView) -> tuple[str, ...]:
    if view.type.startswith("pulumi:providers:"):
        package = view.type.removeprefix("pulumi:providers:")
        return PLACE_SOURCES.get(package, GENERIC_SOURCE).provider
    return PLACE_SOURCES.get(view.package, GENERIC_SOURCE).own


def reference_findings(view: ResourceView, ctx: Context) -> Iterator[str]:
    """Every place named in the inputs outside the allowed set, and every destination this program does not
    create whose place cannot be shown. Top-level place inputs are the place rule's business."""
    own = _own_place_keys(view)
    here = None
    seen: set[tuple[str, str]] = set()
    for path, place in places_in(view.props):
        if path in own or allowed(place, ctx.allowed_regions) or (path, place) in seen:
            continue
        if path in ("id", "arn") and in_scope(view):
            # The resource's own identity names where it is, which is the place rule's business; an `arn` input
            # naming somewhere else (an event target's) is a reference like any other.
            here = here or effective_place(view, ctx)
            if isinstance(here.value, str) and region_of(place) == region_of(here.value):
                continue
        seen.add((path, place))
        yield f"`{path}` names {region_of(place)!r}, outside the allowed places ({', '.join(ctx.allowed_regions)})"
    yield from _external_destinations(view, ctx, view.props, "")


def _external_destinations(view: ResourceView, ctx: Context, value: Any, path: str, depth: int = 0,
                           destination: bool = False) -> Iterator[str]:
    from policies.places import METADATA_KEYS, _unwrap

    value = _unwrap(value)
    if depth > 10:
        return
    if isinstance(value, str):
        if destination and value in UNKNOWN_SENTINELS:
            top = path.split(".")[0].split("[")[0]
            if not any(ctx.by_urn(urn) is not None for urn in view.property_dependencies.get(top, ())):
                yield f"`{path}` sends data to a destination unknown until the update runs that no resource of " \
                      "this program produces; its place cannot be shown, so it fails closed"
        elif destination:
            problem = _unresolved_reference(view, ctx, value)
            if problem:
                yield f"`{path}` sends data to {problem}"
        return
    if isinstance(value, dict) or hasattr(value, "keys"):
        for key in list(value):
            if key in METADATA_KEYS:
                continue
            child_path = f"{path}.{key}" if path else str(key)
            yield from _external_destinations(view, ctx, value[key], child_path, depth + 1,
                                              destination or bool(DESTINATION_KEY.search(str(key))))
        return
    if isinstance(value, (list, tuple)) or type(value).__name__ == "_ListProxy":
        for i, child in enumerate(value):
            yield from _external_destinations(view, ctx, child, f"{path}[{i}]", depth + 1, destination)


def _unresolved_reference(view: ResourceView, ctx: Context, value: str) -> str | None:
    """For a destination reference (ARN or ARM id) that names no place of its own: None when this program
    creates the target (its place is judged there), else what cannot be shown."""
    arn = _ARN.match(value)
    if arn:
        service, region = arn.groups()
        if region or service not in _REGIONLESS_REGIONAL_ARN_SERVICES:
            return None  # the region is in the ARN (judged above), or the service is global
    elif not _ARM_ID.match(value) or "/locations/" in value.lower():
        return None
    if any(value in r.identities or value.rstrip("/*") in r.identities for r in ctx.resources):
        return None
    return f"{value}, which this program does not create, so its place cannot be shown"
