"""Sahab's playbook converges real Debian 12 hosts through the components' own code path.

An HA control plane of three hosts (cp-1 runs kubeadm init, cp-2 and cp-3 join it behind a kube-vip VIP)
converges through the cluster's inputs; then a GPU-group host and a CPU-group host converge as pool workers
(the CPU host with a LUKS data disk on a loop device), while a fifth worker is down and is reported by name.
A second run of both changes nothing. The files the roles own are checked inside each host.

What these hosts cannot prove, and the roles say so in their SKIPPED notes: there is no GPU (driver, toolkit
and DCGM are skipped), no kubelet/kubeadm in Debian's archive (the packages are skipped, their configuration
is written), Debian 12's containerd is 1.6 (the tests accept it; sites install containerd.io 2.x), and no
running kernel or systemd in a chroot (modprobe, sysctl --system, service starts, kubeadm init/join are
skipped). The LUKS volume is opened and mounted only where the kernel offers device-mapper.
"""

from __future__ import annotations

import base64
import json
import os
import re
import stat
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml
from sahab.components.onprem.cluster import OnPremClusterArgs, control_plane_inventory, control_plane_variables
from sahab.components.onprem.host_args import OnPremAccessArgs, OnPremHostArgs
from sahab.components.onprem.inventory import DATA_VOLUME_MOUNT, DATA_VOLUME_NAME, converge_inputs, group_for, hosts_for
from sahab.components.onprem.node_pool import OnPremNodePoolArgs, TaintArgs, pool_vars
from sahab.components.onprem.playbook_run import PlaybookProvider, converge

from tools import testhost

# A stuck converge fails the test (and tears the hosts down) instead of hanging CI.
pytestmark = [pytest.mark.hosts, pytest.mark.slow, pytest.mark.timeout(900)]

LUKS_KEY = "luks-passphrase-that-must-never-be-logged-7f3a9c2e1b0d4f6a"
ENCRYPTION_SECRET = "etcd-secrets-encryption-secret-never-logged-5d1e8b7c3a"
CERTIFICATE_SECRET = "kubeadm-certificate-secret-never-logged-9b2f6e4d1c0a"
VIP = "127.0.0.20"
# The test hosts' "site mirror" is the Debian snapshot in the base image: its index is as fresh as it gets, and
# its containerd is Debian 12's 1.6 (a real site mirrors containerd.io 2.x).
TEST_VARIABLES = {
    "sahab_os_apt_cache_valid_time": 10**9,
    "sahab_kubernetes_packages_required": False,
    "sahab_containerd_packages": ["containerd"],
    "sahab_containerd_min_major": 1,
}
SECRETS = [LUKS_KEY, ENCRYPTION_SECRET, CERTIFICATE_SECRET]


def _access(client_key, known_hosts: str, **overrides) -> OnPremAccessArgs:
    return OnPremAccessArgs(
        ssh_private_key=client_key[0].read_text(),
        known_hosts=known_hosts,
        airgapped=True,
        skip_hardware_checks=True,
        variables=TEST_VARIABLES,
        **overrides,
    )


def _spec(host, user: str = "root", **shape) -> OnPremHostArgs:
    return OnPremHostArgs(name=host.name, address=host.address, port=host.port, user=user, **shape)


class LoopDisk:
    """A 64 MiB file behind a loop device, made visible inside a host as a block device node."""

    def __init__(self, directory: Path) -> None:
        self.file = directory / "data-disk.img"
        self.device = ""

    def attach(self) -> str | None:
        """The loop device, or why there is none."""
        with open(self.file, "wb") as image:
            image.truncate(64 * 1024 * 1024)
        result = subprocess.run(["losetup", "--find", "--show", str(self.file)], capture_output=True, text=True)
        if result.returncode != 0:
            return f"no loop device: {result.stderr.strip()}"
        self.device = result.stdout.strip()
        return None

    def expose(self, host, path: str) -> None:
        rdev = os.stat(self.device).st_rdev
        host.path(os.path.dirname(path)).mkdir(parents=True, exist_ok=True)
        os.mknod(host.path(path), 0o600 | stat.S_IFBLK, rdev)

    def detach(self) -> None:
        if self.device:
            subprocess.run(["losetup", "--detach", self.device], capture_output=True)


@pytest.fixture(scope="module")
def fleet(host_factory, client_key):
    control = [host_factory(f"cp-{i}", 10 + i) for i in (1, 2, 3)]
    gpu = host_factory("gpu-1", 2)
    cpu = host_factory("cpu-1", 3)
    down = host_factory("down-1", 4)
    down.stop()  # a server that is off: nothing answers on its address
    cpu.path("/etc/fstab").write_text("UUID=0b1c-swap none swap sw 0 0\n")
    disk = LoopDisk(host_factory.workdir)
    disk_problem = disk.attach()
    disk_path = "/dev/disk/by-id/sahab-test-disk"  # the roles take stable disk names only
    if disk_problem is None:
        disk.expose(cpu, disk_path)

    kernel_before = (
        Path("/proc/sys/net/ipv4/ip_forward").read_text(),
        Path("/sys/module/br_netfilter").exists(),
    )
    known_hosts = host_factory.known_hosts()
    secrets = {
        "sahab_control_plane_encryption_secret": ENCRYPTION_SECRET,
        "sahab_control_plane_certificate_secret": CERTIFICATE_SECRET,
    }
    cluster = OnPremClusterArgs(
        control_plane_hosts=tuple(_spec(h, cpus=4, memory_gib=8) for h in control),
        vip=VIP,
        access=_access(client_key, known_hosts),
    )
    cluster_access = cluster.access.model_copy(
        update={"variables": control_plane_variables(cluster), "secret_variables": secrets})
    cluster_props = {"run_name": "control-plane",
                     **converge_inputs(control_plane_inventory(cluster), cluster_access, "control_plane")}

    pool_access = _access(client_key, known_hosts, failure_budget=1, secret_variables={
        **secrets, "sahab_data_volumes_keys": {"cpu-1": LUKS_KEY}})
    pool_access = pool_access.model_copy(update={"variables": {
        **pool_access.variables, "sahab_control_plane_endpoint": cluster.endpoint}})
    gpu_pool = OnPremNodePoolArgs(
        pool="gpu-a100", cluster="test", accelerator="a100", gpus_per_node=8,
        hosts=(_spec(gpu, cpus=64, memory_gib=512),), control_plane_hosts=cluster.control_plane_hosts,
        labels={"sahab.io/pool": "gpu-a100", "sahab.io/accelerator": "a100", "nvidia.com/gpu.present": "true"},
        taints=(TaintArgs(key="nvidia.com/gpu", value="present", effect="NoSchedule"),), access=pool_access)
    cpu_pool = OnPremNodePoolArgs(
        pool="cpu-general", cluster="test",
        # cpu-1 is reached as a site's sudo user would be (become); the others as root.
        hosts=(_spec(cpu, testhost.SUDO_USER, cpus=32, memory_gib=128,
                     data_disk=disk_path if disk_problem is None else "/dev/disk/by-id/absent"),
               _spec(down, cpus=32, memory_gib=128)),
        control_plane_hosts=cluster.control_plane_hosts,
        labels={"sahab.io/pool": "cpu-general", "sahab.io/accelerator": "cpu"}, access=pool_access)
    workers = (hosts_for(gpu_pool.hosts, group_for(gpu_pool.accelerator), pool_vars(gpu_pool))
               + hosts_for(cpu_pool.hosts, group_for(cpu_pool.accelerator), pool_vars(cpu_pool)))
    pool_props = {"run_name": "pool-converge", **converge_inputs(
        hosts_for(cluster.control_plane_hosts, "control_plane") + workers, pool_access, "gpu-1,cpu-1,down-1")}

    provider = PlaybookProvider()
    try:
        first_cluster = provider.create(cluster_props)
        first_pool = provider.create(pool_props)
        second_cluster = provider.update(first_cluster.id, first_cluster.outs, cluster_props)
        second_pool = provider.update(first_pool.id, first_pool.outs, pool_props)
        kernel_after = (
            Path("/proc/sys/net/ipv4/ip_forward").read_text(),
            Path("/sys/module/br_netfilter").exists(),
        )
        mounted = _mounts_of(cpu)
        yield {
            "control": control,
            "gpu": gpu,
            "cpu": cpu,
            "first": {**first_cluster.outs["outcomes"], **first_pool.outs["outcomes"]},
            "second": {**second_cluster.outs["outcomes"], **second_pool.outs["outcomes"]},
            "failed": (first_pool.outs["failed_hosts"], second_pool.outs["failed_hosts"]),
            "pool_props": pool_props,
            "pool_access": pool_access,
            "kernel": (kernel_before, kernel_after),
            "disk_problem": disk_problem,
            "mounts": mounted,
        }
    finally:
        cpu.stop()  # its mount namespace (and any mount of the LUKS volume) goes with its processes
        disk.detach()


def _mounts_of(host) -> str:
    """The mount table of the host's own mount namespace (its sshd's)."""
    return Path(f"/proc/{host.process.pid}/mountinfo").read_text()


def test_first_run_converges_every_host_and_names_the_down_one(fleet):
    outcomes = fleet["first"]
    for name in ("cp-1", "cp-2", "cp-3", "gpu-1", "cpu-1"):
        assert outcomes[name]["status"] == "changed", outcomes[name]
    assert outcomes["down-1"]["status"] == "unreachable"
    assert outcomes["down-1"]["message"]  # why it is unreachable, e.g. connection refused
    assert fleet["failed"][0] == ["down-1"]


def test_second_run_changes_nothing(fleet):
    outcomes = fleet["second"]
    for name in ("cp-1", "cp-2", "cp-3", "gpu-1", "cpu-1"):
        assert outcomes[name]["status"] == "ok", outcomes[name]
        assert outcomes[name]["changed"] == 0
        assert outcomes[name]["failed"] == 0
    assert fleet["failed"][1] == ["down-1"]


def test_a_down_host_beyond_the_failure_budget_fails_the_run_by_name(fleet):
    strict = fleet["pool_access"].model_copy(update={"failure_budget": 0})
    props = {**fleet["pool_props"], "failure_budget": strict.failure_budget, "limit": "down-1", "tags": ["os"]}
    with pytest.raises(RuntimeError, match=r"down-1: unreachable"):
        converge(props)


def test_kernel_modules_and_sysctls_persist_for_boot(fleet):
    for host in (fleet["gpu"], fleet["cpu"], *fleet["control"]):
        modules = host.read("/etc/modules-load.d/sahab-kubernetes.conf").split()
        assert {"overlay", "br_netfilter"} <= set(modules)
        sysctl = host.read("/etc/sysctl.d/90-sahab-kubernetes.conf")
        assert "net.ipv4.ip_forward = 1" in sysctl.splitlines()


def test_the_running_kernel_was_left_alone(fleet):
    before, after = fleet["kernel"]
    assert before == after
    for name in ("gpu-1", "cpu-1", "cp-1"):
        assert any("this host is a chroot" in note for note in fleet["first"][name]["notes"])


def test_swap_is_out_of_fstab(fleet):
    fstab = fleet["cpu"].read("/etc/fstab").splitlines()
    assert all(line.lstrip().startswith("#") for line in fstab if " swap " in line)
    assert any("UUID=0b1c-swap" in line for line in fstab)


def test_time_sync_ssh_hardening_and_a_firewall_that_lets_cilium_work(fleet):
    for host in (fleet["gpu"], fleet["cpu"]):
        assert host.exists("/etc/systemd/system/multi-user.target.wants/chrony.service")
        sshd = host.read("/etc/ssh/sshd_config.d/50-sahab-hardening.conf").splitlines()
        assert "PasswordAuthentication no" in sshd
        nft = host.read("/etc/nftables.conf")
        assert "policy drop;" in nft
        assert "tcp dport { 22 } accept" in nft
        # kubelet, NodePorts, Cilium health, from the inventory's hosts only (no network is assumed)
        sources = re.search(r"ip saddr \{ (.*) \} tcp dport \{ 10250, 30000-32767, 4240, 4244 \} accept", nft)
        assert sources and set(sources.group(1).split(", ")) >= {f"{h.address}/32" for h in fleet["control"]}
        assert "udp dport { 8472, 51871 } accept" in nft  # Cilium's VXLAN and WireGuard
        assert 'iifname "cilium_*" accept' in nft and 'iifname "lxc*" accept' in nft
        assert "6443" not in nft  # workers do not serve the API
        assert host.exists("/etc/systemd/system/sysinit.target.wants/nftables.service")
    nft = fleet["control"][1].read("/etc/nftables.conf")
    assert "6443" in nft and "2379-2380" in nft


def test_containerd_is_installed_with_systemd_cgroups_in_its_version_format(fleet):
    for host in (fleet["gpu"], fleet["cpu"]):
        assert host.exists("/usr/bin/containerd")
        config = tomllib.loads(host.read("/etc/containerd/config.toml"))
        assert config["version"] == 2  # Debian 12's containerd 1.6 here; containerd 2.x gets version 3
        runtimes = config["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]
        assert runtimes["runc"]["options"]["SystemdCgroup"] is True
    gpu = tomllib.loads(fleet["gpu"].read("/etc/containerd/config.toml"))["plugins"]["io.containerd.grpc.v1.cri"]
    assert gpu["containerd"]["default_runtime_name"] == "nvidia"
    cpu = tomllib.loads(fleet["cpu"].read("/etc/containerd/config.toml"))["plugins"]["io.containerd.grpc.v1.cri"]
    assert "nvidia" not in cpu["containerd"]["runtimes"]


def _node_labels(registration: dict) -> dict[str, str]:
    args = {a["name"]: a["value"] for a in registration.get("kubeletExtraArgs", [])}
    return dict(kv.split("=", 1) for kv in args["node-labels"].split(","))


def test_workers_keep_labels_off_the_kubelet_command_line_and_no_join_secret_on_disk(fleet):
    # Labels and taints go through kubeadm's nodeRegistration (rendering:
    # tests/components/onprem/test_kubeadm_rendering.py, registration on a real join: tests/e2e/multihost); kubeadm is
    # not run in a chroot, so no join configuration, which would hold a token, is written here.
    default_kubelet = fleet["cpu"].read("/etc/default/kubelet")
    assert "KUBELET_EXTRA_ARGS=\n" in default_kubelet and "node-labels" not in default_kubelet
    for host in (fleet["gpu"], fleet["cpu"]):
        assert not host.exists("/etc/kubernetes/kubeadm-join.yaml")


def test_cpu_pool_kubelets_get_the_static_cpu_manager(fleet):
    patch = yaml.safe_load(fleet["cpu"].read("/etc/kubernetes/sahab/patches/kubeletconfiguration+merge.yaml"))
    numa_nodes = len([p for p in Path("/sys/devices/system/node").glob("node[0-9]*")])
    assert patch == {
        "cpuManagerPolicy": "static",
        "topologyManagerPolicy": "single-numa-node" if numa_nodes > 1 else "best-effort",
        "topologyManagerScope": "pod",
        "reservedSystemCPUs": "0-1",  # 32 logical CPUs: two kept for the system
    }
    gpu = yaml.safe_load(fleet["gpu"].read("/etc/kubernetes/sahab/patches/kubeletconfiguration+merge.yaml"))
    assert gpu["cpuManagerPolicy"] == "none"


def test_gpu_node_blacklists_nouveau_and_says_what_it_skipped(fleet):
    assert "blacklist nouveau" in fleet["gpu"].read("/etc/modprobe.d/sahab-blacklist-nouveau.conf")
    assert not fleet["cpu"].exists("/etc/modprobe.d/sahab-blacklist-nouveau.conf")
    notes = " ".join(fleet["first"]["gpu-1"]["notes"])
    assert "no NVIDIA GPU found" in notes
    assert "kubelet, kubeadm, kubectl not in the host's package sources" in notes
    assert "kubeadm join needs a running kernel and systemd (this host is a chroot)" in notes


def _kubeadm_config(host) -> dict[str, dict]:
    return {d["kind"]: d for d in yaml.safe_load_all(host.read("/etc/kubernetes/kubeadm-config.yaml"))}


def test_the_first_control_plane_host_is_configured_for_kubeadm_init_behind_the_vip(fleet):
    first = fleet["control"][0]
    documents = _kubeadm_config(first)
    init = documents["InitConfiguration"]
    assert init["localAPIEndpoint"] == {"advertiseAddress": first.address, "bindPort": 6443}
    assert len(init["certificateKey"]) == 64 and int(init["certificateKey"], 16) >= 0
    assert init["nodeRegistration"]["taints"] == [{"key": "node-role.kubernetes.io/control-plane",
                                                  "effect": "NoSchedule"}]
    assert "kubeletExtraArgs" not in init["nodeRegistration"]  # a control-plane-only host carries no pool labels
    cluster = documents["ClusterConfiguration"]
    assert cluster["controlPlaneEndpoint"] == f"{VIP}:6443"
    assert set(cluster["apiServer"]["certSANs"]) == {VIP, *(h.address for h in fleet["control"])}
    assert cluster["networking"] == {"podSubnet": "10.244.0.0/16", "serviceSubnet": "10.96.0.0/12"}
    assert documents["KubeletConfiguration"]["cgroupDriver"] == "systemd"
    assert _mode(first, "/etc/kubernetes/kubeadm-config.yaml") == 0o600
    for other in fleet["control"][1:]:
        assert not other.exists("/etc/kubernetes/kubeadm-config.yaml")
    notes = " ".join(fleet["first"]["cp-1"]["notes"])
    assert "kubeadm init needs a running kernel and systemd (this host is a chroot)" in notes


def test_the_other_control_plane_hosts_say_they_would_join_as_control_planes(fleet):
    for host in fleet["control"][1:]:
        notes = " ".join(fleet["first"][host.name]["notes"])
        assert "kubeadm join as a control plane needs a running kernel and systemd" in notes
        assert not host.exists("/etc/kubernetes/kubeadm-join.yaml")


def test_every_control_plane_host_encrypts_secrets_at_rest_and_audits_the_api(fleet):
    cluster = _kubeadm_config(fleet["control"][0])["ClusterConfiguration"]
    args = {a["name"]: a["value"] for a in cluster["apiServer"]["extraArgs"]}
    assert args == {
        "encryption-provider-config": "/etc/kubernetes/sahab/apiserver/encryption-config.yaml",
        "audit-policy-file": "/etc/kubernetes/sahab/apiserver/audit-policy.yaml",
        "audit-log-path": "/var/log/kubernetes/audit/audit.log",
        "audit-log-maxage": "30", "audit-log-maxbackup": "10", "audit-log-maxsize": "100",
    }
    mounts = {v["mountPath"]: v["readOnly"] for v in cluster["apiServer"]["extraVolumes"]}
    assert mounts == {"/etc/kubernetes/sahab/apiserver": True, "/var/log/kubernetes/audit": False}
    keys = set()
    for host in fleet["control"]:
        config = yaml.safe_load(host.read("/etc/kubernetes/sahab/apiserver/encryption-config.yaml"))
        assert config["kind"] == "EncryptionConfiguration"
        (resource,) = config["resources"]
        assert resource["resources"] == ["secrets"]
        secretbox, identity = resource["providers"]
        assert identity == {"identity": {}}
        key = secretbox["secretbox"]["keys"][0]["secret"]
        assert len(base64.b64decode(key)) == 32
        keys.add(key)
        assert _mode(host, "/etc/kubernetes/sahab/apiserver/encryption-config.yaml") == 0o600
        policy = yaml.safe_load(host.read("/etc/kubernetes/sahab/apiserver/audit-policy.yaml"))
        assert policy["kind"] == "Policy"
        metadata_only = next(r for r in policy["rules"] if r["level"] == "Metadata" and "resources" in r)
        assert "secrets" in metadata_only["resources"][0]["resources"]
        assert host.exists("/var/log/kubernetes/audit")
    assert len(keys) == 1  # every API server reads what the others wrote


def test_kube_vip_holds_the_vip_on_every_control_plane_host(fleet):
    for i, host in enumerate(fleet["control"]):
        pod = yaml.safe_load(host.read("/etc/kubernetes/manifests/kube-vip.yaml"))
        env = {e["name"]: e.get("value") for e in pod["spec"]["containers"][0]["env"]}
        assert env["address"] == VIP and env["cp_enable"] == "true" and env["vip_leaderelection"] == "true"
        # kubeadm init has not run on cp-1 (a chroot): kube-vip would need super-admin.conf while it does.
        expected = "/etc/kubernetes/super-admin.conf" if i == 0 else "/etc/kubernetes/admin.conf"
        assert pod["spec"]["volumes"][0]["hostPath"]["path"] == expected


def test_no_secret_is_reported(fleet):
    reported = json.dumps(fleet["first"]) + json.dumps(fleet["second"])
    for secret in SECRETS:
        assert secret not in reported


def test_the_luks_volume_is_opened_and_mounted_where_the_kernel_allows(fleet):
    cpu = fleet["cpu"]
    notes = " ".join(fleet["first"]["cpu-1"]["notes"])
    if fleet["disk_problem"]:
        assert "is not a block device" in notes
        pytest.skip(f"LUKS not exercised: {fleet['disk_problem']}")
    if "the kernel offers no device-mapper here" in notes:
        assert not cpu.exists(f"/etc/sahab/luks-keys/{DATA_VOLUME_NAME}.key")  # no key where nothing opens
        pytest.skip("LUKS open/mount not exercised: this kernel offers no device-mapper (dm-crypt); "
                    "the role said so and wrote no key")
    key_file = f"/etc/sahab/luks-keys/{DATA_VOLUME_NAME}.key"
    assert cpu.read(key_file) == LUKS_KEY
    assert _mode(cpu, key_file) == 0o400
    # nofail: a dead data disk never sends the server to emergency mode
    assert f"{DATA_VOLUME_NAME} /dev/disk/by-id/sahab-test-disk {key_file} luks,discard,nofail" in cpu.read(
        "/etc/crypttab")
    assert f" {DATA_VOLUME_MOUNT} " in fleet["mounts"]


def _mode(host, path: str) -> int:
    return stat.S_IMODE(host.path(path).stat().st_mode)
