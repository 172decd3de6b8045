"""Kubernetes resource quantities as numbers: CPU in millicores, memory in bytes, devices as counts."""

from __future__ import annotations

import re

_SUFFIX = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
           "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60, "m": 10**-3}
_QUANTITY = re.compile(r"^(?P<number>[0-9]+(\.[0-9]*)?|\.[0-9]+)(?P<suffix>[a-zA-Z]*)$")
GiB = 2**30
MiB = 2**20


def parse(value: object) -> float | None:
    """A quantity (`"500m"`, `"16Gi"`, `4`) as a plain number; None when it is not one (e.g. unknown)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    match = _QUANTITY.match(str(value).strip())
    if not match or match["suffix"] not in _SUFFIX:
        return None
    return float(match["number"]) * _SUFFIX[match["suffix"]]


def amount(resource: str, value: object) -> int | None:
    """A request as the scheduler counts it: CPU in millicores, everything else in whole units (bytes, devices)."""
    number = parse(value)
    if number is None:
        return None
    return round(number * 1000) if resource == "cpu" else int(-(-number // 1))


def show(resource: str, value: int) -> str:
    """A counted amount back in the units people read: `3.5 CPU`, `14.2 GiB`, `8 nvidia.com/gpu`."""
    if resource == "cpu":
        return f"{value / 1000:g} CPU"
    if resource in ("memory", "ephemeral-storage"):
        return f"{value / GiB:.1f} GiB {resource}" if resource != "memory" else f"{value / GiB:.1f} GiB"
    return f"{value} {resource}"
