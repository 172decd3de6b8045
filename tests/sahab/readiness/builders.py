"""Small clusters built with the real SDKs under the engine's mocks, for readiness cases a fleet cannot express.

On-prem clusters follow the on-prem node shape contract (DESIGN.md, issue 13): a `sahab:onprem:Cluster`
component whose converge step hands out the kubeconfig, and `sahab:onprem:NodePool` components whose inputs
describe their nodes. Everything inside the clusters comes from Sahab's real Kubernetes components where one
exists (Platform, TrainingJob), so the objects are the ones a fleet would plan."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_azure_native as azure_native
import pulumi_kubernetes as k8s
import pulumi_random as random
from sahab.components.fleet_config import NodePool, Team, Workload
from sahab.components.kubernetes.gpu_operator import GpuOperator, GpuOperatorArgs
from sahab.components.kubernetes.placement import system_placement
from sahab.components.kubernetes.platform import Platform, PlatformArgs
from sahab.components.kubernetes.training_job import TrainingJob, TrainingJobArgs

from sahab.engine import PlannedResource
from sahab.engine.kubernetes import kubeconfig_yaml
from sahab.readiness import judge
from sahab.readiness.readiness_types import Readiness
from tests.helpers import record

CONTROL_PLANE_TAINT = {"key": "node-role.kubernetes.io/control-plane", "value": "", "effect": "NoSchedule"}
TEAM = Team(name="team", gpu_quota=64, cpu_quota=512, memory_quota_gi=4096)


def planned(program: Callable[[], Any]) -> list[PlannedResource]:
    return record(program).resources


def verdict(program: Callable[[], Any], referenced: Callable[[], Any] | None = None) -> Readiness:
    return judge(planned(program), planned(referenced) if referenced else ())


def asking(resources: list[PlannedResource], workload: str, resource: str, amount: int) -> list[PlannedResource]:
    """The plan with `workload`'s containers (e.g. `Job team/train-x`) asking `amount` of `resource` (requests and
    limits alike): a workload the schema no longer writes (e.g. whole GPUs on a time-sliced pool, which the fleet
    refuses for its own training Jobs) but a user's own object may still ask for."""
    from sahab.readiness.workloads import describe

    changed = []
    for res in resources:
        if res.type.startswith("kubernetes:") and describe(res) == workload:
            res = copy.deepcopy(res)
            for container in res.inputs["spec"]["template"]["spec"]["containers"]:
                for field in ("requests", "limits"):
                    container.setdefault("resources", {}).setdefault(field, {})[resource] = str(amount)
        changed.append(res)
    assert changed != resources, f"{workload} is not in the plan"
    return changed


def on(provider: k8s.Provider, **kwargs) -> pulumi.ResourceOptions:
    return pulumi.ResourceOptions(provider=provider, **kwargs)


# ---- clusters -------------------------------------------------------------------------------------------
def eks_cluster(name: str = "c1", *, addons: tuple[str, ...] = ("vpc-cni", "kube-proxy", "aws-ebs-csi-driver"),
                enforce_policies: bool = True) -> tuple[aws.eks.Cluster, k8s.Provider]:
    cluster = aws.eks.Cluster(name, name=name, role_arn="arn:aws:iam::111122223333:role/eks",
                              vpc_config={"subnet_ids": ["subnet-1", "subnet-2"]},
                              bootstrap_self_managed_addons=False)
    for addon in addons:
        settings = json.dumps({"enableNetworkPolicy": "true"}) if addon == "vpc-cni" and enforce_policies else None
        aws.eks.Addon(f"{name}-{addon}", cluster_name=cluster.name, addon_name=addon, configuration_values=settings)
    provider = k8s.Provider(f"{name}-k8s", kubeconfig=pulumi.Output.secret(
        cluster.endpoint.apply(lambda endpoint: kubeconfig_yaml(name, endpoint))))
    return cluster, provider


def node_group(cluster: aws.eks.Cluster, pool: str, instance_type: str, *, min_size: int = 1, max_size: int = 1,
               desired: int | None = None, labels: dict | None = None, taints: tuple[dict, ...] = ()) -> None:
    aws.eks.NodeGroup(f"{pool}-ng", cluster_name=cluster.name, node_role_arn="arn:aws:iam::111122223333:role/node",
                      subnet_ids=["subnet-1"], instance_types=[instance_type],
                      scaling_config={"min_size": min_size, "max_size": max_size,
                                      "desired_size": min_size if desired is None else desired},
                      labels={"sahab.io/pool": pool, **(labels or {})}, taints=list(taints))


def aks_cluster(name: str = "a1", *, network_policy: str | None = "cilium",
                pools: tuple[dict, ...] = ()) -> k8s.Provider:
    cs = azure_native.containerservice
    cluster = cs.ManagedCluster(
        name, resource_name_=name, resource_group_name="rg", location="uaenorth", dns_prefix=name,
        agent_pool_profiles=[{"name": "system", "mode": "System", "vm_size": "Standard_D4s_v5", "count": 2,
                              "node_taints": ["CriticalAddonsOnly=true:NoSchedule"]}],
        network_profile={"network_plugin": "azure", "network_plugin_mode": "overlay", "network_policy": network_policy})
    for pool in pools:
        cs.AgentPool(f"{name}-{pool['name']}", agent_pool_name=pool["name"], resource_name_=cluster.name,
                     resource_group_name="rg", vm_size=pool["vm_size"], count=pool.get("count", 1), mode="User",
                     enable_auto_scaling=pool.get("autoscale", False), node_labels=pool.get("labels"),
                     node_taints=pool.get("taints"))
    return k8s.Provider(f"{name}-k8s", kubeconfig=pulumi.Output.secret(
        cluster.name.apply(lambda n: kubeconfig_yaml(n, f"https://{n}.hcp.uaenorth.azmk8s.io:443"))))


def onprem_node(host: str, cpu: int = 32, memory_gi: int = 128, gpus: int = 0) -> dict:
    return {"host": host, "cpu": cpu, "memoryGi": memory_gi, "gpus": gpus}


def onprem_cluster(name: str, pools: list[dict], *, cni: str | None = "cilium") -> k8s.Provider:
    """A kubeadm cluster: its control plane, pools as the on-prem contract describes them, and (by default) the
    CNI Helm release the on-prem platform installs."""
    control_plane = pulumi.ComponentResource("sahab:onprem:Cluster", name)
    converge = random.RandomString(f"{name}-control-plane", length=8,
                                   opts=pulumi.ResourceOptions(parent=control_plane))
    for pool in pools:
        props = {"cluster": name, "accelerator": pool.get("accelerator", "cpu"), "labels": pool["labels"],
                 "taints": pool.get("taints", []), "nodes": pool["nodes"],
                 "controlPlane": pool.get("controlPlane", False)}
        pulumi.ComponentResource("sahab:onprem:NodePool", f"{name}-{pool['name']}", props,
                                 opts=pulumi.ResourceOptions(depends_on=[converge]))
    provider = k8s.Provider(f"{name}-k8s", kubeconfig=pulumi.Output.secret(
        converge.result.apply(lambda _: kubeconfig_yaml(name, f"https://{name}.example.internal:6443"))))
    if cni:
        release(provider, cni, "kube-system")
    return provider


def onprem_pool(pool: NodePool, nodes: list[dict], taints: list[dict] | None = None,
                node_labels: dict | None = None, **extra) -> dict:
    """A pool's contract inputs from the fleet's NodePool (its labels and taints, as the on-prem component sends).
    `node_labels`: labels the nodes carry besides the pool's own, ones the schema keeps out of a pool's `labels`
    (e.g. the MIG manager's `nvidia.com/mig.config` layout)."""
    listed = taints if taints is not None else [{"key": t.key, "value": t.value, "effect": t.effect}
                                                for t in pool.taints]
    return {"name": pool.name, "accelerator": pool.accelerator, "labels": {**pool.node_labels, **(node_labels or {})},
            "taints": listed, "nodes": nodes, **extra}


# ---- what runs inside ------------------------------------------------------------------------------------
def platform(provider: k8s.Provider, kind: str, pools: tuple[NodePool, ...], **kwargs) -> Platform:
    """The Platform as Fleet makes it for a fleet that trains: with the node validator whose verdict the
    training Jobs require."""
    kwargs.setdefault("validator_image", Workload().image)
    return Platform(f"{kind}-platform", PlatformArgs(cluster_kind=kind, pools=pools, teams=(TEAM,), **kwargs),
                    opts=pulumi.ResourceOptions(providers={"kubernetes": provider}))


def gpu_operator(provider: k8s.Provider, kind: str, pools: tuple[NodePool, ...]) -> GpuOperator:
    """GPU enablement alone, as the Platform installs it (for clusters that must not get the Platform's Kueue)."""
    return GpuOperator(f"{kind}-gpu", GpuOperatorArgs(cluster_kind=kind, pools=tuple(p for p in pools if p.is_gpu),
                                                      placement=system_placement(pools)),
                       opts=pulumi.ResourceOptions(providers={"kubernetes": provider}))


def training(provider: k8s.Provider, pool: NodePool, storage_class: pulumi.Input[str] = "sahab-encrypted",
             queue: str = TEAM.name, **kwargs) -> TrainingJob:
    """A queued training Job in the team's LocalQueue (the Platform's Kueue makes one per team, named after it)."""
    return TrainingJob(f"{pool.name}-training", TrainingJobArgs(pool=pool, team=TEAM, workload=Workload(),
                                                                queue=queue, storage_class=storage_class,
                                                                **kwargs),
                       opts=pulumi.ResourceOptions(providers={"kubernetes": provider}))


def release(provider: k8s.Provider, chart: str, namespace: str, values: dict | None = None) -> k8s.helm.v3.Release:
    return k8s.helm.v3.Release(f"{chart}-{namespace}", name=chart, chart=chart, namespace=namespace,
                               values=values or {}, opts=on(provider))


def job(provider: k8s.Provider, name: str, *, requests: dict, parallelism: int = 1, labels: dict | None = None,
        namespace: str = "team", tolerations: list | None = None, node_selector: dict | None = None,
        claim_class: str | None = None, volumes: bool = False) -> k8s.batch.v1.Job:
    pod: dict = {"restartPolicy": "Never", "tolerations": tolerations or [], "nodeSelector": node_selector or {},
                 "containers": [{"name": "main", "image": "busybox:1.37.0",
                                 "resources": {"requests": requests, "limits": requests}}]}
    if volumes:
        pod["volumes"] = [{"name": "data", "ephemeral": {"volumeClaimTemplate": {"spec": {
            "accessModes": ["ReadWriteOnce"], "storageClassName": claim_class,
            "resources": {"requests": {"storage": "10Gi"}}}}}}]
    return k8s.batch.v1.Job(name, metadata={"name": name, "namespace": namespace, "labels": labels or {}},
                            spec={"parallelism": parallelism, "completions": parallelism, "suspend": bool(labels),
                                  "template": {"spec": pod}}, opts=on(provider))


def kueue_queues(provider: k8s.Provider, *, quota: dict, flavor_labels: dict | None = None,
                 local_queue: str = "training", cluster_queue: str = "cq", namespace: str = "team",
                 cluster_queue_exists: bool = True) -> None:
    api = "kueue.x-k8s.io/v1beta1"
    k8s.apiextensions.CustomResource("flavor", api_version=api, kind="ResourceFlavor",
                                     metadata={"name": "default"}, spec={"nodeLabels": flavor_labels or {}},
                                     opts=on(provider))
    if cluster_queue_exists:
        k8s.apiextensions.CustomResource("cq", api_version=api, kind="ClusterQueue", metadata={"name": cluster_queue},
                                         spec={"namespaceSelector": {}, "resourceGroups": [{
                                             "coveredResources": list(quota),
                                             "flavors": [{"name": "default", "resources": [
                                                 {"name": r, "nominalQuota": q} for r, q in quota.items()]}]}]},
                                         opts=on(provider))
    k8s.apiextensions.CustomResource("lq", api_version=api, kind="LocalQueue",
                                     metadata={"name": local_queue, "namespace": namespace},
                                     spec={"clusterQueue": cluster_queue}, opts=on(provider))
