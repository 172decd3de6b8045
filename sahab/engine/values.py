"""Values that look like the clouds' own, for a field of a declared type: what a provider would return.

Strings are made from the field's name and the place and owner they belong to (ARNs in the resource's partition,
region and account; Azure ids under the subscription; endpoints in the region), numbers and booleans are the
providers' usual defaults, lists and objects follow their declared element types. Every value is a stable hash
of what it is for, so two runs of a program are identical.

A place that is not known (an existing resource looked up but not declared in the stack's inventory) stays
unknown: its region and location fields, the ARNs and endpoints that would carry it, are the engine's unknown.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from sahab.engine.plan_types import UNKNOWN
from sahab.engine.sdk_types import Field, Ref, SdkTypes

AWS_ACCOUNT = "111122223333"
AZURE_SUBSCRIPTION = "3f2c1a7e-5b0d-4c9e-8a61-2d7e9b4f0c15"
AZURE_TENANT = "9b1e4d2a-7c3f-4e8b-a5d6-0f1e2c3b4a59"
MAX_DEPTH = 4
LIST_LENGTH = 3  # elements of a synthesised list of scalars: programs index the first two or three


@dataclass(frozen=True)
class Owner:
    """What a value belongs to: the resource (or looked-up object) and where it is."""

    package: str  # aws, azure-native, ...
    service: str  # s3, storage, ... (the token's module)
    kind: str  # Bucket, StorageAccount, Ami, ...
    name: str  # its physical name
    region: str | None  # AWS region; None: not known offline
    location: str | None  # Azure location; None: not known offline
    seed: str  # what makes its values its own
    resource_group: str = "rg"


def short_hash(*parts: str, n: int = 8) -> str:
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:n]


def uuid(*parts: str) -> str:
    h = short_hash(*parts, n=32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"


@cache
def global_aws_services() -> frozenset[str]:
    """AWS services whose ARNs carry no region: the AWS SDK's own endpoint data marks them not regionalized
    (botocore/data/endpoints.json, partition `aws`, `isRegionalized: false`: iam, route53, cloudfront, ...)."""
    try:
        import botocore

        with open(f"{botocore.__path__[0]}/data/endpoints.json") as handle:
            data = json.load(handle)
    except (ImportError, OSError, ValueError):
        return frozenset()
    services = next((p["services"] for p in data["partitions"] if p["partition"] == "aws"), {})
    return frozenset(k for k, v in services.items() if v.get("isRegionalized") is False)


def arn(owner: Owner, resource: str, service: str | None = None) -> str:
    """An ARN of `service` (default: the owner's) for `resource`, in the owner's partition, region and account.
    S3 bucket ARNs carry neither region nor account (pulumi_aws s3.Bucket `arn`: `arn:aws:s3:::bucketname`)."""
    service = service or owner.service
    if service == "s3" and "/" not in resource:
        return f"arn:aws:s3:::{resource}"
    if service in global_aws_services():
        return f"arn:aws:{service}::{AWS_ACCOUNT}:{resource}"
    if owner.region is None:
        return UNKNOWN
    return f"arn:aws:{service}:{owner.region}:{AWS_ACCOUNT}:{resource}"


def azure_id(owner: Owner, collection: str, name: str) -> str:
    namespace = {"containerservice": "Microsoft.ContainerService", "keyvault": "Microsoft.KeyVault",
                 "network": "Microsoft.Network", "storage": "Microsoft.Storage", "compute": "Microsoft.Compute",
                 "managedidentity": "Microsoft.ManagedIdentity", "authorization": "Microsoft.Authorization",
                 "operationalinsights": "Microsoft.OperationalInsights", "resources": "Microsoft.Resources",
                 "web": "Microsoft.Web", "sql": "Microsoft.Sql", "documentdb": "Microsoft.DocumentDB",
                 "cosmosdb": "Microsoft.DocumentDB",
                 }.get(owner.service, f"Microsoft.{owner.service.title()}")
    return (f"/subscriptions/{AZURE_SUBSCRIPTION}/resourceGroups/{owner.resource_group}/providers/{namespace}/"
            f"{collection}/{name}")


# Prefixes of AWS ids, by the noun they identify.
_ID_PREFIXES = {"ami": "ami", "image": "ami", "vpc": "vpc", "subnet": "subnet", "securitygroup": "sg",
                "instance": "i", "internetgateway": "igw", "routetable": "rtb", "natgateway": "nat",
                "snapshot": "snap", "volume": "vol", "networkinterface": "eni", "keypair": "key",
                "launchtemplate": "lt", "vpcendpoint": "vpce", "prefixlist": "pl", "transitgateway": "tgw",
                "eip": "eipalloc", "allocation": "eipalloc", "networkacl": "acl", "flowlog": "fl",
                "defaultsecuritygroup": "sg", "defaultroutetable": "rtb", "defaultnetworkacl": "acl",
                "mainroutetable": "rtb", "association": "rtbassoc", "dhcpoptions": "dopt"}


def aws_id(noun: str, seed: str) -> str:
    key = re.sub(r"[^a-z]", "", noun.lower())
    if key in ("zone", "hostedzone"):
        return "Z" + short_hash(seed, n=20).upper()
    prefix = _ID_PREFIXES.get(key)
    return f"{prefix}-0{short_hash(seed, n=16)}" if prefix else f"{key or 'id'}-{short_hash(seed, n=12)}"


def string_for(field: str, owner: Owner, seed: str) -> str:
    """A realistic string for output `field` of `owner`."""
    lower = field.lower()
    aws = owner.package in ("aws", "aws-native")
    noun = owner.kind.lower() or "resource"
    if lower in ("accountid", "ownerid", "account", "awsaccountid"):
        return AWS_ACCOUNT
    if lower == "partition":
        return "aws"
    if lower == "dnssuffix":
        return "amazonaws.com"
    if lower in ("subscriptionid",):
        return AZURE_SUBSCRIPTION
    if lower in ("tenantid",):
        return AZURE_TENANT
    if lower in ("region", "regionname") or lower.endswith("region"):
        return owner.region if owner.region is not None else UNKNOWN
    if lower == "location" or lower.endswith("location"):
        place = owner.location if not aws else owner.region
        return place if place is not None else UNKNOWN
    if lower.startswith("availabilityzone") and not lower.endswith("id"):
        return f"{owner.region}a" if owner.region is not None else UNKNOWN
    if lower.endswith("arn"):
        if not aws:
            return f"{field}-{short_hash(seed, n=8)}"
        target = field[:-3] or owner.kind
        if lower in ("arn", "resourcearn"):
            return arn(owner, f"{noun}/{owner.name}")
        if target.lower().endswith("role"):
            return arn(owner, f"role/{owner.name}-{short_hash(seed, n=6)}", "iam")
        if target.lower().startswith("kms"):
            return arn(owner, f"key/{uuid(seed)}", "kms")
        return arn(owner, f"{re.sub(r'[^a-z]', '', target.lower())}/{owner.name}-{short_hash(seed, n=6)}")
    if lower in ("objectid", "clientid", "principalid", "applicationid", "uuid", "guid", "uniqueid") \
            or lower.endswith(("principalid", "clientid", "objectid")):
        return uuid(seed)
    if lower == "id" or lower.endswith("id"):
        noun_of_id = field[:-2] or owner.kind
        if aws:
            return aws_id(noun_of_id, seed)
        if owner.package == "azure-native":
            collection = f"{noun_of_id[:1].lower()}{noun_of_id[1:]}s"
            return azure_id(owner, collection, f"{owner.name}-{short_hash(seed, n=6)}")
        return f"{noun_of_id.lower()}-{short_hash(seed, n=12)}"
    if lower in ("name", "keyname", "displayname", "resourcename") or lower.endswith("name"):
        return owner.name
    if lower in ("cidrblock", "cidr", "addressprefix") or lower.endswith("cidrblock"):
        return "10.0.0.0/16"
    if "privateip" in lower or lower in ("privateaddress", "ipaddress"):
        return f"10.0.{int(short_hash(seed, n=2), 16) % 250 + 1}.{int(short_hash(seed, 'x', n=2), 16) % 250 + 4}"
    if "publicip" in lower:
        return f"203.0.113.{int(short_hash(seed, n=2), 16) % 250 + 1}"  # TEST-NET-3, never routed
    if lower in ("value", "key", "primarykey", "secondarykey", "primarysharedkey", "secondarysharedkey",
                 "connectionstring", "password", "secret", "token", "accesskey", "secretaccesskey"):
        return base64.b64encode(hashlib.sha256(seed.encode()).digest() * 2).decode()
    if lower.endswith(("policy", "document", "json")):
        return json.dumps({"Version": "2012-10-17", "Statement": []}) if aws else "{}"
    if lower.endswith(("url", "uri", "endpoint")) or lower in ("address", "dnsname", "fqdn", "hostname", "host") \
            or lower.endswith(("dnsname", "domainname", "fqdn", "hostname", "address")):
        host = _host(owner, seed)
        if host is None:
            return UNKNOWN
        return f"https://{host}/" if lower.endswith(("url", "uri")) else host
    if lower in ("state", "status") or lower.endswith(("state", "status")):
        return "available" if aws else "Succeeded"
    if lower.endswith(("date", "time", "timestamp")):
        return "2024-01-01T00:00:00Z"
    if lower.endswith("version"):
        return "1"
    return f"{field}-{short_hash(seed, n=8)}"


def _host(owner: Owner, seed: str) -> str | None:
    """The host name a provider gives an endpoint of the owner, in its region; None when that is unknown."""
    label = re.sub(r"[^a-z0-9-]", "-", owner.name.lower())[:40] or "resource"
    if owner.package in ("aws", "aws-native"):
        if owner.region is None:
            return None
        return f"{label}.{short_hash(seed, n=12)}.{owner.region}.{owner.service}.amazonaws.com"
    if owner.package == "azure-native":
        if owner.location is None:
            return None
        return f"{label}.{owner.location}.{owner.service}.azure.com"
    return f"{label}.{short_hash(seed, n=8)}.example.invalid"


def value_for(field: str, typ: Any, owner: Owner, types: SdkTypes, seed: str, depth: int = 0) -> Any:
    """A value of declared type `typ` for output `field`."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(typ, tuple) and typ[0] == "list":
        inner = typ[1]
        if isinstance(inner, tuple) and inner[0] == "object":
            return [value_for(field, inner, owner, types, f"{seed}[0]", depth + 1)]
        singular = re.sub(r"ies$", "y", field)
        singular = re.sub(r"s$", "", singular)
        return [value_for(singular, inner, owner, types, f"{seed}[{i}]", depth + 1) for i in range(LIST_LENGTH)]
    if isinstance(typ, tuple) and typ[0] == "map":
        return {}
    if isinstance(typ, tuple) and typ[0] == "object":
        return object_for(typ[1], owner, types, seed, depth + 1)
    if typ == "bool":
        return False
    if typ in ("int", "float"):
        return 443 if field.lower().endswith("port") else 1
    if typ == "str":
        return string_for(field, owner, seed)
    return None


def object_for(ref: Ref, owner: Owner, types: SdkTypes, seed: str, depth: int,
               given: dict[str, Any] | None = None) -> dict[str, Any]:
    fields = types.fields(ref) or {}
    return fill(fields, given or {}, owner, types, seed, depth)


def fill(fields: dict[str, Field], given: dict[str, Any], owner: Owner, types: SdkTypes, seed: str,
         depth: int = 0) -> dict[str, Any]:
    """`given` (what the program or the provider already settled), in the declared types, with every required
    field that is missing filled in. Optional fields stay absent: a provider leaves them empty."""
    out = dict(given)
    for name, spec in fields.items():
        if name in given:
            out[name] = coerce(given[name], spec.type, types)
        elif not spec.optional:
            made = value_for(name, spec.type, owner, types, f"{seed}/{name}", depth)
            if made is not None:
                out[name] = made
    return out


def coerce(value: Any, typ: Any, types: SdkTypes) -> Any:
    """A value as its declared type holds it: structured text where a string is declared is JSON text (an IAM
    policy given as a dict is read back as a string), "true" where a bool is declared is true."""
    if value is None or value == UNKNOWN:
        return value
    if typ == "str":
        if isinstance(value, (dict, list)):
            return json.dumps(value, separators=(",", ":"))
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value) if isinstance(value, (int, float)) else value
    if typ == "bool" and isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if typ in ("int", "float") and isinstance(value, str):
        try:
            return int(value) if typ == "int" else float(value)
        except ValueError:
            return value
    if isinstance(typ, tuple) and typ[0] == "list" and isinstance(value, list):
        return [coerce(v, typ[1], types) for v in value]
    if isinstance(typ, tuple) and typ[0] == "map" and isinstance(value, dict):
        return {k: coerce(v, typ[1], types) for k, v in value.items()}
    if isinstance(typ, tuple) and typ[0] == "object" and isinstance(value, dict):
        fields = types.fields(typ[1]) or {}
        return {k: coerce(v, fields[k].type, types) if k in fields else v for k, v in value.items()}
    return value


def unplaced(owner: Owner) -> Owner:
    """The same owner with its place not known."""
    return replace(owner, region=None, location=None)
