"""The fleet a small business's servers call for, from their probed facts and the person's choices. Pure.

One site and one on-prem cluster; the control plane on the first host, which also trains (the smb stacks'
`schedule_on_control_plane`); one pool per hardware class (CPU class from the benchmark's own decision, GPU
pools per accelerator and GPU count); the largest unused disk of every pool host as its LUKS data volume; one
team whose quotas are what the pools can hold; the registry mirror when one is named.

Anything that cannot come up is refused, one line each, all of them at once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from sahab.readiness.allocatable import onprem as onprem_allocatable
from sahab.readiness.quantities import GiB
from sahab.starter.facts import GIB, Disk, HostFacts

# The operating systems an on-prem server may run, as os-release ID and VERSION_ID: issue 35's list (Debian 12,
# Ubuntu 22.04 and 24.04, x86_64 and arm64), until the on-prem roles publish theirs; then this reads that one.
SUPPORTED_OS = (("debian", "12"), ("ubuntu", "22.04"), ("ubuntu", "24.04"))
SUPPORTED_ARCH = ("x86_64", "aarch64")
# kubeadm's preflight floors (kubernetes/kubernetes cmd/kubeadm/app/constants/constants.go: ControlPlaneNumCPU = 2,
# ControlPlaneMem = 1700, in MiB as the Mem check computes it). Every host here runs a kubelet and trains, so
# the memory floor applies to all of them.
MIN_CONTROL_PLANE_CPUS = 2
MIN_MEMORY_MIB = 1700
POOL_LAYOUTS = ("by-class", "single")
# The stack name becomes the site, cluster and pool-name prefix (a DNS label of at most 40 characters with the
# class suffix, e.g. "-avx512-bf16").
NAME = re.compile(r"^[a-z][a-z0-9-]{0,22}[a-z0-9]$")
HOST_NAME = re.compile(r"^[a-z][a-z0-9-]{0,38}[a-z0-9]$")


class Refused(Exception):
    """Why no stack is written: one line per reason."""

    def __init__(self, lines: Sequence[str]) -> None:
        super().__init__("; ".join(lines))
        self.lines = tuple(lines)


@dataclass(frozen=True)
class Choices:
    """What the person may change: each has a proposal's default and a flag of `sahab init`."""

    name: str
    emirate: str | None = None  # where the servers stand, for the residency evidence: asked, never guessed
    city: str | None = None  # default: the emirate's name
    user: str = "sahab"
    control_plane_trains: bool = True
    pools: str = "by-class"
    data_disks: dict[str, str] = field(default_factory=dict)  # host name or address -> device, or "none"
    team: str = "training"
    registry_mirror: str | None = None
    encryption_required: bool = True


@dataclass(frozen=True)
class HostPlan:
    facts: HostFacts
    name: str
    data_disk: Disk | None
    host_keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class PoolPlan:
    name: str
    accelerator: str  # components.accelerators accelerator
    hardware_class: str  # the benchmark's class its nodes are judged as
    hosts: tuple[str, ...]
    gpus_per_node: int = 0


@dataclass(frozen=True)
class Proposal:
    choices: Choices
    hosts: tuple[HostPlan, ...]
    pools: tuple[PoolPlan, ...]
    cpu_quota: int
    memory_quota_gi: int
    gpu_quota: int
    training: bool = True  # the bundled training Job runs on the pools
    training_note: str = ""  # why it does not, when it does not

    @property
    def control_plane(self) -> HostPlan:
        return self.hosts[0]

    @property
    def site(self) -> str:
        return self.choices.name

    def host(self, name: str) -> HostPlan:
        return next(h for h in self.hosts if h.name == name)


def host_names(facts: Sequence[HostFacts], stack: str) -> list[str]:
    """Each server's own hostname (first label, lower-case) where it is a valid and unique node name, else
    `<stack>-node<N>` by position: the same servers get the same names."""
    wanted = [f.hostname.split(".")[0].lower() for f in facts]
    names = []
    for i, name in enumerate(wanted):
        if not HOST_NAME.match(name) or wanted.count(name) > 1:
            name = f"{stack}-node{i + 1}"
        names.append(name)
    return names


def host_problems(f: HostFacts, name: str, control_plane: bool) -> list[str]:
    """Why this server cannot be a node, one line each."""
    where = f"host {name} ({f.address})"
    out = []
    if not f.os_id:
        out.append(f"{where}: cannot tell its OS (no /etc/os-release); supported: {supported_os()}")
    elif (f.os_id, f.os_version) not in SUPPORTED_OS:
        out.append(f"{where}: runs {f.os_name or f.os_id + ' ' + f.os_version}, which Sahab's roles do not "
                   f"converge; supported: {supported_os()}")
    if f.arch and f.arch not in SUPPORTED_ARCH:
        out.append(f"{where}: is {f.arch}; supported: {', '.join(SUPPORTED_ARCH)}")
    if not f.sudo:
        out.append(f"{where}: the login account has no passwordless sudo, which Ansible needs; add it "
                   "(`<user> ALL=(ALL:ALL) NOPASSWD: ALL` in /etc/sudoers.d/) or log in as root")
    if f.memory_mib and f.memory_mib < MIN_MEMORY_MIB:
        out.append(f"{where}: has {f.memory_mib} MiB of memory; Kubernetes needs at least {MIN_MEMORY_MIB} MiB "
                   "(kubeadm's preflight)")
    elif not f.memory_mib or not f.cpus:
        out.append(f"{where}: cannot read its CPUs or memory ({'; '.join(f.notes) or 'no answer'})")
    if control_plane and f.cpus and f.cpus < MIN_CONTROL_PLANE_CPUS:
        out.append(f"{where}: has {f.cpus} CPU; the control plane needs at least {MIN_CONTROL_PLANE_CPUS} "
                   "(kubeadm's preflight)")
    return out


def supported_os() -> str:
    names = {"debian": "Debian", "ubuntu": "Ubuntu"}
    return ", ".join(f"{names[i]} {v}" for i, v in SUPPORTED_OS)


def pick_disk(f: HostFacts, name: str, wanted: str | None) -> tuple[Disk | None, str]:
    """The data disk: the one named (by kernel name or by-id path; it must be one the probe found unused), or
    the largest unused one. Returns (disk, refusal)."""
    if wanted == "none":
        return None, ""
    if wanted:
        for disk in f.disks:
            if wanted in (disk.path, disk.stable_id):
                if not disk.unused:
                    return None, f"host {name} ({f.address}): --data-disk {wanted} is not unused: {disk.why_not}"
                return disk, ""
        return None, f"host {name} ({f.address}): --data-disk {wanted} is not one of its disks; " \
                     f"disks: {', '.join(d.stable_id or d.path for d in f.disks) or 'none found'}"
    candidates = f.unused_disks
    if candidates:
        return candidates[0], ""
    seen = "; ".join(f"{d.stable_id or d.path}: {d.why_not}" for d in f.disks) or "no disks found"
    return None, (f"host {name} ({f.address}): no unused disk for its encrypted data volume ({seen}); add a "
                  "blank disk, or name one with --data-disk")


def propose(facts: Sequence[HostFacts], choices: Choices, host_keys: Sequence[tuple[str, ...]] = ()) -> Proposal:
    """The proposal, or Refused with every reason it cannot come up."""
    refusals: list[str] = []
    names = host_names(facts, choices.name)
    if choices.pools not in POOL_LAYOUTS:
        refusals.append(f"--pools {choices.pools}: allowed: {', '.join(POOL_LAYOUTS)}")
    by_key = {}
    for i, f in enumerate(facts):
        by_key[names[i]] = by_key[f.address] = i
    unknown = sorted(set(choices.data_disks) - set(by_key))
    if unknown:
        refusals.append(f"--data-disk {unknown[0]}=...: not a host; hosts: {', '.join(names)}")
    disks = {by_key[k]: v for k, v in choices.data_disks.items() if k in by_key}
    plans = []
    for i, f in enumerate(facts):
        control_plane = i == 0
        refusals += host_problems(f, names[i], control_plane)
        trains = not control_plane or choices.control_plane_trains
        wanted = disks.get(i)
        if not trains and wanted is None:
            wanted = "none"  # a control plane that does not train gets no volumes: no disk to erase
        if not choices.encryption_required and wanted is None:
            wanted = "none"
        disk, refusal = pick_disk(f, names[i], wanted)
        if refusal:
            refusals.append(refusal)
        if trains and disk is None and choices.encryption_required and not refusal:
            refusals.append(f"host {names[i]} ({f.address}): trains, so it needs its encrypted data volume; "
                            "--data-disk none is allowed only with --no-encryption")
        keys = tuple(host_keys[i]) if i < len(host_keys) else ()
        plans.append(HostPlan(facts=f, name=names[i], data_disk=disk, host_keys=keys))
    trainers = [p for i, p in enumerate(plans) if i > 0 or choices.control_plane_trains]
    if not trainers:
        refusals.append("no host trains: with one server, its control plane must train (drop "
                        "--control-plane-trains no)")
    pools, pool_refusals = plan_pools(choices, trainers)
    refusals += pool_refusals
    if refusals:
        raise Refused(refusals)
    training, why_not = training_fits(choices, pools, {p.name: p.facts for p in plans})
    cpu = mem = gpus = 0
    for plan in trainers:
        room = onprem_allocatable(plan.facts.cpus, plan.facts.memory_gib)
        cpu += room["cpu"] // 1000
        mem += room["memory"] // GiB
        gpus += len(plan.facts.nvidia_gpus)
    return Proposal(choices=choices, hosts=tuple(plans), pools=pools, cpu_quota=max(cpu, 1),
                    memory_quota_gi=max(mem, 1), gpu_quota=gpus, training=training, training_note=why_not)


def training_fits(choices: Choices, pools: Sequence[PoolPlan], facts: dict[str, HostFacts]) -> tuple[bool, str]:
    """Whether one training pod (the training Job's own sizing, components.kubernetes.training_job.pod_size) fits
    what the kubelet leaves allocatable on every pool host; else why not, naming the smallest host."""
    from sahab.components.fleet_config import NodePool
    from sahab.components.kubernetes.training_job import pod_size

    for pool in pools:
        spec = NodePool(name=pool.name, cluster=choices.name, accelerator=pool.accelerator, hosts=pool.hosts,
                        gpus_per_node=pool.gpus_per_node or None)
        for host in pool.hosts:
            f = facts[host]
            cpu, memory_gi = pod_size(spec, f.cpus, f.memory_gib)
            room = onprem_allocatable(f.cpus, f.memory_gib)
            if room["cpu"] < cpu * 1000 or room["memory"] < memory_gi * GiB:
                return False, (f"a training pod of pool {pool.name} asks {cpu} CPUs and {memory_gi} GiB; host "
                               f"{host} leaves {room['cpu'] // 1000} CPUs and {room['memory'] // GiB} GiB after the "
                               "kubelet's reservations")
    return True, ""


def hardware_of(plan: HostPlan) -> tuple[str, str, int]:
    """(accelerator, hardware class, GPUs per node) of a server: its NVIDIA GPUs when it has any, else its CPU."""
    gpus = plan.facts.nvidia_gpus
    if gpus:
        kinds = {g.accelerator for g in gpus}
        accelerator = kinds.pop() if len(kinds) == 1 else None
        return accelerator or "", accelerator or "", len(gpus)
    return "cpu", plan.facts.cpu_class, 0


def plan_pools(choices: Choices, trainers: Sequence[HostPlan]) -> tuple[tuple[PoolPlan, ...], list[str]]:
    refusals = []
    groups: dict[tuple[str, str, int], list[str]] = {}
    for plan in trainers:
        accelerator, klass, count = hardware_of(plan)
        if not accelerator:
            ids = sorted({f"{g.vendor}:{g.device} {g.name}".strip() for g in plan.facts.nvidia_gpus})
            refusals.append(f"host {plan.name} ({plan.facts.address}): its NVIDIA GPUs ({', '.join(ids)}) are "
                            "not one kind the hardware catalog knows (h100, h200, a100, l40s, a10g, t4)")
            continue
        groups.setdefault((accelerator, klass, count), []).append(plan.name)
    if choices.pools == "single" and len(groups) > 1:
        found = ", ".join(f"{', '.join(hosts)} ({klass}{f' x{n}' if n else ''})"
                          for (_, klass, n), hosts in sorted(groups.items()))
        refusals.append(f"--pools single: the hosts are of different hardware classes ({found}); one pool trains "
                        "one gang at one precision and one GPU count; drop --pools single for one pool per class")
        return (), refusals
    pools = []
    accelerators = [a for a, _, _ in groups]
    for (accelerator, klass, count), hosts in sorted(groups.items()):
        suffix = klass.removeprefix("cpu-") if accelerator == "cpu" else accelerator
        if accelerator != "cpu" and accelerators.count(accelerator) > 1:
            suffix += f"x{count}"
        name = f"{choices.name}-nodes" if choices.pools == "single" else f"{choices.name}-{suffix}"
        pools.append(PoolPlan(name=name, accelerator=accelerator, hardware_class=klass, hosts=tuple(hosts),
                              gpus_per_node=count))
    return tuple(pools), refusals


def size_text(size: int) -> str:
    """A disk's size as its label says it (decimal units)."""
    return f"{size / 1e12:.1f} TB" if size >= 1e12 else f"{size / 1e9:.0f} GB" if size >= 1e9 else f"{size // GIB} GiB"
