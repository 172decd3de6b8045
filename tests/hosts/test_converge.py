"""Sahab's playbook converges real Debian 12 hosts through the component's own code path.

A control-plane host, a GPU-group host and a CPU-group host converge through PlaybookProvider.create
(ansible-runner over SSH), a second run changes nothing, and the files the roles own are checked inside each
host. A fourth host is down: it is reported by name while the others converge.

What these hosts cannot prove, and the roles say so in their SKIPPED notes: there is no GPU (driver,
toolkit and DCGM are skipped), no spare disk (LUKS is skipped), no kubelet/kubeadm in Debian's archive
(the packages are skipped, their configuration is written), and no running kernel or systemd in a chroot
(modprobe, sysctl --system, service starts, kubeadm init/join are skipped).
"""

from __future__ import annotations

import json
import shlex
import tomllib
from pathlib import Path

import pytest
import yaml

from components.onprem.inventory import converge_inputs, group_for, hosts_for, pool_host_vars
from components.onprem.models import OnPremAccessArgs, OnPremHostArgs
from components.onprem.playbook_run import PlaybookProvider, converge
from tests.hosts import testhost

# A stuck converge fails the test (and tears the hosts down) instead of hanging CI.
pytestmark = [pytest.mark.hosts, pytest.mark.slow, pytest.mark.timeout(600)]

LUKS_KEY = "luks-passphrase-that-must-never-be-logged-7f3a"
# The test hosts' "site mirror" is the Debian snapshot in the base image: its index is as fresh as it gets.
TEST_VARIABLES = {
    "sahab_os_apt_cache_valid_time": 10**9,
    "sahab_kubernetes_packages_required": False,
    "sahab_data_volumes_list": [
        {"name": "scratch", "device": "/dev/disk/by-id/nvme-sahab-scratch", "mountpoint": "/data/scratch"}
    ],
}


def _inputs(fleet_hosts, access: OnPremAccessArgs, limit: str) -> dict:
    hosts = []
    for name, host, pool, accelerator in fleet_hosts:
        # cpu-1 is reached as a site's sudo user would be (become); the others as root.
        user = testhost.SUDO_USER if name == "cpu-1" else "root"
        spec = OnPremHostArgs(name=name, address=host.address, port=host.port, user=user)
        group = "control_plane" if pool is None else group_for(accelerator)
        hosts += hosts_for([spec], group, pool_host_vars(pool or "control-plane", accelerator, {}, []))
    return {"run_name": "pool-converge", **converge_inputs(hosts, access, limit)}


@pytest.fixture(scope="module")
def fleet(host_factory, client_key):
    gpu = host_factory("gpu-1", 2)
    cpu = host_factory("cpu-1", 3)
    down = host_factory("down-1", 4)
    control = host_factory("cp-1", 5)
    down.stop()  # a server that is off: nothing answers on its address
    cpu.path("/etc/fstab").write_text("UUID=0b1c-swap none swap sw 0 0\n")

    kernel_before = (
        Path("/proc/sys/net/ipv4/ip_forward").read_text(),
        Path("/sys/module/br_netfilter").exists(),
    )
    access = OnPremAccessArgs(
        ssh_private_key=client_key[0].read_text(),
        known_hosts=host_factory.known_hosts(),
        airgapped=True,
        skip_hardware_checks=True,
        variables=TEST_VARIABLES,
        secret_variables={"sahab_data_volumes_keys": {"scratch": LUKS_KEY}},
        failure_budget=1,
    )
    members = [
        ("cp-1", control, None, "cpu"),
        ("gpu-1", gpu, "gpu-a100", "nvidia-a100"),
        ("cpu-1", cpu, "cpu-general", "cpu"),
        ("down-1", down, "cpu-general", "cpu"),
    ]
    props = _inputs(members, access, "cp-1,gpu-1,cpu-1,down-1")
    provider = PlaybookProvider()
    first = provider.create(props)
    second = provider.update(first.id, first.outs, props)
    kernel_after = (
        Path("/proc/sys/net/ipv4/ip_forward").read_text(),
        Path("/sys/module/br_netfilter").exists(),
    )
    return {
        "control": control,
        "gpu": gpu,
        "cpu": cpu,
        "first": first.outs,
        "second": second.outs,
        "props": props,
        "access": access,
        "members": members,
        "kernel": (kernel_before, kernel_after),
    }


def test_first_run_converges_both_hosts_and_names_the_down_one(fleet):
    outcomes = fleet["first"]["outcomes"]
    assert outcomes["cp-1"]["status"] == "changed"
    assert outcomes["gpu-1"]["status"] == "changed"
    assert outcomes["cpu-1"]["status"] == "changed"
    assert outcomes["down-1"]["status"] == "unreachable"
    assert outcomes["down-1"]["message"]  # why it is unreachable, e.g. connection refused
    assert fleet["first"]["failed_hosts"] == ["down-1"]


def test_second_run_changes_nothing(fleet):
    outcomes = fleet["second"]["outcomes"]
    for name in ("cp-1", "gpu-1", "cpu-1"):
        assert outcomes[name]["status"] == "ok", outcomes[name]
        assert outcomes[name]["changed"] == 0
        assert outcomes[name]["failed"] == 0
    assert fleet["second"]["failed_hosts"] == ["down-1"]


def test_a_down_host_beyond_the_failure_budget_fails_the_run_by_name(fleet):
    strict = fleet["access"].model_copy(update={"failure_budget": 0})
    props = {**_inputs(fleet["members"], strict, "down-1"), "tags": ["os"]}
    with pytest.raises(RuntimeError, match=r"down-1: unreachable"):
        converge(props)


def test_kernel_modules_and_sysctls_persist_for_boot(fleet):
    for host in (fleet["gpu"], fleet["cpu"]):
        modules = host.read("/etc/modules-load.d/sahab-kubernetes.conf").split()
        assert {"overlay", "br_netfilter"} <= set(modules)
        sysctl = host.read("/etc/sysctl.d/90-sahab-kubernetes.conf")
        assert "net.ipv4.ip_forward = 1" in sysctl.splitlines()
        assert "net.bridge.bridge-nf-call-iptables = 1" in sysctl.splitlines()


def test_the_running_kernel_was_left_alone(fleet):
    before, after = fleet["kernel"]
    assert before == after
    for name in ("gpu-1", "cpu-1"):
        assert any("this host is a chroot" in note for note in fleet["first"]["outcomes"][name]["notes"])


def test_swap_is_out_of_fstab(fleet):
    fstab = fleet["cpu"].read("/etc/fstab").splitlines()
    assert all(line.lstrip().startswith("#") for line in fstab if " swap " in line)
    assert any("UUID=0b1c-swap" in line for line in fstab)


def test_time_sync_ssh_hardening_and_firewall(fleet):
    for host in (fleet["gpu"], fleet["cpu"]):
        assert host.exists("/usr/sbin/chronyd")
        assert host.exists("/etc/systemd/system/multi-user.target.wants/chrony.service")
        sshd = host.read("/etc/ssh/sshd_config.d/50-sahab-hardening.conf").splitlines()
        assert "PasswordAuthentication no" in sshd
        assert "PermitRootLogin prohibit-password" in sshd
        nft = host.read("/etc/nftables.conf")
        assert "policy drop;" in nft
        assert "tcp dport { 22 } accept" in nft
        assert "10250" in nft
        assert "6443" not in nft  # workers do not serve the API
        assert host.exists("/etc/systemd/system/sysinit.target.wants/nftables.service")


def test_containerd_is_installed_with_systemd_cgroups(fleet):
    for host in (fleet["gpu"], fleet["cpu"]):
        assert host.exists("/usr/bin/containerd")
        config = tomllib.loads(host.read("/etc/containerd/config.toml"))
        runtimes = config["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]
        assert runtimes["runc"]["options"]["SystemdCgroup"] is True
    gpu = tomllib.loads(fleet["gpu"].read("/etc/containerd/config.toml"))["plugins"]["io.containerd.grpc.v1.cri"]
    assert gpu["containerd"]["default_runtime_name"] == "nvidia"
    nvidia = gpu["containerd"]["runtimes"]["nvidia"]["options"]
    assert nvidia == {"BinaryName": "/usr/bin/nvidia-container-runtime", "SystemdCgroup": True}
    cpu = tomllib.loads(fleet["cpu"].read("/etc/containerd/config.toml"))["plugins"]["io.containerd.grpc.v1.cri"]
    assert "nvidia" not in cpu["containerd"]["runtimes"]
    assert cpu["containerd"]["default_runtime_name"] == "runc"


def _kubelet_args(host) -> dict[str, str]:
    line = next(x for x in host.read("/etc/default/kubelet").splitlines() if x.startswith("KUBELET_EXTRA_ARGS="))
    args = shlex.split(line.removeprefix("KUBELET_EXTRA_ARGS="))
    return dict(arg.removeprefix("--").split("=", 1) for arg in args)


def test_kubelet_labels_and_taints(fleet):
    gpu = _kubelet_args(fleet["gpu"])
    assert dict(kv.split("=") for kv in gpu["node-labels"].split(",")) == {
        "sahab.io/pool": "gpu-a100",
        "sahab.io/accelerator": "nvidia-a100",
        "nvidia.com/gpu.present": "true",
    }
    assert gpu["register-with-taints"] == "nvidia.com/gpu=present:NoSchedule"
    cpu = _kubelet_args(fleet["cpu"])
    assert dict(kv.split("=") for kv in cpu["node-labels"].split(",")) == {
        "sahab.io/pool": "cpu-general",
        "sahab.io/accelerator": "cpu",
    }
    assert "register-with-taints" not in cpu


def test_gpu_node_blacklists_nouveau_and_says_what_it_skipped(fleet):
    assert "blacklist nouveau" in fleet["gpu"].read("/etc/modprobe.d/sahab-blacklist-nouveau.conf")
    assert not fleet["cpu"].exists("/etc/modprobe.d/sahab-blacklist-nouveau.conf")
    notes = " ".join(fleet["first"]["outcomes"]["gpu-1"]["notes"])
    assert "no NVIDIA GPU found" in notes
    assert "kubelet, kubeadm, kubectl not in the host's package sources" in notes
    assert "data volume scratch" in notes


def test_luks_key_is_never_written_or_reported(fleet):
    assert not fleet["gpu"].exists("/etc/sahab/luks-keys/scratch.key")  # no disk: nothing to unlock
    assert LUKS_KEY not in json.dumps(fleet["first"]["outcomes"]) + json.dumps(fleet["second"]["outcomes"])


def test_control_plane_gets_its_kubeadm_config_and_ports(fleet):
    control = fleet["control"]
    documents = {d["kind"]: d for d in yaml.safe_load_all(control.read("/etc/kubernetes/kubeadm-config.yaml"))}
    cluster = documents["ClusterConfiguration"]
    assert cluster["controlPlaneEndpoint"] == f"{control.address}:6443"
    assert cluster["networking"] == {"podSubnet": "10.244.0.0/16", "serviceSubnet": "10.96.0.0/12"}
    assert documents["KubeletConfiguration"]["cgroupDriver"] == "systemd"
    assert documents["InitConfiguration"]["nodeRegistration"]["criSocket"] == "unix:///run/containerd/containerd.sock"
    nft = control.read("/etc/nftables.conf")
    assert "6443" in nft and "2379-2380" in nft
    assert not control.exists("/etc/modprobe.d/sahab-blacklist-nouveau.conf")
    notes = " ".join(fleet["first"]["outcomes"]["cp-1"]["notes"])
    assert "kubeadm init needs a running kernel and systemd (this host is a chroot)" in notes
