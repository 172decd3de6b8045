"""What a server is, read from the probe's answer (sahab.starter.probe). Pure: no SSH here.

The answer is untrusted text: a section may be missing, empty or garbled (an old lsblk, no /etc/os-release, a
host that hangs up), and each is read as "not known" with a note, never a crash. Disks are judged unused only on
positive evidence: a whole, writable, fixed disk with a stable /dev/disk/by-id name, no partitions, holders,
filesystem or mount, and a low-level signature probe that found nothing on it. Anything less is not offered
for the LUKS data volume, whose first use erases the disk.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field

from sahab.workloads.bench.capability import classify_cpu
from sahab.workloads.bench.hardware_classes import GpuProperties, classify_gpu

MARK = "@@sahab-probe"
GIB = 1 << 30
MIB = 1 << 20
# A data volume smaller than this is not worth a LUKS header and a storage class: 16 GiB.
MIN_DATA_DISK_BYTES = 16 * GIB
# PCI vendor ids (PCI-SIG's registry, as listed in pciutils' pci.ids) and the display classes GPUs report:
# 0x0300 VGA-compatible, 0x0302 3D controller (PCI Code and ID Assignment Specification, base class 03h).
NVIDIA, AMD = "10de", "1002"
GPU_CLASSES = ("0300", "0302")
# NVIDIA device ids of the catalog's parts, named as pci.ids names them (pciutils/pciids, pci.ids at commit
# c1c12547d626, 2026-08-22): a fresh GPU server has no driver and so no nvidia-smi, yet its PCI id says the part.
PCI_NAMES = {
    "1eb8": "Tesla T4", "2237": "A10G", "26b9": "L40S",
    "20b0": "A100 SXM4 40GB", "20b1": "A100 PCIe 40GB", "20b2": "A100 SXM4 80GB", "20b5": "A100 PCIe 80GB",
    "20f1": "A100 PCIe 40GB",
    "2321": "H100L 94GB", "2330": "H100 SXM5 80GB", "2331": "H100 PCIe", "2335": "H200 SXM 141GB",
}
# /dev/disk/by-id names, most stable first: model + serial beats a WWN or EUI, which beats anything else;
# usb- disks are not fixed server disks.
_ID_RANK = (("ata-", 0), ("nvme-", 0), ("scsi-", 1), ("wwn-", 2), ("nvme-eui.", 2))


class ProbeFailed(Exception):
    """A server that could not be probed; the message is one line naming it."""


@dataclass(frozen=True)
class Disk:
    path: str  # kernel name, /dev/sdb
    size_bytes: int
    model: str
    stable_id: str | None  # /dev/disk/by-id/...; None when udev gives it none
    unused: bool
    why_not: str = ""  # why it is not offered for the data volume


@dataclass(frozen=True)
class Gpu:
    slot: str  # PCI address
    vendor: str  # PCI vendor id, hex without 0x
    device: str
    name: str = ""  # nvidia-smi's name, when nvidia-smi answered
    memory_mib: int = 0
    accelerator: str | None = None  # components.accelerators accelerator, when the name says which


@dataclass(frozen=True)
class HostFacts:
    address: str
    port: int
    hostname: str
    os_id: str  # os-release ID ("" unknown)
    os_version: str  # VERSION_ID
    os_name: str  # PRETTY_NAME
    arch: str
    cpu_model: str
    cpu_class: str  # workloads.bench's class: cpu-avx2, cpu-avx512, cpu-avx512-bf16, cpu-amx, cpu-generic
    cpu_flags: frozenset[str]
    cpus: int  # 0 unknown
    memory_mib: int  # 0 unknown
    disks: tuple[Disk, ...]
    addresses: tuple[str, ...]
    gpus: tuple[Gpu, ...]
    time_sync: str  # "synchronised (chrony)", "not synchronised (systemd-timesyncd)", "unknown"
    root_free_bytes: int | None
    sudo: bool
    notes: tuple[str, ...] = field(default=())  # what the probe could not read

    @property
    def memory_gib(self) -> int:
        """Whole GiB, as `free -g` rounds (down)."""
        return self.memory_mib // 1024

    @property
    def unused_disks(self) -> tuple[Disk, ...]:
        """Candidates for the data volume: largest first, then by stable id (one order for one set of disks)."""
        return tuple(sorted((d for d in self.disks if d.unused), key=lambda d: (-d.size_bytes, d.stable_id or "")))

    @property
    def nvidia_gpus(self) -> tuple[Gpu, ...]:
        return tuple(g for g in self.gpus if g.vendor == NVIDIA)


def sections(text: str) -> dict[str, str]:
    found: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith(MARK + " "):
            current = line[len(MARK) + 1:].strip()
            found[current] = []
        elif current is not None:
            found[current].append(line)
    return {k: "\n".join(v).strip("\n") for k, v in found.items()}


def parse_probe(text: str, address: str, port: int, where: str) -> HostFacts:
    """HostFacts from the probe's output; ProbeFailed when the answer stopped before the end marker."""
    got = sections(text)
    if "end" not in got:
        last = list(got)[-1] if got else "none"
        raise ProbeFailed(f"{where}: the connection closed before the probe finished (last section: {last})")
    notes: list[str] = []
    release = os_release(got.get("os-release", ""))
    if not release:
        notes.append("no /etc/os-release or /usr/lib/os-release")
    cpu = key_values(got.get("cpuinfo", ""), ":")
    flags = frozenset((cpu.get("flags") or cpu.get("Features") or "").split())
    cpus = _int(got.get("nproc", ""))
    if not 1 <= cpus <= 4096:
        notes.append("cannot count its CPUs")
        cpus = 0
    memory = key_values(got.get("meminfo", ""), ":").get("MemTotal", "")
    memory_kib = _int(memory.split()[0]) if memory.split() else 0
    if memory_kib <= 0:
        notes.append("cannot read its memory (/proc/meminfo)")
    disks, disk_notes = read_disks(got.get("lsblk", ""), got.get("by-id", ""), got.get("signatures", ""))
    notes += disk_notes
    return HostFacts(
        address=address,
        port=port,
        hostname=got.get("hostname", "").strip().split("\n")[0].strip(),
        os_id=release.get("ID", ""),
        os_version=release.get("VERSION_ID", ""),
        os_name=release.get("PRETTY_NAME", "") or release.get("NAME", ""),
        arch=got.get("arch", "").strip(),
        cpu_model=(cpu.get("model name") or cpu.get("Model") or "unknown CPU").strip(),
        cpu_class=classify_cpu(flags),
        cpu_flags=flags,
        cpus=cpus,
        memory_mib=memory_kib // 1024,
        disks=disks,
        addresses=read_addresses(got.get("addresses", "")),
        gpus=read_gpus(got.get("pci", ""), got.get("nvidia-smi", "")),
        time_sync=read_time_sync(got.get("chrony", ""), got.get("timedatectl", "")),
        root_free_bytes=read_root_free(got.get("rootfs", "")),
        sudo=got.get("sudo", "").strip() == "yes",
        notes=tuple(notes),
    )


def os_release(text: str) -> dict[str, str]:
    """os-release(5): KEY=value lines, values shell-quoted."""
    values = {}
    for line in text.splitlines():
        key, sep, raw = line.partition("=")
        if not sep or not re.fullmatch(r"[A-Z_][A-Z0-9_]*", key):
            continue
        try:
            parts = shlex.split(raw)
        except ValueError:
            continue
        values[key] = parts[0] if parts else ""
    return values


def key_values(text: str, sep: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        key, found, value = line.partition(sep)
        if found and key.strip() not in out:
            out[key.strip()] = value.strip()
    return out


def _int(text: str) -> int:
    try:
        return int(str(text).strip())
    except ValueError:
        return 0


def _flag(value) -> bool:
    return value in (True, 1, "1", "true")


def read_disks(lsblk: str, by_id: str, signatures: str) -> tuple[tuple[Disk, ...], list[str]]:
    """Whole disks from `lsblk -J`, each judged for the data volume."""
    try:
        doc = json.loads(lsblk) if lsblk.strip() else None
        devices = doc["blockdevices"] if isinstance(doc, dict) else None
        if not isinstance(devices, list):
            raise ValueError
    except (ValueError, KeyError, TypeError):
        return (), ["lsblk gave no readable list of block devices"]
    ids: dict[str, list[str]] = {}
    for line in by_id.splitlines():
        link, _, target = line.strip().partition(" ")
        if link.startswith("/dev/disk/by-id/") and target.startswith("/dev/") and "-part" not in link:
            ids.setdefault(target, []).append(link)
    probed: dict[str, tuple[int, str]] = {}
    for line in signatures.splitlines():
        parts = line.split(None, 2)
        if len(parts) >= 2 and parts[1].lstrip("-").isdigit():
            probed[parts[0]] = (int(parts[1]), parts[2] if len(parts) > 2 else "")
    disks = []
    for dev in devices:
        if not isinstance(dev, dict) or dev.get("type") != "disk":
            continue
        name = str(dev.get("name") or "")
        path = str(dev.get("path") or (f"/dev/{name}" if name else ""))
        if not re.fullmatch(r"/dev/[A-Za-z0-9/_.-]{1,64}", path):
            continue
        size = _int(dev.get("size") or 0)
        stable = _stable_id(ids.get(path, []))
        why = _why_not_unused(dev, path, size, stable, probed.get(path))
        disks.append(Disk(path=path, size_bytes=size, model=" ".join(str(dev.get("model") or "").split())[:64],
                          stable_id=stable, unused=not why, why_not=why))
    return tuple(sorted(disks, key=lambda d: d.path)), []


def _stable_id(links: list[str]) -> str | None:
    def rank(link: str) -> tuple[int, str]:
        name = link.removeprefix("/dev/disk/by-id/")
        best = 3
        for prefix, value in _ID_RANK:
            if name.startswith(prefix):
                best = value
        return best, name

    usable = [link for link in links if not link.removeprefix("/dev/disk/by-id/").startswith("usb-")]
    return min(usable, key=rank) if usable else None


def _why_not_unused(dev: dict, path: str, size: int, stable: str | None, probed: tuple[int, str] | None) -> str:
    name = path.rsplit("/", 1)[-1]
    if name.startswith(("zram", "ram", "loop")):
        return "a memory or loop device"
    if _flag(dev.get("ro")):
        return "read-only"
    if _flag(dev.get("rm")):
        return "removable"
    if size < MIN_DATA_DISK_BYTES:
        return f"smaller than {MIN_DATA_DISK_BYTES // GIB} GiB"
    if dev.get("children"):
        return "has partitions or holders"
    if dev.get("fstype"):
        return f"holds {dev['fstype']}"
    if dev.get("mountpoint"):
        return f"mounted at {dev['mountpoint']}"
    if stable is None:
        return "no /dev/disk/by-id name (a kernel name can move between boots)"
    if probed is None:
        return "not checked for signatures (the probe needs sudo for blkid -p)"
    rc, found = probed
    if rc == 0:
        return f"holds {' '.join(found.split()[:3]) or 'a signature'}"
    if rc != 2:  # blkid: 2 means nothing was found; anything else is an error
        return f"blkid -p could not read it (exit {rc})"
    return ""


def read_addresses(text: str) -> tuple[str, ...]:
    found = set()
    for line in text.splitlines():
        words = line.split()
        if "inet" in words or "inet6" in words:  # ip -o addr: "2: eth0 inet 10.0.0.5/24 ..."
            i = words.index("inet") if "inet" in words else words.index("inet6")
            if i + 1 < len(words):
                found.add(words[i + 1].split("/")[0])
        else:  # hostname -I
            found |= {w for w in words if re.fullmatch(r"[0-9a-fA-F:.]+", w)}
    return tuple(sorted(found))


def read_gpus(pci: str, nvidia_smi: str) -> tuple[Gpu, ...]:
    named: dict[str, tuple[str, int]] = {}
    for line in nvidia_smi.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 3 and parts[2].isdigit():
            named[_short_slot(parts[0])] = (parts[1][:80], int(parts[2]))
    gpus = []
    for line in pci.splitlines():
        parts = line.split()
        if len(parts) != 4:
            continue
        slot, vendor, device, klass = (p.lower().removeprefix("0x") for p in parts)
        if not klass.startswith(GPU_CLASSES) or vendor not in (NVIDIA, AMD):
            continue
        name, memory = named.get(_short_slot(slot), ("", 0))
        if not name and vendor == NVIDIA and device in PCI_NAMES:
            name = PCI_NAMES[device]
            sized = re.search(r"(\d+)GB", name)
            memory = int(sized.group(1)) * 1000**3 // MIB if sized else 0
        gpus.append(Gpu(slot=slot, vendor=vendor, device=device, name=name, memory_mib=memory,
                        accelerator=accelerator_of(name, memory) if vendor == NVIDIA and name else None))
    return tuple(sorted(gpus, key=lambda g: g.slot))


def _short_slot(slot: str) -> str:
    """nvidia-smi says 00000000:01:00.0 where sysfs says 0000:01:00.0: compare bus:device.function."""
    return slot.lower().rsplit(":", 2)[-2] + ":" + slot.lower().rsplit(":", 1)[-1] if slot.count(":") >= 2 else slot


def accelerator_of(name: str, memory_mib: int) -> str | None:
    """The fleet's accelerator (components.accelerators) for a GPU nvidia-smi names, through the benchmark catalog's
    own decision (workloads.bench.hardware_classes.classify_gpu): e.g. "NVIDIA H100 80GB HBM3" -> h100-sxm -> h100."""
    from sahab.components.accelerators import CATALOG

    bench = classify_gpu(GpuProperties(name, memory_mib * MIB, 0, 0, 0))
    if bench is None or "-mig-" in bench:
        return None
    return next((a for a in CATALOG if a != "cpu" and bench.startswith(a)), None)


def read_time_sync(chrony: str, timedatectl: str) -> str:
    leap = key_values(chrony, ":").get("Leap status", "")
    if leap:
        return "synchronised (chrony)" if leap == "Normal" else f"not synchronised (chrony: {leap})"
    synced = key_values(timedatectl, "=").get("NTPSynchronized", "")
    if synced:
        return "synchronised (systemd)" if synced == "yes" else "not synchronised (systemd)"
    return "unknown (neither chronyc nor timedatectl answered)"


def read_root_free(text: str) -> int | None:
    parts = text.split()
    if len(parts) >= 6 and parts[3].isdigit():
        return int(parts[3])
    return None
