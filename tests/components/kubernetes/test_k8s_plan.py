"""The platform in the real stacks' plans: schema-valid objects, on the right clusters, secure by default."""

import pytest
from sahab.components.fleet_config import Monitoring, NodePool, Team
from sahab.components.kubernetes.platform import Platform, PlatformArgs

from tests.components.kubernetes.harness import of_type, with_provider
from tests.components.kubernetes.manifests import is_manifest, manifest, validate
from tests.plans import stack_plan

RELEASE = "kubernetes:helm.sh/v3:Release"


@pytest.fixture(scope="module")
def plans():
    return {stack: stack_plan(stack) for stack in ("prod", "dev", "smb", "burst")}


@pytest.mark.parametrize("stack", ["prod", "dev", "smb"])
def test_every_kubernetes_object_validates_against_the_1_31_schemas(plans, stack):
    manifests = [r for r in plans[stack].resources if is_manifest(r)]
    assert manifests
    problems = {f"{r.type} {r.name}": validate(manifest(r)) for r in manifests}
    assert {k: v for k, v in problems.items() if v} == {}
    kinds = {r.inputs["kind"] for r in manifests}
    if stack == "prod":
        assert {"PrometheusRule", "ServiceMonitor", "NetworkPolicy", "StorageClass", "Deployment"} <= kinds


def test_every_kueue_object_of_the_four_stacks_is_valid_against_the_pinned_releases_crds(plans):
    from tests.components.kubernetes.manifests import crd_validators

    vendored = {key for key in crd_validators() if key[0].startswith("kueue.x-k8s.io/")}
    checked = set()
    for stack, planned in plans.items():
        kueue = [r for r in planned.resources
                 if is_manifest(r) and r.inputs["apiVersion"].startswith("kueue.x-k8s.io/")]
        assert kueue, stack
        for resource in kueue:
            body = manifest(resource)
            assert (body["apiVersion"], body["kind"]) in vendored, f"{stack}: {resource.name}"
            assert validate(body) == [], f"{stack}: {resource.name}"
            checked.add(body["kind"])
    assert checked == {kind for _, kind in vendored}  # every vendored kind is one the fleet creates


def test_validation_catches_a_misspelt_field():
    policy = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "x"},
              "spec": {"podSelector": {}, "policyType": ["Ingress"]}}
    assert validate(policy)


def test_validation_catches_a_broken_custom_resource():
    rule = {"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule", "metadata": {"name": "x"},
            "spec": {"groups": [{"name": "g", "rules": [{"alert": "A"}]}]}}
    assert any("expr" in p for p in validate(rule))
    monitor = {"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor", "metadata": {"name": "x"},
               "spec": {"selector": {}, "endpoints": [{"port": "m", "intervall": "15s"}]}}
    assert any("intervall" in p for p in validate(monitor))
    assert validate({"apiVersion": "example.com/v1", "kind": "Unknown", "metadata": {"name": "x"}})


def _platform_resources(plan_, cluster):
    return [r for r in plan_.resources if f"-{cluster}-platform" in r.name]


def test_prod_has_a_platform_on_every_cluster_each_through_its_own_provider(plans):
    prod = plans["prod"]
    for cluster in ("auh-onprem", "dxb-onprem", "eks-main", "aks-main"):
        resources = [r for r in _platform_resources(prod, cluster) if r.custom and r.type.startswith("kubernetes:")]
        assert resources
        providers = {r.provider for r in resources}
        assert len(providers) == 1
        (provider,) = providers
        assert provider.endswith(f"::sahab-{cluster}-k8s"), provider
        # Every cluster in prod has GPU pools: GPU enablement and DCGM scraping everywhere.
        releases = {r.inputs["chart"].rsplit("/", 1)[-1] for r in of_type(resources, RELEASE)}
        efa = {"aws-efa-k8s-device-plugin"} if cluster == "eks-main" else set()  # EKS: for EFA pools, any stack's
        assert releases == {"gpu-operator", "kube-prometheus-stack", "kueue"} | efa
        assert of_type(resources, "kubernetes:monitoring.coreos.com/v1:ServiceMonitor")


def test_each_cluster_has_exactly_one_default_class_and_it_encrypts(plans):
    for stack in ("prod", "dev", "smb"):
        classes = of_type(plans[stack].resources, "kubernetes:storage.k8s.io/v1:StorageClass")
        clusters = {c.name.split("-platform")[0] for c in classes}
        assert len(classes) == len(clusters) >= 1
        for sc in classes:
            inputs = sc.inputs
            assert inputs["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] == "true"
            # EBS only when asked; Azure disks always (the platform key unless a Disk Encryption Set is
            # named); on-prem through the LUKS-backed provisioner.
            encrypted = (inputs["parameters"].get("encrypted") == "true"
                         or inputs["provisioner"] == "disk.csi.azure.com"
                         or inputs["metadata"]["annotations"].get("sahab.io/encryption") == "luks")
            assert encrypted, sc.name


def test_privileged_pod_security_only_in_system_namespaces(plans):
    for stack in ("prod", "dev", "smb"):
        for ns in of_type(plans[stack].resources, "kubernetes:core/v1:Namespace"):
            labels = ns.inputs["metadata"]["labels"]
            if labels["pod-security.kubernetes.io/enforce"] == "privileged":
                assert ns.inputs["metadata"]["name"] in ("gpu-operator", "node-exporter", "sahab-storage")
            else:
                assert labels["pod-security.kubernetes.io/enforce"] in ("restricted", "baseline")


def test_smb_cpu_only_cluster_gets_no_gpu_enablement(plans):
    smb = plans["smb"]
    # Cilium is the on-prem pod network (components.kubernetes.cilium) and Kueue the queue: neither is GPU enablement.
    charts = sorted(r.inputs["chart"].rsplit("/", 1)[-1] for r in of_type(smb.resources, RELEASE))
    assert charts == ["cilium", "kube-prometheus-stack", "kueue"]
    assert not of_type(smb.resources, "kubernetes:monitoring.coreos.com/v1:ServiceMonitor")
    quota = next(r for r in of_type(smb.resources, "kubernetes:core/v1:ResourceQuota")
                 if r.inputs["metadata"]["name"] == "compute")
    assert quota.inputs["spec"]["hard"]["requests.nvidia.com/gpu"] == "0"


def test_burst_stack_installs_no_platform_on_clusters_it_borrows(plans):
    # It adds only the burst queues and the queued Jobs; the platform stays the owning stack's.
    assert not [r for r in plans["burst"].resources if r.type == "sahab:kubernetes:Platform"]
    assert not [r for r in plans["burst"].resources if r.type == "kubernetes:helm.sh/v3:Release"]


def test_platform_without_gpus_or_monitoring_installs_only_the_queue_controller():
    args = PlatformArgs(cluster_kind="aks", pools=(NodePool(name="cpu", cluster="c"),),
                        monitoring=Monitoring(enabled=False), teams=(Team(name="research"),))
    resources = with_provider(lambda o: Platform("p", args, opts=o))
    assert [r.inputs["chart"].rsplit("/", 1)[-1] for r in of_type(resources, RELEASE)] == ["kueue"]
    # EKS adds AWS's EFA device plugin, idle until an EFA pool (this stack's or a burst stack's) has nodes
    eks = with_provider(lambda o: Platform("p", args.model_copy(update={"cluster_kind": "eks"}), opts=o))
    assert sorted(r.inputs["chart"].rsplit("/", 1)[-1] for r in of_type(eks, RELEASE)) == [
        "aws-efa-k8s-device-plugin", "kueue"]
    assert of_type(resources, "kubernetes:storage.k8s.io/v1:StorageClass")
    assert len(of_type(resources, "kubernetes:scheduling.k8s.io/v1:PriorityClass")) == 3


def test_platform_refuses_duplicate_teams():
    with pytest.raises(ValueError, match="duplicate team names: research"):
        PlatformArgs(cluster_kind="eks", teams=(Team(name="research"), Team(name="research")))


def _release(plan_, cluster, chart):
    return next(r for r in of_type(_platform_resources(plan_, cluster), RELEASE)
                if r.inputs["chart"].rsplit("/", 1)[-1] == chart)


def test_services_run_on_cpu_pools_or_tolerate_gpu_nodes_where_there_are_none(plans):
    # prod's EKS cluster has a CPU pool: Prometheus and the GPU operator's controllers are pinned there.
    eks = _release(plans["prod"], "eks-main", "kube-prometheus-stack").inputs["values"]
    assert eks["prometheus"]["prometheusSpec"]["nodeSelector"] == {"sahab.io/accelerator": "cpu"}
    operator = _release(plans["prod"], "eks-main", "gpu-operator").inputs["values"]["operator"]
    assert operator["nodeSelector"] == {"kubernetes.io/os": "linux", "sahab.io/accelerator": "cpu"}
    # dev's lab cluster is one GPU server: the services tolerate its GPU taint instead.
    lab = _release(plans["dev"], "lab", "kube-prometheus-stack").inputs["values"]
    gpu = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    for component in (lab["prometheus"]["prometheusSpec"], lab["grafana"], lab["prometheusOperator"],
                      lab["kube-state-metrics"], lab["alertmanager"]["alertmanagerSpec"]):
        assert component["nodeSelector"] == {}
        assert gpu in component["tolerations"]
    provisioner = next(r for r in of_type(_platform_resources(plans["dev"], "lab"), "kubernetes:apps/v1:Deployment"))
    assert gpu in provisioner.inputs["spec"]["template"]["spec"]["tolerations"]


@pytest.mark.parametrize("name", ["monitoring", "kube-system", "gpu-operator"])
def test_a_team_cannot_take_a_system_namespace(name):
    with pytest.raises(ValueError, match=f"system namespaces: {name}"):
        PlatformArgs(cluster_kind="eks", teams=(Team(name=name),))
