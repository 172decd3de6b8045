"""The roles' kubeadm and containerd configuration, rendered by Ansible's own templating from the real templates.

Labels and taints reach the kubelet only through kubeadm's structured nodeRegistration: a hostile value (a flag
hidden in a label value, a newline in a taint) fails the host naming it, and whatever passes is YAML-encoded,
so it cannot add a field or a flag."""

from __future__ import annotations

import base64
import functools
import tomllib

import pytest
import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.plugins.loader import filter_loader
from ansible.template import Templar, trust_as_template
from hypothesis import given
from hypothesis import strategies as st
from sahab.components.onprem.runner import ANSIBLE_DIR

filter_loader.add_directory(str(ANSIBLE_DIR / "filter_plugins"))
ROLES = ANSIBLE_DIR / "roles"
SECRET = "s" * 64
CP_TAINT = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}


def render(text: str, **variables):
    return Templar(loader=DataLoader(), variables={"ansible_managed": "managed", **variables}).template(
        trust_as_template(text))


@functools.cache
def registration_task() -> str:
    """The role's own expression that builds a node's registration (sahab_kubernetes, tasks/main.yml)."""
    tasks = yaml.safe_load((ROLES / "sahab_kubernetes/tasks/main.yml").read_text())
    task = next(t for t in tasks if "sahab_kubernetes_node_registration" in t.get("ansible.builtin.set_fact", {}))
    return task["ansible.builtin.set_fact"]["sahab_kubernetes_node_registration"]


def node_registration(labels=None, taints=None, gpu=False, pool="cpu-general"):
    return render(registration_task(), inventory_hostname="cpu-1", sahab_kubernetes_node_pool=pool,
                  sahab_kubernetes_accelerator="cpu", sahab_kubernetes_gpu_node=gpu,
                  sahab_kubernetes_node_labels=labels or {}, sahab_kubernetes_node_taints=taints or [])


def node_labels(registration: dict) -> dict[str, str]:
    (arg,) = registration["kubeletExtraArgs"]
    assert arg["name"] == "node-labels"
    return dict(kv.split("=", 1) for kv in arg["value"].split(","))


@pytest.mark.parametrize(("labels", "taints", "named"), [
    ({"team": "x --anonymous-auth=true"}, [], "label team"),
    ({"team": "vision\n--anonymous-auth=true"}, [], "label team"),
    ({"team": "ok\n"}, [], "label team"),
    ({"team": "a,b=c"}, [], "label team"),
    ({"bad key": "x"}, [], "label key 'bad key'"),
    ({}, [{"key": "dedicated", "value": "x\n--register-node=false", "effect": "NoSchedule"}], "taint dedicated"),
    ({}, [{"key": "dedicated", "value": "x --anonymous-auth=true", "effect": "NoSchedule"}], "taint dedicated"),
    ({}, [{"key": "dedicated\n", "value": "x", "effect": "NoSchedule"}], "taint key"),
    ({}, [{"key": "dedicated", "value": "x", "effect": "NoSchedule --v=9"}], "effect"),
])
def test_hostile_labels_and_taints_fail_the_host_naming_them(labels, taints, named):
    with pytest.raises(Exception, match="sahab_node_registration") as raised:
        node_registration(labels, taints)
    assert named in str(raised.value)


def test_a_node_registers_with_its_pool_labels_gpu_marker_and_taints_once():
    registration = node_registration(
        {"team": "vision", "example.com/tier": "gold"},
        [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
         {"key": "dedicated", "value": "", "effect": "NoExecute"}], gpu=True)
    assert registration["name"] == "cpu-1"
    assert registration["criSocket"] == "unix:///run/containerd/containerd.sock"
    assert node_labels(registration) == {"sahab.io/pool": "cpu-general", "sahab.io/accelerator": "cpu",
                                         "nvidia.com/gpu.present": "true", "team": "vision",
                                         "example.com/tier": "gold"}
    # The GPU taint the role adds and the one the pool lists are the same taint: it is registered once.
    assert registration["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
                                      {"key": "dedicated", "effect": "NoExecute"}]


def test_a_control_plane_only_host_carries_no_pool_labels():
    assert "kubeletExtraArgs" not in node_registration(pool="")


@given(st.text(max_size=70))
def test_whatever_label_value_is_given_nothing_but_one_label_reaches_the_kubelet(value):
    try:
        registration = node_registration({"team": value})
    except Exception as exc:  # refused, naming the label
        assert "label team" in str(exc)
        return
    labels = node_labels(registration)
    assert labels["team"] == value
    assert not any(ch.isspace() or ch in ",=\"'" for ch in value)


CA_PEM_HASH: tuple[str, str] | None = None


def site_ca() -> tuple[str, str]:
    """A CA certificate and kubeadm's pin of it (sha256 of its Subject Public Key Info), computed independently."""
    global CA_PEM_HASH
    if CA_PEM_HASH is None:
        import tempfile
        from pathlib import Path

        from tests.e2e.multihost.harness import build_ca

        directory = Path(tempfile.mkdtemp())
        pin = build_ca(directory)
        CA_PEM_HASH = ((directory / "ca.crt").read_text(), pin)
    return CA_PEM_HASH


def join_config(control_plane: bool, schedulable: bool = False, registration=None, version="v1.34.7") -> dict:
    text = (ROLES / "sahab_node_join/templates/kubeadm-join.yaml.j2").read_text()
    ca, _ = site_ca()
    return yaml.safe_load(render(
        text, sahab_node_join_control_plane=control_plane, sahab_control_plane_schedulable=schedulable,
        sahab_kubernetes_node_registration=registration or node_registration({"team": "vision"}),
        sahab_node_join_release={"version": version}, sahab_node_join_endpoint="10.0.0.100:6443",
        sahab_node_join_token={"content": base64.b64encode(b"abcdef.0123456789abcdef\n").decode()},
        sahab_node_join_ca={"content": base64.b64encode(ca.encode()).decode()},
        sahab_kubernetes_patches_dir="/etc/kubernetes/sahab/patches", sahab_node_join_advertise_address="10.0.0.2",
        sahab_node_join_certificate_secret=SECRET))


def test_worker_and_control_plane_join_configurations():
    worker = join_config(control_plane=False)
    assert worker["kind"] == "JoinConfiguration" and worker["apiVersion"] == "kubeadm.k8s.io/v1beta4"
    assert "controlPlane" not in worker
    assert worker["nodeRegistration"]["taints"] == []
    assert node_labels(worker["nodeRegistration"])["team"] == "vision"
    assert worker["patches"] == {"directory": "/etc/kubernetes/sahab/patches"}
    control = join_config(control_plane=True)
    assert control["controlPlane"]["localAPIEndpoint"] == {"advertiseAddress": "10.0.0.2", "bindPort": 6443}
    key = control["controlPlane"]["certificateKey"]
    assert len(key) == 64 and int(key, 16) >= 0 and SECRET not in key
    assert control["nodeRegistration"]["taints"] == [CP_TAINT]
    assert join_config(control_plane=True, schedulable=True)["nodeRegistration"]["taints"] == []


def test_a_join_discovers_the_cluster_by_token_with_its_ca_pinned():
    _, pin = site_ca()
    discovery = join_config(control_plane=False)["discovery"]
    assert discovery == {"bootstrapToken": {"apiServerEndpoint": "10.0.0.100:6443",
                                            "token": "abcdef.0123456789abcdef", "caCertHashes": [pin]}}


def test_a_1_30_cluster_is_joined_in_v1beta3_whose_extra_arguments_are_a_map():
    worker = join_config(control_plane=False, version="v1.30.14")
    assert worker["apiVersion"] == "kubeadm.k8s.io/v1beta3"
    assert "sahab.io/pool=cpu-general" in worker["nodeRegistration"]["kubeletExtraArgs"]["node-labels"].split(",")


def init_config(schedulable: bool, **overrides) -> dict[str, dict]:
    text = (ROLES / "sahab_control_plane/templates/kubeadm-config.yaml.j2").read_text()
    hostvars = {f"cp-{i}": {"ansible_host": f"10.0.0.{i}"} for i in (1, 2, 3)}
    variables = dict(
        sahab_kubernetes_node_registration=node_registration(pool=""), sahab_control_plane_schedulable=schedulable,
        sahab_control_plane_vip="10.0.0.100", groups={"control_plane": list(hostvars)}, hostvars=hostvars,
        sahab_control_plane_cert_sans=["api.site.ae"], sahab_control_plane_audit_log_dir="/var/log/kubernetes/audit",
        sahab_control_plane_advertise_address="10.0.0.1", sahab_control_plane_certificate_secret=SECRET,
        sahab_kubernetes_patches_dir="/etc/kubernetes/sahab/patches",
        sahab_control_plane_endpoint="10.0.0.100:6443", sahab_control_plane_image_repository="registry.k8s.io",
        sahab_control_plane_pod_subnet="10.244.0.0/16", sahab_control_plane_service_subnet="10.96.0.0/12",
        sahab_control_plane_config_dir="/etc/kubernetes/sahab/apiserver", sahab_control_plane_audit_log_maxage=30,
        sahab_control_plane_audit_log_maxbackup=10, sahab_control_plane_audit_log_maxsize=100,
        sahab_control_plane_kubernetes_version="v1.34.7")
    return {d["kind"]: d for d in yaml.safe_load_all(render(text, **{**variables, **overrides}))}


def test_kubeadm_init_configuration_for_an_ha_control_plane():
    docs = init_config(schedulable=False)
    assert docs["InitConfiguration"]["nodeRegistration"]["taints"] == [CP_TAINT]
    assert docs["ClusterConfiguration"]["controlPlaneEndpoint"] == "10.0.0.100:6443"
    assert docs["ClusterConfiguration"]["apiServer"]["certSANs"] == [
        "10.0.0.100", "10.0.0.1", "10.0.0.2", "10.0.0.3", "api.site.ae"]
    # An exact version: without one kubeadm resolves stable-1 on dl.k8s.io, which an on-prem site cannot reach.
    assert docs["ClusterConfiguration"]["kubernetesVersion"] == "v1.34.7"
    assert init_config(schedulable=True)["InitConfiguration"]["nodeRegistration"]["taints"] == []


@pytest.mark.parametrize(("version", "api"), [("v1.30.14", "v1beta3"), ("v1.31.0", "v1beta4"),
                                              ("v1.34.7", "v1beta4")])
def test_the_configuration_speaks_the_kubeadm_api_of_the_clusters_version(version, api):
    docs = init_config(schedulable=False, sahab_control_plane_kubernetes_version=version)
    assert {d["apiVersion"] for k, d in docs.items() if k != "KubeletConfiguration"} == {f"kubeadm.k8s.io/{api}"}
    args = docs["ClusterConfiguration"]["apiServer"]["extraArgs"]
    # v1beta4 made extra arguments a list of name/value pairs (repeatable); v1beta3 has a map.
    if api == "v1beta3":
        assert args["audit-log-maxage"] == "30"
    else:
        assert {"name": "audit-log-maxage", "value": "30"} in args


def test_encryption_configuration_holds_a_32_byte_secretbox_key_derived_from_the_secret():
    text = (ROLES / "sahab_control_plane/templates/encryption-config.yaml.j2").read_text()
    config = yaml.safe_load(render(text, sahab_control_plane_encryption_secret=SECRET))
    key = config["resources"][0]["providers"][0]["secretbox"]["keys"][0]["secret"]
    assert len(base64.b64decode(key)) == 32
    assert SECRET not in render(text, sahab_control_plane_encryption_secret=SECRET)
    other = yaml.safe_load(render(text, sahab_control_plane_encryption_secret="t" * 64))
    assert other["resources"][0]["providers"][0]["secretbox"]["keys"][0]["secret"] != key
    with pytest.raises(Exception, match="shorter than 32"):
        render(text, sahab_control_plane_encryption_secret="short")


@pytest.mark.parametrize("major", [1, 2])
@pytest.mark.parametrize("nvidia", [False, True])
def test_containerd_config_matches_the_installed_major_version(major, nvidia):
    text = (ROLES / "sahab_containerd/templates/config.toml.j2").read_text()
    config = tomllib.loads(render(
        text, sahab_containerd_major=major, sahab_containerd_nvidia_runtime=nvidia,
        sahab_containerd_sandbox_image="registry.k8s.io/pause:3.10.1",
        sahab_containerd_nvidia_runtime_binary="/usr/bin/nvidia-container-runtime",
        sahab_containerd_registry_mirrors={"docker.io": "https://registry.site.ae"}))
    if major >= 2:
        assert config["version"] == 3
        runtime = config["plugins"]["io.containerd.cri.v1.runtime"]["containerd"]
        images = config["plugins"]["io.containerd.cri.v1.images"]
        assert images["pinned_images"]["sandbox"] == "registry.k8s.io/pause:3.10.1"
        assert images["registry"]["config_path"] == "/etc/containerd/certs.d"
    else:
        assert config["version"] == 2
        runtime = config["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]
    assert runtime["default_runtime_name"] == ("nvidia" if nvidia else "runc")
    assert runtime["runtimes"]["runc"]["options"]["SystemdCgroup"] is True
    assert ("nvidia" in runtime["runtimes"]) is nvidia


def test_kube_vip_manifest_quotes_what_it_is_given():
    text = (ROLES / "sahab_control_plane/templates/kube-vip.yaml.j2").read_text()
    pod = yaml.safe_load(render(text, sahab_control_plane_vip="10.0.0.100", sahab_control_plane_vip_interface="",
                                sahab_control_plane_kube_vip_image="ghcr.io/kube-vip/kube-vip:v1.0.0",
                                sahab_control_plane_kube_vip_kubeconfig="/etc/kubernetes/admin.conf"))
    env = {e["name"]: e.get("value", e.get("valueFrom")) for e in pod["spec"]["containers"][0]["env"]}
    assert env["address"] == "10.0.0.100" and env["port"] == "6443" and "vip_interface" not in env
    # kube-vip v1.0.0 reads vip_subnet (vip_cidr is not a variable it knows) and vip_nodename for its lease.
    assert env["vip_subnet"] == "32" and "vip_cidr" not in env
    assert env["vip_nodename"] == {"fieldRef": {"fieldPath": "spec.nodeName"}}
    assert pod["spec"]["volumes"][0]["hostPath"] == {"path": "/etc/kubernetes/admin.conf", "type": "File"}
