"""The operating system of each kind of cluster's GPU nodes, as node-feature-discovery labels it: the GPU operator
names the driver image it runs after it (`driver:<version>-<ID><VERSION_ID>`, controllers/state_manager.go
getGPUNodeOSTag at NVIDIA/gpu-operator v26.7.0), so the seed list must hold that tag where the operator installs
the driver.

- AKS: Sahab's GPU pools use the `Ubuntu` OS SKU (components/azure/node_pool.py), which AKS maps to Ubuntu 22.04
  for Kubernetes 1.25-1.34 and Ubuntu 24.04 from 1.35 (learn.microsoft.com, AKS "Upgrade the OS version",
  supported OS versions table).
- EKS: the AL2023 NVIDIA AMI (components/pool_plan.py), whose /etc/os-release says ID=amzn, VERSION_ID=2023.
- On-prem: the hosts bring their driver (Ansible); the operator never installs one there.
"""

from __future__ import annotations


def gpu_node_os_tag(cluster_kind: str, kubernetes_version: str) -> str | None:
    """`ubuntu22.04`, `amzn2023`...: what the operator appends to the driver version; None where it installs none."""
    from sahab.components.kinds import get

    return get(cluster_kind).gpu_node_os(kubernetes_version)
