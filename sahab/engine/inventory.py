"""The existing resources a stack declares, with their places: what a lookup may answer offline.

A program that looks up infrastructure it does not create (`aws.s3.get_bucket`, `azure_native.resources.
get_resource_group`, `Bucket.get(...)`) gets, during a real preview, whatever the cloud says about it, and where
it lives can be anywhere. Offline nobody can say, so a lookup's place (its region, location, the region inside
an ARN) is unknown, and residency fails closed on it, unless the stack's config declares that resource here:

    config:
      sahab:existing:
        - type: azure-native:resources:ResourceGroup   # the resource type token
          id: shared-network                          # the name, id or ARN the program looks it up by
          location: uaenorth                          # where it is (Azure); `region:` for AWS
        - type: aws:s3/bucketV2:BucketV2
          id: corp-artifacts
          region: me-central-1

`sahab doctor` (its `inventory` area) verifies each entry against the live cloud. A lookup matches an entry of
its package and service whose kind is the one the function looks up (`getBucket` -> Bucket/BucketV2) and whose
`id` is among the lookup's arguments (a `resourceGroup:` entry key narrows Azure matches to that group); a read
(`Resource.get`) matches an entry of its exact type and id.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sahab.errors import ConfigError

KEY = "sahab:existing"
_TOKEN = re.compile(r"^[a-z][a-z0-9-]*:[A-Za-z0-9_./-]+:[A-Za-z][A-Za-z0-9]*$")
_FIELDS = ("type", "id", "region", "location", "resourceGroup")


@dataclass(frozen=True)
class Existing:
    type: str
    id: str
    region: str | None = None  # AWS
    location: str | None = None  # Azure
    resource_group: str | None = None

    @property
    def package(self) -> str:
        return self.type.split(":", 1)[0]

    @property
    def service(self) -> str:
        return self.type.split(":")[1].split("/")[0]

    @property
    def kind(self) -> str:
        return self.type.rsplit(":", 1)[-1]


def load(values: dict[str, str], where: str) -> list[Existing]:
    """The entries of `sahab:existing` in a stack's config (`values`: the engine's `ns:key` -> text)."""
    raw = values.get(KEY)
    if raw is None:
        return []
    try:
        doc = json.loads(raw)
    except ValueError:
        doc = raw
    if not isinstance(doc, list):
        raise ConfigError(f"{where}: {KEY}", "must be a list of existing resources: [{type, id, region or location}]")
    return [_entry(item, f"{where}: {KEY}[{i}]") for i, item in enumerate(doc)]


def _entry(item: Any, path: str) -> Existing:
    if not isinstance(item, dict):
        raise ConfigError(path, "must be a mapping with `type`, `id` and `region` (AWS) or `location` (Azure)")
    extra = sorted(set(item) - set(_FIELDS))
    if extra:
        raise ConfigError(f"{path}.{extra[0]}", f"not a field of an existing resource; allowed: {', '.join(_FIELDS)}")
    for key in ("type", "id"):
        if not isinstance(item.get(key), str) or not item[key].strip():
            raise ConfigError(f"{path}.{key}", "is required and must be a non-empty string")
    if not _TOKEN.match(item["type"]):
        raise ConfigError(f"{path}.type", f"{item['type']!r} is not a resource type token "
                                          f"(e.g. aws:s3/bucketV2:BucketV2, azure-native:resources:ResourceGroup)")
    places = [k for k in ("region", "location") if item.get(k) is not None]
    if len(places) != 1:
        raise ConfigError(path, "needs exactly one place: `region` (AWS) or `location` (Azure)")
    place = item[places[0]]
    if not isinstance(place, str) or not re.match(r"^[A-Za-z0-9][A-Za-z0-9 -]*$", place):
        raise ConfigError(f"{path}.{places[0]}", "must be a region or location name, e.g. me-central-1, uaenorth")
    group = item.get("resourceGroup")
    if group is not None and (not isinstance(group, str) or not group):
        raise ConfigError(f"{path}.resourceGroup", "must be a non-empty string")
    location = item.get("location")
    return Existing(item["type"], item["id"], item.get("region"),
                    location.replace(" ", "").lower() if isinstance(location, str) else None, group)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _names(text: str) -> set[str]:
    """A name, id or ARN, and the last segment of it (`.../resourceGroups/x` and `arn:aws:s3:::x` name `x`)."""
    return {text, text.rsplit("/", 1)[-1], text.rsplit(":", 1)[-1]} - {""}


def _noun(function: str) -> str:
    return re.sub(r"^(get|lookup|list)", "", function)


def match_lookup(entries: list[Existing], token: str, args: dict[str, Any]) -> Existing | None:
    """The declared resource an invoke looks up, if any."""
    try:
        package, module, function = token.split(":")
    except ValueError:
        return None
    noun = _noun(function).lower()
    service = module.split("/")[0]
    named = {n for s in _strings(args) for n in _names(s)}
    for entry in entries:
        if entry.package != package or entry.service != service:
            continue
        kind = entry.kind.lower()
        if not noun or not (kind == noun or kind.startswith(noun) or noun.startswith(kind)):
            continue
        if entry.resource_group is not None and args.get("resourceGroupName") != entry.resource_group:
            continue
        if _names(entry.id) & named:
            return entry
    return None


def match_read(entries: list[Existing], type_: str, id_: str) -> Existing | None:
    """The declared resource a read (`Resource.get(name, id)`) names, if any."""
    return next((e for e in entries if e.type == type_ and _names(e.id) & _names(id_)), None)
