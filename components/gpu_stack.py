"""Who installs each layer of the NVIDIA stack on a GPU node: one owner per layer, per kind of cluster. Each kind
states its owners (KindSpec.gpu_stack, components/kinds/<kind>.py):

- EKS: GPU nodes boot the EKS-optimised Amazon Linux 2023 NVIDIA AMI (`AL2023_x86_64_NVIDIA`), which ships the
  driver and the container toolkit; AWS says to turn both off in the GPU operator, and NVIDIA builds no driver
  image for Amazon Linux. The operator brings only the device plugin, GFD, DCGM and the MIG manager.
- AKS: the node image installs both unless the pool asks AKS to skip the driver (`gpuProfile.driver: None`);
  then the GPU operator installs both (NVIDIA, "GPU Operator with Azure Kubernetes Service").
- On-prem: Ansible's `sahab_nvidia` role installs both on the host.

`gpu_driver` on a pool picks between the owners a kind offers: `preinstalled` (the node image or host) or
`operator`. A choice that would put one layer in two owners' hands is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Owners:
    driver: str  # ami | aks | operator | host
    toolkit: str

    @property
    def operator_installs(self) -> bool:
        return self.driver == "operator"


@dataclass(frozen=True)
class GpuStack:
    """A kind's choices of `gpu_driver`, and which it takes when a pool names none."""

    owners: Mapping[str, Owners]
    default: str
    why_not: str | None = None
    """Why the kind refuses the choices it lacks (the error says it)."""


def resolve(kind: str, requested: str | None) -> str:
    """The pool's `gpu_driver` for a kind of cluster; ValueError (saying why) for a choice that doubles a layer."""
    from sahab.components.kinds import get

    stack = get(kind).gpu_stack
    choice = requested or stack.default
    if choice not in stack.owners:
        allowed = ", ".join(stack.owners)
        raise ValueError(f"{stack.why_not or f'{kind} cannot take {choice!r}'}; allowed: {allowed}")
    return choice


def owners(kind: str, gpu_driver: str | None) -> Owners:
    from sahab.components.kinds import get

    return get(kind).gpu_stack.owners[resolve(kind, gpu_driver)]


def disagreeing(kind: str, drivers: Sequence[str | None]) -> list[int]:
    """One GPU operator serves every GPU pool of a cluster, installing the driver and toolkit on all of them or on
    none: the positions of the pools' `gpu_driver` choices whose owners differ from the first pool's. A choice the
    kind refuses raises ValueError (resolve's)."""
    owned = [owners(kind, driver) for driver in drivers]
    return [i for i, o in enumerate(owned) if o != owned[0]]
