"""`make test-site`: the multi-host on-prem scenarios, one JSON line per scenario, exit 1 if any fails.

A site of three control-plane hosts behind a VIP and two workers (plus a spare worker and a spare control-plane
host) goes through the life of a cluster, each scenario building on the last: a fresh HA cluster, a second
converge that changes nothing, scale-out with the first workers already joined, a converge while the API
server does not answer (nothing reset), the same for a cluster made before Sahab recorded kubeadm init, a rebuilt
worker rejoining, a rebuilt control-plane host refused until its etcd member goes, a rebuilt first control-plane
host refused a second cluster (joined by hand, it leads again), a control-plane host replaced, a version bump.
A one-host site recovers from an injected kubeadm init failure on the next run.
Every converge goes through the Pulumi component's own code path (PlaybookProvider) and Sahab's real playbooks.

Run as root (`python -m tests.e2e.multihost.run [main] [solo] [hgx]`, default all three sites; SAHAB_SITE_SCENARIOS,
comma-separated, runs only those scenarios of the main site); prints
`{"scenario", "hosts", "result", "seconds", "detail"}` per scenario, and the tally on stderr. Two or more sites run
side by side, each in its own process: they share nothing (hosts, addresses, mirror, cluster), and a converge spends
much of its time waiting (SSH round trips, hosts joining one at a time), so the short sites fit inside the main one.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from tests.e2e.multihost.harness import CERTIFICATE_SECRET, DRIVER, DRIVER_BUMP, ENCRYPTION_SECRET, Site
from tools import testhost


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def changed(outs: dict) -> dict[str, int]:
    return {name: o["changed"] for name, o in outs["outcomes"].items()}


class Life:
    """The main site and what each scenario leaves for the next."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.control_plane = ["cp-1", "cp-2", "cp-3"]
        self.workers = ["w-1", "w-2"]
        self.minor = "1.33"

    def converge(self) -> tuple[dict, dict]:
        cluster = self.site.converge(self.site.cluster_props(self.control_plane, self.minor))
        pool = self.site.converge(self.site.pool_props(self.control_plane, self.workers, self.minor))
        return cluster, pool

    def nodes(self) -> dict:
        return self.site.state()["nodes"]

    def fresh_ha(self) -> list[str]:
        cluster, pool = self.converge()
        state = self.site.state()
        check(sorted(state["nodes"]) == sorted(self.control_plane + self.workers), f"nodes: {sorted(state['nodes'])}")
        check(sorted(state["etcdMembers"]) == self.control_plane, f"etcd members: {state['etcdMembers']}")
        check(state["version"] == "v1.33.5", f"cluster version {state['version']}")
        check(all(n["kubelet"] == "v1.33.5" for n in state["nodes"].values()), "kubelets not all at v1.33.5")
        check([n for n, v in state["nodes"].items() if v["controlPlane"]] == self.control_plane or
              sorted(n for n, v in state["nodes"].items() if v["controlPlane"]) == self.control_plane,
              "control planes")
        check(state["nodes"]["w-1"]["labels"].get("sahab.io/pool") == "cpu-pool", "worker labels")
        first = self.site.hosts["cp-1"]
        check(not first.exists("/etc/kubernetes/super-admin.conf"), "super-admin.conf left on cp-1")
        check(not list(first.path("/etc/kubernetes/sahab").glob("join-token-*")), "join tokens left on cp-1")
        for name in self.control_plane[1:] + self.workers:
            check(not self.site.hosts[name].exists("/etc/kubernetes/kubeadm-join.yaml"), f"{name} kept its token")
        check(cluster["artifacts"].get("sahab_kubeconfig", "").count(state["endpoint"]) == 1, "admin kubeconfig")
        reported = json.dumps([cluster["outcomes"], pool["outcomes"]])
        check(ENCRYPTION_SECRET not in reported and CERTIFICATE_SECRET not in reported, "a secret was reported")
        return self.control_plane + self.workers

    def second_converge_changes_nothing(self) -> list[str]:
        before = self.site.state()["history"]
        cluster, pool = self.converge()
        counts = {**changed(cluster), **changed(pool)}
        check(all(v == 0 for v in counts.values()), f"changed: {counts}")
        check(self.site.state()["history"] == before, "the cluster changed")
        return sorted(counts)

    def scale_out(self) -> list[str]:
        self.workers = ["w-1", "w-2", "w-3"]
        pool = self.site.converge(self.site.pool_props(self.control_plane, self.workers, self.minor))
        state = self.site.state()
        check("w-3" in state["nodes"], "w-3 did not join")
        check(pool["outcomes"]["w-1"]["changed"] == 0 and pool["outcomes"]["w-2"]["changed"] == 0,
              f"joined workers changed: {changed(pool)}")
        check(state["history"].count("join w-3") == 1, "w-3 joined more than once")
        return self.workers

    def api_down_keeps_the_cluster(self) -> list[str]:
        """The API server (and its VIP) does not answer on a converge of the initialised cluster: every host fails,
        naming the cluster query and kubectl's error; nothing is reset or initialised, no host's kubeadm files go;
        once it answers again a converge changes nothing."""
        before = self.site.state()
        kept = {name: [path for path in ("/etc/kubernetes/admin.conf", "/etc/kubernetes/kubelet.conf",
                                         "/var/lib/etcd/member") if self.site.hosts[name].exists(path)]
                for name in self.control_plane + self.workers}
        refused = "was refused - did you specify the right host or port?"
        down = self.site.shared / "api-down"
        down.write_text("")
        try:
            message = failure(lambda: self.site.converge(self.site.cluster_props(self.control_plane, self.minor)))
            for name in self.control_plane:
                check(f"{name}: failed (sahab_kubernetes" in message, f"{name} not failed by its query: {message}")
            check(refused in message, f"kubectl's error is not in the message: {message}")
            # By hand with the kubernetes phase left out, the first host's own check is what stops it.
            message = failure(lambda: self.site.converge({
                **self.site.cluster_props(self.control_plane, self.minor), "tags": ["control_plane", "join"]}))
            check("cp-1: failed (sahab_control_plane" in message and "refuses to reset or re-initialise" in message
                  and refused in message, f"cp-1: {message}")
            message = failure(lambda: self.site.converge(
                self.site.pool_props(self.control_plane, self.workers, self.minor)))
            for name in self.workers:
                check(f"{name}: failed (sahab_kubernetes" in message, f"{name} not failed by its query: {message}")
        finally:
            down.unlink()
        check(self.site.state() == before, "the cluster changed while its API server did not answer")
        for name, paths in kept.items():
            gone = [path for path in paths if not self.site.hosts[name].exists(path)]
            check(not gone, f"{name} lost {gone}")
        cluster, pool = self.converge()
        counts = {**changed(cluster), **changed(pool)}
        check(all(v == 0 for v in counts.values()), f"changed once it answered: {counts}")
        check(self.site.state()["history"] == before["history"], "the cluster changed once it answered")
        return self.control_plane + self.workers

    def rebuild(self, name: str) -> None:
        """The server is reinstalled under the same name and address: a fresh OS, no kubeadm files, a new host key."""
        order = list(self.site.hosts)
        host = self.site.hosts.pop(name)
        index = int(host.address.rsplit(".", 1)[1])
        host.destroy()
        self.site.add(name, index)
        # The same order of hosts, so the firewall sources every host is given stay as they were.
        self.site.hosts = {n: self.site.hosts[n] for n in order}

    def rebuilt_worker_rejoins(self) -> list[str]:
        """A worker reinstalled under its name (its Node still in the cluster) is joined again as a new node."""
        self.rebuild("w-2")
        joins = self.site.state()["history"].count("join w-2")
        pool = self.site.converge(self.site.pool_props(self.control_plane, self.workers, self.minor))
        state = self.site.state()
        check(pool["failed_hosts"] == [], f"failed: {pool['failed_hosts']}")
        check(state["history"].count("join w-2") == joins + 1, "w-2 did not join again")
        history = state["history"]
        last_join = len(history) - 1 - history[::-1].index("join w-2")
        check("delete node w-2" in history[:last_join], "the stale Node was not deleted before the join")
        check(self.site.hosts["w-2"].exists("/etc/kubernetes/kubelet.conf"), "w-2 holds no kubelet.conf")
        check(state["nodes"]["w-2"]["kubelet"] == state["version"], f"w-2's kubelet: {state['nodes']['w-2']}")
        check(pool["outcomes"]["w-1"]["changed"] == 0, f"w-1 changed: {changed(pool)}")
        return ["w-2"]

    def rebuilt_control_plane_refused(self) -> list[str]:
        """A control-plane host reinstalled under its name fails, saying to remove its etcd member and Node (Sahab
        does not remove an etcd member of a host it still lists); once the operator has, it joins as new."""
        self.rebuild("cp-2")
        before = self.site.state()
        message = failure(lambda: self.site.converge(self.site.cluster_props(self.control_plane, self.minor)))
        check("cp-2: failed (sahab_node_join" in message and "etcd member" in message
              and "kubectl delete node cp-2" in message, message)
        check(self.site.state() == before, "the cluster changed")
        # What the message asks of the operator, on the first control-plane host.
        first = self.site.hosts["cp-1"]
        etcdctl = ["kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "--namespace", "kube-system", "exec",
                   "etcd-cp-1", "--", "etcdctl"]
        members = json.loads(self.site.run(first, [*etcdctl, "member", "list", "-w", "json"]))["members"]
        stale = next(m["ID"] for m in members if m["name"] == "cp-2")
        self.site.run(first, [*etcdctl, "member", "remove", f"{stale:x}"])
        self.site.run(first, ["kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "delete", "node", "cp-2"])
        cluster = self.site.converge(self.site.cluster_props(self.control_plane, self.minor))
        state = self.site.state()
        check(cluster["failed_hosts"] == [], f"failed: {cluster['failed_hosts']}")
        check(sorted(state["etcdMembers"]) == self.control_plane, f"etcd members: {state['etcdMembers']}")
        check(state["nodes"]["cp-2"]["controlPlane"], "cp-2 is not a control plane")
        return ["cp-2"]

    def etcd_marks(self, names: list[str]) -> dict[str, str]:
        """A line only this scenario writes into each host's etcd data: gone if anything reset or re-created it."""
        marks = {}
        for name in names:
            data = self.site.hosts[name].path("/var/lib/etcd/member/snap/db")
            marks[name] = f"kept by the scenario on {name} {time.time()}\n"
            data.write_text(data.read_text() + marks[name])
        return marks

    def check_etcd_marks(self, marks: dict[str, str]) -> None:
        for name, mark in marks.items():
            data = self.site.hosts[name].path("/var/lib/etcd/member/snap/db")
            check(data.exists() and mark in data.read_text(), f"{name}'s etcd data was reset or re-created")

    def pre_record_cluster_api_down_nothing_reset(self) -> list[str]:
        """A cluster made before Sahab recorded kubeadm init (no record on any host) whose API server does not answer
        on the first converge after the upgrade: cp-1 is not reset or initialised again, but fails naming what shows
        the cluster exists (the other control planes' files; alone in the inventory, its own init's files); once the
        API answers, a converge records the cluster on every control plane and changes nothing else."""
        record = "/etc/kubernetes/sahab/cluster-initialised"
        for name in self.control_plane:
            self.site.hosts[name].path(record).unlink(missing_ok=True)
        before = self.site.state()
        marks = self.etcd_marks(self.control_plane)
        refused = "was refused - did you specify the right host or port?"
        down = self.site.shared / "api-down"
        down.write_text("")
        try:
            message = failure(lambda: self.site.converge(self.site.cluster_props(self.control_plane, self.minor)))
            check(self.site.state() == before, f"the cluster changed: {self.site.state().get('history', [])[-5:]}")
            self.check_etcd_marks(marks)
            check("cp-1: failed (sahab_control_plane : Fail when a cluster exists that kubeadm reset or init here "
                  "would destroy or split" in message, f"cp-1: {message}")
            check(refused in message and "cp-2 holds kubelet.conf, admin.conf, etcd data" in message
                  and "Sahab runs neither" in message, f"cp-1's message: {message}")
            # A one-control-plane cluster has no other host to ask: cp-1's own files from a completed init say it.
            message = failure(lambda: self.site.converge({
                **self.site.cluster_props(self.control_plane[:1], self.minor), "tags": ["control_plane"]}))
            check("this host's kubeadm files lack super-admin.conf" in message and "Sahab runs neither" in message,
                  f"cp-1 alone: {message}")
        finally:
            down.unlink()
        check(self.site.state() == before, f"the cluster changed: {self.site.state().get('history', [])[-5:]}")
        self.check_etcd_marks(marks)
        cluster = self.site.converge(self.site.cluster_props(self.control_plane, self.minor))
        check(cluster["failed_hosts"] == [], f"failed: {cluster['failed_hosts']}")
        check(self.site.state()["history"] == before["history"], "the cluster changed once it answered")
        for name in self.control_plane:
            check(self.site.hosts[name].exists(record), f"{name} holds no record once the cluster answered")
        return self.control_plane

    def rebuilt_first_control_plane_refused(self) -> list[str]:
        """The first control-plane host reinstalled under its name (no record, no kubeadm files): kubeadm init there
        would start a second, empty cluster beside the one cp-2 and cp-3 hold. The converge refuses, naming what
        they hold; nothing is reset or initialised. As the message says, its etcd member and Node are removed on
        cp-2 and it is joined by hand as a control plane: the next converge finds it initialised and it leads again."""
        peers = self.control_plane[1:]
        marks = self.etcd_marks(peers)
        kept = {name: self.site.hosts[name].path("/etc/kubernetes/kubelet.conf").read_text() for name in peers}
        self.rebuild("cp-1")
        before = self.site.state()
        message = failure(lambda: self.site.converge(self.site.cluster_props(self.control_plane, self.minor)))
        check(self.site.state() == before, f"the cluster changed: {self.site.state().get('history', [])[-5:]}")
        self.check_etcd_marks(marks)
        for name in peers:
            check(self.site.hosts[name].path("/etc/kubernetes/kubelet.conf").read_text() == kept[name],
                  f"{name}'s kubelet.conf changed")
        first = self.site.hosts["cp-1"]
        check(not first.exists("/var/lib/etcd/member") and not first.exists("/etc/kubernetes/admin.conf"),
              "kubeadm init ran on the rebuilt cp-1")
        check("cp-1: failed (sahab_control_plane : Fail when a cluster exists that kubeadm reset or init here would "
              "destroy or split" in message and "and no /etc/kubernetes/admin.conf" in message
              and "cp-2 holds Sahab's record, kubelet.conf" in message
              and "kubectl delete node cp-1" in message, f"cp-1: {message}")
        # What the message asks of the operator: on cp-2, remove cp-1's etcd member and Node, mint a token and share
        # the certificates; on cp-1, kubeadm join as a control plane.
        second = self.site.hosts["cp-2"]
        admin = ["kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf"]
        etcdctl = [*admin, "--namespace", "kube-system", "exec", "etcd-cp-2", "--", "etcdctl"]
        members = json.loads(self.site.run(second, [*etcdctl, "member", "list", "-w", "json"]))["members"]
        stale = next(m["ID"] for m in members if m["name"] == "cp-1")
        self.site.run(second, [*etcdctl, "member", "remove", f"{stale:x}"])
        self.site.run(second, [*admin, "delete", "node", "cp-1"])
        token = self.site.run(second, ["kubeadm", "token", "create", "--ttl", "10m"]).strip()
        key = secrets.token_hex(32)
        self.site.run(second, ["kubeadm", "init", "phase", "upload-certs", "--upload-certs", "--certificate-key", key,
                               "--skip-certificate-key-print"])
        join = {"apiVersion": "kubeadm.k8s.io/v1beta4", "kind": "JoinConfiguration",
                "nodeRegistration": {"name": "cp-1", "criSocket": "unix:///run/containerd/containerd.sock",
                                     "taints": [{"key": "node-role.kubernetes.io/control-plane",
                                                 "effect": "NoSchedule"}]},
                "discovery": {"bootstrapToken": {"apiServerEndpoint": before["endpoint"], "token": token,
                                                 "caCertHashes": [self.site.ca_hash]}},
                "controlPlane": {"certificateKey": key,
                                 "localAPIEndpoint": {"advertiseAddress": first.address, "bindPort": 6443}}}
        first.path("/root/kubeadm-join.json").write_text(json.dumps(join))
        self.site.run(first, ["kubeadm", "join", "--config", "/root/kubeadm-join.json"])
        first.path("/root/kubeadm-join.json").unlink()
        cluster = self.site.converge(self.site.cluster_props(self.control_plane, self.minor))
        state = self.site.state()
        check(cluster["failed_hosts"] == [], f"failed once cp-1 joined: {cluster['failed_hosts']}")
        check(sorted(state["etcdMembers"]) == self.control_plane, f"etcd members: {state['etcdMembers']}")
        check(state["nodes"]["cp-1"]["controlPlane"], "cp-1 is not a control plane")
        check(state["history"].count("init cp-1") == before["history"].count("init cp-1"), "kubeadm init ran again")
        check(first.exists("/etc/kubernetes/sahab/cluster-initialised"), "cp-1 holds no record")
        pool = self.site.converge(self.site.pool_props(self.control_plane, self.workers, self.minor))
        check(pool["failed_hosts"] == [] and all(v == 0 for v in changed(pool).values()),
              f"workers once cp-1 leads again: {changed(pool)}")
        return self.control_plane

    def control_plane_replaced(self) -> list[str]:
        self.site.hosts["cp-3"].stop()  # the server died
        self.control_plane = ["cp-1", "cp-2", "cp-4"]
        # Its replacement's first join fails after its Node registered (control-plane-join); the next run joins it.
        self.site.inject("cp-4", "join:control-plane-join")
        message = failure(lambda: self.site.converge(self.site.cluster_props(self.control_plane, self.minor)))
        check("cp-4: failed (sahab_node_join : Join as a control plane, one host at a time: rc=1: error execution "
              "phase control-plane-join: injected failure" in message, message)
        check(not self.site.state()["nodes"]["cp-4"]["controlPlane"], "cp-4 half-joined")
        cluster = self.site.converge(self.site.cluster_props(self.control_plane, self.minor))
        state = self.site.state()
        check(sorted(state["etcdMembers"]) == self.control_plane, f"etcd members: {state['etcdMembers']}")
        check("cp-3" not in state["nodes"] and state["nodes"]["cp-4"]["controlPlane"], "cp-4 is not a control plane")
        check("delete node cp-4" in state["history"], "the half-joined Node was not removed before the retry")
        check({"etcd member remove cp-3", "delete node cp-3"} <= set(state["history"]),
              "the dead control plane's etcd member and node were not removed")
        # The half-joined cp-4's retry needed the certificates shared again.
        check(state["history"].count("upload-certs") >= 2, "the certificates were not shared for the retry")
        check(cluster["failed_hosts"] == [], f"failed: {cluster['failed_hosts']}")
        return ["cp-1", "cp-2", "cp-3", "cp-4"]

    def version_bump(self) -> list[str]:
        self.minor = "1.34"
        self.site.converge(self.site.cluster_props(self.control_plane, self.minor))
        # The first worker's `kubeadm upgrade node` fails once (serial: 1): the other workers are upgraded all the
        # same, and the run fails naming only w-1, with kubeadm's error. The next converge upgrades w-1.
        self.site.inject("w-1", "upgrade:node")
        message = failure(lambda: self.site.converge(self.site.pool_props(self.control_plane, self.workers,
                                                                            self.minor)))
        check("1 host(s) failed" in message and "w-1: failed (" in message, message)
        check("sahab_node_upgrade : Upgrade this node's configuration to the cluster's version: rc=1" in message
              and "injected failure in phase node" in message, message)
        history = self.site.state()["history"]
        check(all(f"upgrade node {w} v1.34.7" in history for w in self.workers[1:]),
              f"the other workers were not upgraded after w-1 failed: {history[-12:]}")
        check("upgrade node w-1 v1.34.7" not in history, "w-1's injected failure did not happen")
        self.converge()
        state = self.site.state()
        check(state["version"] == "v1.34.7", f"cluster version {state['version']}")
        kubelets = {n: v["kubelet"] for n, v in state["nodes"].items()}
        check(all(v == "v1.34.7" for v in kubelets.values()), f"kubelets: {kubelets}")
        history = state["history"]
        apply = history.index("upgrade apply cp-1 v1.34.7")
        for worker in self.workers:
            upgraded = history.index(f"upgrade node {worker} v1.34.7")
            check(upgraded > apply, f"{worker} upgraded before the control plane")
            check(history.index(f"drain {worker}", upgraded) < history.index(f"uncordon {worker}", upgraded),
                  f"{worker} not drained then uncordoned")
            check(not state["nodes"][worker]["unschedulable"], f"{worker} left cordoned")
        for cp in self.control_plane[1:]:
            check(apply < history.index(f"upgrade node {cp} v1.34.7"), f"{cp} upgraded before cp-1")
        return self.control_plane + self.workers


def failed_init_retried(base: Path, client_key) -> list[str]:
    """A kubeadm init that fails after writing admin.conf (upload-config) is retried on the next converge; then a
    worker is refused a join, by name of what is missing: the control_plane group, then its first host."""
    site = Site("solo", base, client_key)
    try:
        site.add("solo-1", 60)
        site.inject("solo-1", "init:upload-config")
        props = site.cluster_props(["solo-1"], "1.34")
        try:
            site.converge(props)
        except RuntimeError as exc:
            message = str(exc)
        else:
            raise AssertionError("the injected init failure did not fail the converge")
        check("solo-1" in message and "Initialise the control plane" in message, f"failure message: {message}")
        check("upload-config" in message, f"kubeadm's error is not in the message: {message}")
        check(site.hosts["solo-1"].exists("/etc/kubernetes/admin.conf"), "the failed init left no admin.conf")
        outs = site.converge(props)
        state = site.state()
        check("solo-1" in state["nodes"], "the retried init did not register the node")
        check(outs["outcomes"]["solo-1"]["status"] == "changed", "the retry did nothing")
        check("init solo-1" in state["history"], "no init recorded")

        site.add("solo-w", 61)
        message = failure(lambda: site.converge(site.pool_props([], ["solo-w"], "1.34")))
        check("solo-w cannot join: the inventory has no control_plane group" in message, message)
        site.hosts["solo-1"].stop()  # the first control-plane host is down
        message = failure(lambda: site.converge(site.pool_props(["solo-1"], ["solo-w"], "1.34")))
        check("the first control-plane host solo-1 (127.0.0.60) is unreachable" in message, message)
        return ["solo-1", "solo-w"]
    finally:
        site.destroy()


def failure(run: Callable[[], object]) -> str:
    try:
        run()
    except RuntimeError as exc:
        return str(exc)
    raise AssertionError("the converge did not fail")


def fake_pci(directory: Path, gpus: int, nvswitches: int) -> Path:
    """A PCI device tree as sysfs shows it: NVIDIA GPUs (class 0x030200) and NVSwitches (bridges, 0x068000)."""
    for i in range(gpus + nvswitches):
        device = directory / f"0000:{0x18 + i:02x}:00.0"
        device.mkdir(parents=True)
        (device / "vendor").write_text("0x10de\n")
        (device / "class").write_text("0x030200\n" if i < gpus else "0x068000\n")
    return directory


def installed_versions(site: Site, host: str, packages: list[str]) -> dict[str, str]:
    return dict(line.split() for line in site.run(site.hosts[host], [
        "dpkg-query", "--showformat", "${Package} ${Version}\n", "--show", *packages]).splitlines())


def hgx_fabric_manager(base: Path, client_key) -> list[str]:
    """An H100 SXM board (8 GPUs, 4 NVSwitches) gets the driver at its pinned build although the mirror offers a
    newer branch's, and Fabric Manager and NSCQ under the names NVIDIA ships from 580 on at the driver's exact build,
    held with it; a PCIe board (no NVSwitch) gets none; a board showing fewer GPUs than its pool declares fails,
    saying so; a driver bump on a running node (the loaded module older than the installed driver) fails naming
    both builds, where it cannot reboot, instead of leaving nvidia-smi with a version mismatch."""
    site = Site("hgx", base, client_key)
    try:
        loaded = site.workdir / "modules"
        (loaded / "nvidia").mkdir(parents=True)  # the driver's module is loaded (no reboot needed)
        (loaded / "nvidia/version").write_text(f"{DRIVER}\n")  # MODULE_VERSION(NV_VERSION_STRING)
        site.add("hgx-1", 70, binds={str(fake_pci(site.workdir / "sxm", 8, 4)): "/sys/bus/pci/devices",
                                     str(loaded): "/sys/module"})
        site.add("pcie-1", 71, binds={str(fake_pci(site.workdir / "pcie", 2, 0)): "/sys/bus/pci/devices",
                                      str(loaded): "/sys/module"})
        gpu = {"tags": ["gpu"]}
        hgx_props = {**site.pool_props([], ["hgx-1"], "1.34", "h100", 8, skip_hardware_checks=False), **gpu}
        outs = site.converge(hgx_props)
        check(outs["failed_hosts"] == [], f"failed: {outs['outcomes']}")
        stack = ["nvidia-open", "nvidia-driver-open", "nvidia-fabricmanager", "libnvidia-nscq"]
        installed = installed_versions(site, "hgx-1", stack)
        # The mirror also has a 590 driver (nvidia-open's lower bound admits it) and older and newer 580 Fabric
        # Managers: the converge took the pinned build of each.
        check(installed == {p: f"{DRIVER}-1" for p in stack}, f"installed: {installed}")
        held = site.run(site.hosts["hgx-1"], ["apt-mark", "showhold"]).split()
        check({"nvidia-open", "nvidia-fabricmanager", "libnvidia-nscq"} <= set(held), f"held: {held}")
        hgx = site.hosts["hgx-1"]
        check(hgx.exists("/etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service"), "FM not enabled")
        check(not hgx.exists("/etc/systemd/system/multi-user.target.wants/nvidia-dcgm.service"),
              "a second DCGM hostengine is enabled")
        outs = site.converge(hgx_props)
        check(outs["failed_hosts"] == [] and changed(outs).get("hgx-1") == 0, f"second converge: {changed(outs)}")
        outs = site.converge({**site.pool_props([], ["pcie-1"], "1.34", "l40s", 2, skip_hardware_checks=False), **gpu})
        check(outs["failed_hosts"] == [], f"failed: {outs['outcomes']}")
        check("fabricmanager" not in site.run(site.hosts["pcie-1"], ["dpkg-query", "--show"]),
              "Fabric Manager on a board without NVSwitch")
        message = failure(lambda: site.converge({
            **site.pool_props([], ["pcie-1"], "1.34", "l40s", 4, skip_hardware_checks=False), **gpu}))
        check("nvidia-smi -L lists 2 GPU(s), expected 4" in message, message)
        # A driver bump: the new build is installed, the module still loaded is the old one.
        message = failure(lambda: site.converge({**site.pool_props(
            [], ["hgx-1"], "1.34", "h100", 8, skip_hardware_checks=False,
            variables={"sahab_nvidia_driver_version": DRIVER_BUMP}), **gpu}))
        check(f"loaded nvidia module is {DRIVER}" in message and f"installed driver is {DRIVER_BUMP}" in message,
              message)
        installed = installed_versions(site, "hgx-1", stack)
        check(installed == {p: f"{DRIVER_BUMP}-1" for p in stack}, f"installed after the bump: {installed}")
        return ["hgx-1", "pcie-1"]
    finally:
        site.destroy()


SITES = ("main", "solo", "hgx")  # longest first


def main() -> int:
    reason = testhost.unavailable_reason()
    if reason:
        print(json.dumps({"scenario": "site", "hosts": [], "result": "skipped", "detail": reason}))
        return 0
    sites = set(sys.argv[1:]) or set(SITES)
    unknown = sites - set(SITES)
    if unknown:
        print(f"error: unknown site {', '.join(sorted(unknown))}: the sites are {', '.join(SITES)}", file=sys.stderr)
        return 2
    base = testhost.base_rootfs()  # unpacked here, once, before the sites share it
    if len(sites) > 1:
        return side_by_side([s for s in SITES if s in sites])
    key_dir = Path(tempfile.mkdtemp(prefix="sahab-site-key-"))
    try:
        return run_all(base, testhost.generate_client_key(key_dir), sites)
    finally:
        shutil.rmtree(key_dir, ignore_errors=True)


def side_by_side(sites: list[str]) -> int:
    """Each site in a child process (`run <site>`), all at once; their JSON lines relayed as they come, one tally."""
    children = [subprocess.Popen([sys.executable, "-m", "tests.e2e.multihost.run", site], stdout=subprocess.PIPE,
                                 text=True) for site in sites]
    results: list[str] = []
    lock = threading.Lock()

    def relay(child: subprocess.Popen) -> None:
        for line in child.stdout:
            with lock:
                sys.stdout.write(line)
                sys.stdout.flush()
                results.append(json.loads(line)["result"])

    relays = [threading.Thread(target=relay, args=(child,)) for child in children]
    for thread in relays:
        thread.start()
    for thread, child in zip(relays, children, strict=True):
        thread.join()
        child.wait()
    passed = results.count("passed")
    print(f"all sites: {passed} passed, {len(results) - passed} failed", file=sys.stderr)
    return 1 if any(child.returncode != 0 for child in children) else 0


def run_all(base: Path, client_key, sites: set[str]) -> int:
    failures = 0
    passed = 0

    def report(name: str, run: Callable[[], list[str]], hosts: list[str]) -> bool:
        nonlocal failures, passed
        start = time.monotonic()
        line = {"scenario": name, "hosts": hosts, "result": "passed"}
        try:
            line["hosts"] = run()
        except Exception as exc:  # every scenario reports, whatever broke
            failures += 1
            line.update(result="failed", detail=f"{type(exc).__name__}: {exc}"[:2000])
            traceback.print_exc(file=sys.stderr)
        line["seconds"] = round(time.monotonic() - start, 1)
        passed += line["result"] == "passed"
        print(json.dumps(line), flush=True)
        return line["result"] == "passed"

    # SAHAB_SITE_SCENARIOS=a,b,...: only these scenarios of the main site, in the site's order (each still builds on
    # the one before it that ran); unset, every one.
    only = {name for name in os.environ.get("SAHAB_SITE_SCENARIOS", "").split(",") if name}
    if "main" in sites:
        site = Site("main", base, client_key)
        try:
            for name, index in (("cp-1", 51), ("cp-2", 52), ("cp-3", 53), ("cp-4", 54), ("w-1", 55), ("w-2", 56),
                                ("w-3", 57)):
                site.add(name, index)
            life = Life(site)
            ok = True
            for name, step in (("fresh-ha-cluster", life.fresh_ha),
                               ("second-converge-changes-nothing", life.second_converge_changes_nothing),
                               ("scale-out-with-first-worker-joined", life.scale_out),
                               ("api-server-down-nothing-reset", life.api_down_keeps_the_cluster),
                               ("pre-record-cluster-api-down-nothing-reset",
                                life.pre_record_cluster_api_down_nothing_reset),
                               ("rebuilt-worker-rejoins", life.rebuilt_worker_rejoins),
                               ("rebuilt-control-plane-refused-until-its-member-goes",
                                life.rebuilt_control_plane_refused),
                               ("rebuilt-first-control-plane-refused-no-second-cluster",
                                life.rebuilt_first_control_plane_refused),
                               ("control-plane-host-replaced", life.control_plane_replaced),
                               ("version-bump", life.version_bump)):
                if only and name not in only:
                    continue
                if ok:
                    ok = report(name, step, [])
                else:  # each step stands on the one before
                    failures += 1
                    print(json.dumps({"scenario": name, "hosts": [], "result": "failed",
                                      "detail": "not run: an earlier scenario of this site failed"}), flush=True)
        finally:
            site.destroy()
    if "solo" in sites:
        report("failed-init-retried-and-join-preconditions", lambda: failed_init_retried(base, client_key), ["solo-1"])
    if "hgx" in sites:
        report("hgx-fabric-manager-at-the-drivers-version", lambda: hgx_fabric_manager(base, client_key), ["hgx-1"])
    # stdout stays one JSON document per line; the tally is for people and CI logs.
    print(f"{passed} passed, {failures} failed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
