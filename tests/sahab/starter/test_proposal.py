"""What `sahab init` reads from a probe answer and proposes from it, without SSH: GPU servers, real-world disk
layouts, hostile answers, every refusal, and the same stack from the same servers however they list things."""

from __future__ import annotations

import json
import random

import pytest
import yaml
from sahab.components.fleet_config import parse_fleet

from sahab.starter.facts import ProbeFailed, parse_probe
from sahab.starter.propose import Choices, Refused, propose
from sahab.starter.stackfile import render

GB = 1000**3
AVX2 = "fpu sse sse2 avx avx2 fma"
AMX = "fpu avx2 fma avx512f avx512_bf16 amx_bf16 amx_tile"
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAF2THcYyCMSVaAGtZQ04/xZZyQAtsyoxhmsoyTFHu6W"


def disk(name, size, children=None, fstype=None, mountpoint=None, model="SAMSUNG MZQL23T8HCLS-00A07", **extra):
    entry = {"name": name, "path": f"/dev/{name}", "type": "disk", "size": size, "ro": False, "rm": False,
             "fstype": fstype, "mountpoint": mountpoint, "model": model, "serial": "S64HNE0R300123", **extra}
    if children:
        entry["children"] = children
    return entry


ROOT_NVME = disk("nvme0n1", 960 * GB, children=[
    {"name": "nvme0n1p1", "path": "/dev/nvme0n1p1", "type": "part", "size": 536870912, "fstype": "vfat",
     "mountpoint": "/boot/efi"},
    {"name": "nvme0n1p2", "path": "/dev/nvme0n1p2", "type": "part", "size": 959 * GB, "fstype": "ext4",
     "mountpoint": "/"}])
BLANK = disk("nvme1n1", 3840 * GB)
BLANK_SMALL = disk("nvme2n1", 1920 * GB)
LVM_PV = disk("sda", 4000 * GB, model="ST4000NM000A")
USB = disk("sdb", 64 * GB, model="Ultra USB 3.0")
BY_ID = """/dev/disk/by-id/nvme-eui.002538b131a1b2c3 /dev/nvme1n1
/dev/disk/by-id/nvme-SAMSUNG_MZQL23T8HCLS-00A07_S64HNE0R300123 /dev/nvme1n1
/dev/disk/by-id/nvme-SAMSUNG_MZQL21T9HCJR-00A07_S64GNE0R200456 /dev/nvme2n1
/dev/disk/by-id/nvme-SAMSUNG_MZ1L2960HCJR-00A07_S665NE0R100111 /dev/nvme0n1
/dev/disk/by-id/nvme-SAMSUNG_MZ1L2960HCJR-00A07_S665NE0R100111-part2 /dev/nvme0n1p2
/dev/disk/by-id/ata-ST4000NM000A-2HZ100_WS20ABCD /dev/sda
/dev/disk/by-id/usb-SanDisk_Ultra_4C530001 /dev/sdb"""
SIGNATURES = """/dev/nvme0n1 0 PTUUID=1c2d PTTYPE=gpt
/dev/nvme1n1 2
/dev/nvme2n1 2
/dev/sda 0 UUID=x TYPE=LVM2_member
/dev/sdb 2"""
UBUNTU = 'PRETTY_NAME="Ubuntu 24.04.1 LTS"\nNAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\nID_LIKE=debian'


def answer(hostname="gpu1", os_release=UBUNTU, flags=AMX, cpus=64, mem_kib=263_000_000,
           lsblk=None, by_id=BY_ID, signatures=SIGNATURES, pci="", nvidia="", end=True, sudo="yes") -> str:
    lsblk = lsblk if lsblk is not None else json.dumps({"blockdevices": [ROOT_NVME, BLANK, BLANK_SMALL, LVM_PV, USB]})
    parts = {
        "sudo": sudo, "hostname": hostname, "os-release": os_release, "arch": "x86_64",
        "cpuinfo": f"processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\nflags\t\t: {flags}\n",
        "nproc": str(cpus), "meminfo": f"MemTotal:       {mem_kib} kB", "lsblk": lsblk, "by-id": by_id,
        "signatures": signatures, "addresses": "2: eno1    inet 10.1.0.11/24 brd 10.1.0.255 scope global eno1",
        "pci": pci, "nvidia-smi": nvidia, "chrony": "Leap status     : Normal", "timedatectl": "",
        "rootfs": "/dev/nvme0n1p2 1031018315776 51539607552 979478708224 5% /",
    }
    text = "".join(f"\n@@sahab-probe {k}\n{v}" for k, v in parts.items())
    return text + ("\n@@sahab-probe end\n" if end else "")


def facts(text, address="10.1.0.11"):
    return parse_probe(text, address, 22, f"host {address}")


def choices(**kw):
    return Choices(**{"name": "office", "emirate": "dubai", "city": "Dubai", "registry_mirror": None, **kw})


def test_disks_offered_are_only_blank_fixed_disks_with_stable_ids():
    f = facts(answer())
    unused = f.unused_disks
    assert [d.path for d in unused] == ["/dev/nvme1n1", "/dev/nvme2n1"]  # largest first
    assert unused[0].stable_id == "/dev/disk/by-id/nvme-SAMSUNG_MZQL23T8HCLS-00A07_S64HNE0R300123"  # not the eui
    why = {d.path: d.why_not for d in f.disks}
    assert why["/dev/nvme0n1"] == "has partitions or holders"
    assert why["/dev/sda"].startswith("holds") and "LVM2_member" in why["/dev/sda"]
    assert "by-id" in why["/dev/sdb"]  # a USB stick's only id is usb-: not a server disk


def test_a_disk_that_was_not_probed_for_signatures_is_not_offered():
    f = facts(answer(signatures="", sudo="no"))
    assert f.unused_disks == () and "sudo" in {d.path: d.why_not for d in f.disks}["/dev/nvme1n1"]


def test_gpus_are_named_by_nvidia_smi_or_by_their_pci_id():
    pci = ("0000:17:00.0 0x10de 0x2330 0x030200\n0000:18:00.0 0x10de 0x2330 0x030200\n"
           "0000:00:02.0 0x8086 0x0b06 0x030000")
    smi = "00000000:17:00.0, NVIDIA H100 80GB HBM3, 81559\n00000000:18:00.0, NVIDIA H100 80GB HBM3, 81559"
    named = facts(answer(pci=pci, nvidia=smi)).nvidia_gpus
    assert [(g.accelerator, g.name) for g in named] == [("h100", "NVIDIA H100 80GB HBM3")] * 2
    fresh = facts(answer(pci="0000:3b:00.0 0x10de 0x1eb8 0x030200")).nvidia_gpus  # no driver yet
    assert [g.accelerator for g in fresh] == ["t4"]
    grace = facts(answer(pci="0009:01:00.0 0x10de 0x2342 0x030200",
                         nvidia="00000009:01:00.0, NVIDIA GH200 480GB, 97871"))
    assert [(g.accelerator, g.name) for g in grace.nvidia_gpus] == [(None, "NVIDIA GH200 480GB")]  # not an H200
    p = propose([facts(answer(pci=pci, nvidia=smi))], choices())
    assert [(pool.name, pool.accelerator, pool.gpus_per_node) for pool in p.pools] == [("office-h100", "h100", 2)]
    assert p.gpu_quota == 2
    fleet = parse_fleet(yaml.safe_load(render(p))["config"]["sahab:fleet"])
    assert fleet.node_pools[0].gpus_per_node == 2 and fleet.workload.enabled


def test_pools_follow_the_cpu_class_and_single_refuses_mixed_classes():
    hosts = [facts(answer(hostname="aa", flags=AMX), "10.1.0.11"),
             facts(answer(hostname="bb", flags=AVX2), "10.1.0.12")]
    p = propose(hosts, choices())
    assert [(pool.name, pool.hardware_class, pool.hosts) for pool in p.pools] == [
        ("office-amx", "cpu-amx", ("aa",)), ("office-avx2", "cpu-avx2", ("bb",))]
    with pytest.raises(Refused) as refused:
        propose(hosts, choices(pools="single"))
    (line,) = refused.value.lines
    assert "cpu-amx" in line and "cpu-avx2" in line
    same = [facts(answer(hostname="aa"), "10.1.0.11"), facts(answer(hostname="bb.example.ae"), "10.1.0.12")]
    assert [pool.hosts for pool in propose(same, choices(pools="single")).pools] == [("aa", "bb")]
    clash = [facts(answer(hostname="n1"), "10.1.0.11"), facts(answer(hostname="N1"), "10.1.0.12")]
    assert [h.name for h in propose(clash, choices()).hosts] == ["office-node1", "office-node2"]


@pytest.mark.parametrize("changes, expected", [
    ({"os_release": 'PRETTY_NAME="CentOS Stream 9"\nID="centos"\nVERSION_ID="9"'}, "CentOS Stream 9"),
    ({"os_release": 'PRETTY_NAME="Debian GNU/Linux 11 (bullseye)"\nID=debian\nVERSION_ID="11"'}, "Debian GNU/Linux 11"),
    ({"os_release": ""}, "cannot tell its OS"),
    ({"mem_kib": 1_500_000}, "Kubernetes needs at least 1700 MiB"),
    ({"cpus": 1}, "the control plane needs at least 2"),
    ({"sudo": "no"}, "no passwordless sudo"),
    ({"by_id": ""}, "no unused disk"),
    ({"lsblk": "lsblk: unknown column"}, "no unused disk"),
])
def test_each_refusal_is_one_line_naming_the_host(changes, expected):
    with pytest.raises(Refused) as refused:
        propose([facts(answer(**changes))], choices())
    lines = [ln for ln in refused.value.lines if expected in ln]
    assert len(lines) == 1 and lines[0].startswith("host gpu1 (10.1.0.11)"), refused.value.lines
    if "OS" in expected or "Debian" in expected or "CentOS" in expected:
        assert "Debian 12, Ubuntu 22.04, Ubuntu 24.04" in lines[0]


def test_a_control_plane_that_does_not_train_needs_no_disk():
    bare = facts(answer(hostname="cp", by_id=""), "10.1.0.10")
    worker = facts(answer(hostname="w1"), "10.1.0.11")
    p = propose([bare, worker], choices(control_plane_trains=False))
    assert p.hosts[0].data_disk is None and [pool.hosts for pool in p.pools] == [("w1",)]
    fleet = parse_fleet(yaml.safe_load(render(p))["config"]["sahab:fleet"])
    assert fleet.clusters[0].schedule_on_control_plane is False


def test_the_named_disk_must_be_an_unused_one():
    with pytest.raises(Refused) as refused:
        propose([facts(answer())], choices(data_disks={"gpu1": "/dev/sda"}))
    assert "not unused" in refused.value.lines[0] and "LVM2_member" in refused.value.lines[0]
    p = propose([facts(answer())], choices(data_disks={"10.1.0.11": "/dev/nvme2n1"}))
    assert p.hosts[0].data_disk.path == "/dev/nvme2n1"


def test_an_answer_cut_short_is_a_probe_failure():
    with pytest.raises(ProbeFailed, match="closed before the probe finished"):
        facts(answer(end=False))


def test_same_servers_same_stack_whatever_order_they_list_things_in():
    first = render(propose([facts(answer())], choices(), [(KEY,)]))
    rng = random.Random(7)
    for _ in range(5):
        devices = [ROOT_NVME, BLANK, BLANK_SMALL, LVM_PV, USB]
        rng.shuffle(devices)
        ids, sigs = BY_ID.splitlines(), SIGNATURES.splitlines()
        rng.shuffle(ids)
        rng.shuffle(sigs)
        text = answer(lsblk=json.dumps({"blockdevices": devices}), by_id="\n".join(ids), signatures="\n".join(sigs))
        assert render(propose([facts(text)], choices(), [(KEY,)])) == first


def test_hostile_text_stays_out_of_the_yaml():
    evil = 'PRETTY_NAME="Debian\\n  evil: true # x"\nID=debian\nVERSION_ID="12"'
    model = 'x"\n    name: pwned'
    lsblk = json.dumps({"blockdevices": [disk("nvme1n1", 3840 * GB, model=model)]})
    p = propose([facts(answer(os_release=evil, lsblk=lsblk, hostname="evil\nname: x"))], choices())
    doc = yaml.safe_load(render(p))
    fleet = parse_fleet(doc["config"]["sahab:fleet"])
    host = doc["config"]["sahab:fleet"]["sites"][0]["hosts"][0]
    assert set(doc["config"]) == {"sahab:fleet"} and fleet.sites[0].hosts[0].name == "evil"
    assert set(host) == {"name", "address", "cpus", "memory_gib", "data_disk"} and "pwned" not in str(doc)
