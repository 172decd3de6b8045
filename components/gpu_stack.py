"""Who installs each layer of the NVIDIA stack on a GPU node: one owner per layer, per kind of cluster.

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

from dataclasses import dataclass


@dataclass(frozen=True)
class Owners:
    driver: str  # ami | aks | operator | host
    toolkit: str

    @property
    def operator_installs(self) -> bool:
        return self.driver == "operator"


OWNERS: dict[str, dict[str, Owners]] = {
    "eks": {"preinstalled": Owners("ami", "ami")},
    "aks": {"preinstalled": Owners("aks", "aks"), "operator": Owners("operator", "operator")},
    "onprem": {"preinstalled": Owners("host", "host")},
}
DEFAULT = {"eks": "preinstalled", "aks": "operator", "onprem": "preinstalled"}
WHY_NOT = {
    "eks": "EKS GPU nodes run the AL2023 NVIDIA AMI, which ships the driver and the container toolkit: the GPU "
           "operator would install them a second time (and NVIDIA builds no driver image for Amazon Linux)",
    "onprem": "on-prem GPU hosts get the driver and the container toolkit from Ansible (role sahab_nvidia): the "
              "GPU operator would install them a second time",
}


def resolve(kind: str, requested: str | None) -> str:
    """The pool's `gpu_driver` for a kind of cluster; ValueError (saying why) for a choice that doubles a layer."""
    choice = requested or DEFAULT[kind]
    if choice not in OWNERS[kind]:
        allowed = ", ".join(OWNERS[kind])
        raise ValueError(f"{WHY_NOT.get(kind, f'{kind} cannot take {choice!r}')}; allowed: {allowed}")
    return choice


def owners(kind: str, gpu_driver: str | None) -> Owners:
    return OWNERS[kind][resolve(kind, gpu_driver)]
