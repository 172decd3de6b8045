"""Residency as one mechanism over every resource of every provider package: the one resolver of places.

Every rule that reasons about a place (where a resource sits, its Azure pair, a replica, the destination of a
copy) asks this module; no rule reads a `region`/`location` input itself (tests/policies/test_one_resolver.py walks
the catalog's source and fails on one that does).

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

from .core import MISSING, UNKNOWN, UNKNOWN_SENTINELS, Context, ResourceView, is_unknown, lookup
from .documents import REFERENCE_SHAPE, RUN_TIME, document_destinations
from .egress import (
    HELM_TYPES,
    bucket_name_paths,
    chart_entries,
    destination_paths,
    inbound_switches,
    is_filtered,
    is_source,
    own_name_input,
)
from .places import (
    AZURE_PAIRS,
    METADATA_KEYS,
    _decoded,
    _unwrap,
    allowed,
    host_of,
    is_private_address,
    is_public_address,
    normalise_location,
    place_of_host,
    places_in,
    places_in_host,
    region_of,
    whole_place,
)


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
    value: Any  # a region/zone/location, or an ISO 3166 country (kind "country"); UNKNOWN or MISSING
    source: str  # where it came from, or what could not be resolved
    kind: str = "region"  # "region", "country", "edge" (worldwide CDN), "network" (a private address: inside)
    resource: str | None = None  # the URN of the resource of this program it is the place of


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
    declared = _declared_parameters(path, f"{name}Args")
    if declared is not None:
        return "location" in declared
    try:
        args = getattr(importlib.import_module(path), f"{name}Args")
        return "location" in inspect.signature(args.__init__).parameters
    except (ImportError, AttributeError, TypeError, ValueError):
        return True


def _declared_parameters(module: str, cls: str) -> set[str] | None:
    """The parameters of `cls.__init__` as the SDK's source declares them, without importing `module`: importing
    an Azure module folder runs every one of its hundreds of files, seconds per check. A generated SDK defines
    `XArgs` in `x.py` (the folder's __init__.py: `from .x import *`), or, when an input type took that name, in
    `_inputs.py`. None when the source does not say (then the module is imported)."""
    import ast
    import importlib.util
    from pathlib import Path

    from .syntax import parse

    try:
        spec = importlib.util.find_spec(module.split(".")[0])
        if spec is None or not spec.submodule_search_locations:
            return None
        folder = Path(next(iter(spec.submodule_search_locations)), *module.split(".")[1:])
        wanted = cls.removesuffix("Args").lower()
        files = re.findall(r"^from \.(\w+) import \*$", (folder / "__init__.py").read_text(), re.M)
        for name in dict.fromkeys(n for n in files if n.replace("_", "") == wanted or n == "_inputs"):
            text = (folder / f"{name}.py").read_text()
            found = re.search(rf"^class {cls}\b.*?(?=^\S)", text + "\n.", re.M | re.S)
            if found is None or f"'{cls}'" not in text:  # not there, or not in the file's __all__
                continue
            (node,) = parse(found.group(0)).body  # judged on the analyzer's threads
            init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
            if init is None or init.decorator_list:
                return None
            a = init.args
            return {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    except (OSError, SyntaxError, ValueError, ImportError):
        return None
    return None


def resource_group_of(view: ResourceView, ctx: Context) -> ResourceView | None:
    name = lookup(view.props, "resourceGroupName")
    return ctx.resolve(name, view.property_dependencies.get("resourceGroupName", ()), AZURE_GROUP_TYPES)


# Kubernetes objects that stand for a cluster elsewhere, and the label that says where it is (Sahab sets it from
# the fleet config): a MultiKueue manager hands Jobs, with their data paths, to every worker cluster it names.
CLUSTER_LABELS = {f"kubernetes:kueue.x-k8s.io/{v}:MultiKueueCluster": "sahab.io/region"
                  for v in ("v1beta2", "v1beta1", "v1alpha1")}
# Where an on-prem component declares its site's country.
ONPREM_COUNTRY_PATHS = (("country",), ("site", "country"), ("location", "country"))
FLEET_DEFAULT_COUNTRY = "AE"  # components/fleet_config/sites.py Site.country default


def effective_place(view: ResourceView, ctx: Context, _depth: int = 0) -> Place:
    """Where the provider would put this resource (see the module doc); MISSING with the reason when it
    cannot be resolved, UNKNOWN when an input it depends on is only known after the update."""
    if view.type in CLUSTER_LABELS:
        label = CLUSTER_LABELS[view.type]
        return Place(lookup(view.props, "metadata", "labels", label), f"its label `{label}`")
    if view.type.startswith("pulumi:providers:"):
        return provider_place(view, ctx)
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
        own = "/".join(f"`{k}`" for k in source.own)
        return Place(MISSING, f"no {own} on the resource, and {unplaced_provider(view.provider, view.package, ctx)}")
    for key in source.config:
        value = ctx.stack_config.get(f"{view.package}:{key}")
        if isinstance(value, str) and value:
            return Place(value, f"the stack's `{view.package}:{key}`")
    own = "/".join(f"`{k}`" for k in source.own)
    return Place(MISSING, f"no {own} on the resource, its provider or the stack config "
                          f"(`{view.package}:{source.config[0]}`)")


def unplaced_provider(provider: ResourceView, package: str, ctx: Context) -> str:
    """Why a provider that sets no place gives none. The engine hands its default provider for a package (named
    `default` or `default_7_51_1`) the stack's `<package>:*` settings as its inputs, so a provider without a place
    among its inputs never takes the stack's: either the stack sets none, or the provider is the program's own,
    which gets its arguments and nothing else (pulumi_aws's Provider falls back to AWS_REGION/AWS_DEFAULT_REGION,
    then the profile). The name cannot tell the two apart, as a program may call its own provider `default` (the
    engine's `IsDefaultProvider` is a name prefix test); the inputs can."""
    source = PLACE_SOURCES.get(package, GENERIC_SOURCE)
    keys, setting = "/".join(f"`{k}`" for k in source.provider), f"`{package}:{source.config[0]}`"
    configured = any(isinstance(ctx.stack_config.get(f"{package}:{key}"), str) and ctx.stack_config[f"{package}:{key}"]
                     for key in source.config)
    named_default = provider.name == "default" or provider.name.startswith("default_")
    if named_default and not configured:
        return f"its provider {provider.name!r} sets no {keys}, nor does the stack config ({setting})"
    return (f"its explicit provider {provider.name!r} sets no {keys}: the stack's {setting} configures only "
            "default providers, and the provider would take its place from the environment or a profile")


def provider_place(view: ResourceView, ctx: Context) -> Place:
    """The default place a provider gives the resources it manages: its own setting (a default provider's holds the
    stack's)."""
    package = view.type.removeprefix("pulumi:providers:")
    source = PLACE_SOURCES.get(package, GENERIC_SOURCE)
    for key in source.provider:
        value = lookup(view.props, key)
        if value is not MISSING:
            return Place(value, f"its `{key}`")
    return Place(MISSING, unplaced_provider(view, package, ctx).removeprefix("its "))


def pair_place(place: Place) -> Place:
    """Where geo-redundant storage keeps its second copy: the Azure pair of `place`."""
    if not isinstance(place.value, str):
        return place
    location = normalise_location(place.value)
    pair = AZURE_PAIRS.get(location)
    if pair is None:
        return Place(MISSING, f"{location!r} ({place.source}) has no pair known to the pack")
    if not pair:
        return Place(MISSING, f"{location!r} ({place.source}) has no paired location")
    return Place(pair, f"the pair of {location!r} ({place.source})")


def place_allowed(place: Place, ctx: Context) -> bool:
    """Whether a resolved place is one the data may be in."""
    if place.kind == "network":
        return True
    if place.kind == "edge" or not isinstance(place.value, str):
        return False
    if place.kind == "country":
        return place.value.upper() in {c.upper() for c in ctx.allowed_countries}
    return allowed(place.value, ctx.allowed_regions)


def describe_place(place: Place) -> str:
    if place.value is UNKNOWN:
        return f"unknown until the update runs ({place.source})"
    if place.value is MISSING:
        return f"not resolvable: {place.source}"
    return f"{place.value!r} ({place.source})"


def site_places(ctx: Context) -> Iterator[tuple[str, str | None, Place]]:
    """(what, urn, place) of every on-prem site: those of `sahab:fleet.sites` and of the on-prem components."""
    fleet = ctx.stack_config.get("sahab:fleet")
    if isinstance(fleet, dict):
        for i, site in enumerate(fleet.get("sites") or []):
            country = lookup(site, "country")
            name = lookup(site, "name")
            value = FLEET_DEFAULT_COUNTRY if country is MISSING else country
            yield (f"sahab:fleet.sites[{i}] ({name if isinstance(name, str) else '?'})", None,
                   Place(value, "its `country`", "country"))
    for res in ctx.resources:
        if not res.type.startswith("sahab:onprem:"):
            continue
        for path in ONPREM_COUNTRY_PATHS:
            country = lookup(res.props, *path)
            if country is not MISSING:
                yield f"{res.type} {res.name!r}", res.urn, Place(country, f"its `{'.'.join(path)}`", "country")
                break


# Azure data stores whose children have no place of their own (a blob, a container, a share, a queue, a secret, an
# event hub, a Cosmos container, a PostgreSQL or MySQL database): a child lives, and its data is written, in the
# store it names, wherever that is. A Cosmos child's `location` is only its resource group's ("The location of the
# resource group to which the resource belongs"), not where the account keeps it: the store decides first. Azure
# module -> the input naming the store, and the store's type. Each store's name is global (DNS), so the name alone
# says which store it is. (A SQL database or a registry replication takes a location Azure holds to its server's or
# registry's, judged as its own; the children of a server or registry without one are settings, not data.)
AZURE_DATA_PARENTS = {"storage": ("accountName", "azure-native:storage:StorageAccount"),
                      "keyvault": ("vaultName", "azure-native:keyvault:Vault"),
                      "eventhub": ("namespaceName", "azure-native:eventhub:Namespace"),
                      "servicebus": ("namespaceName", "azure-native:servicebus:Namespace"),
                      "cosmosdb": ("accountName", "azure-native:cosmosdb:DatabaseAccount"),
                      "dbforpostgresql": ("serverName", "azure-native:dbforpostgresql:Server"),
                      "dbformysql": ("serverName", "azure-native:dbformysql:Server")}


def _parent_problem(view: ResourceView, ctx: Context) -> str | None:
    """Why a child of an Azure data store is not shown to stay in the UAE: its store is not a resource of this
    program (looked up, or only named), so where its data goes cannot be shown. A store of this program is judged
    as itself."""
    if view.package != "azure-native":
        return None
    known = AZURE_DATA_PARENTS.get(view.type.split(":")[1].split("/")[0])
    if known is None:
        return None
    key, store_type = known
    name = lookup(view.props, key)
    if view.type == store_type or name is MISSING \
            or ctx.resolve(name, view.property_dependencies.get(key, ()), (store_type,)) is not None:
        return None
    shown = "unknown until the update runs" if name is UNKNOWN else repr(name)
    return f"it lives in the {store_type.split(':')[-1]} {shown} (`{key}`), which this program does not create: " \
           "where its data is kept cannot be shown, so residency fails closed"


def place_problem(view: ResourceView, ctx: Context) -> str | None:
    """Why this resource's place is not shown to be allowed; None when it is (or it has no place of its own)."""
    if not in_scope(view):
        return None
    if view.package in NO_UAE_REGION:
        return (f"{NO_UAE_REGION[view.package]} ({view.package}) has no region in the UAE: any place it offers "
                "is outside the allowed set")
    parent = _parent_problem(view, ctx)
    if parent is not None:
        return parent
    if view.package in AZURE_PACKAGES and lookup(view.props, "location") is MISSING \
            and view.type not in AZURE_GROUP_TYPES and not _takes_location(view.type):
        return None  # a child resource (container, agent pool) lives where its parent does
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
# References in inputs: places named anywhere, and the places of destinations

_ARN = re.compile(r"^arn:[a-z0-9-]+:([a-z0-9-]+):([a-z0-9-]*):([0-9]*):?(.*)$")
_ARM_ID = re.compile(r"^/subscriptions/[^/]+/", re.IGNORECASE)
# Services whose ARNs carry no region: S3 (a bucket is regional, its ARN does not say where), the edge services
# (worldwide), and control-plane services whose ARNs never name data (roles, accounts, hosted zones).
_EDGE_ARN_SERVICES = frozenset({"cloudfront", "globalaccelerator"})
_CONTROL_ARN_SERVICES = frozenset({"iam", "sts", "organizations", "route53", "shield", "health", "waf"})
# Azure providers whose resources store or receive data: an id of one this program does not create, with no
# location in it, is a destination whose place cannot be shown wherever it is named.
DATA_SINK_PROVIDERS = ("microsoft.operationalinsights/workspaces", "microsoft.storage/storageaccounts",
                       "microsoft.eventhub/namespaces", "microsoft.servicebus/namespaces",
                       "microsoft.insights/components", "microsoft.documentdb/databaseaccounts",
                       "microsoft.sql/servers", "microsoft.kusto/clusters")
# Azure service hosts whose first label is a resource's name: the input that names it, and the kinds of resource
# that name belongs to (a blob container or a database under an account carries the account's name too, but is no
# account: one declared here may sit under an account elsewhere). Log Analytics' ingestion host is named by the
# workspace's id (`customerId`), known once the workspace exists.
_STORAGE = ("accountName", ("azure-native:storage:StorageAccount",))
AZURE_HOSTS = {"blob.core.windows.net": _STORAGE, "dfs.core.windows.net": _STORAGE, "file.core.windows.net": _STORAGE,
               "queue.core.windows.net": _STORAGE, "table.core.windows.net": _STORAGE,
               "vault.azure.net": ("vaultName", ("azure-native:keyvault:Vault",)),
               "servicebus.windows.net": ("namespaceName", ("azure-native:servicebus:Namespace",
                                                            "azure-native:eventhub:Namespace")),
               "database.windows.net": ("serverName", ("azure-native:sql:Server",)),
               # azure-native 3.x calls Cosmos DB `cosmosdb`; 2.x called it `documentdb`
               "documents.azure.com": ("accountName", ("azure-native:cosmosdb:DatabaseAccount",
                                                       "azure-native:documentdb:DatabaseAccount")),
               "azurecr.io": ("registryName", ("azure-native:containerregistry:Registry",)),
               "ods.opinsights.azure.com": ("customerId", ("azure-native:operationalinsights:Workspace",))}
# The hosts of those whose services store or receive data (the host form of DATA_SINK_PROVIDERS): one naming a store
# this program does not create is a destination whose place cannot be shown wherever it is named (a Data Factory
# linked service's endpoint, an app setting, an audit policy's `storageEndpoint`). Key Vault and registry hosts
# are read from, not written to: the key and registry rules judge them.
AZURE_SINK_HOSTS = frozenset(d for d in AZURE_HOSTS if d not in ("vault.azure.net", "azurecr.io"))
_SINK_DOMAINS = "|".join(re.escape(d) for d in sorted(AZURE_SINK_HOSTS))
_AZURE_SINK_HOST = re.compile(rf"(?<![\w.-])[a-z0-9][a-z0-9-]*\.(?:{_SINK_DOMAINS})(?![\w-])", re.I)
# A host inside a connection string: a URL of any scheme (`Endpoint=sb://ns.servicebus.windows.net/`), or a storage
# account's `AccountName=` (its blob host; the suffix defaults to core.windows.net, as the storage SDKs assume).
_URL_HOST = re.compile(r"\b[a-z][a-z0-9+.-]*://([^/\s\"';]+)", re.I)
_ACCOUNT_NAME = re.compile(r"(?:^|;)\s*AccountName=([a-z0-9]+)\s*(?:;|$)", re.I)
# A server named by a key of a connection string (`Server=tcp:srv.database.windows.net,1433;`, `Data Source=...`).
_SERVER_KEY = re.compile(r"(?:^|;)\s*(?:Server|Data Source|Address|Addr|Network Address|Host)\s*=\s*(?:tcp:)?"
                         r"([a-z0-9.-]+)", re.I)
_ENDPOINT_SUFFIX = re.compile(r"(?:^|;)\s*EndpointSuffix=([a-z0-9.-]+)", re.I)


def _own_place_keys(view: ResourceView) -> tuple[str, ...]:
    if view.type.startswith("pulumi:providers:"):
        package = view.type.removeprefix("pulumi:providers:")
        return PLACE_SOURCES.get(package, GENERIC_SOURCE).provider
    return PLACE_SOURCES.get(view.package, GENERIC_SOURCE).own


def program_resource(value: str, ctx: Context, prop_urns=(), types=()) -> ResourceView | None:
    """The resource of this program a reference names: one of its identities (id, ARN, name), a path below one
    (an object of a bucket, a child of an ARM resource), or the URNs the input's value came from."""
    found = ctx.resolve(value, prop_urns, types)
    if found is not None:
        return found
    trimmed = value.rstrip("/*")
    for r in ctx.resources:
        if types and r.type not in types:
            continue
        for identity in r.identities:
            if len(identity) > 3 and (trimmed == identity or value.startswith(identity.rstrip("/") + "/")):
                return r
    kind, slash, last = value.partition("/")
    if slash and kind and len(last) > 3 and not set(":./") & set(kind + last):
        # A relative reference to a sibling, `<kind>/<id>` (API Gateway's `integrations/{id}` route targets,
        # `authorizers/{id}`): the resource of this program with that identity, if there is one.
        for r in ctx.resources:
            if (not types or r.type in types) and last in r.identities:
                return r
    arn = _ARN.match(value)
    if arn and arn.group(1) == "s3":
        return program_bucket(arn.group(4).split("/", 1)[0], ctx)
    return None


# S3 bucket names are one namespace of S3's own: a bucket name names a bucket, never another kind of resource that
# happens to carry the same name (a topic, a function, an object uploaded to someone else's bucket).
S3_BUCKET_TYPES = ("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2", "aws:s3/directoryBucket:DirectoryBucket",
                   "aws-native:s3:Bucket")


def program_bucket(name: str, ctx: Context) -> ResourceView | None:
    """The S3 bucket of this program with that name, if there is one."""
    return next((r for r in ctx.resources if r.type in S3_BUCKET_TYPES
                 and (name in r.identities or lookup(r.props, "bucket") == name)), None)


def _program_host(host: str, ctx: Context) -> ResourceView | None:
    """The resource of this program a service host names (`acct.blob.core.windows.net`, `b.s3.amazonaws.com`)."""
    label, _, domain = host.partition(".")
    if (domain.startswith("s3.") or domain.startswith("s3-")) and domain.endswith("amazonaws.com"):
        return program_bucket(label, ctx)
    if domain not in AZURE_HOSTS:
        return None
    key, types = AZURE_HOSTS[domain]
    return next((r for r in ctx.resources if r.type in types and lookup(r.props, key) == label), None)


def place_of_reference(value: Any, ctx: Context, prop_urns=(), types=(), _depth: int = 0) -> Place:
    """Where a reference points: the place of the resource of this program it names, else what the reference
    itself shows (an ARN's region, an ARM id's location, a host's place, a region code). MISSING with the reason
    when nothing shows it; UNKNOWN when the value is unknown and no resource of this program produced it."""
    if is_unknown(value):
        sources = [r for urn in prop_urns if (r := ctx.by_urn(urn)) is not None and in_scope(r)
                   and (not types or r.type in types)]
        if not sources:
            return Place(UNKNOWN, "no resource of this program produces it")
        places = [(r, effective_place(r, ctx)) for r in sources]
        worst = next(((r, p) for r, p in places if not place_allowed(p, ctx)), places[0])
        return Place(worst[1].value, f"the {worst[0].type.split(':')[-1]} {worst[0].name!r} of this program "
                                     f"({worst[1].source})", worst[1].kind, worst[0].urn)
    if not isinstance(value, str) or not value:
        return Place(MISSING, "not a reference")
    target = program_resource(value, ctx, (), types)
    if target is not None and _depth < 3:
        place = effective_place(target, ctx) if in_scope(target) else Place(MISSING, "no place of its own")
        return Place(place.value, f"the {target.type.split(':')[-1]} {target.name!r} of this program "
                                  f"({place.source})", place.kind, target.urn)
    if value.lower().startswith("s3://"):
        bucket = value[5:].split("/", 1)[0]
        target = program_bucket(bucket, ctx)
        if target is not None and _depth < 3:
            place = effective_place(target, ctx)
            return Place(place.value, f"the bucket {target.name!r} of this program ({place.source})", place.kind,
                         target.urn)
        return Place(MISSING, f"the S3 bucket {bucket!r}, which this program does not create (a bucket name "
                              "carries no region)")
    arn = _ARN.match(value)
    if arn:
        service, region = arn.group(1), arn.group(2)
        if region:
            return Place(region, "the region in its ARN")
        if service in _EDGE_ARN_SERVICES:
            return Place(service, "a global edge service", "edge")
        if service in _CONTROL_ARN_SERVICES:
            return Place("control-plane", "a global control-plane object that holds no data", "network")
        if service == "s3":
            return Place(MISSING, "an S3 bucket this program does not create (a bucket ARN carries no region)")
        return Place(MISSING, f"its {service} ARN carries no region and this program does not create it")
    if _ARM_ID.match(value):
        located = re.search(r"/locations/([^/]+)", value, re.IGNORECASE)
        if located:
            return Place(normalise_location(located.group(1)), "the location in its resource id")
        return Place(MISSING, "an Azure resource this program does not create (its id carries no location)")
    named = whole_place(value)
    if named:
        return Place(named, "the region it names")
    host = host_of(value)
    if host is not None:
        if is_private_address(host):
            return Place("private network", "a private address, inside the resource's own network", "network")
        target = _program_host(host, ctx) or _program_named_host(host, ctx)
        if target is not None:
            place = effective_place(target, ctx)
            return Place(place.value, f"the {target.type.split(':')[-1]} {target.name!r} of this program "
                                      f"({place.source})", place.kind, target.urn)
        known = place_of_host(host)
        if known is not None:
            if known.edge:
                return Place(host, known.describe(), "edge")
            if known.country:  # a vendor's site, or another cloud's region, in a known country
                return Place(known.country, f"the host {host}: {known.describe()}", "country")
            if known.region:
                return Place(known.region, f"the host {host}: {known.what}")
            return Place(MISSING, f"the host {host}: {known.describe()}")
        if is_public_address(host):
            return Place(MISSING, f"the public address {host}, whose location cannot be shown")
        return Place(MISSING, f"the host {host}, which is not a resource of this program and whose location "
                              "cannot be shown")
    return Place(MISSING, "a name or id that is not a resource of this program and carries no place")


# ---------------------------------------------------------------------------------------------------------
# Destinations: the inputs of a type that send data somewhere (policies/data/egress_model.json)


@dataclass(frozen=True)
class Destination:
    path: str  # the concrete input path, e.g. rules[0].destination.bucket
    # replication, export, delivery, subscription, logging, backup, mirroring, webhook, volume; global (joins a
    # multi-region construct), endpoint (a provider's API endpoint override)
    kind: str
    value: Any  # the reference, UNKNOWN or MISSING (a block without it)
    place: Place
    bucket: bool = False  # the value names an S3 bucket (a global name), whatever the path's last word


def walk_model_path(value: Any, steps: list[str], path: str = "") -> Iterator[tuple[str, Any]]:
    """(concrete path, value) for every value at a model path (`[]` into lists, `{}` into maps); an unknown value
    on the way is UNKNOWN, a leaf the block does not set is MISSING."""
    if not steps:
        yield path, UNKNOWN if isinstance(value, str) and value in UNKNOWN_SENTINELS else _unwrap(value)
        return
    step, rest = steps[0], steps[1:]
    value = _unwrap(value)
    if isinstance(value, str) and value not in UNKNOWN_SENTINELS and isinstance(_decoded(value), (list, dict)):
        value = _decoded(value)  # a provider's nested settings reach the engine as JSON text
    if step == "[]":
        if isinstance(value, (list, tuple)):
            for i, child in enumerate(value):
                yield from walk_model_path(child, rest, f"{path}[{i}]")
        elif value is not None and value is not MISSING:
            yield from walk_model_path(value, rest, path)  # a single block where the schema allows a list
        return
    if step == "{}":
        if isinstance(value, dict):
            for key, child in value.items():
                yield from walk_model_path(child, rest, f"{path}.{key}")
        return
    child = lookup(value, step) if isinstance(value, dict) else MISSING
    if child is MISSING and isinstance(value, dict) and step != (snake := _snake(step)):
        # A block of a union type (a Stream Analytics output's `datasource`) holding an output reaches the engine
        # with its keys as the program wrote them: the SDK cannot tell which type's names to translate them to.
        child, step = lookup(value, snake), (snake if snake in value else step)
    if child is MISSING:
        if not rest:
            yield (f"{path}.{step}" if path else step), MISSING
        return
    if is_unknown(child):
        yield (f"{path}.{step}" if path else step), UNKNOWN
        return
    yield from walk_model_path(child, rest, f"{path}.{step}" if path else step)


def _snake(camel: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", camel).lower()


def model_steps(model_path: str) -> list[str]:
    return [s for s in re.split(r"\.|(\[\]|\{\})", model_path) if s]


def _destination_paths(view: ResourceView) -> dict[str, str]:
    """The type's destinations, and for a Helm release those its chart's values create (backup locations, remote
    write endpoints: policies/data/chart_values.json)."""
    paths = dict(destination_paths(view.type))
    if view.type in HELM_TYPES:
        for entry_ in chart_entries("destinations", lookup(view.props, "chart")):
            paths[f"values.{entry_['path']}"] = entry_["kind"]
    return paths


def _props(view: ResourceView) -> dict:
    props = _unwrap(view.props)
    return dict(props) if props is not None else {}


def inbound_blocks(view: ResourceView) -> frozenset[str]:
    """The concrete paths of the blocks in which this resource is the receiving end of a transfer, by the block's
    own direction input (Azure NetApp Files `dataProtection.replication.endpointType: dst`: the remote volume is
    the source, its data comes in; a DMS endpoint's `endpointType: source`, for the whole resource: every
    destination input it has then names where data is read from). What such a block names is a source, not a
    destination; a block whose direction is not set, or unknown, keeps its destinations (fails closed)."""
    found = set()
    props = _props(view)
    for block, (direction, inbound) in inbound_switches(view.type).items():
        for path, value in walk_model_path(props, model_steps(block), ""):
            end = lookup(value, direction) if isinstance(value, dict) else MISSING
            if not (isinstance(end, str) and end.lower() in inbound):
                continue
            if path:
                found.add(path)
                continue
            for model_path in _destination_paths(view):  # the whole resource: each destination it names
                found.update(p for p, _ in walk_model_path(props, model_steps(model_path), ""))
    return frozenset(found)


def _under(path: str, blocks: frozenset[str]) -> bool:
    return any(path == block or path.startswith((f"{block}.", f"{block}[")) for block in blocks)


# Kind `argument`: a free-form argument map (a Glue job's `defaultArguments`) whose values are destinations only
# where they are shaped as a reference (documents.REFERENCE_SHAPE).


def _host_list(value: Any) -> list[str] | None:
    """The hosts of a comma-separated list (Kafka's `broker`: `b-1.host:9092,b-2.host:9092`), else None."""
    if not isinstance(value, str) or "," not in value:
        return None
    parts = [p.strip() for p in value.split(",") if p.strip()]
    return parts if parts and all(host_of(p) for p in parts) else None


def destinations(view: ResourceView, ctx: Context, include_missing: bool = False) -> Iterator[Destination]:
    """Every destination input of the resource with the place it points to (see `place_of_reference`)."""
    inbound = inbound_blocks(view)
    for model_path, kind in _destination_paths(view).items():
        urns = _vouchers(view, ctx, model_steps(model_path)[0])
        for path, value in walk_model_path(_props(view), model_steps(model_path), ""):
            if _under(path, inbound):
                continue  # the other end is the source: data comes in through it
            if value is MISSING:
                if include_missing:
                    yield Destination(path, kind, MISSING, Place(MISSING, "not set"))
                continue
            hosts = _host_list(value)
            values = value if isinstance(value, (list, tuple)) else hosts or [value]
            types = _named_kinds(view, path)
            for i, one in enumerate(values):
                where = f"{path}[{i}]" if isinstance(value, (list, tuple)) else path
                if one is None or isinstance(one, bool) or one == "":
                    continue
                if kind == "argument" and not (isinstance(one, str) and REFERENCE_SHAPE.match(one)) \
                        and one is not UNKNOWN:
                    continue
                place = place_of_reference(one, ctx, urns, types)
                if kind == RELAY and place.resource is None:
                    place = _relay_place(view, ctx, urns) or place
                yield Destination(where, kind, one, place)
    for path, kind, value, bucket in document_destinations(view.type, _props(view)):
        # A value chosen at run time (a JSONPath in a state machine) is placed by nothing: it fails closed.
        urns = () if value is RUN_TIME else _vouchers(view, ctx, path.split(".", 1)[0])
        one_value = UNKNOWN if value is RUN_TIME else value
        types = S3_BUCKET_TYPES if bucket else _named_kinds(view, path)
        for one in _host_list(one_value) or [one_value]:
            yield Destination(path, kind, one, place_of_reference(one, ctx, urns, types), bucket)


def _vouchers(view: ResourceView, ctx: Context, top: str) -> tuple[str, ...]:
    """The resources of this program that may place an unknown value of the input `top`: those it depends on, in
    preview. After the update phase the program's resources have given their values: a known value names its
    resource itself (an identity, an endpoint's own `endpointArn` included), a value still unknown comes from outside
    (another stack, a lookup), and a resource it depends on vouches for neither
    (`own.endpoint_arn.apply(lambda _: other)`, `Output.all(own.id, other).apply(...)`)."""
    return () if ctx.phase == "update" else tuple(view.property_dependencies.get(top, ()))


# Kind `relay`: a resource that stands for the place data is sent to (a DMS target endpoint, a DataSync location):
# its own region says nothing of where the data goes, which its inputs say.
RELAY = "relay"


_RELAY_WORDS = ("endpoint", "location")


def _relay_place(view: ResourceView, ctx: Context, urns) -> Place | None:
    """In preview, the place of the relay of this program the input depends on (an endpoint's ARN is not known
    until it exists; after the update phase `urns` is empty and the value must name the relay itself): one of the
    same service that stands for a place."""
    module = view.type.split("/", 1)[0] + "/"
    types = tuple({r.type for r in ctx.resources if r.type.startswith(module)
                   and any(w in r.type.rsplit(":", 1)[-1].lower() for w in _RELAY_WORDS)})
    target = ctx.resolve(None, urns, types) if types else None
    if target is None:
        return None
    place = effective_place(target, ctx)
    return Place(place.value, f"the {target.type.split(':')[-1]} {target.name!r} of this program ({place.source})",
                 place.kind, target.urn)


def _names_bucket(view: ResourceView, path: str) -> bool:
    """Whether an AWS destination input names an S3 bucket: its name says so, or the model lists it (a CodeBuild
    artifact's `location`)."""
    if view.package not in AWS_PACKAGES:
        return False
    generic = re.sub(r"\[\d+\]", "[]", path)
    leaf = re.sub(r"\[\d+\]", "", path).rsplit(".", 1)[-1].lower().replace("_", "")
    return "bucket" in leaf or generic in bucket_name_paths(view.type)


def _named_kinds(view: ResourceView, path: str) -> tuple[str, ...]:
    """The kinds of resource a destination input can name: an AWS input naming a bucket names an S3 bucket (one
    namespace for the world), never a resource of another kind that carries the same name; any kind otherwise."""
    return S3_BUCKET_TYPES if _names_bucket(view, path) else ()


def _unknown_origin(ctx: Context) -> str:
    """Where an unknown value comes from: in preview, from no resource of this program; after the update run, when
    every value of the program is known, from outside it, whichever of its resources the value also depends on."""
    if ctx.phase == "update":
        return "still unknown after the update phase: it comes from outside this program (a lookup, another " \
               "stack), whatever of its resources it also depends on"
    return "unknown during preview that no resource of this program produces"


def destination_problem(view: ResourceView, ctx: Context, dest: Destination,
                        program_places: bool = True) -> str | None:
    """Why data sent through this destination is not shown to stay in the allowed places; None when it is. With
    `program_places` off, a destination that is a resource of this program is left to that resource's own place
    rule (one verdict for one fact); the copy rules keep it on for their sharper message."""
    place = dest.place
    if dest.kind == RELAY and place.resource is None and isinstance(dest.value, str) \
            and not _allowed_destination(dest.value, ctx):
        # Where the relay sends data is its own inputs': only one this program creates shows them.
        return f"`{dest.path}` sends data ({dest.kind}) to {dest.value!r}, which this program does not create: " \
               "where it sends data cannot be shown, so it fails closed"
    if place_allowed(place, ctx):
        return None
    if not program_places and place.resource is not None and ctx.by_urn(place.resource) is not None:
        return None
    shown = "unknown until the update runs" if dest.value is UNKNOWN else repr(dest.value)
    if isinstance(dest.value, str) and _allowed_destination(dest.value, ctx):
        return None
    if place.value is MISSING and isinstance(dest.value, str) and _relative_name(view, dest):
        return None  # a name resolved where the resource itself is: its own place is judged
    if place.value is UNKNOWN:
        return f"`{dest.path}` sends data ({dest.kind}) to a destination {_unknown_origin(ctx)}; its place cannot " \
               "be shown, so it fails closed"
    if place.value is MISSING:
        return f"`{dest.path}` sends data ({dest.kind}) to {shown}: {place.source}; its place cannot be shown, " \
               "so it fails closed"
    if place.kind == "edge":
        return f"`{dest.path}` sends data ({dest.kind}) to {shown}: {place.source}, outside the UAE"
    return f"`{dest.path}` sends data ({dest.kind}) to {place.value!r} ({place.source}), outside the allowed " \
           f"places ({', '.join(ctx.allowed_regions)})"


# A plain name (no `/`, `:` or `.`) is resolved by the service where the resource itself is: AWS names are
# regional (a log group, a stream, a topic by name), except S3 bucket names, which are global; Kubernetes names are
# objects of the same cluster; an Azure name below another reference (a container in a destination account) goes
# where that reference goes.
_PLAIN = re.compile(r"^[A-Za-z0-9_+=,@-]+$")
# Destinations that join a multi-region construct (an Aurora global database, an ElastiCache global datastore, a
# DynamoDB global table, an S3 Multi-Region Access Point) or override a provider's service endpoint: a plain
# identifier there names something that spans regions, not an object of the resource's own region.
GLOBAL_KINDS = ("global", "endpoint")
_GLOBAL_NAME_WORDS = ("bucket",)
_AZURE_SUB_RESOURCE_WORDS = ("container", "table", "queue", "share", "index", "blob", "path", "directory",
                             "database", "collection", "topic", "subscription", "hub", "name")
# ...but the name of a store itself (an account, a workspace, a function app, a server, a namespace) is global, never
# resolved below the resource's own parent.
_AZURE_TOP_LEVEL_NAMES = ("account", "accountname", "workspace", "workspacename", "appname", "servername",
                          "namespacename", "vaultname", "clustername", "storename")


def _relative_name(view: ResourceView, dest: Destination) -> bool:
    if not _PLAIN.match(dest.value) or dest.kind in GLOBAL_KINDS:
        return False
    leaf = re.split(r"[.\[]", dest.path.rstrip("]"))[-1] if "." in dest.path else dest.path
    leaf = re.sub(r"\[\d+\]$", "", dest.path.split(".")[-1]).lower().replace("_", "")
    if view.package in AWS_PACKAGES:
        named_bucket = dest.bucket or any(word in leaf for word in _GLOBAL_NAME_WORDS) \
            or _names_bucket(view, dest.path)
        return not named_bucket or dest.value.isdigit()
    if view.package == "kubernetes":
        return True
    if view.package in AZURE_PACKAGES:
        return leaf.endswith(_AZURE_SUB_RESOURCE_WORDS) and not leaf.endswith(_AZURE_TOP_LEVEL_NAMES)
    return False


def _allowed_destination(value: str, ctx: Context) -> bool:
    """Whether the trusted policy config names this destination (`allowedDestinations`: references, hosts, or
    `*.` + a domain for every host under it)."""
    entries = [str(e).strip() for e in (ctx.settings.get("allowedDestinations") or []) if str(e).strip()]
    if not entries:
        return False
    host = host_of(value) if not _ARN.match(value) and not _ARM_ID.match(value) else None
    for entry in entries:
        if value == entry or value.rstrip("/*") == entry:
            return True
        if host and (host == entry.lower() or (entry.startswith("*.") and host.endswith(entry[1:].lower()))):
            return True
    return False


# ---------------------------------------------------------------------------------------------------------
# Places named anywhere in the inputs


def _policy_statements(document: Any) -> list | None:
    if isinstance(document, dict) and "Statement" in document:
        statements = document["Statement"]
        return statements if isinstance(statements, list) else [statements]
    return None


# A place input other than its own (a Cosmos DB account's `locations[].locationName`, an API Management service's
# `additionalLocations[].location`): a second place the resource keeps or serves data in. Its value, when known, is
# scanned as any place; unknown (a lookup's location), it is a place that cannot be shown.
_NESTED_PLACE = re.compile(r"(?:^|[.\]])(?:location|region|\w*[a-z0-9](?:Location|Region))s?(?:Name)?(?:\[\d+\])?$")


def _scan(value: Any, path: str, view: ResourceView, depth: int = 0,
          inbound: frozenset[str] = frozenset()) -> Iterator[tuple[str, str, Any]]:
    """(path, kind, what) for every place, host and data-store reference named in `value`, skipping metadata,
    conditions, Deny statements, sources, filters (deny lists, patterns) and what a block in which the resource is
    the destination end names (`inbound_blocks`): none of them sends data anywhere."""
    if depth > 12 or (path and (is_source(view.type, path) or is_filtered(view.type, path) or path in inbound)):
        return
    value = _unwrap(value)
    if is_unknown(value) and _NESTED_PLACE.search(path):
        yield path, "unknown-place", UNKNOWN
        return
    if isinstance(value, str):
        inner = _decoded(value)
        if inner is not None:
            yield from _scan(inner, path, view, depth + 1, inbound)
            return
        for _, place in places_in(value, path):
            yield path, "place", place
        host = host_of(value) if ("://" in value or "." in value) and " " not in value.strip() else None
        if host is None and value.strip()[:1].isalpha() and len(value) < 2000:
            match = _URL_HOST.search(value)
            host = host_of(match.group(1)) if match else None
        if host is not None and not places_in_host(host):
            known = place_of_host(host)
            if known is not None and not (known.country and not known.edge and known.country.upper() == "AE"):
                yield path, "host", known
        for store in _azure_store_hosts(value, host):
            yield path, "sink-host", store
        if view.package in AZURE_PACKAGES:
            for outside in _connection_hosts(value):
                yield path, "store-host", outside
        if _ARM_ID.match(value) and any(p in value.lower() for p in DATA_SINK_PROVIDERS) \
                and "/locations/" not in value.lower():
            yield path, "sink", value
        if view.package == "kubernetes" and view.type not in HELM_TYPES:
            for bucket in object_store_buckets(value):
                yield path, "bucket-url", bucket
        return
    if isinstance(value, dict):
        statements = _policy_statements(value)
        if statements is not None:
            for i, st in enumerate(statements):
                st = _unwrap(st)
                if isinstance(st, dict) and str(st.get("Effect", "")).lower() == "deny":
                    continue  # a Deny keeps data from going somewhere
                yield from _scan(st, f"{path}.Statement[{i}]", view, depth + 1, inbound)
            return
        for key in list(value):
            if key in METADATA_KEYS or key in ("Condition", "condition"):
                continue
            yield from _scan(value[key], f"{path}.{key}" if path else str(key), view, depth + 1, inbound)
        return
    if isinstance(value, (list, tuple)):
        for i, child in enumerate(value):
            yield from _scan(child, f"{path}[{i}]", view, depth + 1, inbound)


# A bucket a workload's own text names (a container's command, args or env, a ConfigMap's data): `s3://` (and
# Hadoop's `s3a://`, `s3n://`), S3's global endpoint (`bucket.s3.amazonaws.com`, `s3.amazonaws.com/bucket`), whose
# host shows no region, a bucket's ARN (which carries none), and `gs://` (Google Cloud Storage). A regional S3 host
# names its region and is placed as any host is; Helm values are read by the charts' own model (egress.chart_entries).
_BUCKET_URL = re.compile(r"(?<![a-z0-9+.-])(s3|s3a|s3n|gs)://([a-z0-9][a-z0-9._-]{1,254})", re.I)
_S3_GLOBAL_VIRTUAL = re.compile(r"(?<![\w.-])([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\.s3(?:-external-1)?\.amazonaws\.com"
                                r"(?![\w-])", re.I)
_S3_GLOBAL_PATH = re.compile(r"(?<![\w.-])s3(?:-external-1)?\.amazonaws\.com/([a-z0-9][a-z0-9._-]{1,62})", re.I)
_S3_BUCKET_ARN = re.compile(r"(?<![\w-])arn:aws[a-z-]*:s3:::([a-z0-9][a-z0-9._-]{1,62})", re.I)


@dataclass(frozen=True)
class BucketName:
    store: str  # "s3" or "gs"
    name: str

    def url(self) -> str:
        return f"{self.store}://{self.name}"


def object_store_buckets(text: str) -> list[BucketName]:
    """The S3 and Google Cloud Storage buckets a text names: by URL, by S3's global host or by a bucket ARN."""
    if len(text) > 20000:
        return []
    found = [BucketName("gs" if m.group(1).lower() == "gs" else "s3", m.group(2).lower())
             for m in _BUCKET_URL.finditer(text)]
    found += [BucketName("s3", m.group(1).lower()) for m in _S3_GLOBAL_VIRTUAL.finditer(text)]
    found += [BucketName("s3", m.group(1).lower()) for m in _S3_GLOBAL_PATH.finditer(text)]
    found += [BucketName("s3", m.group(1).lower()) for m in _S3_BUCKET_ARN.finditer(text)]
    return list(dict.fromkeys(found))


# The settings an S3 client takes another endpoint from (AWS SDKs: `AWS_ENDPOINT_URL`, `AWS_ENDPOINT_URL_S3`; the
# AWS CLI's `--endpoint-url`; `S3_ENDPOINT`, `MLFLOW_S3_ENDPOINT_URL` and the like): with one, `s3://bucket` is a bucket
# of that store (a site's MinIO or Ceph), whose host the scan of places judges, not one of Amazon S3.
_S3_ENDPOINT_NAME = re.compile(r"^(?:AWS_ENDPOINT_URL(?:_S3)?|\w*S3\w*ENDPOINT\w*|\w*ENDPOINT\w*S3\w*)$", re.I)


def names_s3_endpoint(value: Any, depth: int = 0) -> bool:
    """Whether a workload's inputs give its S3 clients another endpoint: an environment variable or a
    ConfigMap key of such a name, or the AWS CLI's `--endpoint-url`."""
    value = _unwrap(value)
    if depth > 14:
        return False
    if isinstance(value, str):
        return value == "--endpoint-url" or value.startswith("--endpoint-url=")
    if isinstance(value, dict):
        name = _unwrap(value.get("name"))
        if isinstance(name, str) and _S3_ENDPOINT_NAME.match(name):
            return True
        return any((isinstance(k, str) and _S3_ENDPOINT_NAME.match(k)) or names_s3_endpoint(v, depth + 1)
                   for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(names_s3_endpoint(v, depth + 1) for v in value)
    return False


STACK_REFERENCE = "pulumi:pulumi:StackReference"


def _from_another_stack(view: ResourceView, ctx: Context, path: str) -> bool:
    """Whether the input's value came from another stack's outputs (a StackReference): that stack's gate judges
    the resources it exports, as a burst stack's Jobs write to the checkpoint store of the stack that owns them."""
    top = str(_path_steps(path)[0]) if path else ""
    return any((r := ctx.by_urn(urn)) is not None and r.type == STACK_REFERENCE
               for urn in view.property_dependencies.get(top, ()))


def _bucket_problem(bucket: BucketName, text: str, view: ResourceView, ctx: Context, path: str) -> str | None:
    """Why a bucket a workload names is not shown to be in the allowed places; None when it is, when it is a bucket
    of this program (its own place rule judges it) or another stack's export, or when the workload names another
    S3 endpoint."""
    if any(_allowed_destination(v, ctx) for v in (text, bucket.url(), f"arn:aws:s3:::{bucket.name}")) \
            or _from_another_stack(view, ctx, path):
        return None
    if bucket.store == "gs":
        return f"the Google Cloud Storage bucket {bucket.name!r} ({bucket.url()}), which a bucket name does not " \
               "place and no resource of this program is"
    if program_bucket(bucket.name, ctx) is not None or names_s3_endpoint(view.props):
        return None
    return f"the S3 bucket {bucket.name!r}, which this program does not create (a bucket name carries no region), " \
           "on Amazon S3 (the workload names no other S3 endpoint)"


def _azure_store_hosts(value: str, host: str | None) -> list[str]:
    """The hosts of Azure data stores a text names: the URL's host, or a connection string's storage account."""
    found = [host] if host is not None and host.partition(".")[2] in AZURE_SINK_HOSTS else []
    found += [m.group(0).lower() for m in _AZURE_SINK_HOST.finditer(value)]  # in a script or an expression too
    found += [m.group(1).lower() for m in _SERVER_KEY.finditer(value)] if len(value) < 2000 else []
    account = _ACCOUNT_NAME.search(value) if len(value) < 2000 else None
    if account:
        suffix = _ENDPOINT_SUFFIX.search(value)
        found.append(f"{account.group(1).lower()}.blob.{suffix.group(1).lower() if suffix else 'core.windows.net'}")
    # `privatelink.<service host>` is the service's Private Link DNS zone (a private DNS zone's name), not a store.
    return list(dict.fromkeys(h for h in found if h.partition(".")[2] in AZURE_SINK_HOSTS
                              and not h.startswith("privatelink.")))


# A connection string, or a URL of a data store's own protocol, is a credentialed link to a store: the resource reads
# from and writes to it (a function app's binding connection, an app setting the code connects with).
_STORE_SCHEMES = frozenset({"mongodb", "mongodb+srv", "postgres", "postgresql", "mysql", "mariadb", "redis", "rediss",
                            "amqp", "amqps", "sb", "kafka", "sqlserver", "mssql", "oracle", "cassandra", "s3", "s3a",
                            "gs", "sftp", "ftp", "ftps", "snowflake", "clickhouse", "couchbase", "couchbases",
                            "neo4j", "neo4j+s", "bolt", "nats", "mqtt", "mqtts", "hdfs", "abfs", "abfss", "wasbs"})
# S3's global endpoint (`bucket.s3.amazonaws.com`): a bucket, of whichever region, by a host that shows none.
_S3_GLOBAL_HOST = re.compile(r"(?:^|[.@])s3(?:-external-1)?\.amazonaws\.com(?::\d+)?$", re.I)
_STORE_URL = re.compile(r"(?:^|[^a-z0-9+.-])(?:jdbc:)?([a-z][a-z0-9+.-]*)://([^/\s\"';?]+)", re.I)
# Azure's own service domains: a host under one whose first label is the name of a resource of this program is
# that resource (a function app's `*.azurewebsites.net`, a Synapse workspace's `*.sql.azuresynapse.net`).
_AZURE_DOMAINS = (".windows.net", ".azure.net", ".azure.com", ".azuresynapse.net", ".azurewebsites.net",
                  ".azuredatabricks.net", ".azurecr.io", ".azurehdinsight.net", ".azure-devices.net",
                  ".azurefd.net", ".azure-api.net", ".fabric.microsoft.com")


def _connection_hosts(value: str) -> list[str]:
    """The hosts a connection string (`Host=...;Port=...`) or a store-protocol URL (`mongodb+srv://...`) names."""
    if len(value) > 2000:
        return []
    found = [m.group(2) for m in _STORE_URL.finditer(value)
             if m.group(1).lower() in _STORE_SCHEMES or _S3_GLOBAL_HOST.search(m.group(2))]
    if ";" in value and "=" in value:
        found += [m.group(1) for m in _SERVER_KEY.finditer(value)]
    hosts = (host_of(h) for h in found)
    return list(dict.fromkeys(h for h in hosts if h is not None and _looks_like_host(h)))


def _looks_like_host(host: str) -> bool:
    """A DNS name with a top-level domain, or an IP address (not a version like `1.2`)."""
    return is_public_address(host) or is_private_address(host) or host.rsplit(".", 1)[-1].isalpha()


def _program_named_host(host: str, ctx: Context) -> ResourceView | None:
    """The Azure resource of this program whose name is the first label of a host under an Azure service domain."""
    label = host.partition(".")[0]
    if not host.endswith(_AZURE_DOMAINS):
        return None
    for r in ctx.resources:
        if r.package != "azure-native":
            continue
        own = own_name_input(r.type)
        if (own and lookup(r.props, own) == label) or lookup(r.props, "name") == label or label in r.identities:
            return r
    return None


def _host_problem(host: str, ctx: Context) -> str | None:
    """Why data kept at `host` is not shown to stay in the allowed places; None when it is, or when another scan
    judges the host (one that names its region, a vendor of the endpoint table, an Azure store's host)."""
    if is_private_address(host) or places_in_host(host) or place_of_host(host) is not None:
        return None
    if host.partition(".")[2] in AZURE_HOSTS or _program_host(host, ctx) is not None:
        return None
    target = _program_named_host(host, ctx)
    if target is not None:
        place = effective_place(target, ctx) if in_scope(target) else Place(MISSING, "no place of its own")
        if place_allowed(place, ctx) or place.value is MISSING:
            return None  # the resource's own place rule judges it
        return f"{host}, the {target.type.split(':')[-1]} {target.name!r} of this program in {place.value!r}"
    if is_public_address(host):
        return f"the public address {host}, whose location cannot be shown"
    return f"{host}, which is not a resource of this program and whose location cannot be shown"


# A Data Factory linked service is a store the factory's pipelines copy data to and from, of any kind (SFTP, HTTP,
# another cloud's bucket, a SaaS API, an ODBC source): every host it names is where data goes, and one of a kind
# outside Azure that names no host shows no place (another cloud's default endpoint, a SaaS tenant). So is a Logic
# Apps managed API connection (an SFTP server's `hostName`) for the workflows that use it.
_CONNECTOR_SUFFIX = "LinkedService"
# Inputs of a connector that never name where its store is: credentials, who connects, free text.
_CONNECTOR_SKIP_WORDS = frozenset({"description", "annotations", "password", "secret", "key", "token", "credential",
                                   "credentials", "user", "username", "principal", "tenant", "encrypted", "version",
                                   "connect", "via", "parameters", "type", "authentication", "certificate",
                                   "thumbprint", "fingerprint", "scope", "scopes"})


def _azure_kind(kind: Any) -> bool:
    return isinstance(kind, str) and kind.lower().startswith(("azure", "cosmosdb"))


def _connector_values(value: Any, path: str, depth: int = 0) -> Iterator[tuple[str, Any]]:
    value = _unwrap(value)
    if depth > 8:
        return
    if isinstance(value, dict):
        for key in list(value):
            words = {w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", str(key))}
            if key in METADATA_KEYS or words & _CONNECTOR_SKIP_WORDS:
                continue
            yield from _connector_values(value[key], f"{path}.{key}" if path else str(key), depth + 1)
    elif isinstance(value, (list, tuple)):
        for i, child in enumerate(value):
            yield from _connector_values(child, f"{path}[{i}]", depth + 1)
    else:
        yield path, value


def _connector_block(view: ResourceView, props: dict) -> tuple[str, Any, bool]:
    """(path, block) of a connector's settings, and whether its `type` says the kind of store (a linked service's
    does; a Logic Apps API connection's `parameterValues` name the store's host, if it has one); ('', None, False)
    for any other resource."""
    if view.package != "azure-native":
        return "", None, False
    if view.type.endswith(_CONNECTOR_SUFFIX):
        return "properties", _unwrap(props.get("properties")), True
    if view.type.split(":")[1].split("/")[0] == "web" and view.type.endswith(":Connection"):
        return "properties.parameterValues", _unwrap(lookup(props, "properties", "parameterValues")), False
    return "", None, False


def _connector_findings(view: ResourceView, ctx: Context, props: Any) -> Iterator[tuple[str, str]]:
    if not isinstance(props, dict):
        return
    where, properties, typed = _connector_block(view, props)
    if not isinstance(properties, dict):
        return
    kind = _unwrap(properties.get("type")) if typed else None
    named = not typed
    for path, value in _connector_values(properties, where):
        if is_unknown(value):
            named = True
            if ctx.phase == "update":  # the program's own values are known by now: this one comes from outside
                yield path, f"`{path}` names where the connection's store is by a value {_unknown_origin(ctx)}; " \
                            "its place cannot be shown, so it fails closed"
            continue
        if not isinstance(value, str) or not value.strip():
            continue
        text = value.strip()
        hosts = _connection_hosts(text)
        if not hosts and " " not in text:
            host = host_of(text)
            hosts = [host] if host is not None and _looks_like_host(host) else []
        if hosts or _ARM_ID.match(text):
            named = True
        for host in hosts:
            problem = _host_problem(host, ctx)
            if problem is not None and not _allowed_destination(text, ctx) and not _allowed_destination(host, ctx):
                yield path, f"`{path}` names a store data is copied to and from at {problem}; its place cannot " \
                            "be shown, so it fails closed"
                break
    if not named and not _azure_kind(kind):
        shown = repr(kind) if isinstance(kind, str) else "unknown"
        yield "properties", f"the linked service (type {shown}) names no host or resource its store's place could " \
                            "be read from (another cloud's default endpoint, a SaaS tenant): the factory copies data " \
                            "to and from it, and its place cannot be shown, so it fails closed"


# Workflow steps that send a request, its body the workflow's data, to a URL: a Logic App's HTTP actions, a Data
# Factory pipeline's Web and WebHook activities. The step's type, lower case -> where its URL is in the step.
_WEB_ACTIVITY = (("url",), ("typeProperties", "url"))
_REQUEST_STEPS = {"http": (("inputs", "uri"),),
                  "httpwebhook": (("inputs", "subscribe", "uri"), ("inputs", "unsubscribe", "uri")),
                  "webactivity": _WEB_ACTIVITY, "webhook": _WEB_ACTIVITY}
_PARAMETER_REF = re.compile(r"^@\{?parameters\('([^']+)'\)\}?$")
_QUOTED_URL = re.compile(r"'(https?://[^'\s]+)'", re.I)


def _request_steps(value: Any, path: str, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """(path, url) of every request step in a definition (nested scopes, branches and loops included)."""
    value = _unwrap(value)
    if depth > 14:
        return
    if isinstance(value, str):
        inner = _decoded(value)
        if isinstance(inner, (dict, list)):
            yield from _request_steps(inner, path, depth + 1)
        return
    if isinstance(value, dict):
        kind = _unwrap(value.get("type"))
        for steps in _REQUEST_STEPS.get(kind.lower(), ()) if isinstance(kind, str) else ():
            url = lookup(value, *steps)
            if url is not MISSING:
                yield ".".join([path, *steps]) if path else ".".join(steps), url
        for key in list(value):
            # A trigger polls its URL: data comes in through it.
            if key not in METADATA_KEYS and key != "triggers":
                yield from _request_steps(value[key], f"{path}.{key}" if path else str(key), depth + 1)
    elif isinstance(value, (list, tuple)):
        for i, child in enumerate(value):
            yield from _request_steps(child, f"{path}[{i}]", depth + 1)


def _workflow_parameter(props: dict, name: str) -> Any:
    """The value a Logic App gives a workflow parameter: its `parameters` input, else the definition's default."""
    given = lookup(props, "parameters", name, "value")
    if given is not MISSING:
        return _unwrap(given)
    definition = _unwrap(props.get("definition"))
    definition = _decoded(definition) if isinstance(definition, str) else definition
    return _unwrap(lookup(definition, "parameters", name, "defaultValue")) if isinstance(definition, dict) else MISSING


# The services whose definitions hold such steps (a workflow's `definition`, a pipeline's `activities`).
_WORKFLOW_MODULES = frozenset({"logic", "datafactory", "synapse"})


def _request_findings(view: ResourceView, ctx: Context, props: Any) -> Iterator[tuple[str, str]]:
    if view.package != "azure-native" or view.type.split(":")[1].split("/")[0] not in _WORKFLOW_MODULES \
            or not isinstance(props, dict):
        return
    for path, url in _request_steps(props, ""):
        if isinstance(url, str) and (ref := _PARAMETER_REF.match(url.strip())):
            url = _workflow_parameter(props, ref.group(1))
        if is_unknown(url):
            if ctx.phase == "update":
                yield path, f"`{path}` sends the workflow's data to a URL {_unknown_origin(ctx)}; its place cannot " \
                            "be shown, so it fails closed"
            continue
        if not isinstance(url, str) or not url.strip() or _allowed_destination(url, ctx):
            continue
        text = url.strip()
        if text.startswith("@"):  # an expression: the host of a URL written in it, if any
            quoted = _QUOTED_URL.search(text)
            host = host_of(quoted.group(1)) if quoted else None
        else:
            host = host_of(text)
        if host is None:
            yield path, f"`{path}` sends the workflow's data to {text!r}, whose host cannot be read; its place " \
                        "cannot be shown, so it fails closed"
            continue
        problem = _host_problem(host, ctx)
        if problem is not None and not _allowed_destination(host, ctx):
            yield path, f"`{path}` sends the workflow's data to {problem}; its place cannot be shown, so it fails " \
                        "closed"


# Model deployments whose SKU has the model served wherever Azure has capacity, not where the account is: `Global*`
# in any Azure region, `DataZone*` in any region of a data zone (the US or the EU; none holds the UAE). Prompts,
# completions and batch files go there.
_SPREAD_SKU = re.compile(r"^(global|datazone)", re.I)


def _processing_findings(view: ResourceView, props: Any) -> Iterator[tuple[str, str]]:
    module, _, name = view.type.removeprefix("azure-native:").partition(":")
    if view.package != "azure-native" or module.split("/")[0] != "cognitiveservices" \
            or not name.endswith("Deployment") or not isinstance(props, dict):
        return
    sku = _unwrap(lookup(props, "sku", "name"))
    if isinstance(sku, str) and _SPREAD_SKU.match(sku.strip()):
        yield "sku.name", f"`sku.name` is {sku!r}: the deployment serves the model, with the prompts and data sent " \
                          "to it, in whichever Azure region has capacity (a global or data-zone deployment), not " \
                          "where its account is; use a regional SKU (`Standard`, `ProvisionedManaged`)"


def reference_findings(view: ResourceView, ctx: Context) -> Iterator[str]:
    """Every place named in the inputs outside the allowed set (region codes, locations, ARNs, endpoints, SaaS
    and CDN hosts), every Azure data store named by an id this program does not create, and every destination
    (the egress model) whose place is not shown to be allowed. Top-level place inputs are the place rule's."""
    own = _own_place_keys(view)
    here = None
    reported: set[str] = set()
    props = _unwrap(view.props)
    for path, kind, what in _scan(props if props is not None else {}, "", view, inbound=inbound_blocks(view)):
        if path in own or path in reported:
            continue
        if kind == "place":
            if allowed(what, ctx.allowed_regions):
                continue
            if path in ("id", "arn") and in_scope(view):
                here = here or effective_place(view, ctx)
                if isinstance(here.value, str) and region_of(what) == region_of(here.value):
                    continue
            reported.add(path)
            yield f"`{path}` names {region_of(what)!r}, outside the allowed places ({', '.join(ctx.allowed_regions)})"
        elif kind == "host":
            value = lookup(props, *_path_steps(path))
            if isinstance(value, str) and _allowed_destination(value, ctx):
                continue
            reported.add(path)
            yield f"`{path}` names {what.host}: {what.describe()}; data sent there leaves the allowed places"
        elif kind == "sink":
            if program_resource(what, ctx) is not None or _allowed_destination(what, ctx):
                continue
            reported.add(path)
            yield f"`{path}` names {what}, an Azure data store this program does not create whose id carries " \
                  "no location; its place cannot be shown, so it fails closed"
        elif kind == "unknown-place":
            place = place_of_reference(UNKNOWN, ctx, _vouchers(view, ctx, str(_path_steps(path)[0])))
            if place_allowed(place, ctx):
                continue
            reported.add(path)
            shown = _unknown_origin(ctx) if place.value is UNKNOWN else describe_place(place)
            yield f"`{path}` names a place {shown}; the resource would keep or serve data there, and " \
                  "that place is not shown to be allowed, so it fails closed"
        elif kind == "sink-host":
            # A store of this program is judged by its own place rule (one verdict per fact).
            value = lookup(props, *_path_steps(path))
            if _program_host(what, ctx) is not None or (isinstance(value, str) and _allowed_destination(value, ctx)) \
                    or _allowed_destination(what, ctx):
                continue
            reported.add(path)
            yield f"`{path}` names {what}, the host of an Azure data store this program does not create; its " \
                  "place cannot be shown, so it fails closed"
        elif kind == "bucket-url":
            value = lookup(props, *_path_steps(path))
            problem = _bucket_problem(what, value if isinstance(value, str) else what.url(), view, ctx, path)
            if problem is None:
                continue
            reported.add(path)
            yield f"`{path}` sends data to {problem}; its place cannot be shown, so it fails closed"
        elif kind == "store-host":
            value = lookup(props, *_path_steps(path))
            problem = _host_problem(what, ctx)
            if problem is None or (isinstance(value, str) and _allowed_destination(value, ctx)) \
                    or _allowed_destination(what, ctx):
                continue
            reported.add(path)
            yield f"`{path}` connects to the data store at {problem}; its place cannot be shown, so it fails closed"
    for path, problem in (*_connector_findings(view, ctx, props), *_request_findings(view, ctx, props),
                          *_processing_findings(view, props)):
        if path not in reported:
            reported.add(path)
            yield problem
    for dest in destinations(view, ctx):
        if dest.path in reported:
            continue
        problem = destination_problem(view, ctx, dest, program_places=False)
        if problem:
            reported.add(dest.path)
            yield problem


def _path_steps(path: str) -> list:
    steps: list = []
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        steps.append(int(part[1:-1]) if part.startswith("[") else part)
    return steps
