"""Fleet's platform wiring: one Kubernetes provider per cluster, from the cluster component when there is one."""

import pulumi
import pytest
from sahab.components.fleet import Fleet
from sahab.components.fleet_config import parse_fleet

from sahab.engine.kubernetes import kubeconfig_yaml
from sahab.errors import ConfigError
from tests.components.kubernetes.harness import one, record

KEY_ARN = "arn:aws:kms:me-central-1:111122223333:key/5d0c3b7e-2f4a-4c1d-9e8b-6a7f1c2d3e4f"
CONFIG = {
    "environment": "dev",
    "clouds": {"aws": {}},
    "clusters": [{"name": "eks-one", "kind": "eks"}],
    "node_pools": [{"name": "gpus", "cluster": "eks-one", "accelerator": "l40s"}],
}


class FakeEks(pulumi.ComponentResource):
    """What the EKS cluster component exposes to Fleet."""

    def __init__(self, name: str):
        super().__init__("test:index:FakeEks", name)
        self.kind = "eks"
        self.kubeconfig = pulumi.Output.secret(kubeconfig_yaml(name, "https://EKS.gr7.me-central-1.eks.amazonaws.com"))
        self.storage_encryption_id = pulumi.Output.from_input(KEY_ARN)
        self.register_outputs({})


class FleetWithCluster(Fleet):
    def _clusters(self):
        return {"eks-one": FakeEks("eks-one")}


def test_platform_uses_the_cluster_components_kubeconfig_and_key():
    resources = record(lambda: FleetWithCluster("sahab", parse_fleet(CONFIG)))
    provider = one(resources, "pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"] == "[secret]"
    assert "context" not in provider.inputs
    sc = one(resources, "kubernetes:storage.k8s.io/v1:StorageClass")
    assert sc.inputs["parameters"]["kmsKeyId"] == KEY_ARN
    assert sc.provider == provider.urn
    gpu_release = one(resources, "kubernetes:helm.sh/v3:Release", "sahab-eks-one-platform-gpu-release")
    assert gpu_release.provider == provider.urn


class FleetWithoutComponents(Fleet):
    def _clusters(self):
        return {}


def test_a_cluster_without_a_component_is_reached_through_its_kubeconfig_context():
    resources = record(lambda: FleetWithoutComponents("sahab", parse_fleet(CONFIG)))
    provider = one(resources, "pulumi:providers:kubernetes")
    assert provider.inputs == {"context": "eks-one"}
    sc = one(resources, "kubernetes:storage.k8s.io/v1:StorageClass")
    assert sc.inputs["parameters"]["encrypted"] == "true"


def test_an_operator_installed_driver_on_eks_is_refused_naming_the_pool():
    config = {**CONFIG, "node_pools": [
        {"name": "gpus", "cluster": "eks-one", "accelerator": "l40s"},
        {"name": "more-gpus", "cluster": "eks-one", "accelerator": "l40s", "gpu_driver": "operator"}]}
    with pytest.raises(ConfigError) as caught:
        parse_fleet(config)
    assert caught.value.path == "sahab:fleet.node_pools[1].gpu_driver"
    assert "AL2023 NVIDIA AMI" in caught.value.message and "allowed: preinstalled" in caught.value.message
