"""The stand-in kubeadm keeps kubeadm's contract (tests/e2e/multihost/standin/SOURCE.md): what the site tests prove
about Sahab's roles holds only if the stand-in refuses what kubeadm refuses. Runs locally, two "hosts" as two roots
sharing one cluster directory; a second or two."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.multihost.harness import STANDIN, build_ca

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="kubeadm init's preflight wants root")
KEY = "ab" * 32
ENDPOINT = "10.0.0.100:6443"


class Host:
    def __init__(self, root: Path, site: Path, name: str, kubeadm: str, kubelet: str) -> None:
        self.root, self.site, self.name = root, site, name
        for command, version in (("kubeadm", kubeadm), ("kubelet", kubelet), ("kubectl", kubeadm)):
            binary = root / "usr/bin" / command
            binary.parent.mkdir(parents=True, exist_ok=True)
            binary.write_text(STANDIN.read_text().replace('VERSION = "v0.0.0"', f'VERSION = "v{version}"', 1))
            binary.chmod(0o755)

    def run(self, *args: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "SAHAB_STANDIN_ROOT": str(self.root), "SAHAB_STANDIN_SITE": str(self.site),
               "SAHAB_STANDIN_NODENAME": self.name}
        return subprocess.run([sys.executable, str(self.root / "usr/bin" / args[0]), *args[1:]], env=env,
                              capture_output=True, text=True, timeout=30)

    def config(self, name: str, docs: list[dict]) -> str:
        path = self.root / name
        path.write_text("\n---\n".join(json.dumps(d) for d in docs))
        return str(path)


def registration(name: str) -> dict:
    return {"name": name, "criSocket": "unix:///run/containerd/containerd.sock", "taints": []}


def init_docs(name: str, version: str | None = "v1.34.7", api: str = "kubeadm.k8s.io/v1beta4") -> list[dict]:
    cluster = {"apiVersion": api, "kind": "ClusterConfiguration", "controlPlaneEndpoint": ENDPOINT}
    if version:
        cluster["kubernetesVersion"] = version
    return [{"apiVersion": api, "kind": "InitConfiguration", "certificateKey": KEY, "nodeRegistration":
             registration(name), "localAPIEndpoint": {"advertiseAddress": "10.0.0.1", "bindPort": 6443}}, cluster]


def join_docs(name: str, token: str, ca_hash: str, key: str | None = None) -> list[dict]:
    join = {"apiVersion": "kubeadm.k8s.io/v1beta4", "kind": "JoinConfiguration", "nodeRegistration": registration(name),
            "discovery": {"bootstrapToken": {"apiServerEndpoint": ENDPOINT, "token": token,
                                             "caCertHashes": [ca_hash]}}}
    if key:
        join["controlPlane"] = {"certificateKey": key, "localAPIEndpoint": {"advertiseAddress": "10.0.0.2"}}
    return [join]


@pytest.fixture
def site(tmp_path):
    shared = tmp_path / "site"
    ca_hash = build_ca(shared / "ca")
    first = Host(tmp_path / "cp-1", shared, "cp-1", "1.34.7", "1.34.7")
    assert first.run("kubeadm", "init", "--config", first.config("init.json", init_docs("cp-1")),
                     "--upload-certs", "--skip-token-print", "--skip-certificate-key-print").returncode == 0
    return tmp_path, shared, ca_hash, first


def state(shared: Path) -> dict:
    return json.loads((shared / "cluster.json").read_text())


def test_init_runs_the_phases_in_order_and_writes_their_files(site):
    _, shared, _, first = site
    for path in ("etc/kubernetes/pki/ca.crt", "etc/kubernetes/pki/etcd/server.key", "etc/kubernetes/admin.conf",
                 "etc/kubernetes/super-admin.conf", "etc/kubernetes/kubelet.conf", "etc/kubernetes/manifests/etcd.yaml",
                 "etc/kubernetes/manifests/kube-apiserver.yaml", "var/lib/kubelet/config.yaml",
                 "var/lib/kubelet/kubeadm-flags.env", "var/lib/kubelet/pki/kubelet-client-current.pem"):
        assert (first.root / path).exists(), path
    cluster = state(shared)
    assert cluster["version"] == "v1.34.7" and cluster["etcdMembers"] == ["cp-1"] and "cp-1" in cluster["nodes"]
    assert cluster["certs"]["expires"] - time.time() == pytest.approx(7200, abs=60)  # kubeadm-certs live 2 hours


def test_init_without_kubernetes_version_would_go_to_the_internet(tmp_path):
    build_ca(tmp_path / "site" / "ca")
    host = Host(tmp_path / "cp", tmp_path / "site", "cp", "1.34.7", "1.34.7")
    done = host.run("kubeadm", "init", "--config", host.config("i.json", init_docs("cp", version=None)))
    assert done.returncode == 1 and "stable-1.txt" in done.stderr


def test_v1beta4_is_unknown_to_kubeadm_1_30(tmp_path):
    build_ca(tmp_path / "site" / "ca")
    host = Host(tmp_path / "cp", tmp_path / "site", "cp", "1.30.0", "1.30.0")
    done = host.run("kubeadm", "init", "--config", host.config("i.json", init_docs("cp", "v1.30.0")))
    assert done.returncode == 1 and "v1beta4" in done.stderr
    assert host.run("kubeadm", "init", "--config", host.config("i3.json", init_docs(
        "cp", "v1.30.0", api="kubeadm.k8s.io/v1beta3"))).returncode == 0


@pytest.mark.parametrize("phase", ["certs", "kubeconfig", "etcd", "kubelet-start", "wait-control-plane",
                                   "upload-config", "bootstrap-token"])
def test_a_failure_can_be_injected_at_any_init_phase_and_leaves_that_phases_predecessors(tmp_path, phase):
    build_ca(tmp_path / "site" / "ca")
    host = Host(tmp_path / "cp", tmp_path / "site", "cp", "1.34.7", "1.34.7")
    (host.root / "etc/sahab-standin").mkdir(parents=True)
    (host.root / "etc/sahab-standin/fail-at").write_text(f"init:{phase}\n")
    done = host.run("kubeadm", "init", "--config", host.config("i.json", init_docs("cp")))
    assert done.returncode == 1 and f"error execution phase {phase}: injected failure" in done.stderr
    assert (host.root / "etc/kubernetes/pki/ca.crt").exists() == (phase != "certs")
    # One-shot: after kubeadm reset the same init succeeds.
    assert host.run("kubeadm", "reset", "--force").returncode == 0
    assert host.run("kubeadm", "init", "--config", host.config("i.json", init_docs("cp"))).returncode == 0


def test_a_worker_joins_only_with_a_valid_unexpired_token_and_the_pinned_ca(site):
    tmp, shared, ca_hash, first = site
    worker = Host(tmp / "w-1", shared, "w-1", "1.34.7", "1.34.7")
    token = first.run("kubeadm", "token", "create", "--ttl", "1s").stdout.strip()
    assert worker.run("kubeadm", "join", "--config", worker.config(
        "j.json", join_docs("w-1", token, "sha256:" + "0" * 64))).stderr.count("none of the public keys") == 1
    assert "is invalid" in worker.run("kubeadm", "join", "--config", worker.config(
        "j.json", join_docs("w-1", "abcdef.0123456789abcdef", ca_hash))).stderr
    time.sleep(1.2)
    assert "has expired" in worker.run("kubeadm", "join", "--config", worker.config(
        "j.json", join_docs("w-1", token, ca_hash))).stderr
    token = first.run("kubeadm", "token", "create", "--ttl", "30m").stdout.strip()
    assert worker.run("kubeadm", "join", "--config", worker.config("j.json", join_docs("w-1", token, ca_hash))
                      ).returncode == 0
    assert "w-1" in state(shared)["nodes"]


def test_a_kubelet_newer_than_the_control_plane_is_refused(site):
    tmp, shared, ca_hash, first = site
    worker = Host(tmp / "w-2", shared, "w-2", "1.35.0", "1.35.0")
    token = first.run("kubeadm", "token", "create").stdout.strip()
    done = worker.run("kubeadm", "join", "--config", worker.config("j.json", join_docs("w-2", token, ca_hash)))
    assert done.returncode == 1 and "[ERROR KubeletVersion]" in done.stderr


def test_a_control_plane_joins_with_the_certificate_key_while_the_certificates_are_shared(site):
    tmp, shared, ca_hash, first = site
    second = Host(tmp / "cp-2", shared, "cp-2", "1.34.7", "1.34.7")
    token = first.run("kubeadm", "token", "create").stdout.strip()
    wrong = second.run("kubeadm", "join", "--config", second.config(
        "j.json", join_docs("cp-2", token, ca_hash, key="cd" * 32)))
    assert "message authentication failed" in wrong.stderr
    cluster = state(shared)
    cluster["certs"]["expires"] = time.time() - 1  # two hours later
    (shared / "cluster.json").write_text(json.dumps(cluster))
    expired = second.run("kubeadm", "join", "--config", second.config(
        "j.json", join_docs("cp-2", token, ca_hash, key=KEY)))
    assert "upload them again" in expired.stderr
    assert first.run("kubeadm", "init", "phase", "upload-certs", "--upload-certs", "--config",
                     str(first.root / "init.json")).returncode == 0
    assert second.run("kubeadm", "join", "--config", second.config(
        "j.json", join_docs("cp-2", token, ca_hash, key=KEY))).returncode == 0
    assert state(shared)["etcdMembers"] == ["cp-1", "cp-2"]


def test_upgrades_go_one_minor_at_a_time_with_a_new_enough_kubeadm(site):
    tmp, shared, _, first = site
    assert "upgrade the kubeadm package first" in first.run("kubeadm", "upgrade", "apply", "v1.35.0").stderr
    newer = Host(tmp / "cp-1", shared, "cp-1", "1.36.0", "1.34.7")
    assert "only 1 minor version at a time" in newer.run("kubeadm", "upgrade", "apply", "v1.36.0").stderr
    assert newer.run("kubeadm", "upgrade", "apply", "v1.35.0").returncode == 0
    assert state(shared)["version"] == "v1.35.0"


def test_while_the_api_server_does_not_answer_kubectl_and_kubeadm_fail_and_the_cluster_is_untouched(site):
    _, shared, _, first = site
    before = (shared / "cluster.json").read_text()
    (shared / "api-down").write_text("")
    admin = str(first.root / "etc/kubernetes/admin.conf")
    done = first.run("kubectl", "--kubeconfig", admin, "get", "node", "cp-1")
    assert done.returncode == 1
    assert done.stderr.strip() == ("The connection to the server 10.0.0.100:6443 was refused - did you specify the "
                                   "right host or port?")
    assert "connection refused" in first.run("kubeadm", "token", "create").stderr
    # kubeadm reset cannot reach the cluster to leave it: only this host's files go.
    assert first.run("kubeadm", "reset", "--force").returncode == 0
    assert (shared / "cluster.json").read_text() == before
    assert state(shared)["etcdMembers"] == ["cp-1"] and "cp-1" in state(shared)["nodes"]


def test_init_on_a_fresh_host_starts_a_second_cluster_where_one_answers(site):
    """kubeadm init's preflight checks this host's own files and ports (InitNodeChecks), never whether a cluster
    answers at controlPlaneEndpoint: a reinstalled first host that runs it starts a new, empty cluster."""
    tmp, shared, _, _ = site
    before = state(shared)
    rebuilt = Host(tmp / "cp-1-rebuilt", shared, "cp-1", "1.34.7", "1.34.7")
    done = rebuilt.run("kubeadm", "init", "--config", rebuilt.config("init.json", init_docs("cp-1")))
    assert done.returncode == 0, done.stderr
    after = state(shared)
    # A new cluster: the old one's bootstrap tokens are gone with it.
    assert before["tokens"] and after["tokens"] and after["tokens"].keys().isdisjoint(before["tokens"])
