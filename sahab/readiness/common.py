"""Small lookups over planned resources that every adapter uses."""

from __future__ import annotations

from typing import Any

from sahab.engine import UNKNOWN, PlannedResource
from sahab.readiness.readiness_types import Taint


def unknown(data: Any) -> bool:
    """Whether a preview does not know (part of) the value yet: the engine's unknown sentinel anywhere in it.
    Unknown means cannot judge: a check that would need it gives no verdict rather than a "not ready"."""
    if isinstance(data, str):
        return UNKNOWN in data
    if isinstance(data, dict):
        return any(unknown(k) or unknown(v) for k, v in data.items())
    if isinstance(data, list | tuple):
        return any(unknown(v) for v in data)
    return False


def get(data: Any, *path: str, default: Any = None) -> Any:
    """`data[path[0]][path[1]]...`, or `default` where a step is missing or not a mapping."""
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return default
        data = data[key]
    return data


def value(res: PlannedResource, key: str) -> Any:
    """An input, falling back to the planned output of the same name (e.g. a name the provider assigns)."""
    found = res.inputs.get(key)
    return found if found is not None else res.outputs.get(key)


def integer(raw: Any, default: int = 0) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError):
        return default


def of_type(resources: list[PlannedResource], *types: str) -> list[PlannedResource]:
    return [r for r in resources if r.type in types]


def taint_from_string(text: str) -> Taint | None:
    """`key=value:Effect` or `key:Effect` (AKS, kubeadm)."""
    head, sep, effect = text.rpartition(":")
    if not sep:
        return None
    key, _, val = head.partition("=")
    return Taint(key, val, effect)


def taint_from_mapping(raw: Any) -> Taint | None:
    if isinstance(raw, str):
        return taint_from_string(raw)
    if isinstance(raw, dict) and raw.get("key"):
        return Taint(str(raw["key"]), str(raw.get("value") or ""), str(raw.get("effect") or "NoSchedule"))
    return None


def string_labels(raw: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
