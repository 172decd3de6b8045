"""Places named inside values: cloud region codes, Azure locations, and the references that carry them.

Residency has two halves (policies/residency.py): where a resource sits, and where its inputs point. This
module is the second half's vocabulary. `places_in(value)` walks any input value (dicts, lists, the SDK's
unknown-checking proxies, JSON documents stored as strings, base64 user data) and yields every place a string
names, with the path it was found at:

* AWS region codes of every partition (`eu-west-1`, `us-gov-west-1`, `cn-north-1`), also inside ARNs
  (`arn:aws:sns:eu-west-1:...`), service endpoints (`s3.eu-west-1.amazonaws.com`, `com.amazonaws.eu-west-1.s3`)
  and availability zones (`eu-west-1a`, reported as their region);
* GCP regions and zones (`europe-west1`, `us-central1-a`), also inside hostnames (`europe-west1-docker.pkg.dev`);
* Azure locations (`westeurope`, `West Europe`), as whole values or as tokens of ARM ids
  (`/locations/westeurope/`) and hostnames (`westeurope.api.cognitive.microsoft.com`).

Region codes are recognised by their grammar, not looked up in a list, so a region launched after this was
written is still a place. Azure location names have no grammar; their list is a list of places, not of types.
"""

from __future__ import annotations

import base64
import binascii
import functools
import ipaddress
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

_DIRECTIONS = "northeast|northwest|southeast|southwest|north|south|east|west|central"
AWS_REGION = re.compile(
    r"(?<![a-z0-9])((?:us-gov|us-iso[a-z]?|eu-iso[a-z]?|eusc-[a-z]{2}|us|eu|ap|sa|ca|me|af|il|mx|cn)"
    rf"-(?:{_DIRECTIONS})-\d{{1,2}})(?=[a-z]?(?:[^a-z0-9]|$))")
GCP_REGION = re.compile(
    r"(?<![a-z0-9-])((?:africa|asia|australia|europe|me|northamerica|southamerica|us)"
    rf"-(?:{_DIRECTIONS})\d{{1,2}})(?=(?:-[a-z])?(?:[^a-z0-9]|$)|-)")
_AZURE_LOCATION_NAMES = """
eastus eastus2 westus westus2 westus3 centralus northcentralus southcentralus westcentralus canadacentral
canadaeast brazilsouth brazilsoutheast mexicocentral chilecentral northeurope westeurope uksouth ukwest
francecentral francesouth germanywestcentral germanynorth germanycentral germanynortheast switzerlandnorth
switzerlandwest norwayeast norwaywest swedencentral swedensouth polandcentral italynorth spaincentral
austriaeast belgiumcentral denmarkeast israelcentral qatarcentral uaenorth uaecentral saudiarabiacentral
southafricanorth southafricawest centralindia southindia westindia jioindiawest jioindiacentral eastasia
southeastasia japaneast japanwest koreacentral koreasouth australiaeast australiasoutheast australiacentral
australiacentral2 newzealandnorth indonesiacentral malaysiawest taiwannorth chinaeast chinaeast2 chinaeast3
chinanorth chinanorth2 chinanorth3 usgovvirginia usgovarizona usgovtexas usgoviowa usdodeast usdodcentral
eastus2euap centraluseuap
"""
AZURE_LOCATIONS = frozenset(_AZURE_LOCATION_NAMES.split())
# Azure geographies: places only when they are a whole value (e.g. a Cosmos DB or backup `location`).
AZURE_GEOGRAPHIES = frozenset({"europe", "asia", "asiapacific", "unitedstates", "unitedkingdom", "japan", "india",
                               "canada", "brazil", "australia", "france", "germany", "switzerland", "norway",
                               "korea", "southafrica", "uae", "qatar", "israel", "poland", "sweden", "italy"})

# Keys whose values describe a resource rather than place it: tags, labels, annotations, free text.
METADATA_KEYS = frozenset({"tags", "tagsAll", "defaultTags", "labels", "annotations", "description",
                           "displayName", "__provider"})
# IAM policy documents: a Condition restricts where a request may go; it never sends data there.
CONDITION_KEYS = frozenset({"Condition", "condition"})
_TOKEN = re.compile(r"[a-z0-9]+")
_MAX_DEPTH = 12


def normalise_location(text: str) -> str:
    """`UAE North` and `uaenorth` are the same Azure location."""
    return re.sub(r"\s+", "", text).lower()


def region_of(place: str) -> str:
    """An availability zone's region (`me-central-1a` -> `me-central-1`); other places unchanged."""
    match = AWS_REGION.match(place)
    if match:
        return match.group(1)
    gcp = GCP_REGION.match(place)
    if gcp:
        return gcp.group(1)
    return normalise_location(place)


def places_in_text(text: str) -> set[str]:
    """Every place a string names (regions, zones reported as regions, Azure locations)."""
    lowered = text.lower()
    found = set(AWS_REGION.findall(lowered)) | set(GCP_REGION.findall(lowered))
    whole = normalise_location(text)
    if whole in AZURE_LOCATIONS or whole in AZURE_GEOGRAPHIES:
        found.add(whole)
    if len(lowered) > len(whole) or not lowered.isalnum():
        found |= {t for t in _TOKEN.findall(lowered) if t in AZURE_LOCATIONS}
    return found


_NAME_KEY = re.compile(r"(name|prefix|id|bucket)$", re.IGNORECASE)
_PLACE_KEY = re.compile(r"region|location|zone|endpoint|url|uri|arn", re.IGNORECASE)
_PLACES_BLOCK = re.compile(r"region|location|zone", re.IGNORECASE)
ARN = re.compile(r"^arn:[a-z0-9-]+:([a-z0-9-]+):([a-z0-9-]*):([0-9]*):?(.*)$", re.S)
ARM_ID = re.compile(r"^/subscriptions/[^/]+/", re.IGNORECASE)
_LOCATIONS_SEGMENT = re.compile(r"/locations/([^/?#]+)", re.IGNORECASE)


def _is_name(path: str, value: str) -> bool:
    """A name (`bucket: backup-eu-west-1`, `name: /migrated/eu-west-1/orders`, `resourceGroupName:
    westeurope-legacy`) is the identity of a resource, not a place, whatever it spells; place-bearing keys
    (`locationName`, `regionName`) still count, and a reference under a name key (an ARN, an ARM id, a URL) is
    read as the reference it is (`places_in_value`)."""
    steps = [s for s in re.split(r"[.\[]", path) if not s.rstrip("]").isdigit()] if path else []
    key = steps[-1] if steps else ""
    if not _NAME_KEY.search(key) or _PLACE_KEY.search(key):
        return False
    if len(steps) > 1 and _PLACES_BLOCK.search(steps[-2]) and whole_place(value):
        return False  # the name of an entry of a list of places (`regions[].name`) is the place itself
    return not (ARN.match(value) or ARM_ID.match(value) or "://" in value)


def whole_place(text: str) -> str | None:
    """The place a value is, when the whole value is one (`eu-west-1`, `eu-west-1a`, `West Europe`); None for a
    name that merely contains one (`orders-eu-west-1`)."""
    stripped = text.strip().lower()
    for grammar in (AWS_REGION, GCP_REGION):
        match = grammar.match(stripped)
        if match and re.fullmatch(rf"{re.escape(match.group(1))}(?:[a-z]|-[a-z]|-[a-z]+-\d+[a-z]?)?", stripped):
            return match.group(1)
    whole = normalise_location(text)
    if whole in AZURE_LOCATIONS or whole in AZURE_GEOGRAPHIES:
        return whole
    return None


# AWS hosts: the region is a label of its own after the service (`s3.me-central-1.amazonaws.com`,
# `sqs.eu-west-1.amazonaws.com`, `com.amazonaws.eu-west-1.s3`), or the legacy dash forms (`s3-eu-west-1`,
# `s3-website-eu-west-1`); a label before the service is the resource's name (a bucket's virtual host).
_AWS_REGION_LABEL = re.compile(r"^(?:[a-z0-9]+(?:-website|-fips|-accesspoint|-control)?[-.])?"
                               r"((?:[a-z]{2}(?:-gov|-iso[a-z]?|sc-[a-z]{2})?)-[a-z]+-\d{1,2})$")


def places_in_host(host: str) -> set[str]:
    """The places a host names: for AWS's own hosts only the region label (not a bucket name before the service);
    for other hosts every place in it (`ddb.eu-west-1.partner.io`, `westeurope.api.cognitive.microsoft.com`)."""
    labels = host.lower().rstrip(".").split(".")
    if host.endswith((".amazonaws.com", ".amazonaws.com.cn", ".api.aws")) or labels[:2] == ["com", "amazonaws"]:
        found: set[str] = set()
        skip_first = len(labels) > 3 and labels[0] != "com"
        for i, label in enumerate(labels):
            if i == 0 and skip_first:
                continue  # the resource's own name (a bucket, an access point) in a virtual-hosted name
            match = _AWS_REGION_LABEL.match(label)
            if match and AWS_REGION.fullmatch(match.group(1)):
                found.add(match.group(1))
        return found
    return places_in_text(host)


def places_in_value(text: str) -> set[str]:
    """The places a string names, read as what it is: an ARN by its region field (its resource part is a name),
    an ARM id by its `/locations/` segments (resource group and resource names are names), a URL by its host
    (and, when the host shows no place, by what it carries: a presigned URL's credential scope, a `region=`
    query), any other text by every place it spells."""
    arn = ARN.match(text)
    if arn:
        return {arn.group(2)} if arn.group(2) and places_in_text(arn.group(2)) else set()
    if ARM_ID.match(text):
        return {normalise_location(m) for m in _LOCATIONS_SEGMENT.findall(text)}
    if text.strip().lower().startswith("s3://"):
        return set()  # a bucket name carries no region (where the bucket is, is the egress model's question)
    if "://" in text and " " not in text.strip():
        try:
            parts = urlsplit(text.strip())
        except ValueError:
            return places_in_text(text)
        host = (parts.hostname or "").lower()
        named = places_in_host(host) if host else set()
        return named or places_in_text(unquote(text.strip()[len(f"{parts.scheme}://{parts.netloc}"):]))
    host = host_of(text) if "." in text and not set(text.strip()) & set(" ,;=\n") else None
    if host is not None:  # a bare host, `host/path`: the host's places, and any the path spells
        path = text.strip().split("/", 1)[1] if "/" in text.strip() else ""
        return places_in_host(host) | places_in_text(path)
    return places_in_text(text)


def _unwrap(value: Any) -> Any:
    """The plain dict/list behind one of pulumi_policy's unknown-checking proxies (whose children are proxies
    too); reading through `__target` never raises for unknown values, which the scan skips."""
    if type(value).__name__ in ("_DictProxy", "_ListProxy"):
        return value["__target"]
    return value


def _decoded(text: str) -> Any:
    """A JSON document or base64 text stored in a string (policies, container definitions, user data), else
    None."""
    stripped = text.strip()
    if stripped[:1] in "[{" and len(stripped) > 1:
        try:
            return json.loads(stripped)
        except ValueError:
            return None
    if len(stripped) >= 16 and len(stripped) % 4 == 0 and re.fullmatch(r"[A-Za-z0-9+/=\s]+", stripped):
        try:
            return base64.b64decode(stripped, validate=False).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return None
    return None


def places_in(value: Any, path: str = "", _depth: int = 0) -> Iterator[tuple[str, str]]:
    """(path, place) for every place named anywhere in `value`; unknown values name nothing yet."""
    if _depth > _MAX_DEPTH:
        return
    value = _unwrap(value)
    if isinstance(value, str):
        inner = _decoded(value)
        if inner is not None:  # judge the document, so its Conditions are skipped like any other
            yield from places_in(inner, path, _depth + 1)
            return
        if _is_name(path, value):
            return
        for place in sorted(places_in_value(value)):
            yield path, place
        return
    if isinstance(value, Mapping):
        for key in list(value):
            if key in METADATA_KEYS or key in CONDITION_KEYS:
                continue
            yield from places_in(value[key], f"{path}.{key}" if path else str(key), _depth + 1)
        return
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        for i, child in enumerate(value):
            yield from places_in(child, f"{path}[{i}]", _depth + 1)


def allowed(place: str, allowed_places: Sequence[str]) -> bool:
    """Whether a place (a region, zone or location) is one of the allowed ones."""
    return region_of(place) in {region_of(p) for p in allowed_places}


# ---------------------------------------------------------------------------------------------------------
# Hosts: where an endpoint keeps data (policies/data/endpoints.json)

_DATA = Path(__file__).resolve().parent / "data"
# How old the endpoint table's reading may get before tests ask for it to be read again (tests/policies).
MAX_TABLE_AGE_DAYS = 400
_HOST_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$")
# Cloud regions of other providers that are in the UAE, by the code their hosts carry (Oracle Cloud: Dubai and
# Abu Dhabi, https://docs.oracle.com/en-us/iaas/Content/General/Concepts/regions.htm).
IN_COUNTRY_REGION_CODES = {"me-dubai-1": "AE", "me-abudhabi-1": "AE"}
_OCI_REGION = re.compile(r"(?<![a-z0-9])(me-(?:dubai|abudhabi)-1)(?![a-z0-9])")


@dataclass(frozen=True)
class HostPlace:
    """Where a host keeps what is sent to it: a region code or Azure location (`region`), else a country
    (`country`, ISO 3166), else nothing shown (`region` and `country` None: the place cannot be shown)."""

    host: str
    region: str | None
    country: str | None
    what: str  # e.g. "Datadog EU1", "the region in its name"
    edge: bool = False

    def describe(self) -> str:
        if self.edge:
            return f"{self.what}, a CDN whose points of presence are worldwide"
        if self.region:
            return f"{self.region} ({self.what})"
        if self.country:
            return f"{self.country} ({self.what})"
        return f"{self.what}, whose location the host does not show"


@functools.cache
def endpoint_table() -> dict[str, dict[str, Any]]:
    doc = json.loads((_DATA / "endpoints.json").read_text(encoding="utf-8"))
    return {entry["host"]: entry for entry in doc["hosts"]}


@functools.cache
def public_registries() -> frozenset[str]:
    doc = json.loads((_DATA / "endpoints.json").read_text(encoding="utf-8"))
    return frozenset(doc["public_registries"]["hosts"])


def host_of(text: str) -> str | None:
    """The host a URL, `host[:port][/path]` or bare host names; None for text that is not one."""
    candidate = text.strip()
    if candidate[:5].lower() == "jdbc:":
        candidate = candidate[5:]  # a JDBC URL wraps the driver's URL: `jdbc:redshift://host:5439/db`
    if "://" in candidate:
        candidate = urlsplit(candidate).hostname or ""
    else:
        candidate = candidate.split("/", 1)[0].rsplit("@", 1)[-1]
        if candidate.count(":") == 1:
            candidate = candidate.split(":", 1)[0]
    candidate = candidate.lower().rstrip(".")
    if not candidate or ("." not in candidate and candidate != "localhost"):
        return None
    labels = candidate.split(".")
    if not all(_HOST_LABEL.match(label) for label in labels):
        return None
    return candidate


def place_of_host(host: str) -> HostPlace | None:
    """Where a host keeps data: a region code in the host (`s3.eu-west-1.amazonaws.com`, a Wasabi or Grafana
    host), an entry of the maintained endpoint table (vendors, CDNs), else None (not known here)."""
    oci = _OCI_REGION.search(host)
    if oci:
        return HostPlace(host, oci.group(1), IN_COUNTRY_REGION_CODES[oci.group(1)], "the Oracle Cloud region in it")
    table = endpoint_table()
    labels = host.split(".")
    entry = next((table[".".join(labels[i:])] for i in range(len(labels)) if ".".join(labels[i:]) in table), None)
    named = sorted(places_in_host(host))
    if named and (entry is None or entry.get("region_in_host") or host.endswith((".amazonaws.com",
                                                                                ".amazonaws.com.cn"))):
        what = entry["vendor"] if entry else "the region in its name"
        return HostPlace(host, named[0], None, what)
    if entry is not None:
        return HostPlace(host, None, entry.get("country"), entry["vendor"], bool(entry.get("edge")))
    return None


def is_private_address(host: str) -> bool:
    """A private, loopback or link-local address, or a cluster-internal name: reachable only inside the network
    the resource is in, never a place of its own."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return host == "localhost" or host.endswith((".svc", ".svc.cluster.local", ".cluster.local", ".internal"))
    return address.is_private or address.is_loopback or address.is_link_local


def is_public_address(text: str) -> bool:
    try:
        address = ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return False
    return address.is_global


# ---------------------------------------------------------------------------------------------------------
# Azure pairs: geo-redundant storage keeps its second copy in the location's pair
# (https://learn.microsoft.com/azure/reliability/cross-region-replication-azure).

AZURE_PAIRS = {
    "uaenorth": "uaecentral", "uaecentral": "uaenorth",
    "westeurope": "northeurope", "northeurope": "westeurope",
    "southafricanorth": "southafricawest", "southafricawest": "southafricanorth",
    "centralindia": "southindia", "southindia": "centralindia",
    "eastus": "westus", "westus": "eastus", "eastasia": "southeastasia", "southeastasia": "eastasia",
    "australiaeast": "australiasoutheast", "australiasoutheast": "australiaeast",
    "canadacentral": "canadaeast", "canadaeast": "canadacentral", "brazilsouth": "southcentralus",
    # Locations without a pair: geo-redundant storage there has no second location to keep a copy in.
    "qatarcentral": "", "israelcentral": "", "austriaeast": "", "belgiumcentral": "",
}
