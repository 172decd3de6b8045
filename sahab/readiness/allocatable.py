"""Allocatable = capacity - kube/system reservations - the kubelet's hard eviction threshold, per platform.

- EKS (Amazon Linux 2023, nodeadm): kube-reserved memory 11 MiB x max pods + 255 MiB; CPU 6% of the first core,
  1% of the second, 0.5% of the next two, 0.25% of the rest; eviction at 100 MiB free.
- AKS (1.29+): memory min(20 MB x max pods + 50 MB, 25% of the node); CPU by the published core-count table;
  eviction at 100 MiB free.
- On-prem kubeadm (Sahab's kubelet settings): whole system CPUs reserved (the static CPU manager hands out
  whole cores, so the reservation is the tiered CPU figure rounded up), memory by the common tiered rule
  (25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% up to 128 GiB, 2% above), eviction 100 MiB.
"""

from __future__ import annotations

import math

from sahab.readiness.quantities import GiB, MiB

EVICTION_MEMORY = 100 * MiB
AKS_DEFAULT_MAX_PODS = 250  # Azure CNI overlay
KUBEADM_MAX_PODS = 110
_AKS_CPU_RESERVED = ((1, 60), (2, 100), (4, 140), (8, 180), (16, 260), (32, 420), (64, 740))


def tiered_cpu_millis(vcpus: int) -> int:
    """6% of the first core, 1% of the second, 0.5% of cores 3-4, 0.25% of every further core."""
    tiers = ((1, 60), (1, 10), (2, 5), (math.inf, 2.5))
    left, reserved = vcpus, 0.0
    for cores, per_core in tiers:
        take = min(left, cores)
        reserved += take * per_core
        left -= take
        if left <= 0:
            break
    return math.ceil(reserved)


def tiered_memory_bytes(memory: int) -> int:
    tiers = ((4 * GiB, 0.25), (4 * GiB, 0.20), (8 * GiB, 0.10), (112 * GiB, 0.06), (math.inf, 0.02))
    left, reserved = memory, 0.0
    for size, share in tiers:
        take = min(left, size)
        reserved += take * share
        left -= take
        if left <= 0:
            break
    return int(reserved)


def eks(vcpus: int, memory_gib: float, max_pods: int) -> dict[str, int]:
    memory = int(memory_gib * GiB)
    reserved = (11 * max_pods + 255) * MiB
    return {"cpu": vcpus * 1000 - tiered_cpu_millis(vcpus), "memory": memory - reserved - EVICTION_MEMORY,
            "pods": max_pods}


def aks(vcpus: int, memory_gib: float, max_pods: int = AKS_DEFAULT_MAX_PODS) -> dict[str, int]:
    memory = int(memory_gib * GiB)
    reserved_memory = min(20 * max_pods * 10**6 + 50 * 10**6, memory // 4)
    reserved_cpu = max(millis for cores, millis in _AKS_CPU_RESERVED if cores <= max(vcpus, 1))
    return {"cpu": vcpus * 1000 - reserved_cpu, "memory": memory - reserved_memory - EVICTION_MEMORY,
            "pods": max_pods}


def onprem(cpus: int, memory_gib: float) -> dict[str, int]:
    memory = int(memory_gib * GiB)
    reserved_cpus = math.ceil(tiered_cpu_millis(cpus) / 1000)
    return {"cpu": (cpus - reserved_cpus) * 1000, "memory": memory - tiered_memory_bytes(memory) - EVICTION_MEMORY,
            "pods": KUBEADM_MAX_PODS}
