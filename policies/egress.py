"""The egress model: per resource type, which inputs send data somewhere, which name a source or a filter, which
hold an at-rest key and which govern encryption in transit.

The model is data, generated from the provider SDKs' own input types and docs by `tools/gen_egress_model.py` into
`policies/data/egress_model.json` (with the SDK versions it was read from). The rules read it here; nothing in the
pack guesses from how an input happens to be spelled. Paths are the engine's camelCase inputs, `[]` stepping into a
list and `{}` into a map's values (`rules[].destination.bucket`).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

MODEL = Path(__file__).resolve().parent / "data" / "egress_model.json"
CHART_VALUES = Path(__file__).resolve().parent / "data" / "chart_values.json"
HELM_TYPES = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart")


@functools.cache
def model() -> dict[str, Any]:
    return json.loads(MODEL.read_text(encoding="utf-8"))


def entry(resource_type: str) -> dict[str, Any]:
    return model()["types"].get(resource_type, {})


def destination_paths(resource_type: str) -> dict[str, str]:
    """Model path -> kind of transfer (replication, export, delivery, subscription, logging, backup, mirroring,
    webhook, volume) for every destination input of the type."""
    return entry(resource_type).get("destinations", {})


def directed_blocks(resource_type: str) -> dict[str, str]:
    """Model path of a block -> its input that says whether this resource is the source or the destination end of
    the transfer the block describes (`dataProtection.replication` -> `endpointType`)."""
    return entry(resource_type).get("directed", {})


def own_name_input(resource_type: str) -> str | None:
    """The input that names the resource itself (an Azure resource's own path parameter: `accountName` of a storage
    account, `namespaceName` of an Event Hubs namespace; else its class name and an identifier word: an Aurora
    global database's `globalClusterIdentifier`)."""
    return entry(resource_type).get("name")


def own_arn_outputs(keys, resource_type: str) -> list[str]:
    """Of a resource's property names, the ARN outputs named after its own type (a DMS endpoint's `endpointArn`, a
    replication instance's `replicationInstanceArn`), which pulumi-aws gives beside `arn`; the ARN of another
    resource it names (`certificateArn`, `kmsKeyArn`) is not its own."""
    kind = resource_type.rsplit(":", 1)[-1].lower()
    return [key for key in keys if key.endswith("Arn") and len(key) > 3 and kind.endswith(key[:-3].lower())]


def key_paths(resource_type: str) -> list[str]:
    """The inputs holding an at-rest encryption key: a type with one holds data."""
    return entry(resource_type).get("keys", [])


@functools.cache
def _matchers(resource_type: str, category: str) -> re.Pattern | None:
    paths = entry(resource_type).get(category, [])
    if not paths:
        return None
    alternatives = []
    for path in paths:
        pattern = re.escape(path).replace(r"\[\]", r"(?:\[\d+\])?").replace(r"\{\}", r"\.[^.\[]+")
        alternatives.append(pattern)
    # A match covers the input and everything below it.
    return re.compile(rf"^(?:{'|'.join(alternatives)})(?:$|[.\[])")


def _matches(resource_type: str, category: str, path: str) -> bool:
    matcher = _matchers(resource_type, category)
    return bool(matcher and matcher.match(path))


def is_source(resource_type: str, path: str) -> bool:
    """Whether the concrete input path (`rules[0].sourceRegion`) is, or lies below, a source input."""
    return _matches(resource_type, "sources", path)


def is_filtered(resource_type: str, path: str) -> bool:
    """Whether the concrete input path is, or lies below, a filter (pattern, condition, deny or exclusion list)."""
    return _matches(resource_type, "filters", path)


# ---------------------------------------------------------------------------------------------------------
# What third-party charts create from their values (policies/data/chart_values.json)


@functools.cache
def chart_values() -> dict[str, Any]:
    return json.loads(CHART_VALUES.read_text(encoding="utf-8"))


def chart_name(chart: Any) -> str | None:
    """The chart's own name from a release's `chart` (`velero`, `vmware-tanzu/velero`, `oci://host/charts/velero`)."""
    if not isinstance(chart, str) or not chart.strip():
        return None
    return chart.rstrip("/").rsplit("/", 1)[-1].split(":", 1)[0].lower()


def chart_entries(category: str, chart: Any) -> list[dict[str, Any]]:
    name = chart_name(chart)
    return [e for e in chart_values().get(category, []) if e["chart"] == name] if name else []


def inbound_switches(resource_type: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Model path of a block (`""`: the whole resource) -> (its input saying which end of the transfer it is, the
    values that make it the receiving end, so what it names is a source). A block's `directed` input says whether
    this resource is the destination end (`dst`); an `inbound` switch is read by hand (a DMS endpoint's
    `endpointType: source`)."""
    found = {block: (switch, ("dst", "destination")) for block, switch in directed_blocks(resource_type).items()}
    for block, (switch, values) in entry(resource_type).get("inbound", {}).items():
        found[block] = (switch, tuple(v.lower() for v in values))
    return found


def bucket_name_paths(resource_type: str) -> list[str]:
    """Destination paths whose plain value names an S3 bucket, though the input's own name does not say so."""
    return entry(resource_type).get("buckets", [])
