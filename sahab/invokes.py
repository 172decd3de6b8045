"""Answers to data-source lookups (invokes) that no stack can answer offline: one mechanism for all of them.

An invoke runs for real during `pulumi preview`, so a program gets a complete, well-formed result and goes
on. Offline we build that result from the function's own result type in the provider SDK (e.g.
`pulumi_aws.ec2.GetAmiResult`): every field the type declares is filled, arguments the program passed are
echoed back, and the rest is derived from the field's name and the stack's facts (region, account,
subscription): ids in the provider's format, ARNs in the stack's partition, region and account, lists with
elements a program can index. Values are stable hashes of the call, so plans are reproducible.
"""

from __future__ import annotations

import base64
import collections.abc
import hashlib
import importlib
import json
import re
import typing
from dataclasses import dataclass
from typing import Any

MAX_DEPTH = 5
LIST_LENGTH = 3  # elements in a synthesised list of scalars: programs index the first two or three


@dataclass(frozen=True)
class Facts:
    """What the stack determines: where the program runs and as whom."""

    region: str
    account: str
    partition: str
    azure_location: str
    subscription: str
    tenant: str


def synthesise(token: str, args: dict[str, Any], facts: Facts) -> dict[str, Any] | None:
    """The result of invoke `token` called with `args`, or None when the SDK declares no result type."""
    cls = result_type(token)
    if cls is None:
        return None
    seed = f"{token}/{json.dumps(args, sort_keys=True, default=str)}"
    return _object(cls, args, facts, seed, _noun(token), _service(token), 0)


def result_type(token: str) -> type | None:
    """`aws:ec2/getAmi:getAmi` -> pulumi_aws.ec2.GetAmiResult (an @output_type class)."""
    import pulumi._types as pulumi_types

    try:
        package, module, function = token.split(":")
    except ValueError:
        return None
    root = "pulumi_" + package.replace("-", "_")
    class_name = function[:1].upper() + function[1:] + "Result"
    parts = module.split("/")
    candidates = [".".join(parts), parts[0]] if module != "index" else [""]
    if parts[0] == "index" and len(parts) > 1:
        candidates = [""]
    for candidate in candidates:
        name = f"{root}.{candidate}" if candidate else root
        try:
            found = getattr(importlib.import_module(name), class_name, None)
        except ImportError:
            continue
        if isinstance(found, type) and pulumi_types.is_output_type(found):
            return found
    return None


def _object(cls: type, args: dict[str, Any], facts: Facts, seed: str, noun: str, service: str,
            depth: int) -> dict[str, Any]:
    import pulumi._types as pulumi_types

    out: dict[str, Any] = {}
    for name, typ in pulumi_types.output_type_types(cls).items():
        echoed = _as_type(args.get(name), typ)
        if echoed is not None:
            out[name] = echoed
            continue
        out[name] = _value(name, typ, args, facts, f"{seed}/{name}", noun, service, depth)
    return out


def _as_type(value: Any, typ: Any) -> Any:
    """An argument echoed into the result as the provider would (`"true"` for a bool is true); None when it
    does not fit the declared type, so that the field is synthesised instead."""
    import pulumi._types as pulumi_types

    if value is None:
        return None
    typ = pulumi_types.unwrap_optional_type(typ)
    if typ is bool:
        if isinstance(value, bool):
            return value
        return value.strip().lower() == "true" if isinstance(value, str) else None
    if typ in (int, float):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        try:
            return typ(value) if isinstance(value, str) else None
        except ValueError:
            return None
    if typ is str:
        return value if isinstance(value, str) else None
    origin = typing.get_origin(typ)
    if origin in (list, tuple, collections.abc.Sequence):
        return value if isinstance(value, list) else None
    if origin in (dict, collections.abc.Mapping) or (isinstance(typ, type) and pulumi_types.is_output_type(typ)):
        return value if isinstance(value, dict) else None
    return value


def _value(field: str, typ: Any, args: dict[str, Any], facts: Facts, seed: str, noun: str, service: str,
           depth: int) -> Any:
    import pulumi._types as pulumi_types

    typ = pulumi_types.unwrap_optional_type(typ)
    origin = typing.get_origin(typ)
    if depth > MAX_DEPTH:
        return None
    if origin in (list, tuple, collections.abc.Sequence):
        (inner,) = typing.get_args(typ)[:1] or (str,)
        inner = pulumi_types.unwrap_optional_type(inner)
        if isinstance(inner, type) and pulumi_types.is_output_type(inner):
            return [_object(inner, {}, facts, f"{seed}[0]", noun, service, depth + 1)]
        singular = re.sub(r"(ies)$", "y", field)
        singular = re.sub(r"(s)$", "", singular)
        return [_value(singular, inner, {}, facts, f"{seed}[{i}]", noun, service, depth + 1)
                for i in range(LIST_LENGTH)]
    if origin in (dict, collections.abc.Mapping):
        return {}
    if isinstance(typ, type) and pulumi_types.is_output_type(typ):
        return _object(typ, {}, facts, seed, noun, service, depth + 1)
    if typ is bool:
        return False
    if typ in (int, float):
        return 1
    if typ is str:
        return _string(field, args, facts, seed, noun, service)
    return None


# Prefixes of AWS ids, by the noun they identify.
_ID_PREFIXES = {"ami": "ami", "image": "ami", "vpc": "vpc", "subnet": "subnet", "securitygroup": "sg",
                "group": "sg", "instance": "i", "internetgateway": "igw", "routetable": "rtb", "natgateway": "nat",
                "snapshot": "snap", "volume": "vol", "networkinterface": "eni", "keypair": "key",
                "launchtemplate": "lt", "vpcendpoint": "vpce", "prefixlist": "pl", "transitgateway": "tgw"}


def _hash(seed: str, n: int) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:n]


def _uuid(seed: str) -> str:
    h = _hash(seed, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"


def _id_for(noun: str, seed: str) -> str:
    key = noun.lower().replace("_", "")
    if key in ("zone", "hostedzone"):
        return "Z" + _hash(seed, 20).upper()
    prefix = _ID_PREFIXES.get(key)
    return f"{prefix}-0{_hash(seed, 16)}" if prefix else f"{noun.lower() or 'id'}-{_hash(seed, 12)}"


def _string(field: str, args: dict[str, Any], facts: Facts, seed: str, noun: str, service: str) -> str:
    lower = field.lower()
    name = args.get("name") if isinstance(args.get("name"), str) else f"{noun.lower() or 'resource'}-{_hash(seed, 6)}"
    if lower == "id":
        return _id_for(noun, seed)
    if lower in ("accountid", "ownerid", "account"):
        return facts.account
    if lower in ("region", "regionname"):
        return facts.region
    if lower in ("location",):
        return facts.azure_location
    if lower == "partition":
        return facts.partition
    if lower == "dnssuffix":
        return "amazonaws.com"
    if lower in ("subscriptionid",):
        return facts.subscription
    if lower in ("tenantid",):
        return facts.tenant
    if lower in ("objectid", "clientid", "principalid", "applicationid", "uuid", "guid"):
        return _uuid(seed)
    if lower.endswith("arn"):
        return f"arn:{facts.partition}:{service}:{facts.region}:{facts.account}:{noun.lower()}/{name}"
    if lower == "zoneid" or lower == "hostedzoneid":
        return "Z" + _hash(seed, 20).upper()
    if lower.endswith("id"):
        return _id_for(field[:-2], seed)
    if lower in ("name", "keyname", "displayname"):
        return name
    if lower in ("cidrblock", "cidr", "addressprefix"):
        return "10.0.0.0/16"
    if lower in ("value", "key", "primarykey", "secondarykey", "primarysharedkey", "secondarysharedkey",
                 "connectionstring", "password", "secret", "token", "accesskey"):
        return base64.b64encode(hashlib.sha256(seed.encode()).digest() * 2).decode()
    if lower in ("url", "endpoint", "uri") or lower.endswith(("url", "endpoint", "uri")):
        return f"https://{noun.lower() or 'service'}-{_hash(seed, 8)}.example.invalid/"
    if lower in ("fqdn", "dnsname", "domainname", "hostname") or lower.endswith("dnsname"):
        return f"{noun.lower() or 'host'}-{_hash(seed, 8)}.example.invalid"
    if lower in ("state", "status"):
        return "available"
    if lower.endswith("date") or lower.endswith("time"):
        return "2024-01-01T00:00:00Z"
    return f"{field}-{_hash(seed, 8)}"


def _noun(token: str) -> str:
    """`aws:ec2/getAmi:getAmi` -> `Ami`; `azure-native:storage:listStorageAccountKeys` -> `StorageAccountKeys`."""
    function = token.rsplit(":", 1)[-1]
    return re.sub(r"^(get|list|lookup)", "", function) or function


def _service(token: str) -> str:
    parts = token.split(":")
    return parts[1].split("/")[0] if len(parts) > 1 else "service"
