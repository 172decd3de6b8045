"""The on-prem half of the real stacks: a control plane per on-prem cluster, a converge per pool, and a
Kubernetes provider that can never fall back to the operator's own kubeconfig."""

import pytest
import yaml
from sahab.components.fleet import credential_less_kubeconfig

from tests.plans import stack_plan


@pytest.fixture(scope="module")
def prod():
    return stack_plan("prod")


def test_every_onprem_cluster_and_pool_is_converged_by_ansible(prod):
    clusters = sorted(r.name for r in prod.resources if r.type == "sahab:onprem:Cluster")
    pools = sorted(r.name for r in prod.resources if r.type == "sahab:onprem:NodePool")
    assert clusters == ["sahab-auh-onprem", "sahab-dxb-onprem"]
    assert pools == ["sahab-auh-cpu", "sahab-auh-h100", "sahab-dxb-a100", "sahab-dxb-cpu"]
    runs = [r for r in prod.resources if r.type == "pulumi-python:dynamic:Resource"
            and any(h["group"] != "site_gateways" for h in r.inputs["hosts"])]  # not a site's VPN gateway host
    assert len(runs) == 6
    gpu_run = next(r for r in runs if r.inputs["run_name"] == "sahab-auh-h100-converge")
    assert gpu_run.inputs["limit"] == "auh-gpu1,auh-gpu2"
    assert gpu_run.inputs["private_key"] in (None, "[secret]")


def test_onprem_kubeconfigs_are_secret_outputs(prod):
    assert prod.outputs["kubeconfigs"]["auh-onprem"] == "[secret]"
    assert prod.outputs["onpremClusters"]["dxb-onprem"]["endpoint"] == "10.20.0.5:6443"  # the VIP


def test_every_onprem_cluster_gets_cilium_through_its_own_provider(prod):
    releases = [r for r in prod.resources
                if r.type == "kubernetes:helm.sh/v3:Release" and r.inputs["chart"].endswith("/cilium")]
    assert sorted(r.name for r in releases) == ["sahab-auh-onprem-cni-release", "sahab-dxb-onprem-cni-release"]
    for release in releases:
        cluster = release.name.removeprefix("sahab-").removesuffix("-cni-release")
        assert release.provider.endswith(f"::sahab-{cluster}-k8s")
        assert release.inputs["version"] == "1.19.4"
        values = release.inputs["values"]
        assert values["encryption"] == {"enabled": True, "type": "wireguard"}
        assert values["policyEnforcementMode"] == "default"
        assert values["operator"]["replicas"] == 2  # HA control planes
    # Cloud clusters bring their own CNI.
    assert not any(r.inputs.get("chart", "").endswith("/cilium") and "eks" in r.name for r in releases)


def test_prod_pools_describe_their_nodes_for_the_readiness_verdict(prod):
    pool = next(r for r in prod.resources if r.type == "sahab:onprem:NodePool" and r.name == "sahab-dxb-a100")
    assert pool.inputs["cluster"] == "dxb-onprem"
    assert pool.inputs["accelerator"] == "a100"
    assert pool.inputs["nodes"] == [{"host": "dxb-gpu1", "cpu": 224, "memoryGi": 2048, "gpus": 8}]
    assert pool.inputs["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    assert pool.inputs["controlPlane"] is False


def test_the_onprem_provider_gets_a_credential_less_kubeconfig_before_kubeadm_ran(prod):
    provider = next(r for r in prod.resources if r.type == "pulumi:providers:kubernetes"
                    and r.name == "sahab-auh-onprem-k8s")
    assert provider.inputs["kubeconfig"] == "[secret]"
    doc = yaml.safe_load(credential_less_kubeconfig("auh-onprem", "10.10.0.10:6443"))
    assert doc["clusters"][0]["cluster"]["server"] == "https://10.10.0.10:6443"
    assert doc["users"][0]["user"] == {}
    assert doc["current-context"] == "auh-onprem"
